"""Judge prompt sets as data: a folder with `config.yaml` and one text file per check.

A check's text names what it shows the judge with placeholders: ours (`{response}`,
`{criterion}`, `{story}`) or the paper appendix's (`$response_text`, `$eq1` = the preserve
criterion, `$eq2` = the change criterion, also written `${...}`), so the appendix's prompts can be
pasted into a folder unchanged. A folder without `config.yaml` takes the settings of the bundled
`paper` set.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from cobe.core.errors import InputError
from cobe.core.jsonfile import read_mapping, read_text
from cobe.core.results import CHECKS
from cobe.dataset.schema import Scenario
from cobe.judge.checks import criterion
from cobe.models.base import GenerateConfig, MaxTokens, Message, Temperature

JUDGES_DIR = Path(str(files("cobe.judge").joinpath("prompts")))
#: the set a command uses when no --judge-prompts is given: the paper's structure (App. D.2)
DEFAULT_JUDGE_PROMPTS = "paper"
#: former names of bundled sets. Loading one gives that set under its former name, so the
#: fingerprint (which hashes the name) and with it every stored verdict of older runs still match.
ALIASES: dict[str, str] = {"default": "contextual"}
#: our placeholder names, written {name}
JUDGE_FIELDS: frozenset[str] = frozenset({"story", "criterion", "response"})
#: the paper appendix's placeholder names, written $name or ${name}, and the value each stands for
PAPER_FIELDS: dict[str, str] = {"response_text": "response", "eq1": "eq1", "eq2": "eq2"}
# what a check's text must show, as alternatives (ours or the paper's), so a broken set fails at load
REQUIRED_FIELDS: dict[str, tuple[frozenset[str], ...]] = {
    "connectors": (frozenset({"response"}),),
    "preserve": (frozenset({"criterion", "eq1"}), frozenset({"response"})),
    "change": (frozenset({"criterion", "eq2"}), frozenset({"response"})),
}
_PAPER_NAMES = "|".join(sorted(PAPER_FIELDS, key=len, reverse=True))
_PLACEHOLDER = re.compile(
    r"\$\{(?P<dollar_braced>" + _PAPER_NAMES + r")\}"
    r"|\$(?P<dollar>" + _PAPER_NAMES + r")\b"
    r"|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)\}"
)
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
    # a set kept under a new name hashes under the name it was published with, so the verdicts
    # stored under its old name are found again (paper-v1 = the first `paper`)
    fingerprint_name: str | None = None

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

    def messages(self, check: str, scenario: Scenario, response: str, *, cache: bool = False) -> list[Message]:
        """The judge's chat for one check of one response; with `cache`, its head (what comes before the first
        placeholder: the instructions and worked examples) is marked for a provider's prompt cache."""
        if check not in self.texts:
            raise InputError(f"unknown judge check {check!r}; known checks: {', '.join(CHECKS)}")
        text = render_judge_text(
            self.texts[check],
            story=scenario.story,
            criterion=criterion(check, scenario),
            response=response,
            eq1=scenario.preserve_text,
            eq2=scenario.change_text,
        )
        chat = [Message(role="system", content=self.system)] if self.system else []
        head = min(len(constant_head(self.texts[check])), len(text)) if cache else 0
        return [*chat, Message(role="user", content=text, cache_prefix=head)]


@lru_cache(maxsize=256)  # a judge renders the same few texts thousands of times
def constant_head(text: str) -> str:
    """The part of a check's text before its first placeholder, as the rendered prompt begins: the same on
    every call of the check, so it is what a prompt cache can hold (the paper set puts its instructions and
    every worked example there, the criterion and the rewrite after)."""
    match = _PLACEHOLDER.search(text)
    return (text if match is None else text[: match.start()]).lstrip()


def _tag_names(text: str) -> set[str]:
    return {match.group(1).lower() for match in _TAG.finditer(text)}


def neutralise_tags(value: str, tags: Collection[str]) -> str:
    """Escape any opening or closing `tags` inside data, so a response cannot leave its block."""
    if not tags or "<" not in value:  # no tag can open without one
        return value
    return _tags_pattern(frozenset(tags)).sub(r"&lt;\1", value)


@lru_cache(maxsize=64)
def _tags_pattern(tags: frozenset[str]) -> re.Pattern[str]:
    return re.compile(r"<(\s*/?\s*(?:" + "|".join(map(re.escape, sorted(tags))) + r"))\b", re.IGNORECASE)


def _field(match: re.Match[str]) -> str:
    """The value name a placeholder match stands for: ours as written, the paper's translated."""
    braced = match.group("braced")
    if braced is not None:
        return braced
    return PAPER_FIELDS[match.group("dollar_braced") or match.group("dollar")]


def placeholders(text: str) -> set[str]:
    """The value names a check's text uses (`$response_text` counts as `response`)."""
    return {_field(match) for match in _PLACEHOLDER.finditer(text)}


