"""cobe: run the CoBe benchmark of conversational counterfactual text editing.

    import cobe
    data = cobe.load_dataset("builtin:starter")
    summary = cobe.run_eval("openai/gpt-5.4", judge="anthropic/claude-opus-4-7", data="cobe.json")
    table = cobe.leaderboard(summary.run_dir)      # a pandas DataFrame
    rows = cobe.results(summary.run_dir)           # every response with its verdicts

Names load on first use, so `import cobe` pulls in neither pandas nor any provider SDK.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs
    from cobe.api import leaderboard, report, results, run_eval
    from cobe.core.errors import CobeError
    from cobe.core.results import ResultRow
    from cobe.core.version import __version__
    from cobe.dataset import dataset_stats, load_dataset, sample_scenarios, validate_paths, write_dataset
    from cobe.dataset.schema import CausalGraph, FailureMode, GraphType, Scenario
    from cobe.models import get_provider
    from cobe.run.config import EvalConfig
    from cobe.run.engine import evaluate, judge_run
    from cobe.score.agreement import agreement_metrics
    from cobe.score.compare import paired_comparison

# __version__ too: reading it loads importlib.metadata, the slowest import of the `cobe` command's first
# moments, and a Ctrl-C then is only handled once cobe.cli is imported
_EXPORTS = {
    "__version__": "cobe.core.version",
    "Scenario": "cobe.dataset.schema",
    "CausalGraph": "cobe.dataset.schema",
    "GraphType": "cobe.dataset.schema",
    "FailureMode": "cobe.dataset.schema",
    "load_dataset": "cobe.dataset",
    "validate_paths": "cobe.dataset",
    "write_dataset": "cobe.dataset",
    "dataset_stats": "cobe.dataset",
    "sample_scenarios": "cobe.dataset",
    "get_provider": "cobe.models",
    "EvalConfig": "cobe.run.config",
    "evaluate": "cobe.run.engine",
    "judge_run": "cobe.run.engine",
    "run_eval": "cobe.api",
    "results": "cobe.api",
    "leaderboard": "cobe.api",
    "report": "cobe.api",
    "paired_comparison": "cobe.score.compare",
    "agreement_metrics": "cobe.score.agreement",
    "CobeError": "cobe.core.errors",
    "ResultRow": "cobe.core.results",
}

__all__ = [
    "__version__",
    "CausalGraph",
    "CobeError",
    "EvalConfig",
    "FailureMode",
    "GraphType",
    "ResultRow",
    "Scenario",
    "agreement_metrics",
    "dataset_stats",
    "evaluate",
    "get_provider",
    "judge_run",
    "leaderboard",
    "load_dataset",
    "paired_comparison",
    "report",
    "results",
    "run_eval",
    "sample_scenarios",
    "validate_paths",
    "write_dataset",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cobe' has no attribute {name!r}")
    return getattr(import_module(module), name)
