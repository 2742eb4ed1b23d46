"""`cobe plan` at the edges: every call answers in well under 2 s, and a value outside the documented
ranges is one line and exit 2 (issue 23, item 1).

Before: `--phrasings 1000000000 --icc 0 --pass-rate 0.5` grew to 24 GB, `--half-width 0.1 --pass-rate
0.5`, `--half-width 0.01` and `--phrasings 1000000 --icc 0` ran for minutes, and `--half-width 1e-9`
and `--alpha 0.9 --power 0.2` ended in tracebacks. The timings are of the command in-process, its
modules already loaded, so they measure the plan itself and not the start of a Python.
"""

from __future__ import annotations

import time

import pytest

from support.cli import CliResult, assert_one_line_error, run_cobe

#: well under the 2 s every plan must answer in, with room for a busy machine
BOUND_S = 1.0


@pytest.fixture(scope="module", autouse=True)
def _loaded() -> None:
    """Load what a plan imports once, so each timing is the plan's own."""
    run_cobe("plan", "--pass-rate", "0.5")


def timed_plan(*args: str) -> tuple[CliResult, float]:
    start = time.perf_counter()
    result = run_cobe("plan", *args)
    return result, time.perf_counter() - start


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("--phrasings", "1000000000", "--icc", "0", "--pass-rate", "0.5"), ("--phrasings 1000000000", "1 to 100")),
        (("--half-width", "0.01"), ("--half-width 0.01", "expected 0.1 to 50 points")),
        (("--phrasings", "1000000", "--icc", "0"), ("--phrasings 1000000", "1 to 100 phrasings")),
        (("--half-width", "1e-9"), ("--half-width 1e-09", "expected 0.1 to 50 points")),
        (("--alpha", "0.9", "--power", "0.2"), ("--alpha 0.9", "expected 1e-06 to 0.2")),
        (("--power", "0.2"), ("--power 0.2", "expected 0.5 to 0.999")),
        (("--label-half-width", "0"), ("--label-half-width 0", "0.1 to 50 points")),
        (("--items", "0"), ("--items 0", "1 to 1,000,000,000")),
        (("--variations", "5000"), ("--variations 5000", "1 to 1,000 scenarios per core example")),
        (("--pass-rate", "nan"), ("--pass-rate nan", "a share from 0 to 1")),
    ],
)
def test_outside_its_range_a_plan_is_one_line_and_exit_2(args: tuple[str, ...], needles: tuple[str, ...]) -> None:
    result, took = timed_plan(*args)
    assert result.returncode == 2
    assert_one_line_error(result, *needles)
    assert took < BOUND_S


def test_a_tenth_of_a_point_answers_at_once() -> None:
    result, took = timed_plan("--half-width", "0.1", "--pass-rate", "0.5")
    assert result.returncode == 0, result.stderr
    # z² · 0.25 / 0.001²: a closed form, however large
    assert "scenarios for the accuracy's CI half-width: 960,365 scenarios" in result.stdout
    assert "paired items: 2,881,095 (planned scenarios × phrasings)" in result.stdout
    assert "Connor's normal approximation of McNemar's test in closed form" in result.stdout
    assert took < BOUND_S


@pytest.mark.parametrize(
    "args",
    [
        # the most scenarios: the narrowest interval, the most phrasings and variations, all correlated
        ("--half-width", "0.1", "--phrasings", "100", "--icc", "1", "--variations", "1000", "--core-icc", "1"),
        # the largest exact power search: the most paired items it takes, at every extreme of α and power
        ("--items", "20000", "--discordance", "0.5", "--alpha", "1e-6", "--power", "0.999"),
        ("--items", "20000", "--discordance", "1", "--alpha", "0.2", "--power", "0.5"),
        ("--items", "20000", "--discordance", "0.001", "--alpha", "0.05", "--power", "0.8"),
        ("--items", "1000000000", "--discordance", "0.5"),
        ("--half-width", "50", "--label-half-width", "0.1", "--items", "1", "--pass-rate", "0"),
        # the inverse question at its extremes: the exact search for the fewest pairs, or past it
        ("--detect", "0.1", "--alpha", "1e-6", "--power", "0.999"),
        ("--detect", "3", "--discordance", "0.03", "--alpha", "1e-6", "--power", "0.999"),
        ("--detect", "3", "--discordance", "0.06", "--judge-sensitivity", "0.99", "--judge-specificity", "0.99"),
        ("--detect", "100", "--discordance", "1", "--alpha", "0.2", "--power", "0.5"),
    ],
)
def test_the_extremes_inside_the_ranges_answer_in_well_under_two_seconds(args: tuple[str, ...]) -> None:
    result, took = timed_plan(*args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "nan" not in result.stdout
    assert took < BOUND_S
