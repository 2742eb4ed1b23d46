"""The run plan: what one command will do, resolved once from its config (or from a stored run).

`evaluate`, `generate`, `judge_run` and `--dry-run` all start from a `RunPlan`: the scenarios and
templates, the work items with the messages each sends, the providers, the respondent settings,
the judge with its settings, the run directory and the configuration as the store records it.
Building a plan calls no model and writes nothing a user sees: its scenarios wait, one JSON document
each, in an unnamed temporary file (`ScenarioSpool`), so a plan's memory does not grow with the dataset.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.calls.cost import load_prices
from cobe.core.errors import InputError
from cobe.dataset.queries import UNMATCHED
from cobe.dataset.schema import Scenario
from cobe.dataset.spool import ScenarioSpool
from cobe.judge.lineup import JudgePlan, plan_judges
from cobe.judge.panel import self_preference_notices
from cobe.models.base import GenerateConfig, Message, Provider
from cobe.models.registry import get_provider
from cobe.prompts.completion import completion_messages
from cobe.prompts.render import respondent_messages, select_templates, wording_kind
from cobe.prompts.templates import Template
from cobe.run.config import EMBEDDED_MODEL, SMOKE_NOTICE, EvalConfig
from cobe.run.executor import parse_executor
from cobe.run.rundir import data_fingerprint, default_run_dir

if TYPE_CHECKING:
    from cobe.store.store import Store


@dataclass(frozen=True, slots=True)
class Item:
    """One unit of work: a model answering one scenario under one template. The scenario is read from the
    plan's spool and the messages built when asked for, so a plan of many items holds no scenario or prompt."""

    model: str
    scenarios: ScenarioSpool
    position: int  # the scenario's index in `scenarios`
    template: Template
    completion: bool = False  # a base model without a chat template: the prompt in the plain completion format

    @property
    def scenario(self) -> Scenario:
        """The scenario this item answers."""
        return self.scenarios[self.position]

    @property
    def scenario_id(self) -> str:
        """The scenario's id, without reading the scenario."""
        return self.scenarios.ids[self.position]

    @property
    def messages(self) -> tuple[Message, ...]:
        """The messages this item sends."""
        chat = respondent_messages(self.scenario, self.template)
        if chat is None:  # the plan keeps only pairs the template fills
            raise ValueError(f"template {self.template.name} cannot fill scenario {self.scenario.id}")
        return tuple(completion_messages(chat)) if self.completion else tuple(chat)

    @property
    def prompt(self) -> str:
        """The last message's text: the prompt as the store and results.jsonl record it."""
        return self.messages[-1].content

    @property
    def response_key(self) -> tuple[str, str, str]:
        """(model, scenario id, template): how the store finds this item's response."""
        return self.model, self.scenario_id, self.template.name


@dataclass
class RunPlan:
    """Everything one command will do, before anything is called."""

    command: str  # eval, generate or judge
    config: EvalConfig
    run_dir: Path
    scenarios: ScenarioSpool  # on disk, read back one at a time
    templates: list[Template]
    items: list[Item]
    skipped: dict[str, int]  # template → scenarios it skips (no query in that phrasing; tiers 2-4: unphrasable)
    providers: dict[str, Provider]  # one per distinct spec, respondents and judge alike
    respondent: GenerateConfig | None  # None: judge only, no respondent call
    judge: JudgePlan | None  # None: generate only; one judge or a panel
    stored_config: dict[str, Any]  # the configuration as the store records it
    notices: list[str]
    run_id: str | None = None  # the stored run a re-judge works on; eval and generate open theirs
    unphrased: dict[str, list[str]] = field(default_factory=dict)  # tier 2-4 template → ids it cannot phrase

    def scenario_json(self) -> Iterator[str]:
        """Each scenario as the store keeps it (and the data fingerprint hashes), read as it goes."""
        return self.scenarios.docs()

    @property
    def data_fingerprint(self) -> str:
        """The hash of the scenarios this plan evaluates."""
        return str(self.stored_config["data_fingerprint"])

    def summary_fields(self) -> dict[str, Any]:
        """What summary.json says about the plan: data, templates, skipped counts, respondent settings."""
        fields: dict[str, Any] = {
            "data": self.stored_config["data"],
            "templates": [t.name for t in self.templates],
            "skipped": self.skipped,
        }
        if self.unphrased:  # only when some were, so the summaries of other runs read as before
            fields["unphrased"] = self.unphrased
        if self.respondent is not None:
            fields["respondent_settings"] = self.respondent.model_dump(mode="json")
        return fields


