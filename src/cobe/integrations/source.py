"""A run directory as the exports read it: result rows, summary, judge identity, scenarios and token usage."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.core.errors import InputError
from cobe.core.jsonfile import read_json
from cobe.judge.verdict_source import imported_verdicts
from cobe.report.load import read_results, results_path
from cobe.store import STORE_NAME, Store
from cobe.store.damage import json_object

if TYPE_CHECKING:
    import pandas as pd

#: (model, scenario id, template): how a response is found in the store and in results.jsonl
ResponseKey = tuple[str, str, str]


@dataclass(frozen=True)
class Usage:
    """Tokens and estimated cost of one response, or of the judge calls on it."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class JudgeIdentity:
    """Which judge produced a run's verdicts: spec, prompt set, its fingerprint and call settings."""

    spec: str | None
    prompts: str | None
    fingerprint: str | None
    settings: dict[str, Any] = field(default_factory=dict)
    # where the verdicts came from when no cobe judge gave them (an import): e.g. "published verdicts of the CoBe
    # site (…)"; None for a cobe judge's
    source: str | None = None
    source_by: str | None = None  # who gave those verdicts, where the import knew (the CoBe authors)

    def described(self) -> str:
        """Who gave the verdicts, in words every export uses: the source, or the judge with its prompt set."""
        if self.source:
            named = f"verdict set `{self.spec}`; " if self.spec else ""
            return f"{self.source} ({named}no cobe judge gave them)"
        if not self.spec:
            return "no judge yet"
        return f"`{self.spec}` with the `{self.prompts}` judge prompts (fingerprint `{self.fingerprint}`)"


@dataclass
class RunExport:
    """Everything an export needs from one run directory."""

    run_dir: Path
    rows: list[dict[str, Any]]
    summary: dict[str, Any]
    judge: JudgeIdentity
    scenarios: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → Scenario JSON (from the store)
    respondent_usage: dict[ResponseKey, Usage] = field(default_factory=dict)
    judge_usage: dict[ResponseKey, Usage] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        """The run's id, as results.jsonl gives it."""
        return str(self.rows[0]["run_id"])

    @property
    def models(self) -> list[str]:
        """The respondent models, in first-seen order."""
        return list(dict.fromkeys(row["model"] for row in self.rows))

    def frame(self) -> pd.DataFrame:
        """The rows as the scorers' table."""
        from cobe.score.accuracy import rows_frame

        return rows_frame(self.rows)

    def only(self, model: str, rows: list[dict[str, Any]] | None = None) -> RunExport:
        """The same run cut to one model's rows (`rows`, where the caller already has them) and usage."""
        return replace(
            self,
            rows=rows if rows is not None else [row for row in self.rows if row["model"] == model],
            respondent_usage={k: u for k, u in self.respondent_usage.items() if k[0] == model},
            judge_usage={k: u for k, u in self.judge_usage.items() if k[0] == model},
        )


def key(row: dict[str, Any]) -> ResponseKey:
    """The response key of a result row."""
    return str(row["model"]), str(row["scenario_id"]), str(row["template"])


def load_run(path: str | Path) -> RunExport:
    """Read a run directory (results.jsonl, summary.json, and the store when there is one)."""
    results = results_path(path)
    run_dir = results.parent
    rows = read_results(results)
    if not rows:
        raise InputError(f"{results}: no result rows; nothing to export")
    if any(row.get("epoch", 1) > 1 for row in rows):  # the formats below hold one answer per item
        raise InputError(
            f"{results}: the run holds several epochs (--epochs); exports take runs of one epoch, "
            "e.g. `cobe eval` with --epochs 1 in another --run-dir"
        )
    summary = _summary(run_dir / "summary.json")
    fingerprint = summary.get("judge_fingerprint")
    judged = next((row for row in rows if row.get("judge")), {})
    judge = JudgeIdentity(judged.get("judge"), judged.get("judge_prompts"), fingerprint)
    run = RunExport(run_dir, rows, summary, judge)
    if (run_dir / STORE_NAME).is_file():
        _read_store(run, run_dir / STORE_NAME)
    elif isinstance(summary.get("imported_from"), str):  # `cobe import --from verdicts`: results.jsonl alone
        named = f", judge {judge.spec} as the file names it" if judge.spec else ""
        source = f"verdicts imported from {Path(summary['imported_from']).name} with `cobe import`{named}"
        run.judge = replace(judge, source=source)
    return run


def _imported_source(store: Store, run_id: str, judge: JudgeIdentity) -> JudgeIdentity:
    """The judge with where an imported run's shown verdicts came from, as its import recorded it; unchanged for
    a cobe judge's verdicts."""
    verdicts = imported_verdicts(store, run_id, judge.spec)
    if verdicts is None:
        return judge
    return replace(judge, source=verdicts["from"], source_by=verdicts["by"])


