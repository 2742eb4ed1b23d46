"""The self-contained report.html: leaderboard, figures and a browser of every response."""

from __future__ import annotations

import base64
import io
import json
import math
import re
from collections.abc import Iterator
from difflib import SequenceMatcher
from functools import lru_cache
from importlib.resources import files
from typing import IO

import jinja2
import pandas as pd
from markupsafe import Markup, escape

from cobe.judge.selftest_result import PROBE_WORDS, SelfTest
from cobe.report.against_view import against_payload
from cobe.report.answers import illustrative_answers
from cobe.report.audit import audit_block
from cobe.report.content import ReportContent
from cobe.report.overall_only import overall_only
from cobe.report.panel import panel_payload
from cobe.report.published import published_payload
from cobe.report.tables import CHECK_LABELS, FAILURE_LABELS
from cobe.report.unranked import unranked_note
from cobe.run.settings_table import settings_rows
from cobe.score.accuracy import EPOCH, several_epochs
from cobe.score.bootstrap import EXACT_NOTE, exact_rows, interval_text, resampling_note
from cobe.score.calibration import PER_CHECK_NOTE
from cobe.score.ranks import rank_method, rank_text
from cobe.score.rule import RULE, accuracy_text, rule_sentence

_TOKEN = re.compile(r"\S+\s*")
_BREAK_AFTER = re.compile(r"(?<=[/_-])")
_TEMPLATES = files("cobe.report").joinpath("templates")
# where the rendered page takes the response data; no text of a report can hold it (every '<' in the data
# is escaped as \\u003c)
_DATA_MARK = "<!--cobe:report-data-->"


def word_diff(before: str, after: str) -> list[list[str]]:
    """Word-level diff of `after` against `before` as [op, text] runs: '=' same, '+' inserted, '-' deleted."""
    old, new = _TOKEN.findall(before or ""), _TOKEN.findall(after or "")
    matcher = SequenceMatcher(None, [t.strip() for t in old], [t.strip() for t in new], autojunk=False)
    runs: list[list[str]] = []

    def emit(op: str, text: str) -> None:
        if not text:
            return
        if runs and runs[-1][0] == op:
            runs[-1][1] += text
        else:
            runs.append([op, text])

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            emit("=", "".join(new[j1:j2]))
            continue
        # deletions first, so the reader sees what was replaced before what replaced it
        emit("-", "".join(old[i1:i2]))
        emit("+", "".join(new[j1:j2]))
    return runs