def load_scenarios(config: EvalConfig) -> ScenarioSpool:
    """The scenarios of `config.data`: `config.sample` of them drawn with `config.seed`, then cut to `config.limit`.

    They are spooled to disk as they are read, so the plan of a large dataset holds none of them parsed.
    """
    from cobe.dataset.loaders import spool_dataset  # the loader pulls in every file shape; only when needed
    from cobe.dataset.sample import sample_positions

    spool = spool_dataset(config.data)
    positions: range | list[int] = range(len(spool))
    if config.sample:
        positions = sample_positions(spool.keys, config.sample, config.seed)
    if config.limit:
        positions = positions[: config.limit]
    if positions == range(len(spool)):  # every scenario in file order: the spool as read
        return spool
    chosen = spool.subset(positions)
    spool.close()
    return chosen


@dataclass
class Coverage:
    """What a plan leaves out or words differently, per template, found in the one pass that builds its items."""

    skipped: dict[str, int] = field(default_factory=dict)  # scenarios each template skips
    unphrased: dict[str, list[str]] = field(default_factory=dict)  # tier 2-4: the ids it cannot phrase
    fallback: dict[str, int] = field(default_factory=dict)  # stated without the original condition
    had_form: dict[str, int] = field(default_factory=dict)  # stated in the "had …" form, all the queries give

    def notices(self, scenarios: int, *, wordings: bool = True, shown: int = 10) -> list[str]:
        """The lines a run prints and report.md shows about skipped pairs (and, with `wordings`, other wordings)."""
        lines = []
        missing = {name: count for name, count in self.skipped.items() if name not in self.unphrased}
        if missing:
            detail = ", ".join(f"{name}: {count}" for name, count in missing.items())
            lines.append(
                f"skipped {sum(missing.values())} scenario × template pairs whose scenario has no query in that "
                f"phrasing: {detail}"
            )
        for name, ids in self.unphrased.items():
            more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
            lines.append(
                f"template {name} skipped {len(ids)} of {scenarios} scenarios from which no intervention could be "
                f"read (no `intervention` field, no query that states the change): {', '.join(ids[:shown])}{more}"
            )
        if not wordings:
            return lines
        lines += _count_notice(
            self.fallback,
            "state the change without the original condition, which those scenarios do not give "
            "(the template's fallback wording)",
        )
        return lines + _count_notice(
            self.had_form, "state the change in its 'had …' form, the only form those scenarios' queries give"
        )


def _count_notice(counts: dict[str, int], what: str) -> list[str]:
    used = {name: count for name, count in counts.items() if count}
    if not used:
        return []
    detail = ", ".join(f"{name}: {count}" for name, count in used.items())
    return [f"{sum(used.values())} scenario × template pairs {what}: {detail}"]


def build_items(
    models: list[str], scenarios: ScenarioSpool, templates: list[Template], completion: Collection[str] = ()
) -> tuple[list[Item], Coverage]:
    """Every model × scenario × template, and the plan's `Coverage`; one pass reads each scenario once.

    A pair that cannot be made never stops the plan: a tier-1 phrasing the scenario has no query in, or a
    tier 2-4 template that cannot be phrased for it (its id is kept), is skipped and counted. Models in
    `completion` (base models without a chat template) get each prompt in the plain completion format.
    """
    chats: list[tuple[int, Template]] = []
    cover = Coverage()
    for position, scenario in enumerate(scenarios):
        for template in templates:
            kind = wording_kind(scenario, template)
            if kind is not None:
                chats.append((position, template))
                counts = {"fallback": cover.fallback, "had": cover.had_form}.get(kind)
                if counts is not None:
                    counts[template.name] = counts.get(template.name, 0) + 1
                continue
            if template.name == UNMATCHED:  # a scenario is not expected to hold a query in no phrasing
                continue
            cover.skipped[template.name] = cover.skipped.get(template.name, 0) + 1
            if template.tier > 1:
                cover.unphrased.setdefault(template.name, []).append(scenario.id)
    items = [
        Item(model, scenarios, position, template, model in completion)
        for model in models
        for position, template in chats
    ]
    return items, cover


def reasoning_notice(providers: dict[str, Provider], models: list[str], respondent: GenerateConfig) -> list[str]:
    """A line naming the respondents that cannot take --reasoning-effort, once per run."""
    if respondent.reasoning_effort is None:
        return []
    without = [spec for spec in models if not providers[spec].reasoning]
    if not without:
        return []
    return [
        f"{', '.join(without)} {'has' if len(without) == 1 else 'have'} no reasoning-effort setting: "
        f"--reasoning-effort {respondent.reasoning_effort} stays in the calls' keys and records but is not sent"
    ]


def _providers(specs: list[str], config: EvalConfig) -> dict[str, Provider]:
    """One provider per distinct spec, so a model judging itself shares one connection pool and lane; under
    the Ray executor each as the driver holds it (a vLLM engine then loads on the cluster only)."""
    remote = parse_executor(config.executor).remote
    out: dict[str, Provider] = {}
    for spec in specs:
        if spec not in out:
            out[spec] = get_provider(spec, remote=remote)
    return out


