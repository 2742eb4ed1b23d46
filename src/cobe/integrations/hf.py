"""A run as a Hugging Face dataset folder: per-response details as Parquet, a results JSON and a card.

The folder is a dataset repository as the Hub lays one out, so `load_dataset(DIR, "details")`
reads it here and `huggingface-cli upload ORG/NAME DIR --repo-type dataset` (or
`load_dataset(DIR, "details")["train"].push_to_hub(...)`) publishes it. The Parquet file and the
card are written through `datasets` and `huggingface_hub` (the `hf` extra).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from cobe.core.errors import InputError
from cobe.core.extras import require
from cobe.core.files import atomic_write, ensure_dir
from cobe.core.version import __version__
from cobe.dataset.hub import quiet
from cobe.integrations.source import RunExport, Usage, key, load_run, scoreboard
from cobe.judge import CHECKS
from cobe.score.rule import MEAN_RULE, POOLED_RULE, rule_definition

DETAILS = Path("data") / "details.parquet"
RESULTS = "results.json"
CARD = "README.md"
# per-check dicts of a result row, spread into one column per check
_PER_CHECK = {"verdicts": "verdict", "judge_raw": "judge_raw", "p_true": "p_true", "unscored": "unscored"}


@dataclass
class HfExport:
    """What `export_hf` wrote."""

    out: Path
    rows: int
    files: list[Path]


def details_frame(run: RunExport) -> pd.DataFrame:
    """One row per response: every result field, one column per check, and respondent and judge tokens."""
    records = []
    for row in run.rows:
        flat = {k: v for k, v in row.items() if k not in _PER_CHECK}
        for column, prefix in _PER_CHECK.items():
            for check in CHECKS:
                flat[f"{prefix}_{check}"] = (row.get(column) or {}).get(check)
        usage, judge = run.respondent_usage.get(key(row), Usage()), run.judge_usage.get(key(row), Usage())
        flat.update(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            judge_input_tokens=judge.input_tokens,
            judge_output_tokens=judge.output_tokens,
        )
        records.append(flat)
    return pd.DataFrame.from_records(records)


def export_hf(run_path: str | Path, out: str | Path) -> HfExport:
    """Write DIR/data/details.parquet, DIR/results.json and DIR/README.md (a dataset card) for one run."""
    datasets = require("datasets", "hf", "cobe export --to hf")
    hub = require("huggingface_hub", "hf", "cobe export --to hf")
    run = load_run(run_path)
    out_dir = Path(out)
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise InputError(f"{out_dir}: already exists and is not empty; expected a new folder for the dataset")
    made = not out_dir.exists()
    ensure_dir(out_dir / DETAILS.parent, "folder for the dataset")
    try:
        frame = details_frame(run)
        with quiet(datasets):
            datasets.Dataset.from_pandas(frame, preserve_index=False).to_parquet(str(out_dir / DETAILS))
        results = _results(run)
        atomic_write(out_dir / RESULTS, json.dumps(results, indent=2) + "\n")
        card = hub.DatasetCard(_card(hub, run, results))
        card.save(str(out_dir / CARD))
    except BaseException:
        # a folder half written (a full disk, Ctrl-C) would refuse the next export as not empty: it goes
        for written in [out_dir] if made else list(out_dir.iterdir()):
            if written.is_dir():
                shutil.rmtree(written, ignore_errors=True)
            else:
                written.unlink(missing_ok=True)
        raise
    return HfExport(out_dir, len(frame), [out_dir / DETAILS, out_dir / RESULTS, out_dir / CARD])


def _results(run: RunExport) -> dict[str, Any]:
    board = scoreboard(run)
    # the method each model's CI actually used: core examples where scenarios come in families
    methods = sorted({str(m["ci_method"]) for m in board.values() if m.get("ci_method")})
    rules = sorted({str(m.get("rule") or MEAN_RULE) for m in board.values()})  # mean over phrasings first
    defined = " or, where a model's rule is pooled, ".join(map(rule_definition, rules))
    judge = {"spec": run.judge.spec, "prompts": run.judge.prompts, "fingerprint": run.judge.fingerprint}
    if run.judge.source:
        judge["verdicts_from"] = run.judge.source
    return {
        "benchmark": "CoBe",
        "cobe_version": __version__,
        "run_id": run.run_id,
        "data": run.summary.get("data"),
        "judge": judge,
        "accuracy_definition": (
            f"percent; {defined}; a response passes "
            "only when all three checks (connectors, preserve, change) say T (or, for a source's one verdict per "
            "response, when that verdict is a pass); the CI is a "
            f"{' or a '.join(methods) or '95% percentile bootstrap (none drawn)'}; unscored responses are left out "
            "and counted"
        ),
        "models": board,
    }


def _card(hub: Any, run: RunExport, results: dict[str, Any]) -> str:
    models = list(results["models"])
    meta = hub.DatasetCardData(
        pretty_name=f"CoBe results: {', '.join(models)}",
        tags=["cobe", "evaluation", "counterfactual-editing", "llm-as-judge"],
        configs=[{"config_name": "details", "data_files": [{"split": "train", "path": DETAILS.as_posix()}]}],
    )
    lines = [
        "---",
        meta.to_yaml(),
        "---",
        "",
        "# CoBe evaluation results",
        "",
        "Responses to the CoBe benchmark of conversational counterfactual text editing. Verdicts: "
        f"{run.judge.described()}. Written by `cobe export --to hf`.",
        "",
        "| model | accuracy % | ± std | 95% CI | passes / scored | unscored | errors |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for model, m in results["models"].items():
        ci = "–" if m.get("ci_low") is None else f"[{m['ci_low']:.1f}, {m['ci_high']:.1f}]"
        lines.append(
            f"| `{model}` | {_fmt(m['accuracy'])} | {'(pooled)' if m.get('rule') == POOLED_RULE else _fmt(m['std'])} "
            f"| {ci} | {m['passes']} / {m['scored']} "
            f"| {m['unscored']} | {m['errors']} |"
        )
    lines += [
        "",
        f"Accuracy is in {results['accuracy_definition']}.",
        "",
        f"`{DETAILS.as_posix()}` holds one row per response: the scenario, template and prompt, the response, "
        "`verdict_<check>` (T, F, or empty when unscored), the judge's raw answers and token counts. "
        f"`{RESULTS}` holds the scores above.",
        "",
        "```python",
        "from datasets import load_dataset",
        'details = load_dataset("ORG/NAME", "details", split="train")',
        "```",
    ]
    return "\n".join(lines) + "\n"


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"
