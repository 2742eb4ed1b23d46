"""The contract fake's usage fields, as the real APIs report them, so the call path can read them: reasoning
tokens inside the output, and prompt caching (automatic for OpenAI and Gemini, marked for Anthropic)."""

from __future__ import annotations

import json

from support.openai_server import FakeLLMServer

LONG = " ".join(f"word{i}" for i in range(1300))  # past the 1024 tokens the APIs cache from


def usage(server: FakeLLMServer, kind: str, model: str, request: dict) -> dict:
    path = f"/v1beta/models/{model}:generateContent" if kind == "google" else "/v1/x"
    status, body, _, _ = server.respond(kind, path, {"model": model, **request})
    assert status == 200, body
    reply = json.loads(body)
    return reply.get("usage") or reply.get("usageMetadata")


def test_openai_reports_cached_prompt_tokens_of_a_repeated_prefix_and_reasoning_tokens():
    server = FakeLLMServer(strict=True)
    request = {"messages": [{"role": "user", "content": LONG}], "reasoning_effort": "medium"}
    first = usage(server, "openai", "gpt-5.4", request)
    again = usage(server, "openai", "gpt-5.4", request)
    assert first["prompt_tokens_details"]["cached_tokens"] == 0
    assert again["prompt_tokens_details"]["cached_tokens"] == 1280  # in steps of 128 tokens
    assert again["completion_tokens_details"]["reasoning_tokens"] == 256
    assert again["completion_tokens"] > again["completion_tokens_details"]["reasoning_tokens"]
    responses = usage(server, "responses", "gpt-5.4", {"input": [{"role": "user", "content": LONG}]})
    assert responses["input_tokens_details"]["cached_tokens"] == 1280
    assert responses["output_tokens_details"]["reasoning_tokens"] == 0  # gpt-5.4 thinks only when asked
    short = usage(server, "openai", "gpt-4.1", {"messages": [{"role": "user", "content": "a short prompt"}]})
    assert short["prompt_tokens_details"]["cached_tokens"] == 0


def test_anthropic_caches_only_the_marked_prefix_written_once_then_read():
    server = FakeLLMServer()
    marked = {"type": "text", "text": LONG, "cache_control": {"type": "ephemeral"}}
    request = {"max_tokens": 64, "messages": [{"role": "user", "content": [marked, {"type": "text", "text": "tail"}]}]}
    first = usage(server, "anthropic", "claude-opus-4-7", request)
    again = usage(server, "anthropic", "claude-opus-4-7", request)
    assert (first["cache_creation_input_tokens"], first["cache_read_input_tokens"]) == (1300, 0)
    assert (again["cache_creation_input_tokens"], again["cache_read_input_tokens"]) == (0, 1300)
    assert again["input_tokens"] == 1  # the unmarked tail
    plain = {"max_tokens": 64, "messages": [{"role": "user", "content": LONG}]}
    assert usage(server, "anthropic", "claude-opus-4-7", plain)["cache_read_input_tokens"] == 0  # nothing marked


def test_gemini_reports_thoughts_and_cached_content():
    server = FakeLLMServer(strict=True)
    request = {"contents": [{"role": "user", "parts": [{"text": LONG}]}]}
    usage(server, "google", "gemini-2.5-pro", request)
    again = usage(server, "google", "gemini-2.5-pro", request)
    assert again["cachedContentTokenCount"] == 1280 and again["thoughtsTokenCount"] == 512
