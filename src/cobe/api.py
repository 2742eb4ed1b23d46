"""The Python API in one place: what each `cobe` command does, as functions returning data."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

if TYPE_CHECKING:
    import pandas as pd

    from cobe.report.writer import Report
    from cobe.run.config import EvalOptions, RunSummary


def run_eval(
    model: str | Sequence[str],
    judge: str | None,
    data: str | Path = "builtin:starter",
    **options: Unpack[EvalOptions],
) -> RunSummary:
    """`cobe eval`: generate and judge; `options` are the other EvalConfig fields (templates, tier, limit, run_dir …)."""
    from cobe.run.config import EvalConfig
    from cobe.run.engine import evaluate

    models = [model] if isinstance(model, str) else list(model)
    return evaluate(EvalConfig(models=models, judge=judge, data=str(data), **options))


def results(runs: str | Path | Sequence[str | Path]) -> pd.DataFrame:
    """Every result row of one or many run directories (or results.jsonl files) as a DataFrame."""
    from cobe.report.load import load_runs

    paths = [runs] if isinstance(runs, (str, Path)) else list(runs)
    return load_runs(paths).frame


def leaderboard(
    runs: str | Path | Sequence[str | Path],
    resamples: int = 1000,
    seed: int = 0,
    *,
    study: str | Path | None = None,
) -> pd.DataFrame:
    """The paper's Table 5 for one or many runs: accuracy ± std across phrasings, with bootstrap CIs, and
    beside it the human-calibrated pass rate where a rating study (`<run>/study/` or `study`) labels the run."""
    from cobe.annotate.labels import run_labels
    from cobe.report.load import load_runs
    from cobe.report.tables import build_tables

    paths = [runs] if isinstance(runs, (str, Path)) else list(runs)
    frame = load_runs(paths, run_labels(paths, study)).frame
    return build_tables(frame, resamples=resamples, seed=seed)["leaderboard"]


def report(
    runs: str | Path | Sequence[str | Path],
    out: str | Path | None = None,
    *,
    formats: str | Iterable[str] | None = None,
    resamples: int = 1000,
    seed: int = 0,
    study: str | Path | None = None,
) -> Report:
    """`cobe report`: every table, figure, report.md and report.html (`formats` defaults to all of them);
    a rating study (`<run>/study/` or `study`) adds the human-calibrated pass rates."""
    from cobe.annotate.labels import run_labels
    from cobe.report.writer import DEFAULT_FORMATS, build_report

    paths = [runs] if isinstance(runs, (str, Path)) else list(runs)
    chosen = DEFAULT_FORMATS if formats is None else formats
    return build_report(paths, out, chosen, resamples, seed, human=run_labels(paths, study))
