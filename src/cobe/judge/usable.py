"""What a run can use of a model's reply: a respondent's that is not empty, a judge's that holds a T or F.

The preflight stops a run at a probe's reply it cannot use (`cobe.calls.preflight.ReplyCheck`): the run's own calls
would come back alike, and it would spend its budget on rows that measure nothing. `--reask-unscored` asks such
stored answers again (`cobe.calls.caller.Reask`), their earlier rows kept.
"""

from __future__ import annotations

from cobe.calls.preflight import Probe
from cobe.judge.parse import parse_verdict, shown_reply
from cobe.models.base import CallRecord


def unusable(role: str, record: CallRecord) -> str | None:
    """What came back, in words, where a run cannot use an answer of `role` (respondent or judge); else None."""
    text = record.text or ""
    if role == "respondent":
        if text.strip():
            return None
        finish = record.finish_reason or "none given"
        return f"an empty reply {shown_reply(text)}, finish {finish}, {record.output_tokens} tokens"
    if role == "judge":
        verdict, reason = parse_verdict(text)
        return None if verdict is not None else f"no verdict: {reason}"
    return None


def probe_problem(probe: Probe, record: CallRecord) -> str | None:
    """The preflight's check of one probe's answer."""
    return unusable(probe.role, record)


def reask(role: str, record: CallRecord) -> bool:
    """--reask-unscored: whether a stored answer is one to ask again."""
    return unusable(role, record) is not None
