"""report.md: the leaderboard and every breakdown as Markdown tables, with links to the figures."""

from __future__ import annotations

import math

import pandas as pd

from cobe.judge.selftest_result import judge_check_markdown
from cobe.report.against_view import against_markdown
from cobe.report.content import ReportContent
from cobe.report.overall_only import CHECKS_DECIDE
from cobe.report.panel import panel_markdown
from cobe.report.unranked import unranked_note
from cobe.run.settings_table import settings_markdown
from cobe.score.bootstrap import EXACT_NOTE, exact_rows, interval_text, resampling_note
from cobe.score.calibration import PER_CHECK_NOTE
from cobe.score.ranks import rank_method, rank_text
from cobe.score.rule import RULE, accuracy_text, rule_sentence

SECTIONS: tuple[tuple[str, str], ...] = (
    ("status", "Rows by status"),
    ("epochs", "By epoch"),
    ("tiers", "Prompt tiers (Table 7)"),
    ("phrasing", "By phrasing (Fig. 8)"),
    ("graph_type", "By causal graph type (Fig. 7)"),
    ("domain", "By domain"),
    ("failure_mode", "By failure mode (Fig. 9)"),
    ("error_types", "Failure rate by error type (Fig. 6)"),
    ("checks", "Failure rate per check, overall and in the numeric and latent subsets"),
    ("published_overall", "Beside the site's published totals"),
    ("published_graph_type", "Beside the published totals, by causal graph type (Fig. 7)"),
    ("published_domain", "Beside the published totals, by domain"),
)
#: what a section's table means, printed under its title
NOTES: dict[str, str] = {
    "error_types": "E1-E3: the share of each judge check's verdicts that are F. E4 / E5: the share of scored "
    "responses that failed, among the scenarios tagged numeric / latent.",
    "tiers": "Every tier on one shared set of scenarios (those every model and tier answered; `scenarios` is its "
    "size, `left_out` how many answered scenarios fall outside it).",
    **dict.fromkeys(
        ["published_overall", "published_graph_type", "published_domain"],
        "The run's accuracy by the site's rule, correct / (correct + wrong) over every row, beside the site's "
        "published figure (eval-statistics.json: the site's release, not the paper's 2,000 scenarios × 3 "
        "phrasings) for the model of the same name; `published_total` is the site's item count, `difference` run "
        "minus published, in points.",
    ),
    "epochs": "Each epoch's accuracy (by the model's rule: mean over phrasings ± std across them, or pooled); a "
    "model's headline accuracy is the "
    "mean over its epochs, and the leaderboard's `spread` is the sample std across epochs.",
}
#: columns the Markdown tables leave out (they are in the CSV/JSON tables)
HIDDEN = {"model", "run", "phrasings_empty", "failure_mode", "check", "error"}
HEADERS = {
    "label": "model",
    "failure_mode_label": "failure mode",
    "check_label": "check",
    "graph_type": "graph type",
    "error_label": "error type",
    "accuracy_incl_errors": "accuracy, errors as failures",
    "std_incl_errors": "± (errors as failures)",
    "cut_off": "cut off",
    "no_marker": "no marker",
    "judge_prompts": "judge prompts",
}


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.2f}"
    # a pipe or newline in data (a domain name, a model label) would break the table row
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(table: pd.DataFrame, columns: list[str] | None = None) -> str:
    """A GitHub-flavoured Markdown table."""
    columns = columns or [c for c in table.columns if c not in HIDDEN]
    headers = [HEADERS.get(c, c) for c in columns]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for row in table[columns].itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines)


def leaderboard_markdown(table: pd.DataFrame) -> str:
    """Paper Table 5 with the accuracy as 'mean ± std' or 'x (pooled)' (its rule) and the 95% CI."""
    shown = pd.DataFrame(
        {
            "#": [str(place) if scored else "–" for place, scored in enumerate(table["scored"], 1)],
            "rank range": [rank_text(lo, hi) for lo, hi in zip(table["rank_low"], table["rank_high"])],
            "model": table["label"],
            "tier": table["tier"],
            "accuracy": [
                accuracy_text(a, s, r) for a, s, r in zip(table["accuracy"], table["std"], _column_of(table, RULE))
            ],
            "95% CI": [
                interval_text(lo, hi, m)
                for lo, hi, m in zip(table["ci_low"], table["ci_high"], _column_of(table, "ci_method"))
            ],
            "errors as failures": [
                accuracy_text(a, s, r)
                for a, s, r in zip(table["accuracy_incl_errors"], table["std_incl_errors"], _column_of(table, RULE))
            ],
            "scored": table["scored"],
            "passes": table["passes"],
            "unscored": table["unscored"],
            "errors": table["errors"],
            "judge": _column(table, "judge"),
            "judge prompts": _column(table, "judge_prompts"),
        }
    )
    if "epochs" in table.columns:  # --epochs K: how many, and the sample std of their accuracies
        shown.insert(6, "epochs", table["epochs"])
        shown.insert(7, "spread", [f"{s:.2f}" if not math.isnan(s) else "–" for s in table["epoch_std"]])
    if "calibrated" in table.columns:  # beside the judge-only figure, where a rating study calibrates it
        shown.insert(
            7,
            "human-calibrated (95% CI)",
            [
                f"{c:.2f} [{lo:.2f}, {hi:.2f}]" if not math.isnan(c) else "–"
                for c, lo, hi in zip(table["calibrated"], table["calibrated_low"], table["calibrated_high"])
            ],
        )
        shown.insert(8, "human labels", table["human_labels"].fillna(0).astype(int))
    shown_table = markdown_table(shown, columns=list(shown.columns))
    if exact_rows(table):
        shown_table += f"\n\n95% CI (exact): {EXACT_NOTE}."
    return shown_table


