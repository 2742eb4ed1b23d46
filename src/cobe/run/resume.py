"""What a run has already finished: the one answer, for the run and for --dry-run, to "what is left?"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cobe.judge.checks import CHECKS
from cobe.judge.panel import Ask
from cobe.prompts.render import Judged, judged_text

if TYPE_CHECKING:
    import sqlite3

    from cobe.run.judges import JudgeRef
    from cobe.run.plan import Item
    from cobe.run.store import Store


class StoredWork:
    """The responses of a run and the verdicts of one judge (or of each judge of a panel) on them."""

    def __init__(
        self, store: Store | None, run_id: str | None, judge: JudgeRef | None, temperature: float | None = None
    ) -> None:
        self.store, self.run_id, self.judge = store, run_id, judge
        # with several samples a verdict asked at another temperature is no sample of this judging
        self.temperature = temperature if judge is not None and judge.samples > 1 else None
        self.responses: dict[tuple[str, str, str], sqlite3.Row] = {}
        self.verdicts: list[dict[tuple[int, str, int], sqlite3.Row]] = []  # one per judge, by (response, check, sample)
        if store is not None and run_id is not None:
            self.reload_responses()
            if judge is not None:
                self.verdicts = [store.verdict_samples(run_id, j.spec, j.fingerprint) for j in judge.judges]

    def reload_responses(self) -> None:
        """Read the responses again (after a generation pass wrote new ones)."""
        if self.store is not None and self.run_id is not None:
            self.responses = self.store.responses(self.run_id)

    def forget(self) -> None:
        """Drop the rows held in memory (before the exports read the store again)."""
        self.responses, self.verdicts = {}, []

    def response(self, item: Item) -> sqlite3.Row | None:
        """The item's stored response row when it finished without error; None means: generate it."""
        row = self.responses.get(item.response_key)
        return row if row is not None and row["error"] is None else None

    def reworded(self, items: list[Item]) -> Item | None:
        """The first item whose stored response answered other prompt text (a template reworded since)."""
        for item in items:
            row = self.responses.get(item.response_key)
            if row is not None and row["prompt"] != item.prompt:
                return item
        return None

    def _done(self, member: int, key: tuple[int, str, int]) -> bool:
        row = self.verdicts[member].get(key) if member < len(self.verdicts) else None
        if row is None or row["error"] is not None:
            return False
        return self.temperature is None or row["temperature"] == self.temperature

    def asks_left(self, response_id: int) -> list[Ask]:
        """The (judge, check, sample) questions of a response with no verdict yet, or whose judge call failed."""
        if self.judge is None:
            return []
        return [
            (m, check, k)
            for m in range(len(self.judge.judges))
            for check in CHECKS
            for k in range(self.judge.samples)
            if not self._done(m, (response_id, check, k))
        ]

    def checks_left(self, response_id: int) -> tuple[str, ...]:
        """The checks of a response that some judge or sample still has to answer."""
        left = {check for _, check, _ in self.asks_left(response_id)}
        return tuple(c for c in CHECKS if c in left)

    def judged(self, item: Item) -> bool:
        """Whether the item's response exists and every check of it has a verdict, or it is never judged."""
        row = self.response(item)
        return row is not None and (shown(item, row).text is None or not self.asks_left(row["id"]))


def shown(item: Item, row: sqlite3.Row) -> Judged:
    """What the judge sees of a stored response: its story, or why it is unscored without a judge call."""
    return judged_text(item.template, row["text"] or "", row["finish_reason"])
