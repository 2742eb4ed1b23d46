"""The run plan: what one command will do, resolved once from its config (or from a stored run).

`evaluate`, `generate`, `judge_run` and `--dry-run` all start from a `RunPlan`: the scenarios and
templates, the work items with the messages each sends, the providers, the respondent settings,
the judge with its settings, the run directory and the configuration as the store records it.
Building a plan calls no model and writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.core.errors import InputError
from cobe.dataset.schema import Scenario
from cobe.judge.checker import judge_settings
from cobe.judge.prompt_sets import JudgePromptSet, load_judge_prompts
from cobe.models.base import GenerateConfig, Message, Provider
from cobe.models.baseline import bind_scenarios
from cobe.models.registry import get_provider
from cobe.prompts.completion import completion_messages
from cobe.prompts.render import respondent_messages, select_templates
from cobe.prompts.templates import Template
from cobe.run.batch import check_batch_spec
from cobe.run.config import EMBEDDED_MODEL, SMOKE_NOTICE, EvalConfig
from cobe.run.cost import load_prices
from cobe.run.rundir import data_fingerprint, default_run_dir

if TYPE_CHECKING:
    from cobe.run.store import Store


@dataclass(frozen=True)
class Item:
    """One unit of work: a model answering one scenario under one template, with the messages it sends."""

    model: str
    scenario: Scenario
    template: Template
    messages: tuple[Message, ...]

    @property
    def prompt(self) -> str:
        """The last message's text: the prompt as the store and results.jsonl record it."""
        return self.messages[-1].content

    @property
    def response_key(self) -> tuple[str, str, str]:
        """(model, scenario id, template): how the store finds this item's response."""
        return self.model, self.scenario.id, self.template.name


@dataclass(frozen=True)
class JudgeRef:
    """Which judge's verdicts a run shows: its spec and its prompt set's name and fingerprint."""

    spec: str
    prompt_set: str
    fingerprint: str


@dataclass(frozen=True)
class JudgePlan:
    """The judge of a command: spec, prompt set, call settings (--judge-temperature applied) and batching."""

    spec: str
    prompts: JudgePromptSet
    settings: GenerateConfig
    batch_poll_s: float | None  # seconds between batch polls with --judge-batch; None: no batch

    @property
    def ref(self) -> JudgeRef:
        """How the store and the exports name this judge."""
        return JudgeRef(self.spec, self.prompts.name, self.prompts.fingerprint)


@dataclass
class RunPlan:
    """Everything one command will do, before anything is called."""

    command: str  # eval, generate or judge
    config: EvalConfig
    run_dir: Path
    scenarios: list[Scenario]
    scenario_json: list[str]  # each scenario as the store keeps it (and the data fingerprint hashes)
    templates: list[Template]
    items: list[Item]
    skipped: dict[str, int]  # template → scenarios that lack the fields it needs
    providers: dict[str, Provider]  # one per distinct spec, respondents and judge alike
    respondent: GenerateConfig | None  # None: judge only, no respondent call
    judge: JudgePlan | None  # None: generate only
    stored_config: dict[str, Any]  # the configuration as the store records it
    notices: list[str]
    run_id: str | None = None  # the stored run a re-judge works on; eval and generate open theirs

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
        if self.respondent is not None:
            fields["respondent_settings"] = self.respondent.model_dump(mode="json")
        return fields


def load_scenarios(config: EvalConfig) -> list[Scenario]:
    """The scenarios of `config.data`, cut to `config.limit`."""
    from cobe.dataset.loaders import load_dataset  # the loader pulls in every file shape; only when needed

    scenarios = list(load_dataset(config.data).scenarios)
    return scenarios[: config.limit] if config.limit else scenarios


def build_items(
    models: list[str], scenarios: list[Scenario], templates: list[Template], completion: Collection[str] = ()
) -> tuple[list[Item], dict[str, int]]:
    """Every model × scenario × template whose prompt the scenario can fill, and per template the
    number of scenarios skipped because they lack the fields it needs. Models in `completion` (base
    models without a chat template) get each prompt in the plain completion format."""
    chats: list[tuple[Scenario, Template, tuple[Message, ...]]] = []
    skipped: dict[str, int] = {}
    for scenario in scenarios:
        for template in templates:
            messages = respondent_messages(scenario, template)
            if messages is None:  # tiers 2-4 need intervention / original_condition
                skipped[template.name] = skipped.get(template.name, 0) + 1
            else:
                chats.append((scenario, template, tuple(messages)))
    items = [
        Item(model, scenario, template, tuple(completion_messages(messages)) if model in completion else messages)
        for model in models
        for scenario, template, messages in chats
    ]
    return items, skipped


