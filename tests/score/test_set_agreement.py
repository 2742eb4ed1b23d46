"""One verdict set against a reference: kappa, pass rates and the 2×2 cells by hand, and the interval a
bootstrap over core examples gives, checked against a plain loop over the same draws."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from cobe.score.agreement import metrics_from_counts
from cobe.score.set_agreement import kappa_interval, kappa_of_counts, pairs_frame, set_agreement


def _pairs(cells: dict[str, tuple[int, int, int, int]], per_core: int = 2) -> pd.DataFrame:
    """model → (both pass, both fail, only the reference passes, only the set passes), rows spread over cores."""
    records = []
    for model, counts in cells.items():
        verdicts = [(True, True)] * counts[0] + [(False, False)] * counts[1]
        verdicts += [(True, False)] * counts[2] + [(False, True)] * counts[3]
        for i, (ref, got) in enumerate(verdicts):
            core = 1 + i // per_core
            sid = f"{core}v{1 + i % per_core}"
            records.append(
                {"model": model, "scenario_id": sid, "core_id": core, "reference_pass": ref, "set_pass": got}
            )
    return pairs_frame(records)


def test_kappa_pass_rates_and_cells_per_model_and_overall() -> None:
    frame = _pairs({"m-a": (4, 4, 1, 2), "m-b": (4, 3, 1, 2)})
    groups = {g["model"]: g for g in set_agreement(frame, resamples=50)}
    assert list(groups) == ["m-a", "m-b", "all"]
    a, b, both = groups["m-a"], groups["m-b"], groups["all"]
    assert (a["kappa"], b["kappa"], both["kappa"]) == (
        pytest.approx(28 / 61),
        pytest.approx(0.4),
        pytest.approx(16 / 37),
    )
    for group, model in ((a, ["m-a"]), (b, ["m-b"]), (both, ["m-a", "m-b"])):
        part = frame[frame["model"].isin(model)]
        assert group["kappa"] == pytest.approx(cohen_kappa_score(part["reference_pass"], part["set_pass"]))
    assert (both["both_pass"], both["both_fail"], both["reference_pass_set_fail"], both["reference_fail_set_pass"]) == (
        8,
        7,
        2,
        4,
    )
    assert (a["compared"], a["reference_accuracy"], a["set_accuracy"]) == (11, pytest.approx(500 / 11), 600 / 11)
    assert both["agreement"] == pytest.approx(100 * 15 / 21) and both["difference"] == pytest.approx(100 * 2 / 21)
    assert both["ci_unit"] == "core example" and both["clusters"] == 6  # m-a's 11 rows reach core 6


def test_the_interval_draws_whole_core_examples() -> None:
    frame = _pairs({"m-a": (5, 4, 2, 3), "m-b": (3, 5, 3, 1)}, per_core=3)
    interval, unit, units = kappa_interval(frame, resamples=300, seed=7)
    # the same draws by hand: each resample takes cores with replacement, every row of each
    cores = sorted(frame["core_id"].unique())
    draws = np.random.default_rng(7).integers(0, len(cores), size=(300, len(cores)))
    kappas = []
    for draw in draws:
        sample = pd.concat([frame[frame["core_id"] == cores[i]] for i in draw])
        ref, got = sample["reference_pass"], sample["set_pass"]
        metrics = metrics_from_counts(
            tp=int((~ref & ~got).sum()),
            fp=int((ref & ~got).sum()),
            fn=int((~ref & got).sum()),
            tn=int((ref & got).sum()),
        )
        if metrics["kappa"] is not None:
            kappas.append(metrics["kappa"])
    assert unit == "core example" and units == len(cores) == 5
    assert interval == pytest.approx(tuple(np.percentile(kappas, [2.5, 97.5])))


def test_kappa_is_undefined_where_either_set_gives_one_verdict_and_says_why() -> None:
    assert np.isnan(kappa_of_counts(np.array([[3, 0, 0, 0]]))[0])
    assert np.isnan(kappa_of_counts(np.array([[0, 0, 0, 0]]))[0])
    # the set passes everything: 0 by the formula, which would read as a measured "no agreement beyond chance"
    assert np.isnan(kappa_of_counts(np.array([[3, 0, 0, 2]]))[0])
    [group] = set_agreement(_pairs({"m": (3, 0, 0, 0)}), resamples=20)[-1:]
    assert group["kappa"] is None and group["kappa_ci"] is None and group["agreement"] == 100.0
    [passes_all] = set_agreement(_pairs({"m": (3, 0, 0, 2)}), resamples=50)[-1:]
    assert passes_all["kappa"] is None and passes_all["kappa_ci"] is None
    assert passes_all["kappa_undefined"] == "undefined: this set said pass on every item"
    no_draws = set_agreement(_pairs({"m": (3, 2, 1, 1)}), resamples=0)[-1]
    assert no_draws["kappa"] is not None and no_draws["kappa_ci"] is None