@lru_cache(maxsize=256)
def _reading(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """A check's text as every call of it reads it: its own tags and the value names its placeholders use (read
    once per text: a judge renders the same few texts thousands of times)."""
    return frozenset(_tag_names(text)), frozenset(placeholders(text))


def render_judge_text(text: str, **values: str) -> str:
    """Fill the placeholders (`{response}`, `$eq1` …) in one pass, with the prompt's own tags neutralised."""
    tags, used = _reading(text)
    safe = {name: neutralise_tags(value, tags) for name, value in values.items() if name in used}
    # one regex pass: a value that itself contains '{response}' or '$eq2' is never substituted again
    return _PLACEHOLDER.sub(lambda m: safe.get(_field(m), m.group(0)), text).strip()


def bundled_names() -> list[str]:
    """The bundled prompt sets and the former names still accepted."""
    names = sorted(p.name for p in JUDGES_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    return names + [f"{alias} (= {target})" for alias, target in sorted(ALIASES.items())]


def _resolve(name_or_dir: str) -> Path:
    looks_like_path = any(sep in name_or_dir for sep in ("/", "\\")) or name_or_dir.startswith((".", "~"))
    bundled = JUDGES_DIR / ALIASES.get(name_or_dir, name_or_dir)
    if not looks_like_path and bundled.is_dir():
        return bundled
    path = Path(name_or_dir).expanduser()
    if path.is_dir():
        return path
    known = ", ".join(bundled_names())
    raise InputError(f"judge prompt set {name_or_dir!r} not found: give a bundled name ({known}) or a directory")


def _read_config(path: Path) -> JudgeConfig:
    data = read_mapping(path, "a judge prompt config (YAML)")
    try:
        return JudgeConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InputError(f"{path}: field {where}: {first['msg']}") from None


def _load_config(root: Path) -> JudgeConfig:
    """The folder's config.yaml; without one, the bundled paper set's settings under the folder's name."""
    path = root / "config.yaml"
    if os.path.lexists(path):  # anything there is read as a config, so a FIFO or a folder is refused, not skipped
        return _read_config(path)
    paper = _read_config(JUDGES_DIR / DEFAULT_JUDGE_PROMPTS / "config.yaml")
    return paper.model_copy(update={"name": root.name})


def _load_check(root: Path, check: str) -> str:
    path = root / f"{check}.txt"
    if not path.exists():
        raise InputError(f"{path}: missing; a judge prompt set needs one text file per check ({', '.join(CHECKS)})")
    text = read_text(path, "a judge prompt text file")
    used = placeholders(text)
    unknown = used - JUDGE_FIELDS - set(PAPER_FIELDS.values())
    if unknown:
        names = ", ".join(sorted(unknown))
        known = ", ".join([*(f"{{{name}}}" for name in sorted(JUDGE_FIELDS)), *(f"${name}" for name in PAPER_FIELDS)])
        raise InputError(f"{path}: unknown placeholder(s) {names}; known: {known}")
    for alternatives in REQUIRED_FIELDS[check]:
        if not used & alternatives:
            wanted = " or ".join(_spelled(name) for name in sorted(alternatives))
            raise InputError(f"{path}: missing placeholder(s) {wanted}")
    return text


def _spelled(name: str) -> str:
    """A value name as a user writes it: {response}, $eq1."""
    if name in JUDGE_FIELDS:
        return "{" + name + "}"
    paper = next(key for key, value in PAPER_FIELDS.items() if value == name)
    return "$" + paper


def load_judge_prompts(name_or_dir: str = DEFAULT_JUDGE_PROMPTS) -> JudgePromptSet:
    """A bundled judge prompt set by name, or one from a directory (as `--judge-prompts DIR` gives)."""
    root = _resolve(name_or_dir)
    config = _load_config(root)
    if name_or_dir in ALIASES and root == JUDGES_DIR / ALIASES[name_or_dir]:
        config = config.model_copy(update={"name": name_or_dir})
    texts: dict[str, str] = {check: _load_check(root, check) for check in CHECKS}
    system_path = root / "system.txt"
    system = read_text(system_path, "a system prompt text file").strip() if system_path.exists() else None
    return JudgePromptSet(
        name=config.name or root.name,
        directory=root,
        config=config,
        texts=texts,
        system=system,
        fingerprint=_fingerprint(config, texts, system),
    )


def _fingerprint(config: JudgeConfig, texts: dict[str, str], system: str | None) -> str:
    """A short hash of the settings and texts; a renamed set hashes under its `fingerprint_name`."""
    settings = config.model_dump(mode="json", exclude={"fingerprint_name"})
    if config.fingerprint_name is not None:
        settings["name"] = config.fingerprint_name
    payload = {"config": settings, "texts": texts, "system": system}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()[:12]
