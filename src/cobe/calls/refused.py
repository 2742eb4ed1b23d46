"""The one line of a run stopped by a model that refused its settings: the model, the parameter, the fix."""

from __future__ import annotations

from cobe.core.errors import ModelRefused
from cobe.models.refusals import Refusal

#: the longest stretch of the server's own words the line repeats
SAID_CHARS = 240

# what a user changes, per kind of parameter: (as a respondent's setting, as a judge's)
_TOKEN_LIMIT = (
    "give --max-tokens a value the model takes; a reasoning model takes max_completion_tokens, which cobe "
    "sends with --reasoning-effort",
    "set max_tokens in the judge prompt set's config.yaml to a value the model takes",
)
_SAMPLING = (
    "leave the setting out: --temperature is the respondent's (a reasoning model takes none)",
    "leave the setting out: --judge-temperature, or the judge prompt set's config.yaml",
)
_LOGPROBS = (
    "a respondent sends no logprobs: report this as a bug",
    "set logprobs: false in the judge prompt set's config.yaml (P(T) is then not reported)",
)
_REASONING = (
    "give --reasoning-effort a level this model takes, or default (nothing is sent)",
    "judge with a model that takes the prompt set's settings",
)
_MODEL = (
    "check the model's name (and the provider's base URL), and that this API key may use it",
    "check the judge model's name (and the provider's base URL), and that this API key may use it",
)
_FIXES: dict[str, tuple[str, str]] = {
    **dict.fromkeys(
        ("max_tokens", "max_completion_tokens", "max_output_tokens", "maxoutputtokens", "max_output"), _TOKEN_LIMIT
    ),
    **dict.fromkeys(("temperature", "top_p", "topp", "top_k", "topk", "seed", "stop", "stop_sequences"), _SAMPLING),
    **dict.fromkeys(("logprobs", "top_logprobs", "response_logprobs", "responselogprobs"), _LOGPROBS),
    "model": _MODEL,
}
_OTHER = (
    "leave the setting out or give it a value the model takes",
    "leave the setting out of the judge prompt set's config.yaml or give it a value the model takes",
)


def fix_for(parameter: str, role: str) -> str:
    """What to change for a refused parameter, for the respondent's settings or the judge's."""
    name = parameter.lower()
    fixes = _FIXES.get(name)
    if fixes is None and ("reasoning" in name or "thinking" in name or "budget" in name or "effort" in name):
        fixes = _REASONING
    pair = fixes or _OTHER
    return pair[1] if role == "judge" else pair[0]


def refused_line(spec: str, role: str, refusal: Refusal) -> str:
    """`<spec> refused <parameter> ...; fix: ...`: the model, the parameter, the server's words and the fix."""
    said = refusal.message if len(refusal.message) <= SAID_CHARS else refusal.message[: SAID_CHARS - 1] + "…"
    what = "the model name" if refusal.parameter == "model" else f"the parameter {refusal.parameter!r}"
    return f"{spec} ({role}) refused {what}: {refusal.status} {said}; fix: {fix_for(refusal.parameter, role)}"


def model_refused(spec: str, role: str, refusal: Refusal, sent: int) -> ModelRefused:
    """The error that stops a run: the refused line, and how many refused requests were sent in all."""
    return ModelRefused(
        f"{refused_line(spec, role, refusal)}; the run stopped after {sent} refused request{'s' if sent != 1 else ''}"
    )
