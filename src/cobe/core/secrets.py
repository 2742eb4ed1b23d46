"""API keys out of everything cobe stores, logs or prints: the one scrubber every error path goes through.

Providers read their keys with `env_secret`, which remembers each value (whatever its length; a
key of 1-3 characters is refused before any call, since hiding it would blank ordinary words);
`scrub` then removes those values, the values of any variable whose name marks it as a secret (`*_API_KEY`,
`*_TOKEN`, ...), and text shaped like a well-known key (sk-…, sk-ant-…, AIza…, long bearer
tokens) from a piece of text, each value in every form text that quotes it escaped shows it (`secret_forms`: a
JSON body, Go's `\u0026`-style escapes, a Python repr). A provider that repeats the key in an error body
("Incorrect API key provided: sk-…") therefore never puts it in the store, results.jsonl, a report or the terminal.
"""

from __future__ import annotations

import base64
import json
import os
import re
from urllib.parse import unquote, unquote_plus, urlsplit

from cobe.core.errors import InputError

REDACTED = "[redacted]"
# a variable cobe does not read but whose name marks a secret is hidden from this length on: shorter
# values are not worth hiding and would blank ordinary words ("EMPTY", "none")
MIN_SECRET_LENGTH = 8
# a key a provider reads is hidden whatever its length; below this it would be found inside ordinary
# words and sentences ("a", "to", "the"), so such a key is refused before any call instead
MIN_KEY_LENGTH = 4
_SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|_KEY)$", re.IGNORECASE)
# a URL's query field whose value is a credential: `api-key`, `access_token`, `sig` (Azure SAS), `code`, ...
_SECRET_FIELD = re.compile(r"key|token|secret|password|passwd|sig|auth|credential|code", re.IGNORECASE)
# key shapes providers issue; matched even when the key came from somewhere cobe did not see
_SHAPES = re.compile(
    r"sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}"  # OpenAI, Anthropic
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google
    r"|(?:hf|gsk|xai|pplx)[_-][A-Za-z0-9]{20,}"  # Hugging Face, Groq, xAI, Perplexity
    r"|(?<=Bearer )[A-Za-z0-9._~+/=\-]{20,}",  # any bearer token shown with its header
    re.IGNORECASE,
)
# the literal starts of those shapes, lower-cased: text holding none of them (nearly every reply) skips the
# regular expression, which would otherwise cost ~0.1 ms on each kilobyte of every stored answer
_SHAPE_STARTS = ("sk-", "aiza", "hf_", "hf-", "gsk", "xai", "pplx", "bearer ")
_remembered: set[str] = set()
# the secrets' pattern, rebuilt only when the remembered keys or the environment change
_cached: tuple[int, object, re.Pattern[str] | None] | None = None


class KeyTooShort(InputError):
    """An API key so short that hiding it would blank ordinary words in every message and report."""


def remember(value: str | None) -> None:
    """Treat `value` as a secret from now on, whatever its length."""
    if value and value.strip():
        _remembered.add(value.strip())


def url_secrets(url: str) -> set[str]:
    """The credentials of a URL in every form they travel in: `http://user:secret@host/` as written, percent-decoded,
    and as the base64 `user:secret` of the Basic auth header httpx would make of them; and the value of a query
    field named like a secret (`?api-key=…`, `&sig=…`), as written and decoded."""
    if "@" not in url and "?" not in url:
        return set()
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:  # not a URL the SDK could use either
        return set()
    found: set[str] = set()
    for field in parts.query.split("&"):
        name, _, value = field.partition("=")
        if _SECRET_FIELD.search(unquote_plus(name)) and len(unquote_plus(value).strip()) >= MIN_SECRET_LENGTH:
            found |= {value, unquote_plus(value)}
    for raw in (user if password is None else None, password):  # a user alone is the secret (a token as user)
        if raw:
            found |= {raw, unquote(raw)}
    if user is not None:
        pair = f"{unquote(user)}:{unquote(password or '')}"
        found |= {pair, base64.b64encode(pair.encode()).decode("ascii")}
    return {value for value in found if len(value.strip()) >= MIN_KEY_LENGTH}  # shorter would blank words


