"""Running evaluations: the store, the scheduler and the engine (generate → judge → exports).

Public API:
- `EvalConfig`, `RunSummary`: what a command asks for and what it returns.
- `evaluate(config)`, `generate(config)`, `judge_run(run_dir, judge, judge_prompts)`, `list_runs(root)`;
  async forms `aevaluate`, `ajudge_run`.
- `Caller`: store + scheduler + cache for any provider call,
  `await Caller.open(path).call(provider, messages, settings, role="judge") -> CallRecord`.
- `judges_diff(run_dir, prompts=("paper", "contextual"), judge=None) -> JudgeDiff`: verdict flips between
  two judge prompt sets on a run's responses.
- `judge_responses(items, judge, judge_prompts, store_path=..., concurrency=...) -> JudgedItems`
  (a list of `JudgedItem` with `.totals`); async form `ajudge_responses`.
- `plan_run(config) -> RunPlan`: a command's plan (items with their messages, judges, notices), built once.
- `Store` (the SQLite file), `Scheduler`, `load_prices`, `default_run_dir`.

Names load on first use: the engine pulls in pandas (for summaries) that `import cobe.run.store`
alone never needs.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cobe.run.caller import Caller
    from cobe.run.config import EMBEDDED_MODEL, SMOKE_NOTICE, DryRunEstimate, EvalConfig, RunSummary
    from cobe.run.cost import Budget, PriceTable, load_prices
    from cobe.run.engine import aevaluate, ajudge_run, evaluate, generate, judge_run
    from cobe.run.judge_diff import JudgeDiff, ajudges_diff, judges_diff
    from cobe.run.judge_pairs import JudgedItem, JudgedItems, ajudge_responses, judge_responses
    from cobe.run.plan import RunPlan, plan_run
    from cobe.run.rundir import default_run_dir, list_runs
    from cobe.run.scheduler import Scheduler
    from cobe.run.store import Store

# name → module
_EXPORTS = {
    "Caller": "caller",
    "EMBEDDED_MODEL": "config",
    "SMOKE_NOTICE": "config",
    "DryRunEstimate": "config",
    "EvalConfig": "config",
    "RunSummary": "config",
    "Budget": "cost",
    "PriceTable": "cost",
    "load_prices": "cost",
    "aevaluate": "engine",
    "ajudge_run": "engine",
    "evaluate": "engine",
    "generate": "engine",
    "judge_run": "engine",
    "JudgeDiff": "judge_diff",
    "ajudges_diff": "judge_diff",
    "judges_diff": "judge_diff",
    "JudgedItem": "judge_pairs",
    "JudgedItems": "judge_pairs",
    "ajudge_responses": "judge_pairs",
    "judge_responses": "judge_pairs",
    "RunPlan": "plan",
    "plan_run": "plan",
    "default_run_dir": "rundir",
    "list_runs": "rundir",
    "Scheduler": "scheduler",
    "Store": "store",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cobe.run' has no attribute {name!r}")
    return getattr(import_module(f"cobe.run.{module}"), name)


__all__ = [
    "Budget",
    "Caller",
    "DryRunEstimate",
    "EMBEDDED_MODEL",
    "EvalConfig",
    "JudgeDiff",
    "JudgedItem",
    "JudgedItems",
    "PriceTable",
    "RunPlan",
    "RunSummary",
    "SMOKE_NOTICE",
    "Scheduler",
    "Store",
    "aevaluate",
    "ajudge_responses",
    "ajudge_run",
    "ajudges_diff",
    "default_run_dir",
    "evaluate",
    "generate",
    "judge_responses",
    "judge_run",
    "judges_diff",
    "list_runs",
    "load_prices",
    "plan_run",
]
