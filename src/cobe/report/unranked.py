"""Models a report gives no rank: those with no scored row (every answer unscored or errored), whose accuracy
measures nothing. A leaderboard lists them last, with a dash for a rank, and the report says why at its top."""

from __future__ import annotations

import pandas as pd


def unranked(leaderboard: pd.DataFrame) -> list[str]:
    """The labels of a leaderboard with no scored row, in its order."""
    if leaderboard.empty or "scored" not in leaderboard.columns:
        return []
    return [str(label) for label, scored in zip(leaderboard["label"], leaderboard["scored"]) if not scored]


def unranked_note(leaderboard: pd.DataFrame) -> str | None:
    """One line naming the models given no rank and why; None where every model has a scored row."""
    labels = unranked(leaderboard)
    if not labels:
        return None
    named = ", ".join(labels)
    verb = "has" if len(labels) == 1 else "have"
    return (
        f"{named} {verb} no scored row (every answer unscored or errored: the rows by status and the top reasons "
        "say what came back), so no accuracy was measured and no rank is given"
    )
