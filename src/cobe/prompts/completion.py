"""The plain completion format for base models without a chat template: one worked rewrite, then the
request, then the cue the answer follows (`prompts/formats/completion.yaml`, data, not code)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from cobe.core.errors import InputError
from cobe.core.jsonfile import read_mapping
from cobe.models.base import Message

COMPLETION_FILE = Path(str(files("cobe.prompts").joinpath("formats", "completion.yaml")))


@dataclass(frozen=True)
class CompletionFormat:
    """A completion prompt: its text with {request} and {cue}, and the cue itself."""

    text: str
    cue: str

    def render(self, request: str) -> str:
        """The whole prompt for one request, ending with the cue."""
        # replace, not str.format: a story may hold braces of its own
        return self.text.replace("{cue}", self.cue).replace("{request}", request.strip()).strip()


@lru_cache(maxsize=4)
def load_completion_format(path: Path = COMPLETION_FILE) -> CompletionFormat:
    """The completion format of a YAML file (the bundled one by default)."""
    data = read_mapping(path, "a completion format (YAML)")
    if not isinstance(data.get("text"), str) or not isinstance(data.get("cue"), str):
        raise InputError(f"{path}: expected a mapping with a 'text' and a 'cue' string")
    if "{request}" not in data["text"]:
        raise InputError(f"{path}: text: the {{request}} placeholder is missing")
    return CompletionFormat(text=data["text"], cue=data["cue"].strip())


def completion_messages(messages: list[Message] | tuple[Message, ...]) -> list[Message]:
    """A chat request as one completion prompt: the worked example, the request's text, the cue."""
    request = "\n\n".join(m.content.strip() for m in messages if m.role in ("system", "user"))
    return [Message(role="user", content=load_completion_format().render(request))]
