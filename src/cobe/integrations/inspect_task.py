"""CoBe as an inspect_ai task: `inspect eval cobe/cobe --model … -T judge=… -T data=… -T templates=A,B,C`.

inspect finds this module through the `inspect_ai` entry point that pyproject.toml declares, so
an inspect user runs CoBe without leaving inspect. The dataset comes from cobe's loader, the
prompts from cobe's templates, and the scorer asks the three checks through cobe's judge (its
prompt sets, its re-ask, its cache in a cobe store) and applies cobe's pass rule. Each sample's
score is one dict: `passed`, `connectors`, `preserve`, `change` as 1.0 / 0.0, or NaN where the
verdict is missing (inspect counts NaN as unscored, as cobe does). `cobe export --to inspect`
writes logs of exactly this shape.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer
from inspect_ai.solver import TaskState, generate

from cobe.calls import Caller, Scheduler
from cobe.core.errors import InputError
from cobe.dataset import Scenario, load_dataset
from cobe.integrations.inspect_scores import SCORER_NAME
from cobe.judge import CHECKS, JudgePanel, Verdict, row_status, split_specs
from cobe.judge.judge_plan import JudgePlan, plan_judges
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS
from cobe.models import Message, known_prefixes, parse_spec
from cobe.prompts import judged_text, respondent_messages, select_templates
from cobe.run.config import EvalConfig
from cobe.score.accuracy import mean_and_std
from cobe.score.rule import POOLED_RULE, overlap_of
from cobe.store import Store

TASK_NAME = "cobe"
PASSED = "passed"
#: the respondent settings `cobe eval` uses by default, so both harnesses ask the same question
DEFAULT_TEMPERATURE = EvalConfig.model_fields["temperature"].default
DEFAULT_MAX_TOKENS = EvalConfig.model_fields["max_tokens"].default


def sample_id(scenario_id: str, template: str) -> str:
    """The inspect sample id of one scenario under one template, e.g. `317v3-A`."""
    return f"{scenario_id}-{template}"


def sample_metadata(scenario: Scenario | Mapping[str, Any], template: str, tier: int, phrasing: int) -> dict[str, Any]:
    """What each sample carries: the ids and groupings reports need, and the whole scenario for the judge."""
    doc = scenario.model_dump(mode="json") if isinstance(scenario, Scenario) else dict(scenario)
    return {
        "scenario_id": doc["id"],
        "template": template,
        "tier": tier,
        "phrasing": phrasing,
        "domain": doc.get("domain"),
        "graph_type": doc.get("graph_type"),
        "failure_modes": list(doc.get("failure_modes") or []),
        "tags": list(doc.get("tags") or []),
        "scenario": doc,
    }


def chat_input(messages: list[Message]) -> list[ChatMessage]:
    """cobe's respondent chat as inspect messages."""
    return [
        ChatMessageSystem(content=m.content) if m.role == "system" else ChatMessageUser(content=m.content)
        for m in messages
    ]


def verdict_score(
    verdicts: Mapping[str, Verdict | None],
    unscored: Mapping[str, str],
    answer: str | None,
    metadata: dict[str, Any],
    overall: bool | None = None,
) -> Score:
    """One response's three verdicts as an inspect Score; `passed` follows cobe's pass rule, or is `overall` where
    the verdicts are a source's one verdict per response with no per-check detail (the CoBe site's)."""
    status, passed = row_status({c: verdicts.get(c) for c in CHECKS}, None)
    if overall is not None and not any(verdicts.get(c) for c in CHECKS):
        status, passed = ("passed" if overall else "failed"), overall
    value: dict[str, str | int | float | bool | None] = {PASSED: math.nan if passed is None else float(passed)}
    for check in CHECKS:
        letter = verdicts.get(check)
        value[check] = math.nan if letter is None else float(letter == "T")
    shown = ", ".join(f"{c} {verdicts.get(c) or '?'}" for c in CHECKS)
    if overall is not None and not any(verdicts.get(c) for c in CHECKS):
        shown = f"one verdict for the whole response, {'T' if overall else 'F'}"
    reasons = "; ".join(f"{c}: {why}" for c, why in unscored.items())
    return Score(
        value=value,
        answer=answer,
        explanation=f"{shown} → {status}" + (f" ({reasons})" if reasons else ""),
        reason="grader_failed" if status == "unscored" else None,
        metadata={**metadata, "status": status, "verdicts": dict(verdicts), "unscored": dict(unscored)},
    )


@metric
def cobe_accuracy() -> Metric:
    """The accuracy in percent: the mean over phrasings (templates) of passes / scored, or the pooled passes /
    scored where the phrasings were asked of different scenarios (cobe.score.rule)."""

    def compute(scores: list[SampleScore]) -> float:
        return per_phrasing_summary(scores)[0]

    return compute


@metric
def phrasing_std() -> Metric:
    """Sample standard deviation (ddof = 1) of the per-phrasing accuracies, in percent; NaN where the accuracy is
    pooled (its phrasings were asked of different scenarios, so their spread is not the paper's)."""

    def compute(scores: list[SampleScore]) -> float:
        return per_phrasing_summary(scores)[1]

    return compute


