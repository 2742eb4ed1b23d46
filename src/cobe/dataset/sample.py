"""Reproducible samples of a dataset: same seed and data, same sample, whatever the file order."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from cobe.core.errors import InputError
from cobe.core.jsonfile import text_lines
from cobe.dataset.schema import Scenario

#: unknown ids an error names before it says how many more there are
_SHOWN_IDS = 5


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


def split_ids(values: Iterable[str]) -> list[str]:
    """Scenario ids from comma-separated values (`--ids 115v3,317v3`), each once, in the order given."""
    ids = [part.strip() for value in values for part in value.split(",")]
    return list(dict.fromkeys(part for part in ids if part))


def read_id_file(path: str | Path) -> list[str]:
    """The scenario ids a file lists (`--ids-file`): one per line or comma-separated; `#` starts a comment."""
    try:
        ids = split_ids(line.split("#", 1)[0] for _, line in text_lines(path, "a file of scenario ids"))
    except InputError as exc:  # the file's own problem, said under the option that named it
        raise InputError(f"--ids-file {exc}") from None
    if not ids:
        raise InputError(f"--ids-file {path}: no scenario id; expected one id per line, e.g. 317v3")
    return ids


def id_positions(ids: Sequence[str], wanted: Sequence[str], source: str) -> list[int]:
    """The positions of the `wanted` ids in a dataset's `ids`, in dataset order; an id the dataset lacks is an
    InputError naming it."""
    where = {sid: position for position, sid in enumerate(ids)}
    missing = [sid for sid in wanted if sid not in where]
    if missing:
        more = f" and {len(missing) - _SHOWN_IDS} more" if len(missing) > _SHOWN_IDS else ""
        example = f" (its ids look like {', '.join(ids[:3])})" if ids else ""
        raise InputError(
            f"--ids: {len(missing)} of {len(wanted)} scenario ids are not in {source}: "
            f"{', '.join(missing[:_SHOWN_IDS])}{more}{example}"
        )
    return sorted(where[sid] for sid in wanted)
