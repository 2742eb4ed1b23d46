"""Flips of a question asked several times, and a share with its exact interval."""

from __future__ import annotations

import pytest

from cobe.score.repeats import Share, flip_share, flipped


def test_an_item_flips_when_its_parsed_answers_disagree():
    assert flipped(["T", "T", "F"]) is True
    assert flipped(["T", None, "T"]) is False
    assert flipped(["T", None]) is None  # one parsed answer says nothing about stability
    assert flipped(["passed", "failed"]) is True


def test_the_flip_share_counts_only_items_with_two_parsed_answers():
    share = flip_share([["T", "F", "T"], ["F", "F", "F"], ["T", None, None], ["F", "T", None]])
    assert (share.hits, share.n) == (2, 3)


def test_a_share_carries_its_clopper_pearson_interval():
    share = Share(0, 10)
    assert share.share == 0.0 and share.interval == (0.0, pytest.approx(0.3085, abs=1e-4))
    assert share.text() == "0/10 = 0% [0%, 31%]"
    assert Share(0, 0).as_dict() == {"hits": 0, "n": 0, "share": None, "ci_low": None, "ci_high": None}
    assert Share(0, 0).text() == "no item"
