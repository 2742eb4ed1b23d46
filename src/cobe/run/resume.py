"""What a run has already finished: the one answer, for the run and for --dry-run, to "what is left?"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cobe.core.results import CHECKS
from cobe.judge.panel import Ask
from cobe.judge.published import is_published
from cobe.prompts.render import Judged, judged_text

if TYPE_CHECKING:
    from collections.abc import Iterable

    from cobe.judge.judge_plan import JudgeRef
    from cobe.run.items import Item
    from cobe.store.rows import ResponseRow, VerdictRow
    from cobe.store.store import Store


class StoredWork:
    """The responses of a run and the verdicts of one judge (or of each judge of a panel) on them.

    Every question is answered from the store when it is asked, one item at a time through the
    store's UNIQUE indexes, so nothing grows with the run; a row written since is seen at once.
    """

    def __init__(
        self,
        store: Store | None,
        run_id: str | None,
        judge: JudgeRef | None,
        temperature: float | None = None,
        *,
        reask: bool = False,
    ) -> None:
        self.store, self.run_id, self.judge = store, run_id, judge
        # with several samples a verdict asked at another temperature is no sample of this judging
        self.temperature = temperature if judge is not None and judge.samples > 1 else None
        # --reask-unscored: an empty response and a verdict that is neither T nor F are work left, not work done
        self.reask = reask

    def _row(self, item: Item) -> ResponseRow | None:
        if self.store is None or self.run_id is None:
            return None
        return self.store.response(self.run_id, *item.response_key, epoch=item.epoch)

    def response(self, item: Item) -> ResponseRow | None:
        """The item's stored response row when it finished without error; None means: generate it."""
        row = self._row(item)
        if row is None or row.error is not None:
            return None
        return None if self.reask and not (row.text or "").strip() else row

    def reworded(self, items: Iterable[Item]) -> Item | None:
        """The first item whose stored response answered other prompt text (a template reworded since)."""
        for item in items:
            row = self._row(item)
            if row is not None and row.prompt != item.prompt:
                return item
        return None

    def _done(self, row: VerdictRow | None) -> bool:
        if row is None or row.error is not None:
            return False
        if self.reask and row.verdict is None:
            return False
        return self.temperature is None or row.temperature == self.temperature

    def asks_left(self, response_id: int) -> list[Ask]:
        """The (judge, check, sample) questions of a response with no verdict yet, or whose judge call failed
        (with `reask`: or whose verdict is neither T nor F)."""
        if self.judge is None or is_published(self.judge):  # a source's published verdicts are never asked
            return []
        stored = [
            self.store.response_verdicts(response_id, j.spec, j.fingerprint) if self.store is not None else {}
            for j in self.judge.judges
        ]
        return [
            (m, check, k)
            for m in range(len(self.judge.judges))
            for check in CHECKS
            for k in range(self.judge.samples)
            if not self._done(stored[m].get((check, k)))
        ]

    def judged(self, item: Item) -> bool:
        """Whether the item's response exists and every check of it has a verdict, or it is never judged."""
        row = self.response(item)
        return row is not None and (shown(item, row).text is None or not self.asks_left(row.id))


def shown(item: Item, row: ResponseRow) -> Judged:
    """What the judge sees of a stored response: its story, or why it is unscored without a judge call."""
    return judged_text(item.template, row.text or "", row.finish_reason)
