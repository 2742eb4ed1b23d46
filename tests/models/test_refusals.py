"""Which provider errors are refusals of a request's settings or model (the run stops), and which are an error
of one call: the SDKs' own exception classes, built as each SDK builds them from an error body."""

from __future__ import annotations

import httpx
import pytest

from cobe.calls.refused import fix_for, model_refused, refused_line
from cobe.models.refusals import Refusal, refusal, request_refusal

REQUEST = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")


def openai_error(status: int, error: dict) -> BaseException:
    import openai

    kinds = {400: openai.BadRequestError, 404: openai.NotFoundError, 422: openai.UnprocessableEntityError}
    response = httpx.Response(status, request=REQUEST, json={"error": error})
    return kinds[status](
        f"Error code: {status} - {error}", response=response, body=error
    )  # the SDK passes the inner error


def anthropic_error(status: int, kind: str, message: str) -> BaseException:
    import anthropic

    classes = {400: anthropic.BadRequestError, 404: anthropic.NotFoundError, 429: anthropic.RateLimitError}
    body = {"type": "error", "error": {"type": kind, "message": message}}
    response = httpx.Response(status, request=REQUEST, json=body)
    return classes[status](f"Error code: {status} - {body}", response=response, body=body)


def google_error(status: int, message: str, reason: str = "INVALID_ARGUMENT") -> BaseException:
    from google.genai import errors

    return errors.ClientError(status, {"error": {"code": status, "message": message, "status": reason}})


@pytest.mark.parametrize(
    ("error", "parameter"),
    [
        (
            lambda: openai_error(
                400,
                {
                    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                    "Use 'max_completion_tokens' instead.",
                    "type": "invalid_request_error",
                    "param": "max_tokens",
                    "code": "unsupported_parameter",
                },
            ),
            "max_tokens",
        ),
        (
            lambda: openai_error(
                400,
                {
                    "message": "Unsupported value: 'temperature' does not support 0 with this model.",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "unsupported_value",
                },
            ),
            "temperature",
        ),
        (
            lambda: openai_error(
                404,
                {"message": "The model `gpt-9` does not exist.", "type": "invalid_request_error", "param": None},
            ),
            "model",
        ),
        (lambda: anthropic_error(400, "invalid_request_error", "temperature: range: 0..1"), "temperature"),
        (
            lambda: anthropic_error(
                400, "invalid_request_error", "thinking.budget_tokens: Input should be greater than or equal to 1024"
            ),
            "thinking.budget_tokens",
        ),
        (lambda: anthropic_error(404, "not_found_error", "model: claude-nope"), "model"),
        (
            lambda: google_error(
                400, 'Invalid JSON payload received. Unknown name "thinkingLevel": Cannot find field.'
            ),
            "thinkingLevel",
        ),
        (lambda: google_error(404, "models/gemini-nope is not found for API version v1beta.", "NOT_FOUND"), "model"),
    ],
    ids=[
        "openai-param",
        "openai-value",
        "openai-model",
        "anthropic-value",
        "anthropic-budget",
        "anthropic-model",
        "google-field",
        "google-model",
    ],
)
def test_a_refused_setting_or_model_is_named(error, parameter):
    found = refusal(error())
    assert found is not None and found.parameter == parameter and found.status in (400, 404)
    assert "Error code" not in found.message  # the server's own words, not the SDK's wrapper


