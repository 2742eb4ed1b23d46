"""--epochs K: a model's accuracy is the mean over epochs of the per-phrasing mean; each epoch and their spread."""

from __future__ import annotations

import pytest

from cobe.score.accuracy import accuracy, by_epoch, by_phrasing, epoch_spread, rows_frame, several_epochs


def _rows(epoch: int, template: str, passes: int, fails: int) -> list[dict]:
    statuses = ["passed"] * passes + ["failed"] * fails
    return [{"model": "m", "template": template, "epoch": epoch, "status": s, "verdicts": {}} for s in statuses]


def frame():
    # epoch 1: A 4/4, B 2/4 → 75; epoch 2: A 1/2 (two unscored away), B 1/4 → 37.5
    rows = _rows(1, "A", 4, 0) + _rows(1, "B", 2, 2) + _rows(2, "A", 1, 1) + _rows(2, "B", 1, 3)
    rows += [{"model": "m", "template": "A", "epoch": 2, "status": "unscored", "verdicts": {}}] * 2
    return rows_frame(rows)


def test_the_headline_is_the_mean_over_epochs_of_the_mean_over_phrasings():
    df = frame()
    assert several_epochs(df)
    (row,) = accuracy(df).to_dict("records")
    # per phrasing over epochs: A (100 + 50) / 2 = 75, B (50 + 25) / 2 = 37.5; their mean 56.25 = (75 + 37.5) / 2
    assert row["accuracy"] == pytest.approx(56.25)
    assert row["std"] == pytest.approx(26.5165, abs=1e-4)  # the sample std across phrasings, as with one epoch
    assert (row["n"], row["scored"], row["passes"], row["unscored"]) == (16, 14, 8, 2)
    per = {r["template"]: r["accuracy"] for r in by_phrasing(df).to_dict("records")}
    assert per == {"A": pytest.approx(75.0), "B": pytest.approx(37.5)}
    # pooling the epochs instead would weigh epoch 1's A (4 scored) over epoch 2's (2 scored): 5/6, not 3/4
    assert per["A"] != pytest.approx(100 * 5 / 6)


def test_each_epoch_and_their_spread():
    df = frame()
    epochs = {r["epoch"]: r["accuracy"] for r in by_epoch(df).to_dict("records")}
    assert epochs == {1: pytest.approx(75.0), 2: pytest.approx(37.5)}
    (spread,) = epoch_spread(df).to_dict("records")
    assert spread["epochs"] == 2 and spread["epoch_std"] == pytest.approx(26.5165, abs=1e-4)


def test_one_epoch_scores_exactly_as_before():
    one = frame()
    one = one[one["epoch"] == 1]
    assert not several_epochs(one)
    without = one.drop(columns="epoch")
    assert accuracy(one).drop(columns=[]).equals(accuracy(without))
    (spread,) = epoch_spread(without).to_dict("records")
    assert spread == {"model": "m", "epochs": 1, "epoch_std": 0.0}
