"""Judge prompt sets as data: a folder with `config.yaml` and one text file per check."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from cobe.core.errors import InputError
from cobe.core.jsonfile import read_mapping, read_text
from cobe.dataset.schema import Scenario
from cobe.judge.checks import CHECKS, criterion
from cobe.models.base import GenerateConfig, MaxTokens, Message, Temperature

JUDGES_DIR = Path(str(files("cobe.judge").joinpath("prompts")))
JUDGE_FIELDS: frozenset[str] = frozenset({"story", "criterion", "response"})
# which placeholders a check's text must use, so a broken prompt set fails at load, not mid-run
REQUIRED_FIELDS: dict[str, frozenset[str]] = {
    "connectors": frozenset({"response"}),
    "preserve": frozenset({"criterion", "response"}),
    "change": frozenset({"criterion", "response"}),
}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_TAG = re.compile(r"</?([A-Za-z_][A-Za-z0-9_\-]*)>")


class JudgeConfig(BaseModel):
    """Sampling and parsing settings of a judge prompt set; unknown keys are kept, not rejected."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str | None = None
    temperature: Temperature = 0.0
    max_tokens: MaxTokens = 5
    logprobs: bool = True
    parser: Literal["tf"] = "tf"
    # answers a provider may restrict decoding to (llama.cpp does); others rely on the prompt
    choices: tuple[str, ...] | None = None

    def generate_config(self) -> GenerateConfig:
        """The model call settings these prompts expect."""
        return GenerateConfig(
            temperature=self.temperature, max_tokens=self.max_tokens, logprobs=self.logprobs, choices=self.choices
        )


@dataclass(frozen=True)
class JudgePromptSet:
    """One loaded prompt set: its config, the text of each check, and a fingerprint of both."""

    name: str
    directory: Path
    config: JudgeConfig
    texts: dict[str, str]
    system: str | None = None
    fingerprint: str = field(default="")

    def messages(self, check: str, scenario: Scenario, response: str) -> list[Message]:
        """The judge's chat for one check of one response."""
        if check not in self.texts:
            raise InputError(f"unknown judge check {check!r}; known checks: {', '.join(CHECKS)}")
        text = render_judge_text(
            self.texts[check], story=scenario.story, criterion=criterion(check, scenario), response=response
        )
        chat = [Message(role="system", content=self.system)] if self.system else []
        return [*chat, Message(role="user", content=text)]


def _tag_names(text: str) -> set[str]:
    return {match.group(1).lower() for match in _TAG.finditer(text)}


def neutralise_tags(value: str, tags: set[str]) -> str:
    """Escape any opening or closing `tags` inside data, so a response cannot leave its block."""
    if not tags:
        return value
    pattern = re.compile(r"<(\s*/?\s*(?:" + "|".join(map(re.escape, sorted(tags))) + r"))\b", re.IGNORECASE)
    return pattern.sub(r"&lt;\1", value)


def render_judge_text(text: str, **values: str) -> str:
    """Fill `{story}`, `{criterion}`, `{response}` in one pass, with the prompt's own tags neutralised."""
    tags = _tag_names(text)
    safe = {name: neutralise_tags(value, tags) for name, value in values.items()}
    # one regex pass: a value that itself contains '{response}' is never substituted again
    return _PLACEHOLDER.sub(lambda m: safe.get(m.group(1), m.group(0)), text).strip()


def _resolve(name_or_dir: str) -> Path:
    looks_like_path = any(sep in name_or_dir for sep in ("/", "\\")) or name_or_dir.startswith((".", "~"))
    bundled = JUDGES_DIR / name_or_dir
    if not looks_like_path and bundled.is_dir():
        return bundled
    path = Path(name_or_dir).expanduser()
    if path.is_dir():
        return path
    known = ", ".join(sorted(p.name for p in JUDGES_DIR.iterdir() if p.is_dir()))
    raise InputError(f"judge prompt set {name_or_dir!r} not found: give a bundled name ({known}) or a directory")


def _load_config(path: Path) -> JudgeConfig:
    if not path.exists():
        raise InputError(f"{path}: missing; a judge prompt set needs config.yaml beside its check files")
    data = read_mapping(path, "a judge prompt config (YAML)")
    try:
        return JudgeConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InputError(f"{path}: field {where}: {first['msg']}") from None


def _load_check(root: Path, check: str) -> str:
    path = root / f"{check}.txt"
    if not path.exists():
        raise InputError(f"{path}: missing; a judge prompt set needs one text file per check ({', '.join(CHECKS)})")
    text = read_text(path, "a judge prompt text file")
    used = set(_PLACEHOLDER.findall(text))
    unknown = used - JUDGE_FIELDS
    if unknown:
        names = ", ".join(sorted(unknown))
        raise InputError(f"{path}: unknown placeholder(s) {names}; known: {', '.join(sorted(JUDGE_FIELDS))}")
    missing = REQUIRED_FIELDS[check] - used
    if missing:
        raise InputError(f"{path}: missing placeholder(s) {', '.join('{' + m + '}' for m in sorted(missing))}")
    return text


def load_judge_prompts(name_or_dir: str = "default") -> JudgePromptSet:
    """A bundled judge prompt set by name, or one from a directory (as `--judge-prompts DIR` gives)."""
    root = _resolve(name_or_dir)
    config = _load_config(root / "config.yaml")
    texts: dict[str, str] = {check: _load_check(root, check) for check in CHECKS}
    system_path = root / "system.txt"
    system = read_text(system_path, "a system prompt text file").strip() if system_path.exists() else None
    payload = {"config": config.model_dump(mode="json"), "texts": texts, "system": system}
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()[:12]
    return JudgePromptSet(
        name=config.name or root.name,
        directory=root,
        config=config,
        texts=texts,
        system=system,
        fingerprint=digest,
    )
