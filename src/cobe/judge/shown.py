"""The verdicts a run's exports show for a response: one judge's as stored, or the strict majority of a
panel's judges (each the majority of its samples), derived from the stored rows every time."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cobe.core.results import CHECKS, Verdict
from cobe.judge.checker import CheckResult
from cobe.judge.panel import combine
from cobe.judge.published import OVERALL, is_published

if TYPE_CHECKING:
    from cobe.judge.judge_plan import JudgeRef
    from cobe.store.rows import VerdictRow
    from cobe.store.store import Store


@dataclass
class Shown:
    """One response's shown verdicts per check, with what results.jsonl records beside them."""

    complete: bool  # every judge answered every check (each sample); otherwise judging is pending
    verdicts: dict[str, Verdict | None] = field(default_factory=dict)
    raw: dict[str, str | None] = field(default_factory=dict)
    p_true: dict[str, float | None] = field(default_factory=dict)
    unscored: dict[str, str] = field(default_factory=dict)
    members: dict[str, dict[str, list[Verdict | None]]] = field(default_factory=dict)
    # a published verdict set (`cobe.judge.published`): the source's one verdict, no per-check detail
    published: bool = False
    overall: Verdict | None = None


def _result(check: str, row: VerdictRow) -> CheckResult:
    return CheckResult(
        check,
        row.verdict,
        row.raw,
        row.p_true,
        row.unscored_reason,
        row.error,
        input_tokens=row.input_tokens,
        output_tokens=row.output_tokens,
        cost_usd=row.cost_usd,
    )


class ShownVerdicts:
    """The stored verdict rows of a shown judge (every member and sample), combined per response on demand."""

    def __init__(self, store: Store, run_id: str, judge: JudgeRef | None) -> None:
        self.store, self.judge = store, judge

    def _rows(self, response_id: int, judge: JudgeRef) -> list[dict[tuple[str, int], VerdictRow]]:
        # asked per response (an index lookup), so a run's verdicts are never held all at once
        return [self.store.response_verdicts(response_id, j.spec, j.fingerprint) for j in judge.judges]

    def of(self, response_id: int) -> Shown:
        """The shown verdicts of one response (partial and not `complete` while some are missing)."""
        if self.judge is None:
            return Shown(complete=False, verdicts=dict.fromkeys(CHECKS))
        rows = self._rows(response_id, self.judge)
        if is_published(self.judge):
            return self._published(rows[0])
        if not self.judge.combined:
            return self._single(rows[0])
        return self._combined(rows, self.judge)

    @staticmethod
    def _single(rows: dict[tuple[str, int], VerdictRow]) -> Shown:
        # one judge asked once: its rows as they are, exactly as before panels existed
        got = {c: rows.get((c, 0)) for c in CHECKS}
        return Shown(
            complete=all(v is not None for v in got.values()),
            verdicts={c: (v.verdict if v else None) for c, v in got.items()},
            raw={c: v.raw for c, v in got.items() if v},
            p_true={c: v.p_true for c, v in got.items() if v},
            unscored={c: v.unscored_reason for c, v in got.items() if v and v.unscored_reason},
        )

    @staticmethod
    def _published(rows: dict[tuple[str, int], VerdictRow]) -> Shown:
        # the source's overall verdict; an unknown one is unscored on every check, with the source's reason
        row = rows.get((OVERALL, 0))
        if row is None and any((c, 0) in rows for c in CHECKS):
            return ShownVerdicts._single(rows)  # a source that judged each check: the pass rule applies as usual
        if row is None:
            return Shown(complete=False, published=True)
        reason = row.unscored_reason
        return Shown(
            complete=True,
            published=True,
            overall=row.verdict,
            unscored=dict.fromkeys(CHECKS, reason) if row.verdict is None and reason else {},
        )

    @staticmethod
    def _combined(stored: list[dict[tuple[str, int], VerdictRow]], judge: JudgeRef) -> Shown:
        shown = Shown(complete=True)
        several, asked = len(judge.judges) > 1, False
        for check in CHECKS:
            per_judge: list[CheckResult] = []
            for member, rows in zip(judge.judges, stored):
                samples = [rows.get((check, k)) for k in range(judge.samples)]
                asked = asked or any(r is not None for r in samples)
                shown.members.setdefault(member.spec, {})[check] = [r.verdict if r else None for r in samples]
                if any(r is None for r in samples):
                    continue
                result = combine([_result(check, r) for r in samples if r is not None], "samples")
                if several:
                    result.raw = f"{member.spec}: {result.raw}"
                per_judge.append(result)
            if len(per_judge) < len(judge.judges):
                shown.complete = False
                shown.verdicts[check] = None
                continue
            result = combine(per_judge, "judges")
            shown.verdicts[check], shown.raw[check], shown.p_true[check] = result.verdict, result.raw, result.p_true
            if result.unscored:
                shown.unscored[check] = result.unscored
        if not asked:  # never judged (a failed response, or not yet): no empty lists in results.jsonl
            shown.members = {}
        return shown
