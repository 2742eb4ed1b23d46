"""Each scenario's partner from another core example: the rewrite `baseline/swapped` answers with, and the
judge self-test's and audit's "another story's rewrite" probe."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from cobe.core.errors import InputError
from cobe.dataset.schema import Scenario


def swap_partners(scenarios: Sequence[Scenario]) -> dict[str, Scenario]:
    """Each scenario's partner: a scenario of the next core example.

    Core examples with an illustrative answer are ordered by id and taken cyclically, so the
    partner always comes from a different core example; inside it, the scenario at the same
    position (by variation, wrapping round) is taken. Same scenarios, same partners, whatever
    their order.
    """
    return {sid: scenarios[position] for sid, position in partner_positions(scenarios).items()}


def partner_positions(scenarios: Sequence[Scenario]) -> dict[str, int]:
    """The partners of `swap_partners` as positions in `scenarios`, found in one pass that keeps no scenario."""
    by_core: dict[int, list[tuple[int, str, int]]] = defaultdict(list)  # core id → (variation, id, position)
    for position, scenario in enumerate(scenarios):
        if scenario.illustrative_answer and scenario.illustrative_answer.strip():
            by_core[scenario.core_id].append((scenario.variation, scenario.id, position))
    cores = sorted(by_core)
    if len(cores) < 2:
        raise InputError(
            "another story's rewrite (baseline/swapped, the judge audit's swapped probe) needs scenarios from at "
            f"least two core examples with an illustrative answer; got {len(cores)}"
        )
    for rows in by_core.values():
        rows.sort()
    partners: dict[str, int] = {}
    for index, core in enumerate(cores):
        others = by_core[cores[(index + 1) % len(cores)]]
        for rank, (_, sid, _) in enumerate(by_core[core]):
            partners[sid] = others[rank % len(others)][2]
    return partners
