"""Credentials written into a base URL: a token in its query (`?api-key=…`, as some gateways and Azure-style
deployments take it) reaches no file, stream or call key, yet still travels with every request; `user:secret@`
never becomes HTTP Basic auth in the API key's place (issue 43, items 7 and 8)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from reliability_helpers import SPEC
from test_secrets_echoed import everything, longest_fragment, run_and_report, secret

from cobe.core.secrets import REDACTED, scrub
from cobe.models.base import endpoint_name
from support.cli import run_cobe
from support.openai_server import contract_env

# every behaviour here holds on both HTTP transports (support.http_transport)
pytestmark = pytest.mark.usefixtures("http_transport")


def stored_endpoints(run_dir: Path) -> tuple[list[str], list[str]]:
    """(the endpoints table, every calls.request) of a run's store."""
    db = sqlite3.connect(run_dir / "cobe.sqlite")
    try:
        endpoints = [row[0] for row in db.execute("SELECT endpoint FROM endpoints")]
        requests = [row[0] for row in db.execute("SELECT request FROM calls")]
    finally:
        db.close()
    return endpoints, requests


def test_an_endpoint_names_no_userinfo_and_no_query_value_yet_two_tokens_stay_two():
    first, second = "Tq4mZ8vR2xL7pW3nK9bY", "Hd6sF1gJ5kA0cV8eN2uQ"
    named = endpoint_name([f"http://someone:pw123456@host:8000/v1/?api-key={first}&api-version=2025-01-01"])
    assert first not in named and "pw123456" not in named and "someone" not in named
    assert named.startswith("http://host:8000/v1?api-key=sha256:") and "api-version=sha256:" in named
    assert named != endpoint_name([f"http://host:8000/v1?api-key={second}&api-version=2025-01-01"])
    assert endpoint_name(["http://host:8000/v1/"]) == "http://host:8000/v1"  # a URL without a query is as it was


def test_a_secret_looking_query_value_of_a_url_variable_is_scrubbed(monkeypatch):
    token = "Zr5tY8uI1oP4aS7dF0gH"
    monkeypatch.setenv("GATEWAY_BASE_URL", f"https://gw.example/v1?api-version=2025-01-01&api-key={token}")
    assert (
        scrub(f"POST /v1/chat/completions?api-key={token} refused")
        == f"POST /v1/chat/completions?api-key={REDACTED} refused"
    )
    assert scrub("released 2025-01-01") == "released 2025-01-01"  # a value under a plain name is no secret


def test_a_token_in_the_base_urls_query_travels_but_reaches_no_file_or_stream(openai_server, data_file, tmp_path):
    token = secret(32, "query-token")
    url = f"{openai_server.base_url}?api-key={token}"
    env = {"FAKE_BASE_URL": url, "FAKE_API_KEY": secret(40, "query-key"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    results = run_and_report(env, data_file, tmp_path / "run", "--report")
    checked = run_cobe("models", "check", SPEC, env=env)  # into the models-check cache
    assert results[0].returncode == 0 and checked.returncode == 0, (results[0].stderr, checked.stdout)
    assert set(openai_server.stats()["queries"]) == {f"api-key={token}"}  # every request carried it, as written
    assert (tmp_path / "cache" / "cobe" / "models-check" / "cobe.sqlite").is_file()
    blobs = everything(tmp_path / "run", *results) + everything(tmp_path / "cache", checked)
    assert longest_fragment(token, blobs) == 0


def test_a_store_whose_endpoint_kept_the_token_resumes_from_its_calls(openai_server, data_file, tmp_path, monkeypatch):
    """A store an earlier cobe made names the endpoint with its query in the clear: the same endpoint, whose calls
    answer again, re-keyed under the name that holds no token."""
    token = secret(32, "old-store")
    env = {"FAKE_BASE_URL": f"{openai_server.base_url}?api-key={token}", "FAKE_API_KEY": secret(40, "old-key")}
    with monkeypatch.context() as old:
        old.setattr("cobe.models.base.hidden_query", lambda query: query)  # how endpoints were named before
        first = run_and_report(env, data_file, tmp_path / "run")
    assert first[0].returncode == 0 and any(token in e for e in stored_endpoints(tmp_path / "run")[0])
    sent = openai_server.stats()["requests"]
    again = run_and_report(env, data_file, tmp_path / "run")
    assert again[0].returncode == 0 and "now points at" not in again[0].stderr, again[0].stderr
    assert openai_server.stats()["requests"] == sent  # every call answered by the store
    endpoints, requests = stored_endpoints(tmp_path / "run")
    assert not [text for text in endpoints + requests if token in text]
    assert longest_fragment(token, everything(tmp_path / "run", *again)) == 0


@pytest.mark.parametrize(
    ("spec", "variable", "root"),
    [
        (SPEC, "FAKE_BASE_URL", False),
        ("anthropic/claude-test", "ANTHROPIC_BASE_URL", True),
        ("google/gemini-test", "GOOGLE_GEMINI_BASE_URL", True),
    ],
)
def test_url_userinfo_never_replaces_the_api_key(openai_server, tmp_path, spec, variable, root):
    """httpx makes `user:secret@` in a base URL HTTP Basic auth, which took the bearer key's place: the server saw
    Basic only. The key goes as the provider's SDK sends it with a plain URL, and nothing else as a credential."""
    key = secret(40, spec)
    base = openai_server.root_url if root else openai_server.base_url
    env = contract_env(openai_server) | {"FAKE_API_KEY": key, "OPENAI_API_KEY": key, "ANTHROPIC_API_KEY": key}
    env |= {"GOOGLE_API_KEY": key, variable: base}
    plain = run_cobe("models", "check", spec, "--run-dir", str(tmp_path / "plain"), env=env)
    seen = set(openai_server.stats()["credentials"])  # the key, in the header its SDK puts it in
    assert plain.returncode == 0 and len(seen) == 1 and key in next(iter(seen)), plain.stdout + plain.stderr
    openai_server.control(reset=True)
    env[variable] = base.replace("http://", "http://someone:Pw9xQ2mL7vR4@")
    checked = run_cobe("models", "check", spec, "--run-dir", str(tmp_path / "check"), env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert set(openai_server.stats()["credentials"]) == seen