def env_secret(*names: str, placeholder_ok: bool = False) -> str | None:
    """The first of these environment variables that is set, remembered as a secret; None if none is.

    A value of 1-3 characters raises KeyTooShort naming the variable: it cannot be kept out of logs. With
    `placeholder_ok` (a server on this machine, which conventionally takes any key: vLLM's docs use `EMPTY`)
    such a value is a placeholder, not a secret: returned as it is, and never hidden from text.
    """
    for name in names:
        value = os.environ.get(name)
        if value:
            length = len(value.strip())
            if length < MIN_KEY_LENGTH and placeholder_ok:
                return value
            if length < MIN_KEY_LENGTH:
                raise KeyTooShort(
                    f"{name} holds a key of {length} character{'s' if length != 1 else ''}; cobe cannot keep a "
                    f"key under {MIN_KEY_LENGTH} characters out of its store, logs and reports without blanking "
                    f"ordinary words: set the provider's real key (or unset {name} for a server that needs none)"
                )
            remember(value)
            return value
    return None


def _secret_values() -> set[str]:
    found = set(_remembered)
    for name, value in os.environ.items():
        if _SECRET_NAME.search(name) and len(value.strip()) >= MIN_SECRET_LENGTH:
            found.add(value.strip())
        elif name.endswith("URL") and (
            "@" in value or "?" in value
        ):  # http://user:secret@host/v1?api-key=…, or a fleet
            for url in value.replace(",", " ").split():
                found |= url_secrets(url)
    return found


def _escaped(value: str) -> set[str]:
    """`value` as text that quotes it escaped shows it, one level deep: inside a JSON string (ASCII-only or not,
    `/` as `\\/`, and `&<>` as `\\u0026 \\u003c \\u003e`, as Go writes them) and inside a Python repr
    (its `'` escaped or not, as the quotes around it decide)."""
    found = set()
    for ascii_only in (True, False):
        inner = json.dumps(value, ensure_ascii=ascii_only)[1:-1]
        go = inner.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
        found |= {inner, inner.replace("/", "\\/"), go}
    plain_quote = repr(value)[1:-1].replace("\\'", "'")
    return found | {plain_quote, plain_quote.replace("'", "\\'")}


def secret_forms(value: str) -> set[str]:
    """Every form a secret is searched for: as it is, and escaped as a JSON body, Go or Python's repr write it,
    twice over (a JSON body quoted inside an exception's repr); plain keys have the one form."""
    once = {value} | _escaped(value)
    return once | {twice for form in once for twice in _escaped(form)}


def _value_pattern(value: str) -> str:
    # whitespace inside a key matches any whitespace: a message whose spaces were normalised (a tab become a
    # space, a line broken) still shows the key
    body = r"\s+".join(re.escape(part) for part in value.split())
    if len(value) >= MIN_SECRET_LENGTH:
        return body
    return rf"(?<![A-Za-z0-9]){body}(?![A-Za-z0-9])"  # a short key only where it stands alone, not inside a word


def _secrets_pattern() -> re.Pattern[str] | None:
    """One pattern of every known secret; None when there is none."""
    global _cached
    # os.environ's own mapping compares in a microsecond; decoding and testing every name costs ~70 µs a call
    environ = getattr(os.environ, "_data", None)
    signature = tuple(environ.items()) if isinstance(environ, dict) else None
    if _cached is not None and signature is not None and _cached[:2] == (len(_remembered), signature):
        return _cached[2]
    # longest first, so a form that contains another (an escaped key holds its plain head) is removed whole
    values = sorted({form for value in _secret_values() for form in secret_forms(value)}, key=len, reverse=True)
    pattern = re.compile("|".join(_value_pattern(v) for v in values)) if values else None
    _cached = (len(_remembered), signature, pattern)
    return pattern


def scrub(text: str) -> str:
    """`text` with every known secret and every key-shaped string replaced by [redacted]."""
    if not text:
        return text
    pattern = _secrets_pattern()
    if pattern is not None:
        text = pattern.sub(REDACTED, text)
    lowered = text.lower()
    if any(start in lowered for start in _SHAPE_STARTS):
        text = _SHAPES.sub(REDACTED, text)
    return text


def scrub_cut(text: str, limit: int) -> str:
    """`text` scrubbed, then cut to `limit` characters (ending in '…' when cut): cutting first could leave
    the front of a key that the scrubber, seeing only a part, no longer knows."""
    text = scrub(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"
