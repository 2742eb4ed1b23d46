"""How report.md and report.html show the runs beside the paper (cobe.report.against): the comparability block
first, then Table 5, Figs. 6-9 and Table 7, each table one row per model with its release named."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from cobe.report.against import NOT_COMPARABLE, Against

#: (figure, title) in the paper's order
SECTIONS: tuple[tuple[str, str], ...] = (
    ("error_types", "Failure rate by error type (Fig. 6)"),
    ("graph_type", "Accuracy by causal graph type (Fig. 7)"),
    ("phrasing", "Accuracy by phrasing (Fig. 8)"),
    ("failure_mode", "Accuracy by failure mode (Fig. 9)"),
)
#: what every view of these figures says of the site's totals
OTHER_RELEASE = (
    "The project site's eval-statistics.json (7,125 items a model) is another release: it is never set beside the "
    "paper's figures, nor they beside it (`--published` shows it apart, labelled as the site's)"
)


def _num(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "–"
    return f"{float(value):.{digits}f}"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def intro(against: Against) -> str:
    """The line above the block: whose figures, on what, judged by whom, and where they come from."""
    paper, release = against.paper, against.paper.release
    return (
        f"The paper's figures ({paper.source.paper}, arXiv {paper.source.arxiv}) are on {release.label()}, judged by "
        f"{release.judge}; accuracy is the mean over phrasings ± the {release.std}. {paper.source.how} "
        f"{OTHER_RELEASE}."
    )


def block_rows(against: Against) -> list[dict[str, str]]:
    """The comparability block: per run and aspect, the paper's side, the run's, and the verdict with its why."""
    return [
        {"run": run, "aspect": a.name, "paper": a.paper, "run_side": a.run,
         "verdict": a.level + (f": {a.why}" if a.why else "")}
        for run, aspects in against.aspects.items() for a in aspects
    ]  # fmt: skip


def wide(against: Against, name: str) -> pd.DataFrame:
    """A figure's table one row per model: its release, each group's bar, and whether it is comparable."""
    table = against.tables[f"paper_{name}"]
    if table.empty:
        return table
    values = table.pivot_table(index="label", columns="group_label", values="value", aggfunc="first", sort=False)
    meta = table.groupby("label", sort=False).agg(release=("release", "first"), comparable=("comparable", "all"))
    out = meta.join(values).reset_index()
    out["comparable"] = out["comparable"].map({True: "yes", False: NOT_COMPARABLE})
    return out


def against_markdown(against: Against, figure_files: dict[str, str]) -> list[str]:
    """report.md's section: the block, Table 5, Figs. 6-9 (tables and figures) and Table 7."""
    lines = ["", "## Beside the paper", "", intro(against), "", "### What is comparable", ""]
    lines += ["| run | aspect | the paper | this run | comparable |", "|---|---|---|---|---|"]
    lines += [
        f"| `{r['run']}` | {r['aspect']} | {_cell(r['paper'])} | {_cell(r['run_side'])} | {_cell(r['verdict'])} |"
        for r in block_rows(against)
    ]
    lines += [
        "",
        "### Table 5, beside the paper's",
        "",
        "| rank | model | release | accuracy | ± | 95% CI | comparable |",
    ]
    lines.append("|---:|---|---|---:|---:|---:|---|")
    row: Any  # a namedtuple of the table's columns
    for row in against.tables["paper_leaderboard"].itertuples(index=False):
        ci = f"[{_num(row.ci_low)}, {_num(row.ci_high)}]" if _num(row.ci_low) != "–" else "–"
        rank = "–" if row.rank is pd.NA or pd.isna(row.rank) else str(row.rank)
        verdict = "yes" if row.comparable else f"{NOT_COMPARABLE}: {row.why}"
        lines.append(
            f"| {rank} | {_cell(row.label)} | {_cell(row.release)} | {_num(row.accuracy)} | {_num(row.std)} | {ci} "
            f"| {_cell(verdict)} |"
        )
    for name, title in SECTIONS:
        table = wide(against, name)
        if table.empty:
            continue
        lines += ["", f"### {title}, beside the paper's", "", *_wide_markdown(table)]
        if f"paper_{name}" in figure_files:
            lines += ["", f"![{title}, beside the paper's]({figure_files[f'paper_{name}']})"]
    if "paper_tiers" in against.tables:
        tiers = against.tables["paper_tiers"].pivot_table(
            index=["label", "release"], columns="tier", values="accuracy", aggfunc="first", sort=False
        )
        table = tiers.rename(columns=lambda t: f"tier {t}").reset_index()
        lines += ["", "### Prompt tiers (Table 7), beside the paper's", "", *_wide_markdown(table)]
    return lines


def _wide_markdown(table: pd.DataFrame) -> list[str]:
    columns = [str(c) for c in table.columns]
    head = ["model" if c == "label" else c for c in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for row in table.itertuples(index=False):
        lines.append("| " + " | ".join(_num(v, 1) if isinstance(v, float) else _cell(v) for v in row) + " |")
    return lines


def against_payload(against: Against) -> dict[str, Any]:
    """report.html's section, as plain data: the intro, the block, Table 5 and each figure's wide table."""
    board = against.tables["paper_leaderboard"]
    records: list[Any] = list(board.itertuples(index=False))
    figures = []
    for name, title in SECTIONS:
        table = wide(against, name)
        if not table.empty:
            figures.append({"name": f"paper_{name}", "title": f"{title}, beside the paper's",
                            "columns": ["model" if c == "label" else str(c) for c in table.columns],
                            "rows": [[_num(v, 1) if isinstance(v, float) else str(v) for v in row]
                                     for row in table.itertuples(index=False)]})  # fmt: skip
    return {
        "intro": intro(against),
        "block": block_rows(against),
        "leaderboard": [
            {
                "rank": None if pd.isna(r.rank) else int(r.rank),
                "label": r.label,
                "release": r.release,
                "accuracy": _num(r.accuracy),
                "std": _num(r.std),
                "ci": f"[{_num(r.ci_low)}, {_num(r.ci_high)}]" if _num(r.ci_low) != "–" else "–",
                "comparable": bool(r.comparable),
                "why": r.why,
            }
            for r in records
        ],  # fmt: skip
        "figures": figures,
    }