def _column_of(table: pd.DataFrame, name: str) -> list:
    """A column's values, or None for each row of a table without it."""
    return list(table[name]) if name in table.columns else [None] * len(table)


def _column(table: pd.DataFrame, name: str) -> list[str]:
    values = table[name] if name in table.columns else [None] * len(table)
    return [f"`{v}`" if isinstance(v, str) else "–" for v in values]


def runs_markdown(content: ReportContent) -> list[str]:
    """The runs of a report, each with the judge, prompt set and prompt fingerprint behind its verdicts."""
    lines = ["| run | directory | judge | judge prompts | fingerprint |", "|---|---|---|---|---|"]
    for run, (source, judges) in content.judges.items():
        for judged in judges or [{"judge": None, "prompts": None, "fingerprint": None}]:
            cells = [judged["judge"] or "none", judged["prompts"] or "–", judged["fingerprint"] or "–"]
            lines.append(f"| `{run}` | {_cell(source)} | " + " | ".join(_cell(c) for c in cells) + " |")
    return lines


def calibration_markdown(table: pd.DataFrame) -> list[str]:
    """The calibration table and what its per-check rows can and cannot say."""
    columns = ["label", "target", "judge_rate", "calibrated", "ci_low", "ci_high", "at_least", "labeled", "unlabeled"]
    shown = table[columns].rename(
        columns={"judge_rate": "judge only %", "calibrated": "calibrated %", "at_least": "at least %"}
    )
    return [
        "Pass rates as humans would judge them: prediction-powered inference (PPI++, ppi-python) from the judge's "
        "verdict on every scored item and the rating study's majority label on a random subset; the 95% CI includes "
        "the judge's error. Pooled over phrasings.",
        "",
        markdown_table(shown, columns=list(shown.columns)),
        "",
        f"Per check: {PER_CHECK_NOTE}.",
    ]


def _no_rank(leaderboard: pd.DataFrame) -> list[str]:
    """The note of models given no rank, as report.md's lines (none where every model was measured)."""
    note = unranked_note(leaderboard)
    return [f"> **No rank:** {note}.", ""] if note else []


def render_markdown(content: ReportContent, figure_files: dict[str, str]) -> str:
    """The whole report.md; `figure_files` maps figure name → path relative to the report."""
    tables, runs, resamples, seed = content.tables, content.runs, content.resamples, content.seed
    parts = [
        "# CoBe report",
        "",
        "Runs: " + ", ".join(f"`{r}`" for r in runs) + ".",
        "",
        f"{rule_sentence(_column_of(tables['leaderboard'], RULE))}; "
        f"95% CI from {resamples} bootstrap resamples of {resampling_note(tables['leaderboard'])} (seed {seed}). "
        f"{content.pass_rule or CHECKS_DECIDE}. Unscored and errored rows are counted apart; 'errors as failures' is the same accuracy with "
        "respondent errors counted as failed responses.",
        "",
    ]
    parts += _no_rank(tables["leaderboard"])  # said at the top: the leaderboard lists such a model last, unranked
    note = [line for text in content.notes for line in (f"> **Note:** {text}; rank them together with care.", "")]
    if content.sample_note:  # a showcase's figures, on every table made from them
        note += [f"> **Sample:** {content.sample_note}.", ""]
    if content.judges:
        parts += ["## Runs and their judges", "", *note, *runs_markdown(content), ""]
    ranks = rank_method(resamples, resampling_note(tables["leaderboard"]))
    parts += [
        "## Leaderboard (Table 5)",
        "",
        *note,
        leaderboard_markdown(tables["leaderboard"]),
        "",
        f"Rank range: {ranks}.",
    ]
    if content.against is not None:
        parts += against_markdown(content.against, figure_files)
    if "calibration" in tables:
        parts += ["", "## Human-calibrated pass rates", "", *calibration_markdown(tables["calibration"])]
    for run, check in content.judge_checks.items():
        parts += ["", f"## Judge self-test (`{run}`)", "", *judge_check_markdown(check)]
    for run, card in content.audits.items():
        if card["matches"]:  # an audit of another judge says nothing of this run
            found = [f"- {line}" for line in card["findings"]]
            parts += ["", f"## Judge audit (`{run}`: `{card['judge']}`)", "", *found]
    for run, block in content.settings.items():
        parts += ["", f"## Settings (`{run}`)", "", *settings_markdown(block)]
    for name, title in SECTIONS:
        table = tables.get(name)
        # said once, where the per-check figures begin, even where no model is left in their tables
        unchecked = [f"{content.no_checks_note}.", ""] if name == "error_types" and content.no_checks_note else []
        if table is None or table.empty:
            if unchecked:
                parts += ["", f"## {title}", "", *note, unchecked[0]]
            continue
        parts += ["", f"## {title}", "", *note, *unchecked]
        if name in NOTES:
            parts += [NOTES[name], ""]
        # the published totals are one row per model and group: their model column is the point of them
        parts.append(markdown_table(table, list(table.columns) if name.startswith("published_") else None))
        if name in figure_files:
            parts += ["", f"![{title}]({figure_files[name]})"]
    for run, data in content.agreement.items():
        metrics = {k: v for k, v in data["metrics"].items() if not isinstance(v, (dict, list))}
        parts += [
            "",
            f"## Agreement with human ratings (`{run}`)",
            "",
            markdown_table(pd.DataFrame({"metric": list(metrics), "value": list(metrics.values())})),
        ]
    parts += panel_markdown(tables)
    return "\n".join(parts) + "\n"
