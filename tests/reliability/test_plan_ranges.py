"""`cobe plan` at the edges: a value outside the documented ranges is one line and exit 2, and the extremes
inside them answer (issue 23, item 1).

Before: `--phrasings 1000000000 --icc 0 --pass-rate 0.5` grew to 24 GB, `--half-width 0.1 --pass-rate
0.5`, `--half-width 0.01` and `--phrasings 1000000 --icc 0` ran for minutes, and `--half-width 1e-9`
and `--alpha 0.9 --power 0.2` ended in tracebacks. How long each takes against the 2 s every plan must
answer in is measured by benchmarks/bench_plan.py, not here: a busy machine's timing is no test.
"""

from __future__ import annotations

import pytest

from support.cli import assert_one_line_error, run_cobe
from support.plan_edges import EXTREMES, OUTSIDE, TENTH_OF_A_POINT


@pytest.mark.parametrize(("args", "needles"), OUTSIDE)
def test_outside_its_range_a_plan_is_one_line_and_exit_2(args: tuple[str, ...], needles: tuple[str, ...]) -> None:
    result = run_cobe("plan", *args)
    assert result.returncode == 2
    assert_one_line_error(result, *needles)


def test_a_tenth_of_a_point_answers_in_closed_form() -> None:
    result = run_cobe("plan", *TENTH_OF_A_POINT)
    assert result.returncode == 0, result.stderr
    # z² · 0.25 / 0.001²: a closed form, however large
    assert "scenarios for the accuracy's CI half-width: 960,365 scenarios" in result.stdout
    assert "paired items: 2,881,095 (planned scenarios × phrasings)" in result.stdout
    assert "Connor's normal approximation of McNemar's test in closed form" in result.stdout


@pytest.mark.parametrize("args", EXTREMES)
def test_the_extremes_inside_the_ranges_answer(args: tuple[str, ...]) -> None:
    result = run_cobe("plan", *args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "nan" not in result.stdout
