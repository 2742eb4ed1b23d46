"""`cobe models check` ends as a run's preflight would: a refused key exits 6 naming its variable, retries
are bounded by the run's own flags, and a temperature no provider takes is refused before any call
(issue 30, item 12)."""

from __future__ import annotations

from reliability_helpers import SPEC, cobe_at

from support.cli import assert_one_line_error


def test_a_refused_key_exits_6_naming_the_variable(fake, tmp_path):
    fake.control(fail_status=401)
    result = cobe_at(fake, "models", "check", SPEC, "--run-dir", str(tmp_path / "c"), "--as", "respondent")
    assert result.returncode == 6, result.stderr
    assert_one_line_error(result, SPEC, "FAKE_API_KEY")


def test_a_long_retry_after_is_given_up_at_max_retry_wait(fake, tmp_path):
    fake.control(rate_limit=10_000, retry_after="100")
    result = cobe_at(
        fake, "models", "check", SPEC, "--run-dir", str(tmp_path / "c"), "--as", "respondent",
        "--max-retries", "1", "--max-retry-wait", "1",
    )  # fmt: skip
    assert result.returncode == 5 and "Traceback" not in result.stderr
    # the server's 100 s was not waited: the call was given up at the first Retry-After, which said so
    assert "the server asked to wait 100 s, more than --max-retry-wait 1 s" in result.stdout + result.stderr
    assert fake.stats()["requests"] == 1


def test_a_negative_judge_temperature_is_refused_before_any_call(fake, tmp_path):
    result = cobe_at(fake, "models", "check", SPEC, "--run-dir", str(tmp_path / "c"), "--judge-temperature", "-1")
    assert result.returncode == 2
    assert "--judge-temperature" in result.stderr
    assert fake.stats()["requests"] == 0
