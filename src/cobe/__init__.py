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
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("cobe")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+source"

_EXPORTS = {
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
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cobe' has no attribute {name!r}")
    return getattr(import_module(module), name)
