"""`cobe report RUN… --against paper`: the run's models beside the paper's nine, in Table 5, Figs. 6-9 and Table 7,
with what makes them comparable or not said first.

The run's numbers are the report's own tables (computed by cobe.score); the paper's come from
`cobe.report.paper`, labelled with their release ("paper (2,000 scenarios × 3 phrasings)") wherever they are
shown. Above them, the comparability block sets the paper's judge, data, tiers, epochs and counting of unscored
rows against each run's. Where the judge or the data differ, every point of that run is "not comparable": the
block says why in one line, the tables say so in their `comparable` column and the figures beside the bar; a run
that is not comparable never takes a rank among the paper's models.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from cobe.core.jsonfile import read_json
from cobe.judge.published import judge_label
from cobe.report.paper import PaperFigures

#: how a paper model is labelled beside a run's (a run's `GPT-5.4-Pro` stays apart from the paper's)
PAPER_SUFFIX = " (paper)"
NOT_COMPARABLE = "not comparable"
#: an aspect's verdict: "same", "differs" (said; the points stand) or NOT_COMPARABLE (the points are marked)
Level = str
_OFFICIAL_ID = re.compile(r"\d+v\d+")
#: the paper's judge, as a spec names it: `anthropic/claude-opus-4-7…`, `Claude-Opus-4.7`
_PAPER_JUDGE = re.compile(r"(^|/)claude-opus-4[.-]7")
#: the figures beside the paper's: (table name, the report table it reads, its group column, its value column)
BESIDE: tuple[tuple[str, str, str, str], ...] = (
    ("error_types", "error_types", "error", "failure_rate"),
    ("graph_type", "graph_type", "graph_type", "accuracy"),
    ("phrasing", "phrasing", "template", "accuracy"),
    ("failure_mode", "failure_mode", "failure_mode", "accuracy"),
)


@dataclass(frozen=True)
class Aspect:
    """One line of the comparability block: the paper's side, a run's, and whether the run's points stand."""

    name: str
    paper: str
    run: str
    level: Level
    why: str | None = None  # one line, where the level is not "same"


@dataclass
class Against:
    """The paper's figures beside a report's runs: the block per run, and the tables beside each other."""

    paper: PaperFigures
    aspects: dict[str, list[Aspect]]  # run → its block
    runs: dict[str, str]  # label → its run
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def paper_labels(self) -> list[str]:
        """The paper's models as every table and figure labels them."""
        return [paper_label(m) for m in self.paper.models]

    def reasons(self, label: str) -> list[str]:
        """Why a run's label is not comparable with the paper's figures; empty where it is."""
        return [
            f"{a.name}: {a.why}" for a in self.aspects.get(self.runs.get(label, ""), []) if a.level == NOT_COMPARABLE
        ]

    def notes(self, name: str) -> dict[tuple[str, str], str]:
        """(group label, model label) → "not comparable", for the run's bars of figure `name`."""
        table = self.tables.get(f"paper_{name}")
        if table is None:
            return {}
        marked = table[~table["comparable"]]
        return {(str(g), str(m)): NOT_COMPARABLE for g, m in zip(marked["group_label"], marked["label"])}


def paper_label(model: str) -> str:
    """A paper model's label beside a run's."""
    return model + PAPER_SUFFIX


def _summary(source: str) -> dict[str, Any]:
    path = Path(source) / "summary.json"
    if not path.is_file():
        return {}
    data = read_json(path, "a run summary (JSON)")
    return data if isinstance(data, dict) else {}


def judge_aspect(paper: PaperFigures, part: pd.DataFrame) -> Aspect:
    """The paper's judge (its model, with the paper's prompt structure) against the run's."""
    judges = sorted({str(j) for j in part["judge"].dropna()}) if "judge" in part else []
    prompts = sorted({str(p) for p in part["judge_prompts"].dropna()}) if "judge_prompts" in part else []
    theirs = f"{paper.release.judge}, the paper's prompt structure ({paper.release.judge_structure})"
    ours = " + ".join(judge_label(j, prompts[0] if len(prompts) == 1 else None) for j in judges) or "no judge"
    if len(judges) == 1 and _PAPER_JUDGE.search(judges[0].lower()) and prompts == ["paper"]:
        return Aspect("judge", theirs, ours, "same")
    why = f"judged by {' + '.join(judges) or 'no judge'}, not by {paper.release.judge} with the paper's prompts"
    return Aspect("judge", theirs, ours, NOT_COMPARABLE, why)


