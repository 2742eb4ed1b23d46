"""CoBe as a training signal: a reward function in the form TRL's GRPO trainer calls, and its prompts.

    reward = CobeReward(judge="openai/gpt-5.4", data="builtin:starter", store="reward.sqlite")
    trainer = GRPOTrainer(model=..., reward_funcs=reward, train_dataset=Dataset.from_list(grpo_rows(...)))

The trainer calls `reward(prompts=..., completions=..., **columns)` with every other column of
the batch as a keyword list; the `scenario_id` (and `template`) columns name what each completion
answers. Each completion is judged by the three checks through cobe's judge (one, or a panel's
majority, each judge asked `judge_samples` times), built as every cobe command builds it: every call goes
through a cobe store (cached, so a repeated completion costs nothing; committed as it finishes,
so a crashed step resumes), and tokens and cost add up in `reward.totals`. The reward is 1.0
when all three checks say T and 0.0 otherwise; with `partial=True`, the share of checks that
say T. An unscored completion gets None, which TRL reads as "no reward", never a pass or a fail.
TRL itself is not needed to build or call it.

A judge call that fails after its retries (a server error, a timeout) leaves its completion None
too, but never silently: each one is counted in `reward.totals["judge_errors"]` and logged as a
warning (logger `cobe.reward`); when no completion of a batch got a verdict because every judged
one hit such an error, the call raises RunIncomplete instead, since a trainer skipping every
reward would learn nothing while looking healthy. A refused key raises AuthenticationFailed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError, RunIncomplete
from cobe.dataset import Dataset, Scenario, load_dataset
from cobe.judge import CHECKS
from cobe.judge.pairs import JudgedItem, judge_responses
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS
from cobe.prompts import judged_text, respondent_messages, select_templates

DEFAULT_STORE = "cobe-reward.sqlite"
logger = logging.getLogger("cobe.reward")


def grpo_rows(
    data: str | Path = "builtin:starter", templates: Sequence[str] | None = None, tier: int | None = None
) -> list[dict[str, Any]]:
    """Training rows for GRPO: a conversational `prompt` and the `scenario_id` and `template` the reward reads."""
    rows = []
    for scenario in load_dataset(data):
        for template in select_templates(templates, tier):
            messages = respondent_messages(scenario, template)
            if messages is not None:
                rows.append(
                    {
                        "prompt": [{"role": m.role, "content": m.content} for m in messages],
                        "scenario_id": scenario.id,
                        "template": template.name,
                    }
                )
    return rows


def completion_text(completion: Any) -> str:
    """A completion in either TRL format: a string, or a list of messages whose last one is the answer.

    A lone surrogate (half of a character a tokenizer split) becomes U+FFFD: it cannot be written as UTF-8,
    so it would fail the judge's request and its store row.
    """
    if isinstance(completion, str):
        text = completion
    elif isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        text = str(completion[-1].get("content") or "")
    else:
        raise InputError(f"completion: expected a string or a list of messages, got {type(completion).__name__}")
    # utf-16 with surrogatepass joins a pair split into two code points and leaves a lone half to "replace"
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class CobeReward:
    """A GRPO reward function: one float (or None when unscored) per completion, by CoBe's three checks."""

    def __init__(
        self,
        judge: str | Sequence[str],
        data: str | Path | Dataset = "builtin:starter",
        *,
        judge_prompts: str | None = None,
        store: str | Path = DEFAULT_STORE,
        partial: bool = False,
        concurrency: int | None = None,
        judge_temperature: float | None = None,
        judge_samples: int = 1,
    ) -> None:
        self.judge, self.judge_prompts, self.partial = judge, judge_prompts, partial
        self.judge_temperature, self.judge_samples = judge_temperature, judge_samples
        self.store, self.concurrency = Path(store), concurrency
        self.scenarios: dict[str, Scenario] = dict((data if isinstance(data, Dataset) else load_dataset(data)).by_id)
        self.totals: dict[str, float] = {
            "completions": 0,
            "calls_made": 0,
            "calls_cached": 0,
            "input_tokens": 0,
            "output_tokens": 0,
            "cost_usd": 0.0,
            "judge_errors": 0,  # completions left None because a judge call failed after its retries
        }
        # TRL names a reward function's log columns after its __name__
        self.__name__ = "cobe_partial" if partial else "cobe"

    def __call__(
        self,
        completions: Sequence[Any],
        prompts: Sequence[Any] | None = None,
        scenario_id: Sequence[str] | None = None,
        template: Sequence[str] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        """Judge each completion against the scenario its row names; the batch's other columns are ignored."""
        if scenario_id is None:
            raise InputError("the batch has no scenario_id column; build the training rows with grpo_rows()")
        for column, values in (("scenario_id", scenario_id), ("template", template)):
            if values is not None and len(values) != len(completions):  # one reward per completion, or none
                raise InputError(
                    f"{column}: {len(values)} values for {len(completions)} completions; expected one each"
                )
        names = list(template) if template is not None else [None] * len(completions)
        shown = [self._shown(name, completion_text(c)) for name, c in zip(names, completions)]
        # a reply with no text to judge would score None without a judge call (no finish reason reaches a
        # reward, so none is cut off here; a marker-less H2 reply is judged whole)
        items = [(self._scenario(sid), text) for sid, text in zip(scenario_id, shown) if text is not None]
        totals: dict[str, Any] = {}
        judged: Iterator[JudgedItem] = iter(())
        if items:
            results = _off_loop(self._judge, items)
            totals, judged = results.totals, iter(results)
        self._count(len(completions), totals)
        errors_before = self.totals["judge_errors"]
        rewards = [None if text is None else self._scored(next(judged)) for text in shown]
        failed = self.totals["judge_errors"] - errors_before
        if items and failed == len(items) and all(r is None for r in rewards):
            raise RunIncomplete(
                f"every judge call of this batch failed ({len(items)} completions judged by {self.judge}); its "
                "rewards would all be None, which a trainer skips: check the judge (the warnings above say why)"
            )
        return rewards

    def _scored(self, item: JudgedItem) -> float | None:
        """`reward(item)`, counting and logging a judge call that failed (its reward is None)."""
        failed = [r.error for r in item.checks.values() if r.error is not None]
        if failed:
            self.totals["judge_errors"] += 1
            logger.warning("cobe reward: a judge call failed for scenario %s (%s)", item.scenario_id, failed[0])
        return self.reward(item)

    def reward(self, item: JudgedItem) -> float | None:
        """1.0 / 0.0 by the pass rule (or the share of T with `partial`); None when unscored."""
        if not self.partial:
            return None if item.passed is None else float(item.passed)
        letters = [item.verdicts.get(c) for c in CHECKS]
        if any(v is None for v in letters):
            return None
        return sum(v == "T" for v in letters) / len(CHECKS)

    def _judge(self, items: list[tuple[Scenario, str]]) -> Any:
        prompts = self.judge_prompts or DEFAULT_JUDGE_PROMPTS
        return judge_responses(
            items,
            self.judge,
            prompts,
            store_path=self.store,
            concurrency=self.concurrency,
            temperature=self.judge_temperature,
            samples=self.judge_samples,
        )

    def _scenario(self, sid: str) -> Scenario:
        try:
            return self.scenarios[sid]
        except KeyError:
            raise InputError(f"scenario_id: {sid!r} is not in the reward's dataset") from None

    @staticmethod
    def _shown(template: str | None, text: str) -> str | None:
        # as in `cobe eval`: a template that asks for reasoning first is judged on the story after its
        # marker, and a reply without the marker is judged whole
        return judged_text(select_templates([template])[0], text).text if template else text

    def _count(self, completions: int, totals: dict[str, Any]) -> None:
        # what this batch spent: calls answered from the store cost nothing again
        calls = totals.get("calls") or {}
        self.totals["completions"] += completions
        for name in ("calls_made", "calls_cached", "input_tokens", "output_tokens", "cost_usd"):
            self.totals[name] += calls.get(name, 0)


def _off_loop(function: Any, *args: Any) -> Any:
    """Call a function that runs its own event loop, from a thread that may already be running one (notebooks)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return function(*args)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args).result()
