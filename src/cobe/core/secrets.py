"""API keys out of everything cobe stores, logs or prints: the one scrubber every error path goes through.

Providers read their keys with `env_secret`, which remembers each value; `scrub` then removes
those values, the values of any variable whose name marks it as a secret (`*_API_KEY`,
`*_TOKEN`, ...), and text shaped like a well-known key (sk-…, sk-ant-…, AIza…, long bearer
tokens) from a piece of text. A provider that repeats the key in an error body ("Incorrect API
key provided: sk-…") therefore never puts it in the store, results.jsonl, a report or the terminal.
"""

from __future__ import annotations

import os
import re

REDACTED = "[redacted]"
# shorter values are not worth hiding and would blank ordinary words ("EMPTY", "none")
MIN_SECRET_LENGTH = 8
_SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|_KEY)$", re.IGNORECASE)
# key shapes providers issue; matched even when the key came from somewhere cobe did not see
_SHAPES = re.compile(
    r"sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}"  # OpenAI, Anthropic
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google
    r"|(?:hf|gsk|xai|pplx)[_-][A-Za-z0-9]{20,}"  # Hugging Face, Groq, xAI, Perplexity
    r"|(?<=Bearer )[A-Za-z0-9._~+/=\-]{20,}",  # any bearer token shown with its header
    re.IGNORECASE,
)
_remembered: set[str] = set()


def remember(value: str | None) -> None:
    """Treat `value` as a secret from now on (if it is long enough to be one)."""
    if value and len(value.strip()) >= MIN_SECRET_LENGTH:
        _remembered.add(value.strip())


def env_secret(*names: str) -> str | None:
    """The first of these environment variables that is set, remembered as a secret; None if none is."""
    for name in names:
        value = os.environ.get(name)
        if value:
            remember(value)
            return value
    return None


def _secret_values() -> list[str]:
    found = set(_remembered)
    for name, value in os.environ.items():
        if _SECRET_NAME.search(name) and len(value.strip()) >= MIN_SECRET_LENGTH:
            found.add(value.strip())
    # longest first, so a key that contains another is removed whole
    return sorted(found, key=len, reverse=True)


def scrub(text: str) -> str:
    """`text` with every known secret and every key-shaped string replaced by [redacted]."""
    if not text:
        return text
    for value in _secret_values():
        if value in text:
            text = text.replace(value, REDACTED)
    return _SHAPES.sub(REDACTED, text)
