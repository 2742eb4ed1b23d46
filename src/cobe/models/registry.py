"""Providers register by spec prefix; their SDKs load only when a spec asks for them."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from cobe.core.errors import InputError
from cobe.models.base import Provider

Factory = Callable[[str, str], Provider]  # (spec, model part) -> Provider

_FACTORIES: dict[str, Factory] = {}

# prefix → module that registers it; importing the module must not import the SDK
_BUILTIN_MODULES = {
    "openai": "cobe.models.openai_chat",
    "openai-api": "cobe.models.openai_chat",
    "anthropic": "cobe.models.anthropic_chat",
    "google": "cobe.models.google_chat",
    "llamacpp": "cobe.models.llamacpp",
    "local": "cobe.models.llamacpp",
    "vllm": "cobe.models.vllm_offline",
    "mock": "cobe.models.mock",
    "baseline": "cobe.models.baseline",
}


def register(prefix: str) -> Callable[[Factory], Factory]:
    """Decorator: make `factory(spec, model)` answer specs that start with `prefix/`."""

    def wrap(factory: Factory) -> Factory:
        _FACTORIES[prefix] = factory
        return factory

    return wrap


def parse_spec(spec: str) -> tuple[str, str]:
    """Split `provider/model` into its two parts, with a one-line error for a malformed spec."""
    prefix, sep, model = spec.partition("/")
    if not sep or not prefix or not model:
        raise InputError(f"model spec {spec!r}: expected provider/model, e.g. openai/gpt-5.4 or local/gemma-3-270m")
    return prefix, model


def known_prefixes() -> list[str]:
    """Every provider prefix cobe knows."""
    return sorted(set(_BUILTIN_MODULES) | set(_FACTORIES))


def get_provider(spec: str) -> Provider:
    """Build the provider for a spec such as `anthropic/claude-opus-4-7`."""
    prefix, model = parse_spec(spec)
    if prefix not in _FACTORIES and prefix in _BUILTIN_MODULES:
        import_module(_BUILTIN_MODULES[prefix])
    factory = _FACTORIES.get(prefix)
    if factory is None:
        raise InputError(f"model spec {spec!r}: unknown provider {prefix!r}; known: {', '.join(known_prefixes())}")
    return factory(spec, model)
