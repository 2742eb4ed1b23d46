"""cobe where researchers already work: inspect_ai, Hugging Face datasets, Every Eval Ever,
lm-evaluation-harness outputs, and training loops (docs/INTEGRATIONS.md).

Public API (each library is an optional extra, imported only when its integration is used):
- `export_inspect(run, out, model=None)`, `import_inspect(log, out, data=None)`; the inspect task
  itself is `cobe.integrations.inspect_task` (inspect loads it as `cobe/cobe`).
- `export_hf(run, out)`: details Parquet + results.json + dataset card. Reading `hf:ORG/NAME`,
  Parquet and `save_to_disk` folders is part of `cobe.dataset.load_dataset`.
- `export_eee(run, out)`: Every Eval Ever aggregate and instance records.
- `import_lm_eval(samples, out, model=None, data=None)`: an lm-eval `--log_samples` file as a run.
- `CobeReward(judge, data, store=...)`, `grpo_rows(data)`: a GRPO reward function and its prompts;
  `export_preference(runs, out)`: chosen/rejected pairs for DPO.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cobe.integrations.eee import EeeExport, export_eee
    from cobe.integrations.hf import HfExport, export_hf
    from cobe.integrations.inspect_log import export_inspect, import_inspect
    from cobe.integrations.lm_eval import import_lm_eval
    from cobe.integrations.preference import PreferenceExport, export_preference, preference_pairs
    from cobe.integrations.reward import CobeReward, grpo_rows
    from cobe.integrations.runs import ImportedRun

# name → module; modules load on first use so `import cobe.integrations` pulls in no optional library
_EXPORTS = {
    "EeeExport": "eee",
    "export_eee": "eee",
    "HfExport": "hf",
    "export_hf": "hf",
    "export_inspect": "inspect_log",
    "import_inspect": "inspect_log",
    "import_lm_eval": "lm_eval",
    "PreferenceExport": "preference",
    "export_preference": "preference",
    "preference_pairs": "preference",
    "CobeReward": "reward",
    "grpo_rows": "reward",
    "ImportedRun": "runs",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cobe.integrations' has no attribute {name!r}")
    return getattr(import_module(f"cobe.integrations.{module}"), name)


__all__ = [
    "CobeReward",
    "EeeExport",
    "HfExport",
    "ImportedRun",
    "PreferenceExport",
    "export_eee",
    "export_hf",
    "export_inspect",
    "export_preference",
    "grpo_rows",
    "import_inspect",
    "import_lm_eval",
    "preference_pairs",
]
