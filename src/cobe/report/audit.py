"""The judge audit beside a run's report: `cobe judges audit --run-dir RUN` leaves audit.json in the run's
directory, and the report shows its findings where the audited judge is one the run's verdicts come from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cobe.core.jsonfile import read_json

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
    return {
        "judge": audit.get("judge"),
        "judge_prompts": audit.get("judge_prompts"),
        "data": audit.get("data"),
        "scenarios": len(audit.get("scenarios") or []),
        "repeats": audit.get("repeats", 1),
        "findings": [str(line) for line in audit.get("findings") or []],
        "matches": audited in run_judges(summary),
        "run_judge": summary.get("judge"),
    }
