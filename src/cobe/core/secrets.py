"""API keys out of everything cobe stores, logs or prints: the one scrubber every error path goes through.

Providers read their keys with `env_secret`, which remembers each value (whatever its length; a
key of 1-3 characters is refused before any call, since hiding it would blank ordinary words);
`scrub` then removes those values, the values of any variable whose name marks it as a secret (`*_API_KEY`,
`*_TOKEN`, ...), and text shaped like a well-known key (sk-…, sk-ant-…, AIza…, long bearer
tokens) from a piece of text. A provider that repeats the key in an error body ("Incorrect API
key provided: sk-…") therefore never puts it in the store, results.jsonl, a report or the terminal.
"""

from __future__ import annotations

import os
import re

from cobe.core.errors import InputError

REDACTED = "[redacted]"
# a variable cobe does not read but whose name marks a secret is hidden from this length on: shorter
# values are not worth hiding and would blank ordinary words ("EMPTY", "none")
MIN_SECRET_LENGTH = 8
# a key a provider reads is hidden whatever its length; below this it would be found inside ordinary
# words and sentences ("a", "to", "the"), so such a key is refused before any call instead
MIN_KEY_LENGTH = 4
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


class KeyTooShort(InputError):
    """An API key so short that hiding it would blank ordinary words in every message and report."""


def remember(value: str | None) -> None:
    """Treat `value` as a secret from now on, whatever its length."""
    if value and value.strip():
        _remembered.add(value.strip())


def env_secret(*names: str) -> str | None:
    """The first of these environment variables that is set, remembered as a secret; None if none is.

    A value of 1-3 characters raises KeyTooShort naming the variable: it cannot be kept out of logs.
    """
    for name in names:
        value = os.environ.get(name)
        if value:
            length = len(value.strip())
            if length < MIN_KEY_LENGTH:
                raise KeyTooShort(
                    f"{name} holds a key of {length} character{'s' if length != 1 else ''}; cobe cannot keep a "
                    f"key under {MIN_KEY_LENGTH} characters out of its store, logs and reports without blanking "
                    f"ordinary words: set the provider's real key (or unset {name} for a server that needs none)"
                )
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
        if value not in text:
            continue
        if len(value) >= MIN_SECRET_LENGTH:
            text = text.replace(value, REDACTED)
        else:  # a short key is hidden where it stands alone, not inside a longer word or token
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", REDACTED, text)
    return _SHAPES.sub(REDACTED, text)
