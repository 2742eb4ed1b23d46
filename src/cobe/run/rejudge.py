"""Re-judging a stored run, with no respondent call: `judge_run` (a new judge, or panel, beside the run's
earlier verdicts) and `judges_diff` (a run's verdicts under two judge prompt sets, compared by
`cobe.judge.prompt_diff`, with what either set lacks judged here first)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cobe.calls.cost import load_prices
from cobe.core.aio import blocking
from cobe.core.progress import Progress
from cobe.judge.prompt_diff import JudgeDiff, compare_prompt_sets
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS
from cobe.run.config import RunSummary
from cobe.run.engine import open_session, set_up_run
from cobe.run.plan import plan_rejudge
from cobe.store.directory import find_store
from cobe.store.store import Store


async def ajudge_run(
    run_dir: str | Path,
    judge: str | Sequence[str],
    judge_prompts: str = DEFAULT_JUDGE_PROMPTS,
    *,
    progress: Progress | None = None,
    show: bool = True,
    **options: Any,
) -> RunSummary:
    """Async form of `judge_run`."""
    run_dir = Path(run_dir)
    path = find_store(run_dir)
    load_prices(options.get("prices"))  # refused before the store is touched
    specs = judge if isinstance(judge, str) else list(judge)
    with set_up_run(run_dir, "judge", options.get("executor"), lambda: (Store(path), [])) as setup:
        plan = plan_rejudge(setup.store, run_dir, specs, judge_prompts, options, show=show)
        return await open_session(plan, setup, progress).run()


async def ajudges_diff(
    run_dir: str | Path,
    prompts: Sequence[str] | str = ("paper", "contextual"),
    judge: str | Sequence[str] | None = None,
    *,
    judge_samples: int | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> JudgeDiff:
    """Async form of `judges_diff`."""

    async def rejudge(specs: list[str], prompt_set: str, samples: int) -> dict[str, Any]:
        # judged beside the run's other verdicts; the run's exports keep showing the judge they showed
        summary = await ajudge_run(
            run_dir, specs, prompt_set, progress=progress, show=False, judge_samples=samples, **options
        )
        return dict(summary.stats.get("judge", {}))

    return await compare_prompt_sets(run_dir, prompts, judge, judge_samples=judge_samples, rejudge=rejudge)


judge_run = blocking(
    ajudge_run,
    """Judge a run's stored responses with `judge`, one spec or a panel's (no respondent call); verdicts sit
    beside earlier judges'. The exports then show this judge, unless `show` is False.""",
)
judges_diff = blocking(
    ajudges_diff,
    """Compare a run's verdicts under two judge prompt sets (per check: compared, flips, pass rates).

    `judge` names the judge (or panel) and lets missing verdicts be judged first; without it the run's
    own judge is compared, and anything missing is reported in one line instead.
    """,
)
