"""Tokens, CSRF tokens and ids from forms: any text a browser sends gives an answer, never an exception."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cobe.web.tokens import csrf_token, csrf_valid, hash_token, new_token, parse_id, token_matches


def test_csrf_accepts_only_this_sessions_token() -> None:
    good = csrf_token("secret", "session-a")
    assert csrf_valid("secret", "session-a", good)
    assert not csrf_valid("secret", "session-b", good)
    assert not csrf_valid("other-secret", "session-a", good)
    assert not csrf_valid("secret", None, good) and not csrf_valid("secret", "session-a", None)


@pytest.mark.parametrize("presented", ["é" * 64, "\u00b2" * 64, "☃", "\udcff" * 64, "\x00" * 64, ""])
def test_csrf_refuses_non_ascii_and_odd_text_without_raising(presented: str) -> None:
    # hmac.compare_digest raises TypeError on non-ASCII str; that once answered 500 in both apps
    assert csrf_valid("secret", "session-a", presented) is False


def test_token_matching_survives_any_text() -> None:
    token = new_token()
    assert len(token) == 43 and token_matches(token, hash_token(token))
    for odd in ["é" * 43, "\udcff", "", token + "x"]:
        assert token_matches(odd, hash_token(token)) is False
    assert token_matches(token, "") is False and token_matches(token, "é" * 64) is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [("7", 7), (" 12 ", 12), ("0", 0), ("²", None), ("٣", None), ("1²", None), ("-1", None), ("+1", None)]
    + [("1e3", None), ("", None), ("9" * 19, None), ("１", None)],
)
def test_parse_id_takes_ascii_digits_only(text: str, expected: int | None) -> None:
    assert parse_id(text) == expected


def test_the_cli_side_imports_without_the_web_framework() -> None:
    # the stores and the link commands hash tokens at import; FastAPI and Starlette are an optional extra
    code = (
        "import sys, cobe.annotate.store, cobe.annotate.study, cobe.curate.review, cobe.curate.links, cobe.web;"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('fastapi', 'starlette'));"
        "print(loaded); sys.exit(1 if loaded else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
