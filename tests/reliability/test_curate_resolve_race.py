"""Two admins resolving one disagreement at once: the second is told "already resolved" (a 400 page on the web),
never an IntegrityError (HTTP 500)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.curate import add_reviewer, disagreements, import_file, init_project, promote, record_review, resolve
from cobe.curate.project import open_project
from support.curate_project import CORES


def test_the_second_of_two_admins_resolving_at_once_is_told_it_is_resolved(tmp_path: Path) -> None:
    first = init_project(tmp_path / "proj")
    import_file(first, CORES)
    promote(first, ["1v0"])
    for name, role in (("alice", "reviewer"), ("bob", "reviewer"), ("boss", "admin"), ("chief", "admin")):
        add_reviewer(first, name, role=role)
    record_review(first, "1v0", "alice", "approve")
    assert record_review(first, "1v0", "bob", "reject") == "disagreement"
    second = open_project(tmp_path / "proj")  # the other admin's request: a connection of its own
    begin = first.transaction

    @contextmanager
    def other_admin_first() -> Iterator[object]:
        # both admins saw the item open; the other's resolution commits just before this one's write begins
        resolve(second, "1v0", "chief", "reject", "too vague")
        with begin() as conn:
            yield conn

    first.transaction = other_admin_first  # type: ignore[method-assign]
    with pytest.raises(InputError, match=r"item 1v0: already resolved by chief \(reject\)"):
        resolve(first, "1v0", "boss", "approve", "clear enough")
    first.transaction = begin  # type: ignore[method-assign]
    assert disagreements(first) == [] and first.item("1v0").status == "rejected"
    second.close()
    first.close()
