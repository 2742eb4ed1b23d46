"""Reproducible samples of a dataset: same seed and data, same sample, whatever the file order."""

from __future__ import annotations

import random
from collections.abc import Sequence

from cobe.core.errors import InputError
from cobe.dataset.schema import Scenario


def sample_scenarios(scenarios: list[Scenario], n: int, seed: int, by_core: bool = False) -> list[Scenario]:
    """`n` scenarios drawn with `seed`, in id order; `by_core` draws whole core examples instead.

    With `by_core`, core examples are drawn until at least `n` scenarios are reached, so the
    result can exceed `n` by up to one core example's variations. Asking for at least as many
    scenarios as there are returns them all.
    """
    keys = [(s.core_id, s.variation) for s in scenarios]
    return [scenarios[i] for i in sample_positions(keys, n, seed, by_core)]


def sample_positions(keys: Sequence[tuple[int, int]], n: int, seed: int, by_core: bool = False) -> list[int]:
    """The positions `sample_scenarios` draws, from each scenario's (core id, variation) alone."""
    if n < 1:
        raise InputError(f"--n must be a positive number of scenarios, got {n}")
    ordered = sorted(range(len(keys)), key=keys.__getitem__)  # sampling must not depend on the input's order
    if n >= len(ordered):
        return ordered
    rng = random.Random(seed)
    if not by_core:
        return sorted(rng.sample(ordered, n), key=keys.__getitem__)
    cores = sorted({key[0] for key in keys})
    rng.shuffle(cores)
    by_core_id: dict[int, list[int]] = {}
    for position in ordered:
        by_core_id.setdefault(keys[position][0], []).append(position)
    chosen: list[int] = []
    for core in cores:
        if len(chosen) >= n:
            break
        chosen.extend(by_core_id[core])
    return sorted(chosen, key=keys.__getitem__)
