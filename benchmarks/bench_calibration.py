"""Coverage of the human-calibrated 95% interval (PPI++) against a known true pass rate, by simulation.

Each simulated study: N judged items whose true (human) label passes with probability p, a judge of
known sensitivity (passes what humans pass) and specificity (fails what humans fail), and human
labels on a random n of the items. Over many studies per setting it prints how often each 95%
interval covers p: the calibrated one (cobe.score.calibration, ppi-python), the judge-only one
(the judge's labels taken as the truth), and the human-labels-only one, with mean widths.

Run: .venv/bin/python benchmarks/bench_calibration.py [--studies 1000] [--seed 0]
Exits 1 when a calibrated coverage falls outside 93-97%.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import numpy as np

from cobe.score.binomial import clopper_pearson
from cobe.score.calibration import calibrated_rate

LOW, HIGH = 0.93, 0.97


@dataclass(frozen=True)
class Setting:
    """One kind of study: truth, judge quality and sizes."""

    name: str
    pass_rate: float
    sensitivity: float
    specificity: float
    items: int
    labels: int


SETTINGS = (
    Setting("lenient judge", 0.60, 0.90, 0.70, 2000, 200),
    Setting("very lenient, low pass rate", 0.30, 0.95, 0.50, 1500, 150),
    Setting("strict judge, small run", 0.50, 0.80, 0.90, 600, 100),
    Setting("passes nearly everything", 0.80, 0.98, 0.30, 3000, 250),
)


def simulate(setting: Setting, studies: int, rng: np.random.Generator) -> dict[str, float]:
    """Coverage and mean width of the three intervals over `studies` simulated studies."""
    covered = {"calibrated": 0, "judge only": 0, "humans only": 0}
    width = {"calibrated": 0.0, "judge only": 0.0, "humans only": 0.0}
    p = setting.pass_rate
    for _ in range(studies):
        truth = rng.random(setting.items) < p
        judge = np.where(
            truth, rng.random(setting.items) < setting.sensitivity, rng.random(setting.items) > setting.specificity
        )
        rated = np.zeros(setting.items, dtype=bool)
        rated[rng.choice(setting.items, setting.labels, replace=False)] = True
        result = calibrated_rate(truth[rated], judge[rated], judge[~rated])
        intervals = {
            "calibrated": (result.ci_low, result.ci_high),
            "judge only": clopper_pearson(int(judge.sum()), setting.items),
            "humans only": clopper_pearson(int(truth[rated].sum()), setting.labels),
        }
        for name, (low, high) in intervals.items():
            covered[name] += low <= p <= high
            width[name] += high - low
    return {f"{name} coverage": covered[name] / studies for name in covered} | {
        f"{name} width": width[name] / studies for name in width
    }


def main() -> int:
    """Simulate every setting, print the coverage table, check the calibrated coverage."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=1000, help="simulated studies per setting")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    ok = True
    print(f"{args.studies} simulated studies per setting; 95% intervals; truth = the human pass rate p")
    print(
        f"{'setting':30} {'p':>5} {'se':>5} {'sp':>5} {'N':>5} {'n':>4} | {'calibrated':>10} {'judge only':>10} "
        f"{'humans only':>11} | {'width cal.':>10} {'humans':>7}"
    )
    for setting in SETTINGS:
        r = simulate(setting, args.studies, rng)
        inside = LOW <= r["calibrated coverage"] <= HIGH
        ok &= inside
        print(
            f"{setting.name:30} {setting.pass_rate:5.2f} {setting.sensitivity:5.2f} {setting.specificity:5.2f} "
            f"{setting.items:5d} {setting.labels:4d} | {r['calibrated coverage']:10.1%} {r['judge only coverage']:10.1%} "
            f"{r['humans only coverage']:11.1%} | {100 * r['calibrated width']:9.1f}p {100 * r['humans only width']:6.1f}p"
            + ("" if inside else "  <- outside 93-97%")
        )
    elapsed = time.perf_counter() - start
    print(
        f"total: {elapsed:.1f} s; calibrated coverage {'within' if ok else 'OUTSIDE'} {LOW:.0%}-{HIGH:.0%} everywhere"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
