"""The criterion each judge check reads, the pass rule, and the strict majority of several verdicts.

The check names themselves (`CHECKS`, `Check`, `CHECK_LABELS`) belong to the result row, `cobe.core.results`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from cobe.core.results import CHECKS, Status, Verdict

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario


def criterion(check: str, scenario: Scenario) -> str:
    """The criterion text a check reads: preserve and change their own, connectors none."""
    if check == "preserve":
        return scenario.preserve_text
    if check == "change":
        return scenario.change_text
    return ""


def row_status(verdicts: dict[str, Verdict | None], response_error: str | None) -> tuple[Status, bool | None]:
    """The pass rule: one F fails the row whatever else is missing; pass only with three T; otherwise unscored.

    A row is unscored only when no check says F and at least one verdict is missing, so a
    missing verdict can never lift a failing response out of the denominator.
    """
    if response_error is not None:
        return "error", None
    values = [verdicts.get(check) for check in CHECKS]
    if any(value == "F" for value in values):
        return "failed", False
    if any(value is None for value in values):
        return "unscored", None
    return "passed", True


def majority(votes: Iterable[Verdict | None], voters: str = "judges") -> tuple[Verdict | None, str | None]:
    """(T or F, None) when more parseable votes say it than the other letter; (None, reason) otherwise.

    The one majority rule of judge panels and of repeated samples: an unparseable vote (None)
    abstains, and a tie is unscored, never broken by the order of the votes.
    """
    cast = [vote for vote in votes if vote is not None]
    t, f = cast.count("T"), cast.count("F")
    if t > f:
        return "T", None
    if f > t:
        return "F", None
    if not cast:
        return None, f"no verdict from any of the {voters}"
    return None, f"{voters} split {t} T / {f} F"
