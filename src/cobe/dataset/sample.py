"""Reproducible samples of a dataset: same seed and data, same sample, whatever the file order."""

from __future__ import annotations

import random

from cobe.core.errors import InputError
from cobe.dataset.schema import Scenario


def _order(scenario: Scenario) -> tuple[int, int]:
    return scenario.core_id, scenario.variation


def sample_scenarios(scenarios: list[Scenario], n: int, seed: int, by_core: bool = False) -> list[Scenario]:
    """`n` scenarios drawn with `seed`, in id order; `by_core` draws whole core examples instead.

    With `by_core`, core examples are drawn until at least `n` scenarios are reached, so the
    result can exceed `n` by up to one core example's variations. Asking for at least as many
    scenarios as there are returns them all.
    """
    if n < 1:
        raise InputError(f"--n must be a positive number of scenarios, got {n}")
    ordered = sorted(scenarios, key=_order)  # sampling must not depend on the input's order
    if n >= len(ordered):
        return ordered
    rng = random.Random(seed)
    if not by_core:
        return sorted(rng.sample(ordered, n), key=_order)
    cores = sorted({s.core_id for s in ordered})
    rng.shuffle(cores)
    by_core_id: dict[int, list[Scenario]] = {}
    for scenario in ordered:
        by_core_id.setdefault(scenario.core_id, []).append(scenario)
    chosen: list[Scenario] = []
    for core in cores:
        if len(chosen) >= n:
            break
        chosen.extend(by_core_id[core])
    return sorted(chosen, key=_order)
