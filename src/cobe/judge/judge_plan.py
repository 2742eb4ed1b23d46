"""The judges of a command, as a plan and as the name their verdicts go by: one judge, or a panel of judges,
each asked once or `samples` times per check. `plan_judges` is the one place a judge's settings are
decided (prompt set, temperature, samples, batching); `cobe.judge.panel.JudgePanel.from_plan` turns the
plan into the judge that asks, for every command that judges.

Every member's verdicts are stored under its own spec and prompt fingerprint, one row per check and
sample, exactly as a lone judge's are. A panel's verdict (and a sampled judge's) is never stored: the
exports derive it from the members' rows with `cobe.judge.panel.majority`, so resuming a member or
redoing a failed call can never leave a stale combined verdict behind. What a run shows is named by
`JudgeRef.identity`: the prompt fingerprint for one judge asked once (as before panels existed), else a
hash of every member's spec and prompt fingerprint and the number of samples.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cobe.core.errors import InputError
from cobe.judge.batch import adapter
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS, JudgePromptSet, load_judge_prompts
from cobe.judge.specs import panel_name, split_specs
from cobe.models.base import GenerateConfig
from cobe.models.capabilities import ModelCapabilities
from cobe.models.model_args import NO_MODEL_ARGS, ModelArgs
from cobe.models.reasoning import REASONING_MAX_TOKENS
from cobe.models.registry import refuse_as_judge

#: the temperature --judge-samples asks at when neither --judge-temperature nor the prompt set gives one above 0
SAMPLE_TEMPERATURE = 1.0


@dataclass(frozen=True)
class JudgeRef:
    """Which judge's verdicts a run shows: one judge, or a panel (`members`), asked `samples` times per check."""

    spec: str  # the judge's spec, or the panel's name
    prompt_set: str
    fingerprint: str  # one judge: its prompt set's fingerprint; a panel: `identity`
    members: tuple[JudgeRef, ...] = ()
    samples: int = 1

    @property
    def judges(self) -> tuple[JudgeRef, ...]:
        """The judges whose stored verdicts make up what is shown (itself, for one judge)."""
        return self.members or (self,)

    @property
    def combined(self) -> bool:
        """Whether a shown verdict is a majority of several (judges, or one judge's samples)."""
        return len(self.judges) > 1 or self.samples > 1

    @property
    def identity(self) -> str:
        """The fingerprint of what the exports show: it names every member's spec and prompt fingerprint."""
        if not self.combined:
            return self.judges[0].fingerprint
        named = sorted([j.spec, j.prompt_set, j.fingerprint] for j in self.judges)  # order never matters
        text = json.dumps({"members": named, "samples": self.samples}, sort_keys=True, separators=(",", ":"))
        return "panel-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def members_json(self) -> str:
        """The members and samples as the run records them (runs.judge_members)."""
        members = [{"spec": j.spec, "prompt_set": j.prompt_set, "fingerprint": j.fingerprint} for j in self.judges]
        return json.dumps({"members": members, "samples": self.samples}, sort_keys=True)

    def summary_fields(self) -> dict[str, Any]:
        """What summary.json says about the judge: its name, prompt set, identity and, for a panel or
        samples, every member with its prompt fingerprint."""
        fields: dict[str, Any] = {
            "judge": self.spec,
            "judge_prompts": self.prompt_set,
            "judge_fingerprint": self.identity,
        }
        if self.combined:
            fields["judge_members"] = json.loads(self.members_json())["members"]
            fields["judge_samples"] = self.samples
        return fields


def judge_ref(members: list[JudgeRef], samples: int = 1) -> JudgeRef:
    """The shown name of one judge or a panel of them."""
    if len(members) == 1 and samples == 1:
        return members[0]
    sets = list(dict.fromkeys(m.prompt_set for m in members))
    provisional = JudgeRef(panel_name([m.spec for m in members]), "+".join(sets), "", tuple(members), samples)
    return JudgeRef(provisional.spec, provisional.prompt_set, provisional.identity, tuple(members), samples)


#: what a stored members field holds (`JudgeRef.members_json`), for the line saying one does not
MEMBERS_SHAPE = 'expected {"members": [{"spec": ..., "prompt_set": ..., "fingerprint": ...}, ...], "samples": N}'


def stored_ref(spec: str, prompt_set: str, fingerprint: str, members_json: str | None) -> JudgeRef:
    """A run's recorded judge (runs.judge, judge_prompts, judge_fingerprint, judge_members) as a JudgeRef; a
    members field that is not what `JudgeRef.members_json` writes raises ValueError (MEMBERS_SHAPE)."""
    if not members_json:
        return JudgeRef(spec, prompt_set, fingerprint)
    try:
        data = json.loads(members_json)
        members = [JudgeRef(m["spec"], m["prompt_set"], m["fingerprint"]) for m in data["members"]]
        samples = data.get("samples", 1)
    except (ValueError, TypeError, KeyError, AttributeError):  # not JSON, or JSON of another shape
        members, samples = [], 0
    fields = [value for m in members for value in (m.spec, m.prompt_set, m.fingerprint)]
    if not members or not all(isinstance(v, str) for v in fields) or type(samples) is not int or samples < 1:
        raise ValueError(MEMBERS_SHAPE)
    return judge_ref(members, samples)


@dataclass(frozen=True)
class MemberPlan:
    """One judge of a command: spec, prompt set, call settings (--judge-temperature, its model arguments and
    its capabilities applied) and what the model accepts."""

    spec: str
    prompts: JudgePromptSet
    settings: GenerateConfig
    capabilities: ModelCapabilities | None = None  # None: the model's row of the bundled table

    @property
    def ref(self) -> JudgeRef:
        """How the store names this judge's verdict rows."""
        return JudgeRef(self.spec, self.prompts.name, self.prompts.fingerprint)


