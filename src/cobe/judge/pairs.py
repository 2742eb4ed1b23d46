"""Judge (scenario, response) pairs outside a run (curation checks, agreement reports, the reward function):
the judge, or a panel, built like every command's, its calls cached in a store of their own."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.calls.caller import Caller
from cobe.calls.scheduler import Scheduler
from cobe.core.aio import blocking, settled
from cobe.core.results import Verdict
from cobe.judge.checker import CheckResult
from cobe.judge.checks import row_status
from cobe.judge.judge_plan import plan_judges
from cobe.judge.panel import JudgePanel
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS
from cobe.judge.selftest import StageProgress
from cobe.store.store import Store

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario


@dataclass
class JudgedItem:
    """The three checks of one (scenario, response) pair, with what judging it cost."""

    scenario_id: str
    response: str
    checks: dict[str, CheckResult]
    seconds: float = 0.0

    @property
    def verdicts(self) -> dict[str, Verdict | None]:
        """check → T, F or None (unscored)."""
        return {c: r.verdict for c, r in self.checks.items()}

    @property
    def unscored(self) -> dict[str, str]:
        """check → reason, for checks without a verdict."""
        return {c: r.unscored for c, r in self.checks.items() if r.unscored}

    @property
    def status(self) -> str:
        """passed / failed / unscored, by the one pass rule."""
        return row_status(self.verdicts, None)[0]

    @property
    def passed(self) -> bool | None:
        """True only with three T; None when unscored."""
        return row_status(self.verdicts, None)[1]

    @property
    def input_tokens(self) -> int:
        """Judge input tokens over the checks."""
        return sum(r.input_tokens for r in self.checks.values())

    @property
    def output_tokens(self) -> int:
        """Judge output tokens over the checks."""
        return sum(r.output_tokens for r in self.checks.values())

    @property
    def cost_usd(self) -> float:
        """Estimated judge cost over the checks (0 where the price is unknown)."""
        return sum(r.cost_usd or 0.0 for r in self.checks.values())


class JudgedItems(list):
    """A list of JudgedItem with `.totals`: tokens, cost and seconds over all items."""

    totals: dict[str, Any]


async def ajudge_responses(
    items: list[tuple[Scenario, str]],
    judge: str | Sequence[str],
    judge_prompts: str = DEFAULT_JUDGE_PROMPTS,
    *,
    store_path: str | Path = ":memory:",
    concurrency: int | None = None,
    temperature: float | None = None,
    samples: int = 1,
    batch_poll_s: float | None = None,
    progress: StageProgress | None = None,
    **scheduler_options: Any,
) -> JudgedItems:
    """Async form of `judge_responses`."""
    plan, _ = plan_judges(judge, judge_prompts, temperature=temperature, samples=samples, batch_poll_s=batch_poll_s)
    store = Store(store_path)
    caller = Caller(store, Scheduler(concurrency=concurrency, **scheduler_options))
    try:
        panel = JudgePanel.from_plan(plan, caller)
    except BaseException:
        store.close()
        raise
    lanes = max(caller.scheduler.limits(j.provider).concurrency for j in panel.members)
    gate = asyncio.Semaphore(max(4, 2 * lanes))

    async def one(scenario: Scenario, response: str) -> JudgedItem:
        async with gate:  # bounds open tasks, not calls (the scheduler bounds those)
            start = time.perf_counter()
            checks = await panel.checks(scenario, response)
        if progress is not None:
            progress.advance("judge", error=any(r.verdict is None for r in checks.values()))
        return JudgedItem(scenario.id, response, checks, time.perf_counter() - start)

    start = time.perf_counter()
    if progress is not None:
        progress.start("judge", len(items), 0)
    try:
        await panel.prefetch((s, r, panel.asks()) for s, r in items)  # --judge-batch: one provider batch first
        out = JudgedItems(await settled(*(one(s, r) for s, r in items)))
    finally:
        await panel.aclose()
        store.close()
    out.totals = {
        "items": len(out),
        "input_tokens": sum(i.input_tokens for i in out),
        "output_tokens": sum(i.output_tokens for i in out),
        "cost_usd": sum(i.cost_usd for i in out),
        "seconds": time.perf_counter() - start,
        "calls": caller.stats_dict()["judge"],
    }
    return out


judge_responses = blocking(
    ajudge_responses,
    """Judge (scenario, response) pairs with the three checks; calls are cached in `store_path`.

    `judge` is one spec or a panel's (each check: the judges' strict majority), each judge asked `samples`
    times per check (the majority of its samples); with `batch_poll_s` the calls first go through each
    judge's provider batch API; `progress` hears of each pair as it is judged (stage `judge`).
    """,
)
