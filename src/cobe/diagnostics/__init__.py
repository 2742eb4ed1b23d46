"""What is asked of the models and judges a run uses, beside a run rather than as one: `cobe models check`
(`models_check.py`: each model's preflight with the settings a run would send it) and `cobe judges agree`
(`judges_agree.py`: every verdict set of a stored run against a reference set, with no model call).

It sits above `cobe.run`, whose configuration, respondent settings, exports and verdict sets it reads, and below
`cobe.report`; the arithmetic of agreement is `cobe.score.set_agreement`."""
