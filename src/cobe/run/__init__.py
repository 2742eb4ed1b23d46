"""Running evaluations: the store, the scheduler and the engine (generate → judge → exports).

Public API:
- `EvalConfig`, `RunSummary`: what a command asks for and what it returns.
- `evaluate(config)`, `generate(config)`, `judge_run(run_dir, judge, judge_prompts)`, `list_runs(root)`;
  async forms `aevaluate`, `ajudge_run`.
- `Caller`: store + scheduler + cache for any provider call,
  `await Caller.open(path).call(provider, messages, settings, role="judge") -> CallRecord`.
- `judge_responses(items, judge, judge_prompts, store_path=..., concurrency=...) -> JudgedItems`
  (a list of `JudgedItem` with `.totals`); async form `ajudge_responses`.
- `Store` (the SQLite file), `Scheduler`, `load_prices`, `default_run_dir`.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# name → module; loaded on first use, because cobe.prompts and cobe.judge import
# cobe.run.records, and an eager engine import here would make that a cycle
_EXPORTS = {
    "CallRecord": "caller",
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
    "CheckResult": "judging",
    "JudgedItem": "judging",
    "JudgedItems": "judging",
    "ajudge_responses": "judging",
    "judge_responses": "judging",
    "CHECKS": "records",
    "ResultRow": "records",
    "row_status": "records",
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
    "CHECKS",
    "EMBEDDED_MODEL",
    "SMOKE_NOTICE",
    "Budget",
    "CallRecord",
    "Caller",
    "CheckResult",
    "DryRunEstimate",
    "EvalConfig",
    "JudgedItem",
    "JudgedItems",
    "PriceTable",
    "ResultRow",
    "RunSummary",
    "Scheduler",
    "Store",
    "aevaluate",
    "ajudge_responses",
    "ajudge_run",
    "default_run_dir",
    "evaluate",
    "generate",
    "judge_responses",
    "judge_run",
    "list_runs",
    "load_prices",
    "row_status",
]