def _summary(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    data = read_json(path, "a run summary (JSON)")
    return data if isinstance(data, dict) else {}


def _read_store(run: RunExport, path: Path) -> None:
    """Scenarios, tokens and judge settings that results.jsonl does not carry."""
    store = Store(path)
    try:
        run.scenarios = {scenario.id: json.loads(doc) for scenario, doc in store.scenarios(run.run_id)}
        responses = store.responses(run.run_id)
        by_id: dict[int, ResponseKey] = {}
        for response_key, row in responses.items():
            by_id[row.id] = response_key
            run.respondent_usage[response_key] = Usage(row.input_tokens, row.output_tokens, row.cost_usd)
        judge = run.judge = _imported_source(store, run.run_id, run.judge)
        if judge.spec and judge.fingerprint:
            totals: dict[ResponseKey, list[float]] = {}
            settings: dict[str, Any] = {}
            for (response_id, _check), verdict in store.verdicts(run.run_id, judge.spec, judge.fingerprint).items():
                found = by_id.get(response_id)
                if found is None:
                    continue
                total = totals.setdefault(found, [0, 0, 0.0])
                total[0] += verdict.input_tokens
                total[1] += verdict.output_tokens
                total[2] += verdict.cost_usd or 0.0
                where = f"verdicts.judge_settings of verdict {verdict.id}"
                settings = settings or json_object(store.path, verdict.judge_settings or "{}", where)
            run.judge_usage = {k: Usage(int(i), int(o), c) for k, (i, o, c) in totals.items()}
            run.judge = replace(judge, settings=settings)
    finally:
        store.close()


def pick_model(run: RunExport, model: str | None) -> str:
    """The one model an export is about: `model` if given, else the run's only model."""
    models = run.models
    if model is not None:
        if model not in models:
            raise InputError(f"{run.run_dir}: no responses of model {model!r}; it holds {', '.join(models)}")
        return model
    if len(models) > 1:
        raise InputError(f"{run.run_dir}: holds {len(models)} models ({', '.join(models)}); choose one with --model")
    return models[0]


def scoreboard(run: RunExport, resamples: int = 1000, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Per model: the accuracy by its rule (± std, or pooled), its 95% CI, per-template accuracy, per-check rates,
    counts."""
    from cobe.score.accuracy import accuracy, by_phrasing, check_failure_rates
    from cobe.score.bootstrap import bootstrap_accuracy

    frame = run.frame()
    board: dict[str, dict[str, Any]] = {}
    for rec in accuracy(frame).to_dict("records"):
        fields = ("accuracy", "std", "rule", "n", "scored", "passes", "unscored", "errors")
        board[rec["model"]] = {k: _plain(rec[k]) for k in fields}
    for rec in bootstrap_accuracy(frame, resamples=resamples, seed=seed).to_dict("records"):
        board[rec["model"]].update(
            ci_low=_plain(rec["ci_low"]),
            ci_high=_plain(rec["ci_high"]),
            resamples=resamples,
            ci_unit=rec["ci_unit"],
            clusters=_plain(rec["clusters"]),
            ci_method=ci_method(rec["ci_unit"], _plain(rec["clusters"]), rec["ci_method"]),
        )
    for rec in by_phrasing(frame).to_dict("records"):
        board[rec["model"]].setdefault("per_template", {})[rec["template"]] = _plain(rec["accuracy"])
    for rec in check_failure_rates(frame).to_dict("records"):
        rate = _plain(rec["failure_rate"])
        board[rec["model"]].setdefault("checks", {})[rec["check"]] = {
            "satisfied_rate": None if rate is None else 100.0 - rate,
            "failure_rate": rate,
            "judged": _plain(rec["judged"]),
        }
    return board


def ci_method(unit: str, clusters: int, method: str | None = None) -> str:
    """The interval's method as the numbers drew it: core examples (clusters) or, where no core holds several,
    scenarios; the exact interval where too few were scored to bootstrap (cobe.score.bootstrap)."""
    from cobe.score.bootstrap import CORE_UNIT, EXACT_METHOD

    drawn = f"core examples ({clusters} clusters)" if unit == CORE_UNIT else f"scenarios ({clusters})"
    if method == EXACT_METHOD:
        return f"95% exact (Clopper–Pearson) interval over {drawn}, each counted as one draw (too few to bootstrap)"
    return f"95% percentile bootstrap, resampling {drawn} with replacement"


def _plain(value: Any) -> Any:
    """numpy scalars → Python; NaN → None, so the numbers are plain JSON."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value