def skip_notice(skipped: dict[str, int]) -> list[str]:
    """A line saying which templates skipped how many scenarios, if any did."""
    if not skipped:
        return []
    detail = ", ".join(f"{name}: {count}" for name, count in skipped.items())
    return [
        f"skipped {sum(skipped.values())} scenario × template pairs whose scenario lacks the fields "
        f"the template needs (intervention, original_condition): {detail}"
    ]


def _providers(specs: list[str]) -> dict[str, Provider]:
    """One provider per distinct spec, so a model judging itself shares one connection pool and lane."""
    out: dict[str, Provider] = {}
    for spec in specs:
        if spec not in out:
            out[spec] = get_provider(spec)
    return out


def _check_prices(config: EvalConfig, specs: list[str]) -> None:
    """With --max-cost every spec needs a price, or the budget would be a guess."""
    if config.max_cost is None:
        return
    table = load_prices(config.prices)
    unknown = [s for s in specs if table.price(s) is None]
    if unknown:
        raise InputError(f"--max-cost: no price known for {', '.join(unknown)}; add it to a --prices FILE")


def _judge(config: EvalConfig, prompts: JudgePromptSet, spec: str) -> JudgePlan:
    settings = judge_settings(prompts, config.judge_temperature)
    return JudgePlan(spec, prompts, settings, config.batch_poll if config.judge_batch else None)


def _notices(specs: list[str], skipped: dict[str, int]) -> list[str]:
    return ([SMOKE_NOTICE] if EMBEDDED_MODEL in specs else []) + skip_notice(skipped)


def plan_run(config: EvalConfig, command: str = "eval", *, with_judge: bool = True) -> RunPlan:
    """The plan of `eval` (or of `generate` with `with_judge=False`) from its config."""
    if not config.models:
        raise InputError("no model given; pass --model SPEC (repeatable), e.g. --model openai/gpt-5.4")
    if with_judge and not config.judge:
        raise InputError("no judge given; pass --judge SPEC, or use `cobe generate` to generate only")
    judge_spec = config.judge if with_judge else None
    if judge_spec and config.judge_batch:
        check_batch_spec(judge_spec)
    scenarios = load_scenarios(config)
    if not scenarios:
        raise InputError(f"{config.data}: no scenarios to evaluate")
    templates = select_templates(config.templates, config.tier)
    prompts = load_judge_prompts(config.judge_prompts) if judge_spec else None
    specs = [*config.models, *([judge_spec] if judge_spec else [])]
    _check_prices(config, specs)
    providers = _providers(specs)
    bind_scenarios(providers.values(), scenarios)
    completion = {model for model in config.models if not providers[model].chat_template}
    items, skipped = build_items(config.models, scenarios, templates, completion)
    if not items:
        raise InputError("no scenario can fill the chosen templates (tiers 2-4 need intervention fields)")
    scenario_json = [s.model_dump_json() for s in scenarios]
    stored = config.stored() | {
        "data_fingerprint": data_fingerprint(scenario_json),
        "template_names": [t.name for t in templates],
    }
    return RunPlan(
        command=command,
        config=config,
        run_dir=Path(config.run_dir) if config.run_dir else default_run_dir(config),
        scenarios=scenarios,
        scenario_json=scenario_json,
        templates=templates,
        items=items,
        skipped=skipped,
        providers=providers,
        respondent=GenerateConfig(temperature=config.temperature, max_tokens=config.max_tokens),
        judge=_judge(config, prompts, judge_spec) if judge_spec and prompts else None,
        stored_config=stored,
        notices=_notices(specs, skipped),
    )


def plan_rejudge(store: Store, run_dir: Path, judge: str, judge_prompts: str, options: dict[str, Any]) -> RunPlan:
    """The plan of `judge`: the stored run's items, judged by `judge`; `options` are EvalConfig fields."""
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
    if config.judge_batch:
        check_batch_spec(judge)
    _check_prices(config, [judge])
    prompts = load_judge_prompts(judge_prompts)
    providers = _providers([judge])
    scenario_json = store.scenarios(row["id"])
    scenarios = [Scenario.model_validate_json(doc) for doc in scenario_json]
    templates = select_templates(stored["template_names"])
    items, skipped = build_items(stored["models"], scenarios, templates)
    return RunPlan(
        command="judge",
        config=config,
        run_dir=run_dir,
        scenarios=scenarios,
        scenario_json=scenario_json,
        templates=templates,
        items=items,
        skipped=skipped,
        providers=providers,
        respondent=None,
        judge=_judge(config, prompts, judge),
        stored_config=stored,
        notices=_notices([*stored["models"], judge], skipped),
        run_id=row["id"],
    )
