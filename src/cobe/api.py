"""The Python API in one place: what each `cobe` command does, as functions returning data."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

if TYPE_CHECKING:
    import pandas as pd

    from cobe.judge.prompt_diff import JudgeDiff
    from cobe.report.writer import Report
    from cobe.run.config import EvalOptions, RunSummary


def run_eval(
    model: str | Sequence[str],
    judge: str | Sequence[str] | None,
    data: str | Path = "builtin:starter",
    **options: Unpack[EvalOptions],
) -> RunSummary:
    """`cobe eval`: generate and judge; `judge` is one spec or a panel's list (each check: the judges' strict
    majority); `options` are the other EvalConfig fields (templates, tier, limit, run_dir, judge_samples …)."""
    from cobe.run.config import EvalConfig
    from cobe.run.engine import evaluate

    models = [model] if isinstance(model, str) else list(model)
    judges = judge if judge is None or isinstance(judge, str) else list(judge)
    return evaluate(EvalConfig(models=models, judge=judges, data=str(data), **options))


def results(runs: str | Path | Sequence[str | Path]) -> pd.DataFrame:
    """Every result row of one or many run directories (or results.jsonl files) as a DataFrame.

    The columns are results.jsonl's fields, each once, plus `scored`, `label` and `source`: `passed` is a
    nullable boolean, missing for unscored, errored and pending rows (not failed), so
    `frame.groupby("model")["passed"].mean()` is passes / scored; `run_id` is the run's id as its results.jsonl
    gives it, `source` the directory it was read from, and `label` the model, with its run where one model
    comes from several runs.
    """
    from cobe.report.load import load_runs

    paths = [runs] if isinstance(runs, (str, Path)) else list(runs)
    # the report's own spellings (`pass`, `run`) are the same facts again: one name for each
    return load_runs(paths).frame.drop(columns=["pass", "run"], errors="ignore")


def leaderboard(
    runs: str | Path | Sequence[str | Path],
    resamples: int = 1000,
    seed: int = 0,
    *,
    study: str | Path | None = None,
) -> pd.DataFrame:
    """The paper's Table 5 for one or many runs: accuracy by each model's `rule` (± std across phrasings, or
    pooled where its phrasings were asked of different scenarios), with 95% CIs, the judge
    and judge prompt set of each row, and beside it the human-calibrated pass rate where a rating study
    (`<run>/study/` or `study`) labels the run."""
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
    across_judges: bool = False,
    across_data: bool = False,
) -> Report:
    """`cobe report`: every table, figure, report.md and report.html (`formats` defaults to all of them);
    a rating study (`<run>/study/` or `study`) adds the human-calibrated pass rates. Several runs judged by
    different judges or prompt sets are refused unless `across_judges`, and runs on different datasets or
    scenario sets unless `across_data`."""
    from cobe.annotate.labels import run_labels
    from cobe.report.writer import DEFAULT_FORMATS, build_report

    paths = [runs] if isinstance(runs, (str, Path)) else list(runs)
    chosen = DEFAULT_FORMATS if formats is None else formats
    human = run_labels(paths, study)
    return build_report(
        paths, out, chosen, resamples, seed, human=human, across_judges=across_judges, across_data=across_data
    )


def judges_diff(
    run: str | Path,
    prompts: str | Sequence[str] = ("paper", "contextual"),
    judge: str | Sequence[str] | None = None,
    *,
    judge_samples: int | None = None,
) -> JudgeDiff:
    """`cobe judges diff`: verdict flips between two judge prompt sets on a run (`.table` per check and overall).

    Without `judge` the run's own judge is compared and a missing verdict is an error; with it, what
    either set lacks is judged first.
    """
    from cobe.run.rejudge import judges_diff as diff

    return diff(run, prompts, judge, judge_samples=judge_samples)
