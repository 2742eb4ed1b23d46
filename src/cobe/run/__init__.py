"""Running evaluations: the plan of a command, the engine (generate → judge → exports), re-judging a stored run.

Public API:
- `EvalConfig`, `RunSummary`: what a command asks for and what it returns.
- `evaluate(config)`, `generate(config)`, `judge_run(run_dir, judge, judge_prompts)`, `list_runs(root)`;
  async forms `aevaluate`, `ajudge_run`.
- `judges_diff(run_dir, prompts=("paper", "contextual"), judge=None) -> JudgeDiff`: verdict flips between
  two judge prompt sets on a run's responses.
- `plan_run(config) -> RunPlan`: a command's plan (items with their messages, judges, notices), built once.
- `default_run_dir`.
- From the layers below, for convenience: `Caller`, `Scheduler`, `Budget`, `PriceTable`, `load_prices`
  (`cobe.calls`), `Store` (`cobe.store`), `judge_responses` / `ajudge_responses` with `JudgedItem(s)`
  (`cobe.judge.pairs`).

The names are listed once, in `__init__.pyi`, and load on first use: the engine pulls in pandas (for
summaries) that a caller of `Store` alone never needs.
"""

from cobe.core.lazy import attach

__getattr__, __all__ = attach(__name__, __file__)
