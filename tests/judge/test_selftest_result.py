"""The self-test's counting per probe × check, its intervals and its plain-words verdict."""

from __future__ import annotations

import pytest

from cobe.judge.selftest_result import SelfTest, judge_check_markdown, probe_check, self_test_verdict
from cobe.score.binomial import clopper_pearson


def test_probe_check_counts_hits_and_leaves_unscored_out():
    row = probe_check("identity", "change", "F", ["F", "F", "T", None])
    assert (row.asked, row.scored, row.hits, row.says_t, row.unscored) == (4, 3, 2, 1, 1)
    assert row.share == pytest.approx(2 / 3) and (row.ci_low, row.ci_high) == pytest.approx(clopper_pearson(2, 3))
    empty = probe_check("swapped", "preserve", "F", [None, None])
    assert empty.share is None and empty.ci_low is None and empty.unscored == 2


def rows(identity: list, illustrative: list, swapped: list) -> list:
    return [
        probe_check("identity", "change", "F", identity),
        *(probe_check("illustrative", c, "T", illustrative) for c in ("connectors", "preserve", "change")),
        probe_check("swapped", "preserve", "F", swapped),
    ]


def test_verdicts_in_plain_words():
    right = rows(["F"] * 10, ["T"] * 10, ["F"] * 10)
    assert self_test_verdict(right) == ("the judge behaves as expected on all three probes", True)
    all_t = rows(["T"] * 10, ["T"] * 10, ["T"] * 10)
    line, ok = self_test_verdict(all_t)
    assert not ok and line.startswith("this judge passes nearly everything (100% of its verdicts are T)")
    all_f = rows(["F"] * 10, ["F"] * 10, ["F"] * 10)
    assert self_test_verdict(all_f)[0].startswith("this judge fails nearly everything")
    blind = rows(["T"] * 8 + ["F"] * 2, ["T"] * 10, ["F"] * 10)
    assert self_test_verdict(blind) == ("this judge cannot tell an unchanged story from a rewrite", False)
    harsh = rows(["F"] * 10, ["T"] * 10, ["F"] * 10)
    harsh[2] = probe_check("illustrative", "preserve", "T", ["F"] * 9 + ["T"])
    assert self_test_verdict(harsh)[0] == "this judge fails correct rewrites on preserve"
    unsure = rows(["F"] * 7 + ["T"] * 3, ["T"] * 10, ["F"] * 10)
    line, ok = self_test_verdict(unsure)
    assert not ok and "only part of the time on unchanged story → change F" in line
    nothing = rows([None] * 3, [None] * 3, [None] * 3)
    assert self_test_verdict(nothing)[1] is False and "no usable verdict" in self_test_verdict(nothing)[0]


def test_the_result_prints_and_round_trips():
    checks = rows(["F"] * 4, ["T"] * 4, ["F"] * 4)
    line, ok = self_test_verdict(checks)
    test = SelfTest(judge="x/y", judge_prompts="default", data="d", scenarios=["1v1"] * 4, checks=checks, verdict=line)
    text = test.lines()
    assert text[1] == "  unchanged story → change F: 4/4 = 100% [40%, 100%]" and text[-1].endswith(line)
    again = SelfTest.model_validate_json(test.model_dump_json())
    assert again == test
    markdown = judge_check_markdown(test.model_dump(mode="json"))
    assert "| unchanged story | change | F | 4/4 | 100% | [40%, 100%] | 0 |" in markdown
    assert markdown[-1] == f"**Verdict:** {line}."
