"""`cobe plan` where a question has no answer: a stated rate that leaves nothing to plan is refused in one line
(exit 2), a pilot or count that leaves none is said in words, and `--json` never prints NaN (JSON has none).

Issue 43, item 14: `plan --pass-rate 0 --json` printed NaN (43 cases), and `--pass-rate 0` or `1` answered
"1 scenario", `--discordance 0` and `--items 1` figures that mean nothing.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from support.cli import assert_one_line_error, run_cobe
from support.results import make_rows, write_run


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--pass-rate", "0"), "--pass-rate 0: at a pass rate of 0 or 1 every response fails or every one passes"),
        (("--pass-rate", "1"), "--pass-rate 1: at a pass rate of 0 or 1"),
        (("--human-rate", "0"), "--human-rate 0: at a pass rate of 0 or 1"),
        (("--discordance", "0"), "--discordance 0: two models that never differ on an item show no difference"),
        (("--pass-rate", "0", "--json"), "--pass-rate 0: "),
    ],
)
def test_a_stated_rate_that_leaves_nothing_to_plan_is_one_line(args, said):
    result = run_cobe("plan", *args)
    assert result.returncode == 2
    assert_one_line_error(result, said)


def _strict(text: str) -> dict:
    """JSON as a strict parser reads it: NaN and Infinity are no JSON."""

    def refuse(constant: str) -> float:
        raise AssertionError(f"{constant} in --json output")

    return json.loads(text, parse_constant=refuse)


def _figures(data: object) -> list[float]:
    if isinstance(data, dict):
        return [x for v in data.values() for x in _figures(v)]
    if isinstance(data, list):
        return [x for v in data for x in _figures(v)]
    return [data] if isinstance(data, float) else []


@pytest.fixture(scope="module")
def pilots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pilots")
    return {
        # four scenarios, two models that agree on every item (ψ = 0), every answer passed
        "flat": write_run(root / "flat", make_rows("mock/a", 4, 1.0) + make_rows("mock/b", 4, 1.0)),
        "small": write_run(root / "small", make_rows("mock/a", 4, 0.5) + make_rows("mock/b", 4, 0.75)),
        "one model": write_run(root / "one", make_rows("mock/a", 4, 0.0)),
    }


GRID = [
    ("--items", "1"),
    ("--items", "2", "--pass-rate", "0.5"),
    ("--items", "1", "--discordance", "1"),
    ("--pass-rate", "0.001", "--detect", "50"),
    ("--detect", "0.1"),
    ("--detect", "100", "--discordance", "0.01"),
    ("--human-rate", "0.999", "--items", "1"),
    ("--half-width", "50", "--label-half-width", "0.1", "--items", "1", "--pass-rate", "0.001"),
]


@pytest.mark.parametrize("args", GRID)
def test_json_from_stated_rates_is_strict_json(args):
    result = run_cobe("plan", *args, "--json")
    assert result.returncode == 0, result.stderr
    data = _strict(result.stdout)
    assert all(math.isfinite(x) for x in _figures(data))


@pytest.mark.parametrize("pilot", ["flat", "small", "one model"])
@pytest.mark.parametrize("more", [(), ("--detect", "0.1"), ("--detect", "50"), ("--items", "1")])
def test_json_from_a_small_or_flat_pilot_is_strict_json(pilots, pilot, more):
    model = ("--model", "mock/a") if pilot != "one model" else ()
    result = run_cobe("plan", str(pilots[pilot]), *model, *more, "--json")
    assert result.returncode == 0, result.stderr
    _strict(result.stdout)


def test_a_flat_pilot_says_in_words_that_no_count_answers(pilots):
    result = run_cobe("plan", str(pilots["flat"]), "--model", "mock/a", "--detect", "3")
    assert result.returncode == 0, result.stderr
    assert "scenarios for the accuracy's CI half-width: no answer: nothing varies" in result.stdout
    assert "1 scenario" not in result.stdout
    assert "human labels for the calibrated CI half-width: no answer: nothing varies" in result.stdout
    assert "smallest difference two models show at 80% power: no answer: no items planned" in result.stdout
    assert "models whose answers differ on 0.0% of items cannot be 3 points apart" in result.stdout
    data = _strict(run_cobe("plan", str(pilots["flat"]), "--model", "mock/a", "--json").stdout)
    assert [answer["value"] for answer in data["answers"]] == [None, None, None]


def test_two_models_that_never_differ_have_no_difference_to_detect(pilots):
    result = run_cobe("plan", str(pilots["flat"]), "--model", "mock/a", "--items", "300")
    assert "smallest difference two models show at 80% power: no answer: the models never differ" in result.stdout
    assert "the two models never differ on an item (ψ = 0)" in result.stdout


def test_one_item_says_it_is_worth_less_than_one_pair():
    result = run_cobe("plan", "--items", "1")
    assert result.returncode == 0, result.stderr
    assert "smallest difference two models show at 80% power: not reachable" in result.stdout
    assert "independent pairs they are worth: 0 (paired items / design effect)" in result.stdout
    assert "1 paired item is worth less than one independent pair (design effect 3); judge more items" in result.stdout
