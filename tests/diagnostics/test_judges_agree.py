"""`agree_verdict_sets`: every verdict set of a stored run against a reference set, read from the store alone."""

from __future__ import annotations

import pytest

from cobe.api import run_eval
from cobe.core.errors import InputError
from cobe.diagnostics.judges_agree import agree_verdict_sets
from cobe.run.rejudge import judge_run
from support.store_reads import stored_count


@pytest.fixture
def judged_run(tmp_path):
    """A run of four starter scenarios (12 rows: three phrasings each) judged by a judge that passes everything."""
    run_dir = tmp_path / "run"
    assert run_eval("mock/echo", "mock/judge-pass", limit=4, run_dir=run_dir).state == "complete"
    return run_dir


def test_a_judge_that_fails_what_the_reference_passes_agrees_on_nothing(judged_run):
    judge_run(judged_run, "mock/judge-fail", show=False)
    calls = stored_count(judged_run)

    report = agree_verdict_sets(judged_run, "mock/judge-pass", resamples=50)

    assert report.rows == 12 and report.reference.ref.spec == "mock/judge-pass"
    (comparison,) = report.comparisons
    assert comparison.verdict_set.ref.spec == "mock/judge-fail"
    overall = next(group for group in comparison.groups if group["model"] == "all")
    assert (overall["compared"], overall["agreement"], overall["difference"]) == (12, 0.0, -100.0)
    assert (overall["reference_pass_set_fail"], overall["both_pass"], overall["both_fail"]) == (12, 0, 0)
    assert overall["kappa"] is None and "fail on every item" in overall["kappa_undefined"]
    assert len(comparison.differences) == 12 and not any(comparison.left_out.values())
    assert stored_count(judged_run) == calls  # no model call was made


def test_a_run_with_the_reference_alone_is_one_line_naming_what_to_do(judged_run):
    with pytest.raises(InputError, match="holds no verdict set but the reference .* `cobe judge "):
        agree_verdict_sets(judged_run, "mock/judge-pass")


def test_a_reference_the_run_does_not_hold_is_refused(judged_run):
    judge_run(judged_run, "mock/judge-fail", show=False)
    with pytest.raises(InputError, match="--reference"):
        agree_verdict_sets(judged_run, "openai/no-such-judge")
