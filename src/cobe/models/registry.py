"""The one provider table: each provider prefix registered once, with its factory and, where the provider
has one, its batch API adapter. SDKs load only when a spec asks for them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

from cobe.core.errors import InputError
from cobe.models.base import Provider

if TYPE_CHECKING:
    from cobe.models.batch_api import BatchAPI
    from cobe.models.capabilities import ModelCapabilities

Factory = Callable[[str, str], Provider]  # (spec, model part) -> Provider
#: (spec, the provider as the driver holds it, settings) -> the provider's own Ray Data stage (`cobe.models.vllm_ray`)
RayStage = Callable[..., Any]


@dataclass(frozen=True)
class Registration:
    """What a provider prefix registered: how to build its provider, and its batch adapter (None: no batch API)."""

    factory: Factory
    batch: type[BatchAPI] | None = None
    judges: bool = True  # False: its answers are stories, never T or F (the baselines)
    # the provider as a driver holds it when its calls run on a Ray cluster (no engine, no GPU needed here)
    remote: Factory | None = None
    # its own Ray Data stage (vLLM engines through ray.data.llm); None: a cobe provider inside an actor
    ray_stage: RayStage | None = None


_PROVIDERS: dict[str, Registration] = {}

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


def register(
    prefix: str,
    *,
    batch: type[BatchAPI] | None = None,
    judges: bool = True,
    remote: Factory | None = None,
    ray_stage: RayStage | None = None,
) -> Callable[[Factory], Factory]:
    """Decorator: make `factory(spec, model)` answer specs that start with `prefix/`; `batch` is the
    provider's batch API adapter (`cobe.models.batch_api.BatchAPI`), if it has one; `judges=False` for a
    provider that cannot answer a judge's question (its answers are stories); `remote` builds the provider
    as a Ray driver holds it and `ray_stage` the provider's own Ray Data stage (both: vLLM)."""

    def wrap(factory: Factory) -> Factory:
        _PROVIDERS[prefix] = Registration(factory, batch, judges, remote, ray_stage)
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
    return sorted(set(_BUILTIN_MODULES) | set(_PROVIDERS))


def _registration(prefix: str) -> Registration | None:
    if prefix not in _PROVIDERS and prefix in _BUILTIN_MODULES:
        import_module(_BUILTIN_MODULES[prefix])
    return _PROVIDERS.get(prefix)


def get_provider(spec: str, capabilities: ModelCapabilities | None = None, *, remote: bool = False) -> Provider:
    """Build the provider for a spec such as `anthropic/claude-opus-4-7`, asking as `capabilities` says the model
    accepts (default: its row of the capability table, with COBE_MODELS_FILE laid over it); with `remote`, as the
    driver of a Ray run holds it where its provider registered such a form (its engine then runs only on the
    workers)."""
    prefix, model = parse_spec(spec)
    registration = _registration(prefix)
    if registration is None:
        raise InputError(f"model spec {spec!r}: unknown provider {prefix!r}; known: {', '.join(known_prefixes())}")
    factory = registration.remote if remote and registration.remote is not None else registration.factory
    provider = factory(spec, model)
    if capabilities is not None:
        provider.capabilities = capabilities
    return provider


def ray_stage(spec: str) -> RayStage | None:
    """The provider's own Ray Data stage for a spec (vLLM's ray.data.llm processor), or None."""
    registration = _registration(spec.partition("/")[0])
    return registration.ray_stage if registration is not None else None


def batch_api(spec: str) -> type[BatchAPI] | None:
    """The batch API adapter of a spec's provider, or None when the provider has no batch API in cobe."""
    registration = _registration(spec.partition("/")[0])
    return registration.batch if registration is not None else None


def batch_prefixes() -> list[str]:
    """Every provider prefix with a batch API in cobe (each built-in provider module is imported to find out)."""
    return [prefix for prefix in known_prefixes() if batch_api(f"{prefix}/") is not None]


def refuse_as_judge(spec: str) -> None:
    """InputError when `spec` names a provider that cannot judge (a baseline answers with a story's text,
    never with T or F); checked before a run directory, a store or a call."""
    registration = _registration(spec.strip().partition("/")[0])
    if registration is not None and not registration.judges:
        raise InputError(
            f"--judge {spec}: a baseline answers with a story's text, never with T or F, so it cannot judge; "
            f"name a model as the judge (a baseline is a respondent: --model {spec})"
        )