@dataclass(frozen=True)
class JudgePlan:
    """The judging of a command: its judges (one, or a panel), samples per check, and batching."""

    members: tuple[MemberPlan, ...]
    samples: int
    batch_poll_s: float | None  # seconds between batch polls with --judge-batch; None: no batch
    show: bool = True  # the run's exports switch to this judge; False: judge without changing what it shows
    # mark each check's constant head (instructions, worked examples) for the provider's prompt cache where
    # the provider takes a mark (Anthropic); it changes what a call costs, never its key or its answer
    prompt_cache: bool = True

    @property
    def spec(self) -> str:
        """The judge's spec, or the panel's name."""
        return panel_name([m.spec for m in self.members])

    @property
    def prompts(self) -> JudgePromptSet:
        """The prompt set every member asks with."""
        return self.members[0].prompts

    @property
    def settings(self) -> GenerateConfig:
        """The call settings every member asks with."""
        return self.members[0].settings

    @property
    def ref(self) -> JudgeRef:
        """How the store and the exports name what this judging shows."""
        return judge_ref([m.ref for m in self.members], self.samples)


def judge_settings(prompts: JudgePromptSet, temperature: float | None = None) -> GenerateConfig:
    """The call settings of a prompt set, its temperature replaced when one is given (--judge-temperature)."""
    settings = prompts.config.generate_config()
    if temperature is not None:
        settings = settings.model_copy(update={"temperature": temperature})
    return settings


def sample_settings(
    prompts: JudgePromptSet, temperature: float | None, samples: int, keep_temperature: bool = False
) -> tuple[GenerateConfig, str]:
    """(call settings, a notice or ''): several samples need a temperature above 0 to differ at all, unless they
    are repeats (`keep_temperature`, --repeats) that ask whether the judge answers alike at its own temperature."""
    settings = judge_settings(prompts, temperature)
    if samples == 1 or (settings.temperature or 0.0) > 0:
        return settings, ""
    if keep_temperature:
        return settings, (
            f"--repeats {samples} at temperature {settings.temperature}: repeats differ only where the provider "
            "does not answer the same question the same way"
        )
    if temperature is not None:
        raise InputError(
            f"--judge-samples {samples} asks the judge {samples} times, which at --judge-temperature "
            f"{temperature} gives one answer {samples} times; choose a temperature above 0"
        )
    notice = (
        f"--judge-samples {samples}: the judge is asked at temperature {SAMPLE_TEMPERATURE} "
        f"(prompt set {prompts.name} asks at {settings.temperature}); choose another with --judge-temperature"
    )
    return settings.model_copy(update={"temperature": SAMPLE_TEMPERATURE}), notice


def member_settings(caps: ModelCapabilities, settings: GenerateConfig, limit_given: bool = False) -> GenerateConfig:
    """A judge's call settings fitted to its model: a judge that thinks gets room to think and answer (the prompt
    set's max_tokens is a floor, never a cap that starves it), one that does not at least the API's least; logprobs
    are asked only of a model that returns them. A token limit given as a model argument stays as given."""
    thinks = caps.thinks(settings.reasoning_effort)
    update: dict[str, object] = {}
    if not limit_given:
        floor = REASONING_MAX_TOKENS if thinks else caps.min_output_tokens
        if (settings.max_tokens or 0) < floor:
            update["max_tokens"] = floor
    if settings.logprobs and "logprobs" not in caps.allowed(thinks):
        update["logprobs"] = False
    return settings.model_copy(update=update) if update else settings


def plan_judges(
    judge: str | Sequence[str],
    prompts: JudgePromptSet | str = DEFAULT_JUDGE_PROMPTS,
    *,
    temperature: float | None = None,
    samples: int = 1,
    batch_poll_s: float | None = None,
    show: bool = True,
    models: ModelArgs = NO_MODEL_ARGS,
    prompt_cache: bool = True,
    keep_temperature: bool = False,
) -> tuple[JudgePlan, list[str]]:
    """(the judging plan, notices about its settings): every command's judge is planned here.

    `judge` is one spec or a panel's (a list, or comma-separated); every judge asks with the prompt set
    `prompts` (a name or a loaded set), at `temperature` (default: the set's own), `samples` times per
    check; with `batch_poll_s` the calls go through each judge's provider batch API first; `prompt_cache`
    marks each check's constant head for the provider's prompt cache; `keep_temperature` asks the samples at that
    temperature even at 0 (--repeats). `models` holds the command's model arguments and models file: each judge's
    own settings and capabilities.
    """
    specs = split_specs([judge] if isinstance(judge, str) else judge)
    if not specs:
        raise InputError("--judge: expected at least one judge model spec")
    for spec in specs:
        refuse_as_judge(spec)  # before a run directory, a store or a call
    if samples < 1:
        raise InputError(f"--judge-samples {samples}: expected 1 or more")
    if batch_poll_s is not None:
        for spec in specs:
            adapter(spec)  # refuses a judge whose provider has no batch API
    prompt_set = load_judge_prompts(prompts) if isinstance(prompts, str) else prompts
    settings, notice = sample_settings(prompt_set, temperature, samples, keep_temperature)
    members = []
    for spec in specs:
        caps = models.capabilities(spec)
        own = member_settings(caps, models.settings(spec, settings), models.sets(spec, "max_tokens"))
        members.append(MemberPlan(spec, prompt_set, own, caps))
    return JudgePlan(tuple(members), samples, batch_poll_s, show, prompt_cache), [notice] if notice else []
