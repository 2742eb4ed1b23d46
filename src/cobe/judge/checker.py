"""A judge at work: one provider, one prompt set and its settings, asking each check with one re-ask."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from cobe.core.aio import settled
from cobe.core.results import CHECKS, Verdict
from cobe.judge.parse import p_true, parse_verdict
from cobe.judge.prompt_sets import JudgePromptSet
from cobe.models.base import CallRecord, GenerateConfig, Message, Provider
from cobe.models.registry import refuse_as_judge

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario


class Caller(Protocol):
    """What a judge calls through: the cached, scheduled call path (`cobe.calls.Caller`), or a stand-in of a test."""

    async def call(
        self,
        provider: Provider,
        messages: list[Message],
        settings: GenerateConfig,
        *,
        role: str,
        attempt: int = 0,
        sample: int = 0,
    ) -> CallRecord:
        """One call, answered from the store when an identical one finished before; `sample` > 0 is a
        deliberate repeat of it (--judge-samples), keyed apart."""
        ...


@dataclass(slots=True)
class CheckResult:
    """One check's outcome: a verdict, or None with the reason it is unscored."""

    check: str
    verdict: Verdict | None
    raw: str | None
    p_true: float | None = None
    unscored: str | None = None
    error: str | None = None  # the judge call itself failed (redone on resume)
    call_key: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None


class Judge:
    """A judge provider with its prompt set and call settings (`cobe.judge.judge_plan.plan_judges` decides them),
    calling through a Caller; commands ask through `cobe.judge.panel.JudgePanel`, which holds one or more."""

    def __init__(
        self,
        caller: Caller,
        provider: Provider,
        prompts: JudgePromptSet,
        settings: GenerateConfig,
        *,
        prompt_cache: bool = True,
    ) -> None:
        refuse_as_judge(provider.spec)
        self.caller, self.provider, self.prompts, self.settings = caller, provider, prompts, settings
        self.prompt_cache = prompt_cache

    def messages(self, check: str, scenario: Scenario, response: str) -> list[Message]:
        """What this judge sends for one check: the prompt set's chat, its constant head marked for the
        provider's prompt cache unless the plan turned caching off (the mark never changes a call's key)."""
        return self.prompts.messages(check, scenario, response, cache=self.prompt_cache)

    def settings_json(self) -> str:
        """The judge settings as stored beside each verdict."""
        return self.settings.model_dump_json()

    async def check(self, check: str, scenario: Scenario, response: str, sample: int = 0) -> CheckResult:
        """Ask one check; an unparseable answer is asked once more (a distinct call), then left unscored.

        `sample` numbers repeated asks of the same check (--judge-samples): each is a call of its own.
        """
        messages = self.messages(check, scenario, response)
        result = CheckResult(check, None, None)
        for attempt in (0, 1):
            record = await self.caller.call(
                self.provider, messages, self.settings, role="judge", attempt=attempt, sample=sample
            )
            result.call_key = record.key
            result.input_tokens += record.input_tokens
            result.output_tokens += record.output_tokens
            if record.cost_usd is not None:
                result.cost_usd = (result.cost_usd or 0.0) + record.cost_usd
            if record.error is not None:
                result.verdict, result.error = None, record.error
                result.unscored = f"judge call failed: {record.error}"
                return result
            result.raw = record.text
            verdict, reason = parse_verdict(record.text)
            if verdict is not None:
                result.verdict, result.unscored = verdict, None
                result.p_true = p_true(record.first_token_logprobs)
                return result
            result.unscored = reason or "unparseable verdict"
        return result

    async def checks(
        self, scenario: Scenario, response: str, checks: tuple[str, ...] = CHECKS
    ) -> dict[str, CheckResult]:
        """The given checks of one response, concurrently."""
        results = await settled(*(self.check(c, scenario, response) for c in checks))
        return dict(zip(checks, results))
