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
from support.cli import assert_one_line_error, run_cobe


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


# ---- issue 23, item 7: keys of any length ---------------------------------------------------------
#: a 7-character key (was below MIN_SECRET_LENGTH, so echoed bodies kept it) and a 4-character one
SHORT_KEYS = ("Qz7wK2x", "Zq9x")


def short_key_hits(run_dir: Path, key: str, *texts: str) -> list[str]:
    """Where `key` stands in the run directory's files or the texts (as a token, not inside a longer word)."""
    import re

    alone = re.compile(rf"(?<![A-Za-z0-9]){re.escape(key)}(?![A-Za-z0-9])".encode())
    found = [str(p) for p in run_dir.rglob("*") if p.is_file() and alone.search(p.read_bytes())]
    return found + ["output" for text in texts if alone.search(text.encode())]


@pytest.mark.parametrize(
    ("status", "key"),
    [(400, SHORT_KEYS[0]), (401, SHORT_KEYS[0]), (403, SHORT_KEYS[0]), (500, SHORT_KEYS[0]), (500, SHORT_KEYS[1])],
)
def test_a_short_key_echoed_by_the_provider_is_scrubbed_everywhere(fake, data_file, tmp_path, status, key):
    fake.control(fail_status=status, echo_key=True)
    run_dir = tmp_path / "run"
    env = {"FAKE_BASE_URL": fake.base_url, "FAKE_API_KEY": key}
    args = eval_args(data_file, run_dir, "--concurrency", "2", "--max-retries", "0", "--report")
    result = run_cobe(*args, env=env)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert fake.stats()["requests"] > 0
    assert REDACTED.encode() in (run_dir / "cobe.sqlite").read_bytes()  # recorded, with the key replaced
    report = run_cobe("report", str(run_dir), env=env)
    assert report.returncode == 0 and (run_dir / "report.html").is_file()
    assert short_key_hits(run_dir, key, result.stdout, result.stderr, report.stdout, report.stderr) == []


@pytest.mark.parametrize("key", ["x", "ab", "k3y"])
def test_a_key_of_one_to_three_characters_for_a_hosted_endpoint_is_refused_before_any_call(data_file, tmp_path, key):
    env = {"FAKE_BASE_URL": "https://llm.example.com/v1", "FAKE_API_KEY": key}  # refused before it is reached
    result = run_cobe(*eval_args(data_file, tmp_path / "run"), env=env)
    assert result.returncode == 2
    assert_one_line_error(result, "FAKE_API_KEY", f"{len(key)} character", "unset FAKE_API_KEY")


# ---- issue 31, item 10: a server on this machine conventionally takes any key (vLLM's docs: EMPTY) ----------
@pytest.mark.parametrize("key", ["x", "ab", None])
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_short_or_no_key_for_a_server_on_this_machine_is_accepted(fake, data_file, tmp_path, key, host):
    url = fake.base_url.replace("127.0.0.1", host)
    result = run_cobe(*eval_args(data_file, tmp_path / "run"), env={"FAKE_BASE_URL": url, "FAKE_API_KEY": key})
    assert result.returncode == 0, result.stderr
    assert fake.stats()["requests"] > 0


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8000/v1", True),
        ("http://127.8.0.3:8000/v1", True),
        ("http://localhost:8000/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://user:pw@localhost/v1", True),
        ("https://api.together.xyz/v1", False),
        ("http://10.0.0.5:8000/v1", False),
        ("http://127.0.0.1.example.com/v1", False),
        ("not a url", False),
    ],
)
def test_only_a_loopback_url_takes_a_placeholder_key(monkeypatch, url, local):
    from cobe.core.secrets import KeyTooShort
    from cobe.models.openai_chat import loopback_url
    from cobe.models.registry import get_provider

    assert loopback_url(url) is local
    monkeypatch.setenv("LOOP_BASE_URL", url)
    monkeypatch.setenv("LOOP_API_KEY", "x")
    if local:
        get_provider("openai-api/loop/m")
        assert scrub("a x b") == "a x b"  # a placeholder is no secret: never hidden from text
    else:
        with pytest.raises(KeyTooShort, match="LOOP_API_KEY holds a key of 1 character"):
            get_provider("openai-api/loop/m")


def test_a_short_key_is_hidden_where_it_stands_alone_not_inside_words(monkeypatch):
    monkeypatch.setenv("SHORTKEY_API_KEY", "Wk4t")
    assert env_secret("SHORTKEY_API_KEY") == "Wk4t"
    assert scrub("bad key Wk4t; key=Wk4t, 'Wk4t'") == f"bad key {REDACTED}; key={REDACTED}, '{REDACTED}'"
    assert scrub("xWk4ty stays") == "xWk4ty stays"
