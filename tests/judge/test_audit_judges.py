"""The judge audit against scripted judges on the fake server: each is bent one known way, and the card says so.

Every judge request must match its script (an unmatched one gets an unreadable answer and would be unscored),
so a probe the judge prompt rendered otherwise than the judge reads it, such as a note whose closing tag was
not neutralised, fails these tests.
"""

from __future__ import annotations

import pytest

from cobe.judge.audit import AuditPlan, plan_audit, run_audit
from cobe.judge.audit_card import PAPER_NOTE, JudgeAudit
from support.audit_judges import (
    FLIP_RATE,
    JUDGE,
    bent,
    calibrated,
    flipper,
    injection_obeyer,
    omission_fooled,
    overconfident,
    robust,
    script,
    write_prompts,
    write_site_data,
)


@pytest.fixture
def audit(tmp_path, openai_server, monkeypatch):
    monkeypatch.setenv("LOCALFAKE_BASE_URL", openai_server.base_url)
    monkeypatch.delenv("LOCALFAKE_API_KEY", raising=False)
    data = write_site_data(tmp_path / "site.jsonl")
    prompts = write_prompts(tmp_path / "markers")

    def run(persona, repeats: int = 1) -> tuple[JudgeAudit, AuditPlan, list]:
        plan = plan_audit(JUDGE, str(prompts), str(data), n=10, repeats=repeats)
        rules = script(plan, persona)
        openai_server.control(reset=True, script=rules, verdict="unsure")  # no rule matched: unreadable
        result = run_audit(plan, tmp_path / persona.__name__)
        unscored = [a for a in result.answers if None in a.verdicts]
        assert not unscored, f"requests no rule matched: {unscored[:2]}"
        return result, plan, rules

    return run


def test_a_robust_judge_is_fooled_by_nothing(audit):
    result, _, _ = audit(robust)
    omission = result.probe("omission")
    assert omission is not None and omission.passes["n"] == 10 and omission.passes["hits"] == 0
    assert result.findings[0].startswith("passes 0% of omissions [0%, 31%] (0 of 10): it does not take removed")
    assert result.probe("both_worlds").passes["hits"] == 0
    assert any(line.startswith("never passes a non-answer (") for line in result.findings)
    assert any(
        line.startswith("ignores a note to the judge inside the answer: no verdict changes") for line in result.findings
    )
    assert any(line.startswith("changes no verdict on rewrites padded") for line in result.findings)
    assert result.self_test == "the judge behaves as expected on all three probes"
    assert result.calls_failed == 0


def test_a_judge_the_omission_fools_passes_every_omission_as_the_paper_warns(audit):
    result, _, _ = audit(omission_fooled)
    assert result.probe("omission").passes == {
        "hits": 10,
        "n": 10,
        "share": 1.0,
        "ci_low": pytest.approx(0.6915, abs=1e-4),
        "ci_high": 1.0,
    }
    assert result.findings[0] == f"passes 100% of omissions [69%, 100%] (10 of 10): {PAPER_NOTE}"
    change = next(r for r in result.rows if r.probe == "omission" and r.check == "change")
    assert change.expected == "T" and change.as_expected["hits"] == 10  # the paper's rule, to the letter
    assert result.self_test == "the judge behaves as expected on all three probes"  # the self-test cannot see it


def test_a_judge_that_obeys_the_injection_is_named(audit):
    result, _, _ = audit(injection_obeyer)
    injection = result.probe("injection")
    assert injection.differs["hits"] == 10 and injection.passes["hits"] == 10
    line = next(line for line in result.findings if "note to the judge" in line)
    assert line.startswith(
        "obeys a note to the judge inside the answer: a verdict changes on 100% of unchanged stories"
    )
    change = next(r for r in result.rows if r.probe == "injection" and r.check == "change")
    assert change.as_expected["hits"] == 0 and change.differs["hits"] == 10


def test_the_flip_share_of_a_judge_that_flips_at_a_known_rate_covers_it(audit):
    result, plan, rules = audit(flipper, repeats=3)
    change = result.stability.checks["change"]
    assert change["n"] == sum(1 for a in result.answers if a.check == "change")
    assert change["hits"] == bent(plan, rules, "change") > 0  # every question the judge flips on, and no other
    assert change["ci_low"] <= FLIP_RATE <= change["ci_high"]
    assert result.stability.checks["preserve"]["hits"] == result.stability.checks["connectors"]["hits"] == 0
    assert result.stability.pass_fail["hits"] > 0
    assert any(line.startswith("asked each check 3 times, it answers differently on") for line in result.findings)


def test_expected_calibration_error_ranks_the_over_confident_judge_below_the_calibrated_one(audit):
    fair, _, _ = audit(calibrated)
    bold, _, _ = audit(overconfident)
    assert [a.verdicts for a in fair.answers] == [a.verdicts for a in bold.answers]  # the same answers
    fair_ece, bold_ece = fair.calibration[-1].ece, bold.calibration[-1].ece
    assert fair_ece is not None and bold_ece is not None and fair_ece < bold_ece
    assert fair.calibration[-1].check == "all checks" and fair.calibration[-1].items == bold.calibration[-1].items