def data_aspect(paper: PaperFigures, part: pd.DataFrame, summary: dict[str, Any]) -> Aspect:
    """The paper's release against the run's data: the full release, the public 10 %, a sample, or another."""
    release = paper.release.scenarios
    theirs = f"{paper.release.label()}, every scenario in every phrasing"
    ids = {str(s) for s in part["scenario_id"]}
    name = str(summary.get("data") or "unnamed data")
    count = f"{len(ids):,} scenario{'' if len(ids) == 1 else 's'}"
    if summary.get("source") == "cobe-site":
        why = ("the project site's files, another release (its eval-statistics.json counts 7,125 items a model), "
               "not the paper's")  # fmt: skip
        return Aspect("data", theirs, f"the site's files ({count})", NOT_COMPARABLE, why)
    if name.startswith("builtin:") or not all(_OFFICIAL_ID.fullmatch(i) for i in ids) or len(ids) > release:
        return Aspect("data", theirs, f"{name} ({count})", NOT_COMPARABLE, f"another dataset ({name}, {count})")
    if len(ids) == release:
        return Aspect("data", theirs, f"the full release, as far as its ids tell ({name}, {count})", "same")
    kind = "the public 10 %" if len(ids) == round(release / 10) else "a sample"
    why = f"{kind} of the release ({len(ids):,} of {release:,} scenarios): the same kind of figure, a wider interval"
    return Aspect("data", theirs, f"{kind} ({name}, {count})", "differs", why)


def _counting_aspects(paper: PaperFigures, part: pd.DataFrame, summary: dict[str, Any]) -> list[Aspect]:
    """Tiers, epochs and unscored rows: each a difference said, none that hides the run's points."""
    tiers = sorted({int(t) for t in part["tier"]})
    tier_line = f"tiers {', '.join(map(str, tiers))}"
    epochs = int(summary.get("epochs") or 1)
    unscored = int(part["status"].eq("unscored").sum())
    errors = int(part["status"].eq("error").sum())
    theirs_tiers = f"Table 7: tiers 1-4 on the same {paper.release.tier_scenarios} random scenarios"
    return [
        Aspect("tiers", theirs_tiers, tier_line, "same" if len(tiers) > 1 else "differs",
               None if len(tiers) > 1 else "the run holds one tier: Table 7 is not set beside it"),
        Aspect("epochs", "one answer per scenario and phrasing", f"{epochs} answer{'s' if epochs > 1 else ''} each",
               "same" if epochs == 1 else "differs",
               None if epochs == 1 else f"the run's figures are the mean over its {epochs} epochs"),
        Aspect("unscored rows", "the paper does not say how it counted them",
               f"left out of the denominator and counted: {unscored} unscored, {errors} errors", "differs",
               "cobe leaves unscored and errored rows out; the paper does not say what it did"),
    ]  # fmt: skip


