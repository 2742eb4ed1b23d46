"""Model providers behind specs such as `openai/gpt-5.4`, `local/gemma-3-270m` or `mock/echo`."""

from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider
from cobe.models.registry import get_provider, known_prefixes, parse_spec, register

__all__ = [
    "GenerateConfig",
    "Message",
    "ModelOutput",
    "Provider",
    "get_provider",
    "known_prefixes",
    "parse_spec",
    "register",
]