def per_phrasing_summary(scores: list[SampleScore]) -> tuple[float, float]:
    """(accuracy, std) of the scored samples by cobe's rule: the mean over templates of 100·passes/scored ± their
    std, or the pooled 100·passes/scored and NaN; inspect hands over scored samples only."""
    by_template: dict[str, list[float]] = {}
    asked: dict[Any, dict[str, set[str]]] = {}  # tier → template → scenarios: which rule applies
    for item in scores:
        meta = item.sample_metadata or {}
        template = str(meta.get("template", "?"))
        by_template.setdefault(template, []).append(item.score.as_float())
        asked.setdefault(meta.get("tier"), {}).setdefault(template, set()).add(str(meta.get("scenario_id")))
    if overlap_of([list(tier.values()) for tier in asked.values()])[2] == POOLED_RULE:
        values = [value for group in by_template.values() for value in group]
        return 100.0 * sum(values) / len(values), math.nan
    pct = [100.0 * sum(values) / len(values) for _, values in sorted(by_template.items())]
    return mean_and_std(pct)


class _LazyJudge:
    """cobe's judge (one, or a panel), built on first use inside inspect's event loop (its scheduler belongs to
    that loop) by the constructor every cobe command uses."""

    def __init__(self, plan: JudgePlan, store: str | None) -> None:
        self.plan = plan
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if store:
            self.store_path = Path(store)
        else:  # the cache lives for this process only, in a folder removed at exit
            self._tmp = tempfile.TemporaryDirectory(prefix="cobe-inspect-judge-")
            self.store_path = Path(self._tmp.name) / "judge.sqlite"
        self._panel: JudgePanel | None = None

    def get(self) -> JudgePanel:
        """The judge, created once."""
        if self._panel is None:
            self._panel = JudgePanel.from_plan(self.plan, Caller(Store(self.store_path), Scheduler()))
        return self._panel


@scorer(
    metrics={
        PASSED: [cobe_accuracy(), phrasing_std()],
        "connectors": [mean()],
        "preserve": [mean()],
        "change": [mean()],
    },
    name=SCORER_NAME,
)
def cobe_judge(
    judge: str | list[str],
    judge_prompts: str | None = None,
    judge_store: str | None = None,
    judge_temperature: float | None = None,
    judge_samples: int = 1,
) -> Scorer:
    """Judge each response with cobe's three checks; calls are cached in `judge_store` (a cobe store file).

    `judge` is one spec or a panel's (a list, or comma-separated: each check is the judges' strict
    majority), each judge asked `judge_samples` times per check."""
    plan, _ = plan_judges(
        judge, judge_prompts or DEFAULT_JUDGE_PROMPTS, temperature=judge_temperature, samples=int(judge_samples)
    )
    lazy = _LazyJudge(plan, judge_store)
    ref = plan.ref
    identity = {"judge": ref.spec, "judge_prompts": ref.prompt_set, "judge_fingerprint": ref.identity}

    async def score(state: TaskState, target: Target) -> Score:
        scenario = Scenario.model_validate(state.metadata["scenario"])
        template = select_templates([state.metadata["template"]])[0]
        # inspect says "max_tokens" where cobe's providers say "length": a cut-off reply is never judged
        finish = "length" if state.output.stop_reason == "max_tokens" else state.output.stop_reason
        judged = judged_text(template, state.output.completion, finish)
        if judged.text is None:
            reason = judged.reason or "not judged"
            return verdict_score(dict.fromkeys(CHECKS), dict.fromkeys(CHECKS, reason), None, identity)
        shown = judged.text
        results = await lazy.get().checks(scenario, shown)
        return verdict_score(
            {c: r.verdict for c, r in results.items()},
            {c: r.unscored for c, r in results.items() if r.unscored},
            shown,
            identity | {"judge_raw": {c: r.raw for c, r in results.items()}},
        )

    return score


def _names(templates: str | list[str] | None) -> list[str] | None:
    if templates is None:
        return None
    items = templates.split(",") if isinstance(templates, str) else [str(t) for t in templates]
    return [t.strip() for t in items if t.strip()] or None


@task(name=TASK_NAME)
def cobe(
    data: str = "builtin:starter",
    templates: str | list[str] | None = None,
    tier: int | None = None,
    limit: int | None = None,
    judge: str | list[str] | None = None,
    judge_prompts: str | None = None,
    judge_store: str | None = None,
    judge_temperature: float | None = None,
    judge_samples: int = 1,
) -> Task:
    """CoBe: rewrite a story had something else happened; judged by three checks, passed only with three T.

    `judge` is one spec or a panel's (comma-separated), each judge asked `judge_samples` times per check."""
    if not judge:
        raise InputError("the cobe task needs a judge: add -T judge=SPEC, e.g. -T judge=openai/gpt-5.4")
    for spec in split_specs([judge] if isinstance(judge, str) else judge):
        if parse_spec(spec)[0] not in known_prefixes():  # fail now, not once per sample when scoring starts
            raise InputError(f"-T judge={spec}: unknown provider; known: {', '.join(known_prefixes())}")
    scenarios = load_dataset(data).scenarios
    if limit is not None:
        scenarios = scenarios[: int(limit)]
    chosen = select_templates(_names(templates), tier)
    samples = []
    for scenario in scenarios:
        for template in chosen:
            messages = respondent_messages(scenario, template)
            if messages is None:  # tiers 2-4 need fields this scenario lacks, as in `cobe eval`
                continue
            samples.append(
                Sample(
                    id=sample_id(scenario.id, template.name),
                    input=chat_input(messages),
                    target="",
                    metadata=sample_metadata(scenario, template.name, template.tier, template.phrasing),
                )
            )
    if not samples:
        raise InputError(f"{data}: no scenario can fill the chosen templates")
    return Task(
        dataset=MemoryDataset(samples, name=data),
        solver=generate(),
        scorer=cobe_judge(judge, judge_prompts, judge_store, judge_temperature, judge_samples),
        config=GenerateConfig(temperature=DEFAULT_TEMPERATURE, max_tokens=DEFAULT_MAX_TOKENS),
        metadata={"benchmark": "CoBe", "data": data, "templates": [t.name for t in chosen]},
    )