def script_json(data: object) -> str:
    """JSON safe inside a <script type="application/json"> block: no '<', '>' or '&' survive literally."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # escaping '<' also defuses '</script>' and '<!--', which could otherwise end or hijack the block
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _clean(value: object) -> object:
    # NaN is not JSON; tables carry NaN for empty groups
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return _clean(value.item())
    return value


def _text(value: object) -> str | None:
    # pandas may hold a missing string as NaN rather than None
    return value if isinstance(value, str) else None


def _table_records(table: pd.DataFrame) -> list[dict]:
    return [{k: _clean(v) for k, v in row.items()} for row in table.to_dict("records")]


def _p_true(rec: dict) -> list[float | None] | None:
    """The judge's P(T) of each check in CHECK_LABELS' order, to 4 places (a list: it is on every row), where it
    gave one (a judge asked with logprobs); None where it gave none for any check. results.jsonl keeps it whole."""
    given = rec.get("p_true") or {}
    found = [round(float(v), 4) if isinstance(v, (int, float)) and not math.isnan(v) else None for v in
             (given.get(c) for c in CHECK_LABELS)]  # fmt: skip
    return found if any(v is not None for v in found) else None


def _overall(df: pd.DataFrame, label_index: dict[str, int]) -> dict[str, str | None]:
    """Each model with one verdict per response and none per check (by its place in `labels`) → who gave them."""
    out: dict[str, str | None] = {}
    for label in overall_only(df):
        judges = df.loc[df["label"] == label, "judge"].dropna() if "judge" in df.columns else pd.Series([])
        out[str(label_index[label])] = str(judges.iloc[0]) if len(judges) else None
    return out


# the columns a response card reads: the frame's other columns (tokens, costs, member verdicts …) stay out
_CARD_COLUMNS = (
    "label", "scenario_id", "story", "preserve", "change", "domain", "graph_type", "failure_modes", "tags",
    "template", "query", "status", "response", "judged_response", "response_error", "verdicts", "judge_raw",
    "p_true", "unscored", EPOCH,
)  # fmt: skip
_DIFF_CACHE = 4096  # the (story, answer) pairs a run repeats (epochs at temperature 0) are diffed once


def _records(df: pd.DataFrame) -> Iterator[dict]:
    """The card columns of each row, one row's dict at a time: `to_dict("records")` would hold every row's
    dict of every column at once, the largest transient of a large report."""
    names = [c for c in _CARD_COLUMNS if c in df.columns]
    for values in zip(*(df[c].tolist() for c in names), strict=True):
        yield dict(zip(names, values, strict=True))


def _scenario(rec: dict, answers: dict[str, str]) -> dict:
    return {
        "story": _text(rec.get("story")) or "",
        "preserve": list(rec.get("preserve") or []),
        "change": list(rec.get("change") or []),
        "domain": rec.get("domain"),
        "graph_type": _text(rec.get("graph_type")),
        "failure_modes": list(rec.get("failure_modes") or []),
        "tags": list(rec.get("tags") or []),
        "illustrative": answers.get(rec["scenario_id"]),
    }


def payload_rows(
    df: pd.DataFrame, labels: list[str], scenarios: dict[str, dict], answers: dict[str, str] | None = None
) -> Iterator[dict]:
    """One response card's data per result row, as it is read; each scenario's text goes once into `scenarios`,
    with its illustrative answer from `answers` (`cobe.report.answers`) where its run's store gave one. A row
    names its epoch (`ep`) only where the rows hold several (--epochs K): one epoch's rows stay as small."""
    answers = answers or {}
    epochs = several_epochs(df)
    label_index = {label: i for i, label in enumerate(labels)}
    diff = lru_cache(maxsize=_DIFF_CACHE)(word_diff)
    for rec in _records(df):
        sid = rec["scenario_id"]
        if sid not in scenarios:
            scenarios[sid] = _scenario(rec, answers)
        # for reasoning templates (H2) the diff shows the final story the judge assessed
        response = _text(rec.get("judged_response") or rec.get("response"))
        row = {
            "m": label_index[rec["label"]],
            "s": sid,
            "t": rec["template"],
            "q": _text(rec.get("query")) or "",
            "st": rec["status"],
            "d": diff(scenarios[sid]["story"], response) if response is not None else None,
            "e": _text(rec.get("response_error")),
            "v": {c: (rec.get("verdicts") or {}).get(c) for c in CHECK_LABELS},
            "r": {c: (rec.get("judge_raw") or {}).get(c) for c in CHECK_LABELS},
            "u": dict(rec.get("unscored") or {}),
        }
        if (chance := _p_true(rec)) is not None:
            row["p"] = chance
        if epochs:
            row["ep"] = int(rec[EPOCH])
        yield row


def browser_payload(df: pd.DataFrame, labels: list[str], answers: dict[str, str] | None = None) -> dict:
    """The data the response browser needs, with scenario text stored once per scenario; `answers` holds each
    scenario's illustrative answer (`cobe.report.answers`), where its run's store gave one."""
    scenarios: dict[str, dict] = {}
    rows = list(payload_rows(df, labels, scenarios, answers))
    return _payload_head(df, labels) | {"scenarios": scenarios, "rows": rows}


def _payload_head(df: pd.DataFrame, labels: list[str]) -> dict:
    label_index = {label: i for i, label in enumerate(labels)}
    return {
        "labels": labels,
        "overall": _overall(df, label_index),
        "checks": CHECK_LABELS,
        "failureLabels": FAILURE_LABELS,
    }


def write_payload(out: IO[str], df: pd.DataFrame, labels: list[str], answers: dict[str, str] | None = None) -> None:
    """`browser_payload` as script-safe JSON, written a row at a time: a large run's report never holds the
    payload of every response, nor its JSON text, whole."""
    scenarios: dict[str, dict] = {}
    out.write(script_json(_payload_head(df, labels))[:-1] + ',"rows":[')
    for index, row in enumerate(payload_rows(df, labels, scenarios, answers)):
        if index:
            out.write(",")
        out.write(script_json(row))
    out.write('],"scenarios":' + script_json(scenarios) + "}")


def breakable(text: object) -> Markup:
    """`text` escaped, with a line-break opportunity after each `/`, `-` and `_`: a model spec or run id in a
    narrow table cell breaks between its parts (`openai-api/` `local2/` `Meta-` `Llama…`), never inside one
    (a browser breaks after a hyphen, but not before a digit: `run-` `2026`)."""
    parts = _BREAK_AFTER.split(str(text))
    return Markup("<wbr>").join(escape(part) for part in parts)


def _run_judges(content: ReportContent) -> list[dict[str, str | None]]:
    """One row per run and judge: the run, its directory, and the judge, prompt set and fingerprint."""
    rows = []
    for run, (source, judges) in content.judges.items():
        for judged in judges or [{"judge": None, "prompts": None, "fingerprint": None}]:
            rows.append({"run": run, "source": source, **judged})
    return rows


