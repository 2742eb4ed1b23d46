"""Scenarios kept on disk and read back one at a time, so a run of any size holds none of them whole.

A `ScenarioSpool` writes each scenario's JSON (exactly as the store records it and the data
fingerprint hashes it) to an unnamed temporary file and keeps in memory only its offset, its id
and its sampling key: about 150 bytes a scenario instead of the ~4 KB of a parsed `Scenario`.
Reading one back parses it again; the few most recently read stay parsed, because a run reads
the same scenario for its respondent call and again for each judge check shortly after.
"""

from __future__ import annotations

import os
import tempfile
from array import array
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from cobe.dataset.schema import Scenario

RECENT = 256  # parsed scenarios kept: well above the items a run has in flight at once


class ScenarioSpool(Sequence[Scenario]):
    """An append-then-read sequence of scenarios backed by a temporary file (deleted when closed or collected)."""

    def __init__(self, scenarios: Iterable[Scenario] = ()) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the spool; close() ends it
        self._ends = array("q")  # end offset of each scenario's JSON; the start is the previous end
        self.ids: list[str] = []
        self.keys: list[tuple[int, int]] = []  # (core id, variation): what sampling orders by
        self._unflushed = False
        self._recent: OrderedDict[int, Scenario] = OrderedDict()
        for scenario in scenarios:
            self.append(scenario)

    def append(self, scenario: Scenario, doc: str | None = None) -> None:
        """Add a scenario; `doc` is its JSON when the caller already has it."""
        data = (doc if doc is not None else scenario.model_dump_json()).encode("utf-8")
        self._file.write(data)
        self._ends.append((self._ends[-1] if self._ends else 0) + len(data))
        self.ids.append(scenario.id)
        self.keys.append((scenario.core_id, scenario.variation))
        self._unflushed = True

    def _bytes(self, index: int) -> bytes:
        if self._unflushed:
            self._file.flush()
            self._unflushed = False
        start = self._ends[index - 1] if index else 0
        return os.pread(self._file.fileno(), self._ends[index] - start, start)

    def json(self, index: int) -> str:
        """The scenario at `index` as JSON text, exactly as it was appended."""
        return self._bytes(self._index(index)).decode("utf-8")

    def docs(self) -> Iterator[str]:
        """Every scenario's JSON text, in order, read as it goes."""
        return (self.json(i) for i in range(len(self)))

    def subset(self, indices: Iterable[int]) -> ScenarioSpool:
        """A new spool of the scenarios at `indices`, in that order."""
        out = ScenarioSpool()
        for i in indices:
            out.append(self[i], self.json(i))
        return out

    def _index(self, index: int) -> int:
        n = len(self._ends)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"scenario index {index} out of range for {n} scenarios")
        return index

    @overload
    def __getitem__(self, index: int) -> Scenario: ...
    @overload
    def __getitem__(self, index: slice) -> list[Scenario]: ...
    def __getitem__(self, index: int | slice) -> Scenario | list[Scenario]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = self._index(index)
        scenario = self._recent.get(index)
        if scenario is None:
            scenario = Scenario.model_validate_json(self._bytes(index))
            self._recent[index] = scenario
            if len(self._recent) > RECENT:
                self._recent.popitem(last=False)
        else:
            self._recent.move_to_end(index)
        return scenario

    def __iter__(self) -> Iterator[Scenario]:
        # a pass over every scenario parses each once and leaves the recent ones to the run
        for i in range(len(self)):
            yield self._recent.get(i) or Scenario.model_validate_json(self._bytes(i))

    def __len__(self) -> int:
        return len(self._ends)

    def __repr__(self) -> str:
        return f"ScenarioSpool({len(self)} scenarios)"

    def close(self) -> None:
        """Delete the backing file now rather than when the spool is collected."""
        self._file.close()
