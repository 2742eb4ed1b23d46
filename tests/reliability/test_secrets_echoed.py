"""Keys a server repeats never reach a file or a stream, in any part or form (issue 30, items 1-4).

Each test runs the real CLI against the fake server, then looks for the longest stretch of the secret
in every file of the run directory (the store and its WAL included), the report and everything the
commands printed. A stretch of FRAGMENT characters or more is a leak: a shorter one could be chance.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest
from reliability_helpers import SPEC, eval_args

from cobe.core.secrets import REDACTED, scrub, scrub_cut
from support.cli import CliResult, run_cobe

#: the shortest stretch of a secret counted as a leak
FRAGMENT = 6


def secret(n: int, seed: str) -> str:
    """A key of `n` characters that shares no stretch of FRAGMENT characters with ordinary text."""
    rng = random.Random(seed)
    return "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789") for _ in range(n))


def longest_fragment(needle: str, blobs: list[bytes]) -> int:
    """The length of the longest stretch of `needle` found in any blob (0: none of FRAGMENT or more)."""
    best = 0
    for size in range(len(needle), FRAGMENT - 1, -1):
        windows = {needle[i : i + size].encode() for i in range(len(needle) - size + 1)}
        if any(w in blob for blob in blobs for w in windows):
            best = size
            break
    return best


def everything(run_dir: Path, *results: CliResult) -> list[bytes]:
    """Every file under the run directory and every stream the commands wrote."""
    blobs = [p.read_bytes() for p in run_dir.rglob("*") if p.is_file()]
    return blobs + [text.encode() for r in results for text in (r.stdout, r.stderr)]


def run_and_report(
    env: dict[str, str], data_file: Path, run_dir: Path, *more: str, preflight: bool = False
) -> list[CliResult]:
    """An eval with the report, then `cobe report` and `cobe runs` over it: what a user would see."""
    args = eval_args(data_file, run_dir, "--concurrency", "2", "--max-retries", "0", *more)
    if preflight:  # its refusal line quotes the server's words too
        args.remove("--no-preflight")
    ran = run_cobe(*args, env=env)
    assert "Traceback" not in ran.stderr, ran.stderr
    report = run_cobe("report", str(run_dir), env=env)
    listed = run_cobe("runs", str(run_dir.parent), "--json", env=env)
    return [ran, report, listed]


@pytest.mark.parametrize(("after", "length"), [(130, 60), (180, 60), (230, 60), (280, 60), (0, 200), (0, 400)])
@pytest.mark.parametrize(("status", "preflight"), [(400, True), (400, False), (500, False)])
def test_a_key_echoed_after_long_words_leaves_no_stretch_of_itself(
    openai_server, data_file, tmp_path, after, length, status, preflight
):
    key = secret(length, f"{after}-{length}-{status}")
    openai_server.control(fail_status=status, echo_key=True, echo_after=after)
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": key}
    results = run_and_report(env, data_file, tmp_path / "run", preflight=preflight)
    assert openai_server.stats()["requests"] > 0 and results[0].returncode != 0
    if after < 250:  # the stored error reaches the key: it is there, scrubbed (further on, cut before it)
        assert REDACTED.encode() in (tmp_path / "run" / "cobe.sqlite").read_bytes()
    assert longest_fragment(key, everything(tmp_path / "run", *results)) == 0


def test_a_key_echoed_inside_an_answer_is_neither_stored_nor_reported(openai_server, data_file, tmp_path):
    key = secret(48, "answer")
    openai_server.control(reply=f"The rewrite, as asked. (debug: request carried {key})")
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": key}
    results = run_and_report(env, data_file, tmp_path / "run", "--report")
    assert results[0].returncode == 0, results[0].stderr
    assert (tmp_path / "run" / "report.html").is_file()
    assert REDACTED in (tmp_path / "run" / "results.jsonl").read_text()  # the answer kept, the key not
    assert longest_fragment(key, everything(tmp_path / "run", *results)) == 0


def test_credentials_in_the_base_url_are_scrubbed_plain_and_as_basic_auth(openai_server, data_file, tmp_path):
    password = secret(24, "url")
    url = openai_server.base_url.replace("http://", f"http://someone:{password}@")
    basic = base64.b64encode(f"someone:{password}".encode()).decode()
    openai_server.control(fail_status=401, echo_key=True, echo_after=40)
    env = {"FAKE_BASE_URL": url, "FAKE_API_KEY": secret(40, "url-key")}
    results = run_and_report(env, data_file, tmp_path / "run")
    assert openai_server.stats()["requests"] > 0
    blobs = everything(tmp_path / "run", *results)
    assert longest_fragment(password, blobs) == 0
    assert longest_fragment(basic, blobs) == 0


def test_a_key_holding_a_tab_is_scrubbed_after_its_whitespace_is_tidied(openai_server, data_file, tmp_path):
    head, tail = secret(6, "tab-head"), secret(20, "tab-tail")
    openai_server.control(fail_status=500, echo_key=True)
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": f"{head}\t{tail}"}
    results = run_and_report(env, data_file, tmp_path / "run")
    assert openai_server.stats()["requests"] > 0
    assert longest_fragment(tail, everything(tmp_path / "run", *results)) == 0


def test_models_check_prints_an_echoed_key_on_neither_stream(openai_server, tmp_path):
    key = secret(60, "models-check")
    openai_server.control(fail_status=400, echo_key=True, echo_after=150)
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": key}
    checked = run_cobe("models", "check", SPEC, "--run-dir", str(tmp_path / "check"), env=env)
    assert checked.returncode != 0 and "Traceback" not in checked.stderr
    assert longest_fragment(key, everything(tmp_path / "check", checked)) == 0


def test_scrub_then_cut_never_leaves_the_front_of_a_key(monkeypatch):
    key = secret(60, "unit")
    monkeypatch.setenv("UNIT_API_KEY", key)
    text = "x" * 200 + key
    assert key[:30] in text[:240]  # cutting first would keep 40 characters of it
    assert longest_fragment(key, [scrub_cut(text, 240).encode()]) == 0
    monkeypatch.setenv("TABBED_API_KEY", f"{key[:10]}\t{key[10:]}")
    assert scrub(f"said {key[:10]} {key[10:]}.") == f"said {REDACTED}."  # its tab shown as a space, still found


#: keys whose echo a JSON body, Go's encoding/json or Python's repr writes escaped: (what sits inside, Go's escaping)
ESCAPED = {
    "quote": ('"', False),
    "backslash": ("\\", False),
    "tab": ("\t", False),
    "apostrophe": ("'", False),
    "go": ("&<>", True),
}


@pytest.mark.parametrize("case", sorted(ESCAPED))
def test_a_refusal_line_never_shows_a_key_the_body_escapes(openai_server, data_file, tmp_path, case):
    """A 400 naming no setting is quoted whole in the preflight's line: on stderr, in the --json object, in the
    store; the key sits there escaped, and is scrubbed in that form too (issue 43, item 4)."""
    inside, go = ESCAPED[case]
    key = f"{secret(14, case)}{inside}{secret(30, case + '-tail')}"
    openai_server.control(fail_status=400, echo_key=True, go_json=go)
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": key}
    run_dir = tmp_path / "run"
    args = eval_args(data_file, run_dir, "--concurrency", "2", "--max-retries", "0", "--json")
    args.remove("--no-preflight")
    ran = run_cobe(*args, env=env)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr
    assert "400" in ran.stderr and json.loads(ran.stdout)["exit_code"] == 2
    checked = run_cobe("models", "check", SPEC, "--run-dir", str(tmp_path / "check"), env=env)
    assert checked.returncode == 2 and "400" in checked.stdout, checked.stdout
    blobs = everything(run_dir, ran) + everything(tmp_path / "check", checked)
    for part in (key[:14], key[-30:]):
        assert longest_fragment(part, blobs) == 0, case


@pytest.mark.parametrize("case", sorted(ESCAPED))
def test_scrub_finds_a_key_in_its_json_go_and_repr_forms(monkeypatch, case):
    inside, _ = ESCAPED[case]
    key = f"{secret(14, case)}{inside}{secret(30, case + '-tail')}"
    monkeypatch.setenv("FORMS_API_KEY", key)
    as_json = json.dumps({"message": f"bad key {key}."})
    forms = [
        as_json,
        json.dumps({"message": f"bad key {key}."}, ensure_ascii=False),
        as_json.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"),
        repr({"message": f"bad key {key}."}),
        repr({"message": f"bad key {key}. \"quoted\" and 'quoted'"}),  # both quotes: repr escapes its '
    ]
    for form in forms:
        assert longest_fragment(key[:14], [scrub(form).encode()]) == 0, form
        assert longest_fragment(key[-30:], [scrub(form).encode()]) == 0, form


@pytest.mark.parametrize(("place", "after"), [("body", 44), ("body", 50), ("choices", 4), ("choices", 10)])
def test_a_reply_quoted_in_its_error_is_scrubbed_whole_then_cut(openai_server, data_file, tmp_path, place, after):
    """A 200 that is a JSON string, or whose `choices` is one, is quoted cut short in the call's error; the key near
    the cut leaves none of itself anywhere (issue 43, item 5)."""
    key = secret(40, f"{place}-{after}")
    openai_server.control(echo_in=[place], echo_after=after)
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": key}
    results = run_and_report(env, data_file, tmp_path / "run", "--report")
    assert openai_server.stats()["requests"] > 0 and results[0].returncode != 0
    assert "FailedReply" in (tmp_path / "run" / "results.jsonl").read_text()
    assert longest_fragment(key, everything(tmp_path / "run", *results)) == 0


@pytest.mark.parametrize("place", ["finish_reason", "logprobs"])
def test_every_text_of_a_reply_is_scrubbed_before_the_store(openai_server, data_file, tmp_path, place):
    """A key in a finish reason or a judge's first-token alternatives never reaches a file or a stream (issue 43,
    item 6): not only the answer and the error are a provider's words."""
    key = secret(40, place)
    openai_server.control(echo_in=[place])
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": key}
    results = run_and_report(env, data_file, tmp_path / "run", "--report")
    assert openai_server.stats()["ok"] > 0 and (tmp_path / "run" / "report.html").is_file()
    assert longest_fragment(key, everything(tmp_path / "run", *results)) == 0
    assert REDACTED.encode() in (tmp_path / "run" / "cobe.sqlite").read_bytes()  # the field kept, the key not
