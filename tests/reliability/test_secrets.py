"""A provider that repeats the API key in its error bodies never gets it stored, exported or printed.

The fake server answers every call with an error whose body says "Incorrect API key provided:
<the key the request carried>" (400, 401, 403, 500) or rate-limits with the key in the message.
After the run, every byte of the run directory (the store and its WAL included) and everything
the command printed is searched for the key: there must be no hit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reliability_helpers import KEY, cobe_at, eval_args

from cobe.core.secrets import REDACTED, env_secret, scrub


def hits(run_dir: Path, *texts: str) -> list[str]:
    """Where the key (or its distinctive tail) appears: file paths under run_dir, or 'output'."""
    needles = [KEY.encode(), KEY[-20:].encode()]
    found = [str(p) for p in run_dir.rglob("*") if p.is_file() and any(n in p.read_bytes() for n in needles)]
    found += ["output" for text in texts if any(n.decode() in text for n in needles)]
    return found


@pytest.mark.parametrize(
    "faults",
    [
        {"fail_status": 400, "echo_key": True},
        {"fail_status": 401, "echo_key": True},
        {"fail_status": 403, "echo_key": True},
        {"fail_status": 500, "echo_key": True},
        {"rate_limit": 10_000, "retry_after": "3600", "echo_key": True},
    ],
    ids=["400", "401", "403", "500", "429"],
)
def test_a_key_echoed_in_error_bodies_is_nowhere_in_the_run_dir_or_output(fake, data_file, tmp_path, faults):
    fake.control(**faults)
    run_dir = tmp_path / "run"
    args = eval_args(data_file, run_dir, "--concurrency", "2", "--max-retry-wait", "1", "--report")
    result = cobe_at(fake, *args)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert fake.stats()["requests"] > 0
    stored = (run_dir / "cobe.sqlite").read_bytes()
    exported = (run_dir / "results.jsonl").read_text()
    # the error was recorded, with the key replaced: the scrubber ran, not a missing error
    assert REDACTED.encode() in stored and REDACTED in exported
    assert hits(run_dir, result.stdout, result.stderr) == []
    # the listing and a report drawn afterwards hold no key either
    listed = cobe_at(fake, "runs", str(tmp_path), "--json")
    report = cobe_at(fake, "report", str(run_dir))
    assert report.returncode == 0, report.stderr
    assert (run_dir / "report.html").is_file()
    assert hits(run_dir, listed.stdout, report.stdout, report.stderr) == []


def test_scrub_removes_remembered_values_and_key_shapes(monkeypatch):
    monkeypatch.setenv("SOME_SERVICE_API_KEY", "opaque-value-0123456789")
    monkeypatch.setenv("MY_TOKEN", "tok-abcdefgh12345678")
    remembered = env_secret("UNUSUAL_NAME_FOR_A_KEY_VALUE")
    assert remembered is None
    monkeypatch.setenv("PLAIN", "zz-read-by-a-provider-1234")
    assert env_secret("PLAIN") == "zz-read-by-a-provider-1234"
    text = (
        "bad key opaque-value-0123456789; token tok-abcdefgh12345678; read zz-read-by-a-provider-1234; "
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv; AIzaSyA1234567890abcdefghijklmnopqrstu; "
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123; hf_abcdefghijklmnopqrstuvwxyz"
    )
    cleaned = scrub(text)
    for secret in (
        "opaque-value-0123456789",
        "tok-abcdefgh12345678",
        "zz-read-by-a-provider-1234",
        "sk-ant-api03",
        "AIzaSyA",
        "abcdefghijklmnopqrstuvwxyz0123",
        "hf_abcdef",
    ):
        assert secret not in cleaned, secret
    assert cleaned.count(REDACTED) == 7
    assert scrub("an ordinary error: 500 Internal Server Error") == "an ordinary error: 500 Internal Server Error"