def _check_prices(config: EvalConfig, specs: list[str]) -> None:
    """With --max-cost every spec needs a price, or the budget would be a guess."""
    if config.max_cost is None:
        return
    table = load_prices(config.prices)
    unknown = [s for s in specs if table.price(s) is None]
    if unknown:
        raise InputError(f"--max-cost: no price known for {', '.join(unknown)}; add it to a --prices FILE")


def _judge(config: EvalConfig, models: list[str], show: bool = True) -> tuple[JudgePlan, list[str]]:
    """The judging plan of a config (one judge or a panel) and its notices: a temperature chosen for
    --judge-samples, and every judge that grades a respondent of its own kind."""
    plan, notices = plan_judges(
        config.judge_specs,
        config.judge_prompts,
        temperature=config.judge_temperature,
        samples=config.judge_samples,
        batch_poll_s=config.batch_poll if config.judge_batch else None,
        show=show,
    )
    return plan, notices + self_preference_notices(config.judge_specs, models)


def _notices(specs: list[str]) -> list[str]:
    return [SMOKE_NOTICE] if EMBEDDED_MODEL in specs else []


def respondent_settings(config: EvalConfig) -> GenerateConfig:
    """The respondent's call settings: temperature, the resolved token limit and the reasoning effort."""
    return GenerateConfig(
        temperature=config.temperature,
        max_tokens=config.respondent_max_tokens,
        reasoning_effort=config.reasoning_effort,
    )


def plan_run(config: EvalConfig, command: str = "eval", *, with_judge: bool = True) -> RunPlan:
    """The plan of `eval` (or of `generate` with `with_judge=False`) from its config."""
    if not config.models:
        raise InputError("no model given; pass --model SPEC (repeatable), e.g. --model openai/gpt-5.4")
    if with_judge and not config.judge:
        raise InputError("no judge given; pass --judge SPEC, or use `cobe generate` to generate only")
    judge, judge_notices = _judge(config, config.models) if with_judge else (None, [])
    scenarios = load_scenarios(config)
    if not scenarios:
        raise InputError(f"{config.data}: no scenarios to evaluate")
    templates = select_templates(config.templates, config.tier)
    specs = [*config.models, *(config.judge_specs if judge else [])]
    _check_prices(config, specs)
    providers = _providers(specs, config)
    for provider in providers.values():  # baseline/swapped takes its partners from the run's scenarios
        provider.use_scenarios(scenarios)
    completion = {model for model in config.models if not providers[model].chat_template}
    items, cover = build_items(config.models, scenarios, templates, completion)
    if not items:
        raise InputError("no scenario has a query in the chosen phrasings, or can be phrased by the chosen templates")
    respondent = respondent_settings(config)
    for spec in config.models:
        providers[spec].check_config(respondent)
    stored = config.stored() | {
        "data_fingerprint": data_fingerprint(scenarios.docs()),
        "template_names": [t.name for t in templates],
    }
    notices = (
        _notices(specs)
        + cover.notices(len(scenarios))
        + reasoning_notice(providers, config.models, respondent)
        + judge_notices
    )
    return RunPlan(
        command=command,
        config=config,
        run_dir=Path(config.run_dir) if config.run_dir else default_run_dir(config),
        scenarios=scenarios,
        templates=templates,
        items=items,
        skipped=cover.skipped,
        unphrased=cover.unphrased,
        providers=providers,
        respondent=respondent,
        judge=judge,
        stored_config=stored,
        notices=notices,
    )


def plan_rejudge(
    store: Store,
    run_dir: Path,
    judge: str | list[str],
    judge_prompts: str,
    options: dict[str, Any],
    *,
    show: bool = True,
) -> RunPlan:
    """The plan of `judge`: the stored run's items, judged by `judge` (one spec or a panel's); `options` are
    EvalConfig fields. With `show=False` the run's exports keep showing the judge they showed."""
    row = store.latest_run()
    if row is None:
        raise InputError(f"{run_dir}: the store holds no run")
    stored = json.loads(row["config"])
    config = EvalConfig(
        **{k: v for k, v in options.items() if v is not None},
        judge=judge,
        judge_prompts=judge_prompts,
        models=stored["models"],
        data=stored["data"],
    )
    judging, judge_notices = _judge(config, stored["models"], show)
    _check_prices(config, config.judge_specs)
    providers = _providers(config.judge_specs, config)
    scenarios = ScenarioSpool()
    for doc in store.scenarios(row["id"]):
        scenarios.append(Scenario.model_validate_json(doc), doc)
    templates = select_templates(stored["template_names"])
    items, cover = build_items(stored["models"], scenarios, templates)
    return RunPlan(
        command="judge",
        config=config,
        run_dir=run_dir,
        scenarios=scenarios,
        templates=templates,
        items=items,
        skipped=cover.skipped,
        unphrased=cover.unphrased,
        providers=providers,
        respondent=None,
        judge=judging,
        stored_config=stored,
        notices=_notices([*stored["models"], *config.judge_specs])
        + cover.notices(len(scenarios), wordings=False)
        + judge_notices,
        run_id=row["id"],
    )
