"""cobe where researchers already work: inspect_ai, Hugging Face datasets, Every Eval Ever,
lm-evaluation-harness outputs, and training loops (docs/INTEGRATIONS.md).

Public API (each library is an optional extra, imported only when its integration is used):
- `export_inspect(run, out, model=None)`, `import_inspect(log, out, data=None)`; the inspect task
  itself is `cobe.integrations.inspect_task` (inspect loads it as `cobe/cobe`).
- `export_hf(run, out)`: details Parquet + results.json + dataset card. Reading `hf:ORG/NAME`,
  Parquet and `save_to_disk` folders is part of `cobe.dataset.load_dataset`.
- `export_eee(run, out)`: Every Eval Ever aggregate and instance records.
- `import_lm_eval(samples, out, model=None, data=None)`: an lm-eval `--log_samples` file as a run.
- `import_results(file, out, mapping=None, columns=None, model=None, data=None)`: judged results (CSV, JSON,
  JSONL) as a run; `import_site_results(file, out, model=None)`: the CoBe site's judged result files as a run.
- `CobeReward(judge, data, store=...)`, `grpo_rows(data)`: a GRPO reward function and its prompts;
  `export_preference(runs, out)`: chosen/rejected pairs for DPO.

Each library is an optional extra; the names are listed once, in `__init__.pyi`, and load on first use,
so `import cobe.integrations` pulls in no optional library.
"""

from cobe.core.lazy import attach

__getattr__, __all__ = attach(__name__, __file__)