def _environment() -> jinja2.Environment:
    loader = jinja2.FunctionLoader(lambda name: _TEMPLATES.joinpath(name).read_text(encoding="utf-8"))
    env = jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["breakable"] = breakable
    env.filters["rank_range"] = rank_text
    env.globals["accuracy_text"] = accuracy_text  # "61.37 ± 0.46", or "42.11 (pooled)" (cobe.score.rule)
    env.globals["interval_text"] = interval_text
    return env


def _data_uri(svg: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def render_html(
    content: ReportContent, *, frame: pd.DataFrame, figures: dict[str, dict[str, bytes]], labels: list[str]
) -> str:
    """The whole report as one HTML string (see `write_html`)."""
    out = io.StringIO()
    write_html(out, content, frame=frame, figures=figures, labels=labels)
    return out.getvalue()


def write_html(
    out: IO[str],
    content: ReportContent,
    *,
    frame: pd.DataFrame,
    figures: dict[str, dict[str, bytes]],
    labels: list[str],
) -> None:
    """The whole report written to `out`: inline CSS and JS, figures as data URIs, data escaped.

    `frame` holds every result row (the response browser), `figures` each figure's bytes by format,
    and `labels` the models in the order their colours are given. The page is rendered around a marker
    where the response data goes, and the data is streamed in there (`write_payload`)."""
    tables = content.tables
    env = _environment()
    figure_list = []
    for name, formats in figures.items():
        if "svg" in formats:
            figure_list.append({"name": name, "src": _data_uri(formats["svg"])})
        elif "png" in formats:
            figure_list.append(
                {"name": name, "src": "data:image/png;base64," + base64.b64encode(formats["png"]).decode("ascii")}
            )
    # the figures beside the paper's go in their own section, under the block that says what they compare
    paper_figures = [fig for fig in figure_list if fig["name"].startswith("paper_")]
    figure_list = [fig for fig in figure_list if not fig["name"].startswith("paper_")]
    agreement_blocks = []
    for run, data in content.agreement.items():
        metrics = {k: _clean(v) for k, v in data["metrics"].items() if not isinstance(v, (dict, list))}
        agreement_blocks.append({"run": run, "metrics": metrics})
    checks = [{"run": run, **SelfTest.model_validate(data).model_dump()} for run, data in content.judge_checks.items()]
    for block in checks:
        block["rows"] = [row | {"probe_words": PROBE_WORDS.get(row["probe"], row["probe"])} for row in block["checks"]]
    settings = [{"run": run, "rows": settings_rows(block)} for run, block in content.settings.items()]
    template = env.get_template("report.html.j2")
    page = template.render(
        settings=[block for block in settings if block["rows"]],
        judge_checks=checks,
        audits=[audit_block(run, card) for run, card in content.audits.items()],
        calibration=_table_records(tables["calibration"]) if "calibration" in tables else None,
        per_check_note=PER_CHECK_NOTE,
        leaderboard=_table_records(tables["leaderboard"]),
        rule_line=rule_sentence(tables["leaderboard"].get(RULE, ())),
        exact_note=EXACT_NOTE if exact_rows(tables["leaderboard"]) else None,
        status=_table_records(tables["status"]),
        tiers=_table_records(tables["tiers"]) if "tiers" in tables else None,
        epochs=_table_records(tables["epochs"]) if "epochs" in tables else None,
        run_judges=_run_judges(content),
        notes=content.notes,
        unranked_note=unranked_note(tables["leaderboard"]),
        no_checks_note=content.no_checks_note,
        sample_note=content.sample_note,
        figures=figure_list,
        runs=content.runs,
        agreement=agreement_blocks,
        resamples=content.resamples,
        resampled=resampling_note(content.tables["leaderboard"]),
        rank_note=rank_method(content.resamples, resampling_note(content.tables["leaderboard"])),
        seed=content.seed,
        css=_TEMPLATES.joinpath("report.css").read_text(encoding="utf-8"),
        # the response browser, then the scenario view, which reads the browser's parse of the data
        js="\n".join(_TEMPLATES.joinpath(name).read_text(encoding="utf-8") for name in ("report.js", "scenarios.js")),
        data=Markup(_DATA_MARK),
        panel=panel_payload(tables),
        against=against_payload(content.against) if content.against is not None else None,
        paper_figures=paper_figures,
        published=published_payload(tables),
    )
    head, mark, tail = page.partition(_DATA_MARK)
    assert mark, "the report template places the response data"
    out.write(head)
    del page
    write_payload(out, frame, labels, illustrative_answers(frame))
    out.write(tail)
