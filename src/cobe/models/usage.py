"""Token usage as each API reports it, prompt-cache counts included, read the same way from an SDK's typed
response and from the plain JSON of a batch result.

cobe counts `input_tokens` as every prompt token; `cached_input_tokens` and `cache_write_tokens` are the
parts of them the provider read from, or wrote to, its prompt cache (`cobe.calls.cost.Price` prices each).
OpenAI and Gemini already count cached tokens inside their prompt total; Anthropic counts only the tokens
after the last cache breakpoint as `input_tokens`, so its cache reads and writes are added back here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Usage:
    """One call's tokens: every prompt token, the answer's, and the prompt's cached parts."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0


def _get(obj: Any, name: str) -> Any:
    """A field of an SDK object or of a JSON dict, None where it is absent."""
    if obj is None:
        return None
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def openai_usage(usage: Any) -> Usage:
    """Chat completions (`prompt_tokens`, `prompt_tokens_details.cached_tokens`) or the Responses API
    (`input_tokens`, `input_tokens_details.cached_tokens`); automatic caching writes at no surcharge."""
    if usage is None:
        return Usage()
    prompt = _get(usage, "prompt_tokens")
    details = _get(usage, "prompt_tokens_details")
    if prompt is None:  # the Responses API's names
        prompt, details = _get(usage, "input_tokens"), _get(usage, "input_tokens_details")
    answer = _get(usage, "completion_tokens")
    if answer is None:
        answer = _get(usage, "output_tokens")
    return Usage(_int(prompt), _int(answer), _int(_get(details, "cached_tokens")))


def anthropic_usage(usage: Any) -> Usage:
    """Messages: `input_tokens` (after the last cache breakpoint) + `cache_read_input_tokens` +
    `cache_creation_input_tokens` make the prompt."""
    if usage is None:
        return Usage()
    read, written = _int(_get(usage, "cache_read_input_tokens")), _int(_get(usage, "cache_creation_input_tokens"))
    return Usage(_int(_get(usage, "input_tokens")) + read + written, _int(_get(usage, "output_tokens")), read, written)


def google_usage(usage: Any) -> Usage:
    """generateContent's usage metadata: `prompt_token_count` holds `cached_content_token_count`."""
    if usage is None:
        return Usage()
    return Usage(
        _int(_get(usage, "prompt_token_count")),
        _int(_get(usage, "candidates_token_count")),
        _int(_get(usage, "cached_content_token_count")),
    )
