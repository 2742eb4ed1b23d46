"""The judge every command asks: a panel of judges (one judge is a panel of one), each asked `samples` times
per check, built by its one constructor `JudgePanel.from_plan`; the strict majority that combines their
answers; and the provider-family rule behind the self-preference warning.

    plan, notices = plan_judges(["openai/gpt-5.4", "anthropic/claude-opus-4-7"], "paper", samples=3)
    panel = JudgePanel.from_plan(plan, caller)
    results = await panel.checks(scenario, rewrite)   # check → CheckResult (the majority)

One majority rule serves both uses: a judge asked K times takes the majority of its samples, a panel
the majority of its judges' verdicts. An unparseable verdict (None) abstains; a tie, or nothing to
count, is unscored with its reason; the order of the votes never matters.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cobe.core.aio import settled
from cobe.core.errors import InputError
from cobe.core.results import CHECKS
from cobe.judge.batch import BatchJudge, BatchRequest, batch_request
from cobe.judge.checker import CheckResult, Judge
from cobe.judge.checks import majority
from cobe.models.registry import get_provider

if TYPE_CHECKING:
    from cobe.calls.caller import Caller
    from cobe.dataset.schema import Scenario
    from cobe.judge.judge_plan import JudgePlan
    from cobe.models.base import Provider

#: one question to a panel: (member index, check, sample index)
Ask = tuple[int, str, int]


# the provider families a judge may favour its own kin in: a spec's prefix, or a word in its model name
_FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("openai", "openai", ("gpt",)),
    ("anthropic", "anthropic", ("claude",)),
    # Gemma is Google's open family: a Gemma judge grading Gemini is kin too
    ("google", "google", ("gemini", "gemma")),
)


def provider_family(spec: str) -> str | None:
    """The family of a model spec (openai, anthropic, google), or None when it belongs to none of them."""
    prefix, _, model = spec.partition("/")
    name = model.lower()
    for family, own_prefix, words in _FAMILIES:
        if prefix == own_prefix or any(word in name for word in words):
            return family
    return None


def self_preference(judge: str, respondent: str) -> str | None:
    """Why `judge` may favour `respondent` (the same model, or the same provider family), or None."""
    if judge.rsplit("/", 1)[-1].lower() == respondent.rsplit("/", 1)[-1].lower():
        return "the same model"
    family = provider_family(judge)
    if family is not None and family == provider_family(respondent):
        return f"the same provider family ({family})"
    return None


def self_preference_notices(judges: Iterable[str], respondents: Iterable[str]) -> list[str]:
    """One line per judge × respondent pair that may share a preference for its own kind."""
    lines = []
    respondents = list(dict.fromkeys(respondents))
    for judge in dict.fromkeys(judges):
        for respondent in respondents:
            why = self_preference(judge, respondent)
            if why is not None:
                lines.append(
                    f"self-preference: judge {judge} grades {respondent}, {why}; "
                    "judges tend to favour answers of their own kind"
                )
    return lines


def combine(results: Sequence[CheckResult], voters: str) -> CheckResult:
    """One check's results (several judges, or one judge's samples) as one: the majority verdict,
    the raw answers side by side, the mean P(T), the tokens and cost summed. One result stays as it is."""
    if len(results) == 1:
        return results[0]
    verdict, reason = majority((r.verdict for r in results), voters)
    if verdict is None and reason and reason.startswith("no verdict"):
        why = "; ".join(dict.fromkeys(r.unscored for r in results if r.unscored))
        reason = f"{reason}: {why}" if why else reason
    known = [r.p_true for r in results if r.p_true is not None]
    costs = [r.cost_usd for r in results if r.cost_usd is not None]
    return CheckResult(
        check=results[0].check,
        verdict=verdict,
        raw=" | ".join(r.raw or "" for r in results),
        p_true=sum(known) / len(known) if known else None,
        unscored=reason,
        error=next((r.error for r in results if r.error is not None), None),
        input_tokens=sum(r.input_tokens for r in results),
        output_tokens=sum(r.output_tokens for r in results),
        cost_usd=sum(costs) if costs else None,
    )


class JudgePanel:
    """Judges asked side by side, each `samples` times per check; answers `Judge.checks` for the whole panel.

    Build it with `from_plan`, the one constructor every command uses, so a setting decided in
    `cobe.judge.judge_plan.plan_judges` reaches every caller that judges.
    """

    def __init__(self, members: Sequence[Judge], samples: int = 1, batches: Sequence[BatchJudge] = ()) -> None:
        if not members:
            raise InputError("a judge panel needs at least one judge")
        if samples < 1:
            raise InputError(f"--judge-samples {samples}: expected 1 or more")
        self.members, self.samples, self.batches = list(members), samples, list(batches)
        self._owned: list[Provider] = []  # providers this panel opened, closed by `aclose`

    @classmethod
    def from_plan(cls, plan: JudgePlan, caller: Caller, providers: Mapping[str, Provider] | None = None) -> JudgePanel:
        """The judge of a plan, asking through `caller`: each member with its prompt set and settings, each
        with a provider batch when the plan batches. `providers` (spec → provider) lends providers the
        command already holds; any other is opened here, and closed by `aclose`."""
        lent = dict(providers or {})
        owned = {m.spec: get_provider(m.spec, m.capabilities) for m in plan.members if m.spec not in lent}
        chosen = lent | owned
        members = [
            Judge(caller, chosen[m.spec], m.prompts, m.settings, prompt_cache=plan.prompt_cache) for m in plan.members
        ]
        batches = []
        if plan.batch_poll_s is not None:
            batches = [BatchJudge(caller, j.provider, j.settings, plan.batch_poll_s) for j in members]
        panel = cls(members, plan.samples, batches)
        panel._owned = list(owned.values())
        return panel

    async def aclose(self) -> None:
        """Close the providers this panel opened itself (lent ones stay open)."""
        await asyncio.gather(*(p.aclose() for p in self._owned), return_exceptions=True)

    def asks(self, checks: Iterable[str] = CHECKS) -> list[Ask]:
        """Every (member, check, sample) question for the given checks."""
        return [(m, check, k) for m in range(len(self.members)) for check in checks for k in range(self.samples)]

    async def prefetch(
        self,
        work: Iterable[tuple[Scenario, str, Sequence[Ask]]],
        progress: Any = None,
        notices: list[str] | None = None,
    ) -> None:
        """With batch judging, answer the first ask of each (scenario, response, questions) of `work` through
        each member's provider batch (the members' batches wait side by side); the answers are stored as
        calls, which `ask` then finds. Without batching, nothing."""
        if not self.batches:
            return
        requests: list[list[BatchRequest]] = [[] for _ in self.members]
        for scenario, response, asks in work:
            for member, check, sample in asks:
                judge = self.members[member]
                messages = judge.messages(check, scenario, response)
                requests[member].append(batch_request(judge.provider, messages, judge.settings, sample))
        waits = (batch.run(todo, progress, notices) for batch, todo in zip(self.batches, requests))
        for outcome in await asyncio.gather(*waits, return_exceptions=True):
            if isinstance(outcome, BaseException):
                raise outcome

    async def ask(self, scenario: Scenario, response: str, asks: Sequence[Ask]) -> dict[Ask, CheckResult]:
        """The given questions, concurrently; each one as `Judge.check` answers it."""
        results = await settled(*(self.members[m].check(check, scenario, response, sample=k) for m, check, k in asks))
        return dict(zip(asks, results))

    async def checks(
        self, scenario: Scenario, response: str, checks: tuple[str, ...] = CHECKS
    ) -> dict[str, CheckResult]:
        """Each check's panel verdict: every judge's samples combined, then the judges' verdicts combined."""
        answers = await self.ask(scenario, response, self.asks(checks))
        out: dict[str, CheckResult] = {}
        for check in checks:
            per_member = [
                combine([answers[(m, check, k)] for k in range(self.samples)], "samples")
                for m in range(len(self.members))
            ]
            out[check] = combine(per_member, "judges")
        return out