@pytest.mark.parametrize(
    "error",
    [
        lambda: openai_error(
            400,
            {
                "message": "This model's maximum context length is 128000 tokens. However, you requested 130000.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            },
        ),
        lambda: openai_error(400, {"message": "Invalid prompt: your prompt was flagged.", "param": None}),
        lambda: anthropic_error(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
        lambda: anthropic_error(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit"),
        lambda: google_error(400, "API key not valid. Please pass a valid API key.", "API_KEY_INVALID"),
        lambda: google_error(500, "internal error", "INTERNAL"),
    ],
    ids=["context-length", "flagged", "too-long", "rate-limit", "bad-key", "server-error"],
)
def test_an_error_of_one_call_is_not_a_refusal_of_the_settings(error):
    assert refusal(error()) is None


def test_the_line_names_the_model_the_parameter_and_the_fix_for_its_role():
    said = Refusal(400, "max_tokens", "Unsupported parameter: 'max_tokens' is not supported with this model.")
    line = refused_line("openai/gpt-5.4", "respondent", said)
    assert line.startswith("openai/gpt-5.4 (respondent) refused the parameter 'max_tokens': 400 Unsupported")
    assert "fix: give --max-tokens" in line and "max_completion_tokens" in line
    assert "-M SPEC:max_tokens=N" in fix_for("max_tokens", "judge")
    assert "-M 'openai/o9:sampling=[]'" in fix_for("temperature", "judge", "openai/o9")
    assert "--reasoning-effort" in fix_for("reasoning_effort", "respondent")
    assert "model's name" in refused_line("anthropic/x", "respondent", Refusal(404, "model", "model: x"))
    stop = model_refused("openai/gpt-5.4", "judge", said, 2)
    assert stop.exit_code == 2 and str(stop).endswith("the run stopped after 2 refused requests")
    assert len(refused_line("a/b", "judge", Refusal(400, "seed", "x" * 1000))) < 600  # the server's words cut


def openai_raw_error(status: int, text: str) -> BaseException:
    """An OpenAI SDK error as the SDK makes it of a body that is not its error shape (issue 30, item 9)."""
    import json

    import openai

    classes = {400: openai.BadRequestError, 422: openai.UnprocessableEntityError, 429: openai.RateLimitError}
    try:
        body: object = json.loads(text)
    except ValueError:
        body = text.strip()
    response = httpx.Response(status, request=REQUEST, text=text)
    return classes[status](f"Error code: {status}", response=response, body=body)


def test_a_fastapi_422_names_the_field_its_loc_points_at():
    detail = '{"detail": [{"type": "float_type", "loc": ["body", "temperature"], "msg": "Input should be a number"}]}'
    assert refusal(openai_raw_error(422, detail)) == Refusal(422, "temperature", "Input should be a number")
    nested = '{"detail": [{"loc": ["body", "reasoning", "effort"], "msg": "bad level"}]}'
    assert refusal(openai_raw_error(422, nested)) == Refusal(422, "reasoning.effort", "bad level")
    # a 422 about the call's own content stays that call's error
    content = '{"detail": [{"loc": ["body", "messages", 0, "content"], "msg": "too long"}]}'
    assert refusal(openai_raw_error(422, content)) is None
    assert request_refusal(openai_raw_error(422, content)) == Refusal(422, "", content)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('{"error": "something went wrong"}', '{"error": "something went wrong"}'),
        ('{\n  "error":\n    "pretty printed"\n}\n', '{ "error": "pretty printed" }'),  # JSON: whole, on one line
        ("<html>\n<title>400 Bad Request</title>\n</html>", "<html>"),
        ("\n\n  nothing to see\nhere", "nothing to see"),
        ("", "(empty body)"),
    ],
)
def test_a_refusal_naming_no_setting_keeps_the_status_and_the_bodys_first_line(text, line):
    error = openai_raw_error(400, text)
    assert refusal(error) is None  # one call's error in a run; what the preflight stops at
    assert request_refusal(error) == Refusal(400, "", line)
    assert not Refusal(400, "", line).named


def test_a_rate_limit_or_a_refused_key_is_no_refusal_of_the_request():
    assert request_refusal(openai_raw_error(429, "slow down")) is None
    assert (
        request_refusal(google_error(400, "API key not valid. Please pass a valid API key.", "API_KEY_INVALID")) is None
    )


def test_a_key_escaped_as_no_form_foresees_is_scrubbed_from_the_decoded_body(monkeypatch):
    """A body that escapes every character of the key (`\\u0061...`) shows it decoded, scrubbed (issue 43, item 4)."""
    key = "Kx9vQ2mZp7Lr4Tn8Wb3Yc6"
    monkeypatch.setenv("ODD_API_KEY", key)
    spelled = "".join(f"\\u{ord(c):04x}" for c in key)
    line = request_refusal(openai_raw_error(400, '{"error": {"message": "no such key: ' + spelled + '"}}')).message
    assert key not in line and spelled not in line and "[redacted]" in line
