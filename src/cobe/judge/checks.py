"""The three judge checks, the criterion each one reads, and the pass rule: the one home of all three."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from cobe.core.results import Status, Verdict

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

Check = Literal["connectors", "preserve", "change"]
#: every check, in the order reports list them (the paper's E0 connectors, E1 preserve, E2 change)
CHECKS: tuple[Check, ...] = ("connectors", "preserve", "change")
#: the checks as the paper's failure plot (Fig. 6) names and orders them: E1 upstream, E2 downstream, E3
CHECK_LABELS: dict[Check, str] = {
    "preserve": "preserve (upstream)",
    "change": "change (downstream)",
    "connectors": "connectors",
}


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
