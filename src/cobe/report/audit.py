"""The judge audit beside a run's report: `cobe judges audit --run-dir RUN` leaves audit.json in the run's
directory, and the report shows its findings, its tables and its reliability figure where the audited judge is one
the run's verdicts come from."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cobe.core.errors import InputError
from cobe.core.jsonfile import read_json

if TYPE_CHECKING:
    from cobe.judge.audit_card import JudgeAudit

AUDIT_FILE = "audit.json"
SUMMARY_FILE = "summary.json"


def run_judges(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """Every (spec, prompt fingerprint) whose verdicts a run shows: its judge, or its panel's or samples' members."""
    members = summary.get("judge_members") or []
    judges = [(m.get("spec"), m.get("fingerprint")) for m in members if isinstance(m, dict)]
    if summary.get("judge"):
        judges.append((summary["judge"], summary.get("judge_fingerprint")))
    return [(str(spec), str(fingerprint)) for spec, fingerprint in judges if spec and fingerprint]


def read_audit(directory: Path) -> dict[str, Any] | None:
    """The card of the audit in a run directory, as the report shows it: the audited judge, what it was asked,
    its findings, and whether the run's verdicts come from that judge; None without an audit."""
    path = directory / AUDIT_FILE
    if not path.is_file():
        return None
    audit = read_json(path, "a judge audit (JSON)")
    summary_path = directory / SUMMARY_FILE
    summary = read_json(summary_path, "a run summary (JSON)") if summary_path.is_file() else {}
    if not isinstance(audit, dict) or not isinstance(summary, dict):
        return None
    audited = (str(audit.get("judge")), str(audit.get("prompt_fingerprint")))
    # the judge package costs a report a fifth of a second: loaded only where a run holds an audit
    from cobe.judge.audit_card import JudgeAudit

    try:
        card = JudgeAudit.model_validate(audit)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise InputError(f"{path}: field {where}: {first['msg']} (expected a judge audit cobe wrote)") from None
    return {
        "judge": audit.get("judge"),
        "judge_prompts": audit.get("judge_prompts"),
        "data": audit.get("data"),
        "scenarios": len(audit.get("scenarios") or []),
        "repeats": audit.get("repeats", 1),
        "findings": [str(line) for line in audit.get("findings") or []],
        "matches": audited in run_judges(summary),
        "run_judge": summary.get("judge"),
        **audit_tables(card),
        # what the reliability figure draws (`audit_block`), without every answer
        "card": card.model_dump(mode="json", include={"judge", "calibration", "reference"}),
    }


def audit_tables(card: JudgeAudit) -> dict[str, Any]:
    """The card's tables as the HTML report shows them: a row per probe and check, the flip shares of repeated
    asks, and each confidence table (against the probes, then against the run's reference)."""
    from cobe.judge.audit_card import share_text

    probes = [
        {
            "probe": summary.words,
            "scenarios": summary.scenarios,
            "passes": share_text(summary.passes),
            "check": row.check,
            "says_t": f"{row.says_t}/{row.scored}",
            "expected": row.expected or "–",
            "as_expected": share_text(row.as_expected) if row.as_expected else "–",
            "differs": share_text(row.differs) if row.differs else "–",
            "first": index == 0,
        }
        for summary in card.probes
        for index, row in enumerate(r for r in card.rows if r.probe == summary.probe)
    ]
    stability = card.stability
    flips = [{"what": check, "share": share_text(share)} for check, share in stability.checks.items()]
    if stability.pass_fail:
        flips.append({"what": "pass/fail of an answer", "share": share_text(stability.pass_fail)})
    confidence = []
    if card.calibration:
        probes_part = {
            "against": "the verdicts the probes must get",
            "tables": _confidence(card.calibration),
            "note": None,
        }
        confidence.append(probes_part)
    if card.reference is not None and card.reference.tables:
        against = f"{card.reference.reference} ({card.reference.rows} responses of the run)"
        note = "pass: P(pass), the product of the three P(T)"
        confidence.append({"against": against, "tables": _confidence(card.reference.tables), "note": note})
    return {"probe_rows": probes, "repeats_flips": flips, "confidence": confidence}


def _confidence(tables: list[Any]) -> list[dict[str, Any]]:
    from cobe.judge.audit_card import num

    return [{"check": t.check, "verdicts": t.items, "ece": num(t.ece), "brier": num(t.brier)} for t in tables]


def audit_block(run: str, card: dict[str, Any]) -> dict[str, Any]:
    """One audit as report.html shows it: its card, and where it is of the run's judge, its reliability figure as
    a data URI (None where no P(T) came back)."""
    from cobe.report.audit_figure import reliability_svg  # matplotlib loads only when a report is drawn

    svg = reliability_svg(card["card"]) if card.get("matches") and "card" in card else None
    figure = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii") if svg is not None else None
    return {"run": run, **card, "figure": figure}
