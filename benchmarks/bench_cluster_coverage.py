"""Coverage of the leaderboard's 95% interval when scenarios come in families, by simulation.

Each simulated benchmark has C core examples with V variations each, answered under three
phrasings. A core draws its own pass probability around the true accuracy (a Beta distribution:
the tighter it is, the less the variations share), each variation draws its own around its core's,
and each phrasing passes with its variation's. The true accuracy is the mean of the core
distribution. Over many benchmarks per setting it prints how often each 95% bootstrap interval
covers the truth and its mean half-width: resampling core examples (what cobe does wherever a core
holds several scenarios: cobe.score.bootstrap) and resampling scenarios as if independent (what
cobe did before).

Run: .venv/bin/python benchmarks/bench_cluster_coverage.py [--studies 300] [--resamples 1000] [--seed 0]
Exits 1 when the cluster coverage falls below 90% in a setting or does not beat the scenario one.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cobe.score.bootstrap import (
    CORE_UNIT,
    SCENARIO_UNIT,
    bootstrap_distribution,
    item_matrix,
    percentile_interval,
)

MIN_CLUSTER_COVERAGE = 0.90
PHRASINGS = ("A", "B", "C")


@dataclass(frozen=True)
class Setting:
    """One kind of benchmark: its size, its true accuracy and how strongly a family shares outcomes."""

    name: str
    cores: int
    variations: int
    accuracy: float
    core_spread: float  # Beta concentration of a core's pass probability (0: outcomes fixed by the core)
    variation_spread: float  # Beta concentration of a variation's around its core's (0: the core's own)


SETTINGS = (
    Setting("outcomes fixed by core, 20 x 10", 20, 10, 0.5, 0.0, 0.0),
    Setting("strong families, 20 x 10", 20, 10, 0.5, 2.0, 8.0),
    Setting("moderate families, 40 x 10", 40, 10, 0.6, 4.0, 4.0),
    Setting("CoBe-sized, 106 x 19", 106, 19, 0.55, 3.0, 6.0),
)


def _beta_around(rng: np.random.Generator, mean: np.ndarray, concentration: float) -> np.ndarray:
    """Probabilities drawn around `mean`; concentration 0 draws 0 or 1 (all of the spread)."""
    if concentration == 0:
        return (rng.random(mean.shape) < mean).astype(float)
    low = np.clip(mean, 1e-6, 1 - 1e-6)
    return rng.beta(low * concentration, (1 - low) * concentration)


def simulate_frame(setting: Setting, rng: np.random.Generator) -> pd.DataFrame:
    """One benchmark's result rows: core_id, scenario_id, template, scored, pass."""
    core = _beta_around(rng, np.full(setting.cores, setting.accuracy), setting.core_spread)
    per_variation = np.repeat(core, setting.variations)
    if setting.variation_spread > 0:
        per_variation = _beta_around(rng, per_variation, setting.variation_spread)
    scenarios = len(per_variation)
    passes = rng.random((scenarios, len(PHRASINGS))) < per_variation[:, None]
    cores = np.repeat(np.arange(setting.cores), setting.variations)
    variations = np.tile(np.arange(1, setting.variations + 1), setting.cores)
    return pd.DataFrame(
        {
            "core_id": np.repeat(cores, len(PHRASINGS)),
            "scenario_id": np.repeat([f"{c}v{v}" for c, v in zip(cores, variations)], len(PHRASINGS)),
            "template": np.tile(PHRASINGS, scenarios),
            "scored": True,
            "pass": passes.ravel(),
        }
    )


def coverage(
    setting: Setting, studies: int, resamples: int, rng: np.random.Generator
) -> dict[str, tuple[float, float]]:
    """(coverage, mean half-width in points) of the 95% interval, per resampled unit."""
    truth = 100 * setting.accuracy
    covered = {CORE_UNIT: 0, SCENARIO_UNIT: 0}
    width = {CORE_UNIT: 0.0, SCENARIO_UNIT: 0.0}
    for study in range(studies):
        frame = simulate_frame(setting, rng)
        for unit in covered:
            low, high = percentile_interval(bootstrap_distribution(item_matrix(frame, unit=unit), resamples, study))
            covered[unit] += low <= truth <= high
            width[unit] += (high - low) / 2
    return {unit: (covered[unit] / studies, width[unit] / studies) for unit in covered}


def main() -> int:
    """Print both methods' coverage per setting; 1 when resampling cores does not hold its level."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=300)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    failed = False
    print(f"{args.studies} simulated benchmarks per setting, {args.resamples} bootstrap resamples each")
    print(f"{'setting':34} {'resampling cores':>24} {'resampling scenarios':>24}")
    for setting in SETTINGS:
        start = time.perf_counter()
        result = coverage(setting, args.studies, args.resamples, rng)
        cells = [f"{100 * c:5.1f}% covered, ±{w:4.1f}" for c, w in (result[CORE_UNIT], result[SCENARIO_UNIT])]
        print(f"{setting.name:34} {cells[0]:>24} {cells[1]:>24}   ({time.perf_counter() - start:.1f} s)")
        cluster, scenario = result[CORE_UNIT][0], result[SCENARIO_UNIT][0]
        failed |= cluster < MIN_CLUSTER_COVERAGE or cluster <= scenario
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