def build_against(paper: PaperFigures, frame: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> Against:
    """The comparability block of each run of `frame` (the report's primary rows) and the tables that set the
    report's own figures (`tables`, from cobe.score) beside the paper's."""
    aspects: dict[str, list[Aspect]] = {}
    runs: dict[str, str] = {}
    for (run, source), part in frame.groupby(["run", "source"], sort=True):
        summary = _summary(str(source))
        aspects[str(run)] = [
            judge_aspect(paper, part),
            data_aspect(paper, part, summary),
            *_counting_aspects(paper, part, summary),
        ]
        runs.update(dict.fromkeys(part["label"].astype(str), str(run)))
    against = Against(paper, aspects, runs)
    against.tables["paper_leaderboard"] = _leaderboard(against, tables["leaderboard"])
    for name, table, group, value in BESIDE:
        against.tables[f"paper_{name}"] = _beside(against, name, tables.get(table), group, value)
    if "tiers" in tables:
        against.tables["paper_tiers"] = _tiers(against, tables["tiers"])
    return against


def _leaderboard(against: Against, board: pd.DataFrame) -> pd.DataFrame:
    """Table 5: the paper's nine and the run's models, ranked together where comparable, each row its release."""
    paper = against.paper
    rows: list[dict[str, Any]] = [
        {"label": paper_label(m), "release": paper.release.label(), "accuracy": cell.accuracy, "std": cell.std,
         "ci_low": None, "ci_high": None, "comparable": True, "why": None}
        for m, cell in paper.leaderboard.items()
    ]  # fmt: skip
    row: Any  # a namedtuple of the leaderboard's columns
    for row in board.itertuples(index=False):
        reasons = against.reasons(str(row.label))
        rows.append(
            {"label": row.label, "release": f"this run ({against.runs.get(str(row.label))})", "accuracy": row.accuracy,
             "std": row.std, "ci_low": row.ci_low, "ci_high": row.ci_high, "comparable": not reasons,
             "why": "; ".join(reasons) or None}
        )  # fmt: skip
    table = pd.DataFrame(rows).sort_values("accuracy", ascending=False, na_position="last", ignore_index=True)
    ranked = table["comparable"] & table["accuracy"].notna()
    table.insert(0, "rank", pd.Series(range(1, int(ranked.sum()) + 1), index=table.index[ranked], dtype="Int64"))
    return table


def _beside(against: Against, name: str, ours: pd.DataFrame | None, group: str, value: str) -> pd.DataFrame:
    """A figure's bars: the paper's per group and model, then the run's (from the report's own table)."""
    labels = GROUP_LABELS.get(name, {})
    rows: list[dict[str, Any]] = [
        {"group": g, "group_label": labels.get(g, g), "label": paper_label(m), "release": against.paper.release.label(),
         "value": v, "comparable": True}
        for g, values in against.paper.figures[name].items() for m, v in values.items()
    ]  # fmt: skip
    if ours is not None and not ours.empty and group in ours.columns:
        for g, label, v in zip(ours[group], ours["label"], ours[value]):
            if pd.isna(g) or str(g) not in against.paper.figures[name]:
                continue  # a group the paper has no bar for (another domain, tier 2 phrasings) is not set beside it
            reasons = against.reasons(str(label))
            rows.append(
                {"group": str(g), "group_label": labels.get(str(g), str(g)), "label": label,
                 "release": f"this run ({against.runs.get(str(label))})", "value": v, "comparable": not reasons}
            )  # fmt: skip
    return pd.DataFrame(rows, columns=["group", "group_label", "label", "release", "value", "comparable"])


def _tiers(against: Against, ours: pd.DataFrame) -> pd.DataFrame:
    """Table 7: the paper's three models' tiers beside the run's, on their own shared scenario sets."""
    rows: list[dict[str, Any]] = [
        {"label": paper_label(m), "tier": int(t), "release": f"paper ({against.paper.release.tier_scenarios} scenarios)",
         "accuracy": v, "comparable": True}
        for m, tiers in against.paper.tiers.items() for t, v in tiers.items()
    ]  # fmt: skip
    for label, tier, accuracy, scenarios in zip(ours["label"], ours["tier"], ours["accuracy"], ours["scenarios"]):
        rows.append(
            {"label": label, "tier": int(tier), "release": f"this run ({scenarios} scenarios)", "accuracy": accuracy,
             "comparable": not against.reasons(str(label))}
        )  # fmt: skip
    return pd.DataFrame(rows)


#: each figure's groups as the paper's figures name them
GROUP_LABELS: dict[str, dict[str, str]] = {
    "error_types": {"E1": "E1 upstream (preserve)", "E2": "E2 downstream (change)", "E3": "E3 connectors",
                    "E4": "E4 numeric", "E5": "E5 latent factors"},
    "failure_mode": {"unchanged_reason": "(i)", "background_rationalised": "(ii)", "stale_consequence": "(iii)",
                     "physical_quantitative": "(iv)", "spatial": "(v)", "unsupported_connector": "(vi)",
                     "history_rewritten": "(vii)"},
}  # fmt: skip
