"""The one line of a run stopped by a model that refused its settings (the model, the parameter, the fix), or
that refused the preflight's probe in words naming none (the status and the body's first line)."""

from __future__ import annotations

from cobe.core.errors import ModelRefused
from cobe.core.secrets import scrub_cut
from cobe.models.refusals import Refusal

#: the longest stretch of the server's own words the line repeats
SAID_CHARS = 240

# what a user changes, per kind of parameter: (as a respondent's setting, as a judge's). The capability table
# (docs/PROVIDERS.md) decides what is sent, so a refusal no row foresaw is fixed in the model's row: one
# field with -M {spec}:FIELD=VALUE, or a --models-file
_TOKEN_LIMIT = (
    "give --max-tokens a value the model takes, or send the limit under the name it takes: "
    "-M {spec}:token_param=max_completion_tokens (or max_tokens)",
    "give the judge a token limit the model takes (-M {spec}:max_tokens=N), or send the limit under the name it "
    "takes: -M {spec}:token_param=max_completion_tokens (or max_tokens)",
)
_SAMPLING = (
    "drop --temperature, or list only the sampling settings the model takes in its row, e.g. -M '{spec}:sampling=[]'",
    "list only the sampling settings the model takes in its row, e.g. -M '{spec}:sampling=[]' (the judge then "
    "asks at the model's own temperature)",
)
_LOGPROBS = (
    "a respondent sends no logprobs: report this as a bug",
    "leave logprobs out of the model's row (-M '{spec}:sampling=[temperature]'), or set logprobs: false in the "
    "judge prompt set's config.yaml; P(T) is then not reported",
)
_REASONING = (
    "give --reasoning-effort a level this model takes (its row's efforts: -M {spec}:efforts=...), or none",
    "give the judge a level the model takes (-M {spec}:reasoning_effort=LEVEL), or judge with another model",
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
    "correct the model's row so the setting is left out or takes a value the model takes: -M {spec}:FIELD=VALUE "
    "or a --models-file (docs/PROVIDERS.md)",
    "correct the judge model's row so the setting is left out or takes a value the model takes: "
    "-M {spec}:FIELD=VALUE or a --models-file (docs/PROVIDERS.md)",
)


def fix_for(parameter: str, role: str, spec: str = "SPEC") -> str:
    """What to change for a refused parameter, for the respondent's settings or the judge's."""
    name = parameter.lower()
    fixes = _FIXES.get(name)
    if fixes is None and ("reasoning" in name or "thinking" in name or "budget" in name or "effort" in name):
        fixes = _REASONING
    pair = fixes or _OTHER
    return (pair[1] if role == "judge" else pair[0]).format(spec=spec)


def refused_line(spec: str, role: str, refusal: Refusal) -> str:
    """`<spec> refused <parameter> ...; fix: ...`: the model, the parameter, the server's words and the fix."""
    said = scrub_cut(refusal.message, SAID_CHARS)  # scrubbed whole, then cut: a cut key would escape the scrubber
    what = "the model name" if refusal.parameter == "model" else f"the parameter {refusal.parameter!r}"
    return f"{spec} ({role}) refused {what}: {refusal.status} {said}; fix: {fix_for(refusal.parameter, role, spec)}"


def model_refused(spec: str, role: str, refusal: Refusal, sent: int) -> ModelRefused:
    """The error that stops a run: the refused line, and how many refused requests were sent in all."""
    return ModelRefused(
        f"{refused_line(spec, role, refusal)}; the run stopped after {sent} refused request{'s' if sent != 1 else ''}"
    )


def declined_line(spec: str, role: str, refusal: Refusal) -> str:
    """`<spec> (<role>) refused the preflight call: <status> <the body's first line>`, for a refusal naming no
    setting."""
    return f"{spec} ({role}) refused the preflight call: {refusal.status} {scrub_cut(refusal.message, SAID_CHARS)}"


def preflight_refused(spec: str, role: str, refusal: Refusal) -> ModelRefused:
    """The error that stops a run whose preflight probe was refused in words naming no setting: every call of
    the run would be refused alike, so none is sent."""
    return ModelRefused(
        f"{declined_line(spec, role, refusal)}; no item was sent: check the model's name, its settings and the "
        f"server at its base URL (`cobe models check {spec}` asks it alone)"
    )
