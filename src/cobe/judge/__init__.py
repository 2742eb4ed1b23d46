"""Judging, in one place: the three checks, verdict parsing, the pass rule, the judge prompt sets
(folders under `cobe/judge/prompts/`: `paper`, the default, and `contextual`), the judge that asks them,
panels of judges and repeated samples with their strict majority, built for every caller by one
constructor (`plan_judges`, then `JudgePanel.from_plan`), batch judging, the verdicts a run shows, the
judge self-test, judging (scenario, response) pairs outside a run, panel analysis, prompt-set diffs,
and `preview`, which shows what a respondent and a judge receive.

    from cobe.judge import CHECKS, row_status, load_judge_prompts
    prompts = load_judge_prompts()  # "paper"
    messages = prompts.messages("preserve", scenario, rewrite)
    judged = judge_responses([(scenario, rewrite)], ["openai/gpt-5.4", "anthropic/claude-opus-4-7"])
"""

from cobe.core.lazy import attach

__getattr__, __all__ = attach(__name__, __file__, keep_listed=True)
