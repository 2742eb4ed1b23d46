"""Shared pytest fixtures; each lives in tests/support/ and is imported here."""

from support.openai_server import openai_server  # noqa: F401  (pytest finds fixtures by name)
