"""The run plan: what one command will do, resolved once from its config (or from a stored run).

`evaluate`, `generate`, `judge_run` and `--dry-run` all start from a `RunPlan`: the scenarios and
templates, the work items with the messages each sends, the providers, the respondent settings,
the judge with its settings, the run directory and the configuration as the store records it.
Building a plan calls no model and writes nothing a user sees: its scenarios wait, one JSON document
each, in an unnamed temporary file (`ScenarioSpool`), so a plan's memory does not grow with the dataset.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.calls.cost import load_prices
from cobe.calls.executor import parse_executor
from cobe.calls.keys import settings_dict
from cobe.calls.preflight import Probe, distinct, needs_preflight
from cobe.core.errors import InputError
from cobe.dataset.spool import ScenarioSpool
from cobe.judge.judge_plan import JudgePlan, plan_judges
from cobe.judge.panel import self_preference_notices
from cobe.models.base import GenerateConfig, Provider
from cobe.models.capabilities import ModelCapabilities
from cobe.models.fitting import effective_settings
from cobe.models.model_args import ModelArgs
from cobe.models.registry import get_provider
from cobe.prompts.render import select_templates
from cobe.prompts.templates import Template
from cobe.run.config import EMBEDDED_MODEL, SMOKE_NOTICE, EvalConfig
from cobe.run.items import Coverage, Item, build_items, stored_items
from cobe.run.judged_part import JudgedPart, part_of
from cobe.run.respondents import command_model_args, reasoning_notice, recorded_respondents, respondent_settings
from cobe.run.rundir import data_fingerprint, default_run_dir
from cobe.run.settings_table import imported_settings
from cobe.store.damage import run_config

if TYPE_CHECKING:
    from cobe.store.rows import RunRow
    from cobe.store.store import Store

__all__ = ["Coverage", "Item", "RunPlan", "build_items", "plan_exports", "plan_rejudge", "plan_run"]


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
    respondents: dict[str, GenerateConfig]  # each respondent model's call settings; empty: judge only
    judge: JudgePlan | None  # None: generate only; one judge or a panel
    stored_config: dict[str, Any]  # the configuration as the store records it
    notices: list[str]
    run_id: str | None = None  # the stored run a re-judge works on; eval and generate open theirs
    unphrased: dict[str, list[str]] = field(default_factory=dict)  # tier 2-4 template → ids it cannot phrase
    epochs: int = 1  # answers per model, scenario and template
    # a re-judge: each respondent's settings as the stored run asked them, with what it accepts, for "settings"
    recorded: dict[str, tuple[ModelCapabilities, GenerateConfig]] = field(default_factory=dict)
    # a command that shows a stored verdict set (`--show`): each of its judges as the store says it was asked
    recorded_judges: dict[str, tuple[ModelCapabilities, GenerateConfig]] = field(default_factory=dict)
    # a re-judge of a part (`cobe judge RUN --ids … --sample … --limit … --model …`): the part, and the run's
    # every item, which its exports show (the items outside the part pending under this judge)
    part: JudgedPart | None = None
    all_items: list[Item] | None = None

    @property
    def exported(self) -> list[Item]:
        """The items the run's exports show: every item of the run, whatever part this command works on."""
        return self.all_items if self.all_items is not None else self.items

    @property
    def respondent(self) -> GenerateConfig | None:
        """The first respondent's call settings (every model's: `respondents`); None for a judge-only plan."""
        return next(iter(self.respondents.values()), None)

    def settings_block(self) -> dict[str, Any]:
        """What each model is asked with, as sent (summary.json's and the reports' "settings"): per respondent and
        per judge, its API, token limit, sampling settings, how it thinks, and what its row refuses."""
        block: dict[str, Any] = {}
        asked = {spec: (self.providers[spec].capabilities, settings) for spec, settings in self.respondents.items()}
        imported = self.stored_config.get("imported_from")
        if not asked and isinstance(imported, dict):  # a source's responses: only what the source said of them
            said = imported.get("settings")
            found: dict[str, Any] = said if isinstance(said, dict) else {}
            block["respondents"] = {spec: imported_settings(found) for spec in self.stored_config.get("models", [])}
        elif asked or self.recorded:
            block["respondents"] = {
                spec: effective_settings(caps, settings) for spec, (caps, settings) in (asked or self.recorded).items()
            }
        if self.judge is not None:
            block["judges"] = {
                m.spec: effective_settings(self.providers[m.spec].capabilities, m.settings) for m in self.judge.members
            }
        elif self.recorded_judges:
            block["judges"] = {
                spec: effective_settings(caps, cfg) for spec, (caps, cfg) in self.recorded_judges.items()
            }
        return block

    def scenario_json(self) -> Iterator[str]:
        """Each scenario as the store keeps it (and the data fingerprint hashes), read as it goes."""
        return self.scenarios.docs()

    @property
    def data_fingerprint(self) -> str:
        """The hash of the scenarios this plan evaluates."""
        return str(self.stored_config["data_fingerprint"])

    def probes(self) -> list[Probe]:
        """The preflight's calls: each distinct (API model, settings) this plan sends, respondents and judges."""
        wanted = [Probe(self.providers[spec], settings, "respondent") for spec, settings in self.respondents.items()]
        if self.judge is not None:
            wanted += [Probe(self.providers[m.spec], m.settings, "judge") for m in self.judge.members]
        return [probe for probe in distinct(wanted) if needs_preflight(probe.provider)]

    def summary_fields(self) -> dict[str, Any]:
        """What summary.json says about the plan: data, templates, skipped counts, respondent settings."""
        fields: dict[str, Any] = {
            "data": self.stored_config["data"],
            "templates": [t.name for t in self.templates],
            "skipped": self.skipped,
        }
        if self.unphrased:  # only when some were, so the summaries of other runs read as before
            fields["unphrased"] = self.unphrased
        if self.epochs > 1:  # likewise: a run of one epoch reads as before epochs existed
            fields["epochs"] = self.epochs
        if self.respondent is not None:
            later = {"thinking_budget"} if self.respondent.thinking_budget is None else set()  # as summaries had it
            fields["respondent_settings"] = self.respondent.model_dump(mode="json", exclude=later)
        fields["settings"] = self.settings_block()
        return fields


def load_scenarios(config: EvalConfig) -> tuple[ScenarioSpool, int]:
    """The scenarios of `config.data`: those `config.ids` names (all by default), `config.sample` of them drawn
    with `config.seed`, then cut to `config.limit`; and how many the data holds.

    They are spooled to disk as they are read, so the plan of a large dataset holds none of them parsed.
    """
    from cobe.dataset.loaders import spool_dataset  # the loader pulls in every file shape; only when needed
    from cobe.dataset.sample import id_positions, sample_positions

    spool = spool_dataset(config.data)
    available = len(spool)
    positions: range | list[int] = range(available)
    try:
        if config.ids:
            positions = id_positions(spool.ids, config.ids, config.data)
        if config.sample:
            keys = [spool.keys[p] for p in positions]
            positions = [positions[i] for i in sample_positions(keys, config.sample, config.seed)]
    except BaseException:
        spool.close()
        raise
    if config.limit:
        positions = positions[: config.limit]
    if positions == range(available):  # every scenario in file order: the spool as read
        return spool, available
    chosen = spool.subset(positions)
    spool.close()
    return chosen, available


def fit_sample(config: EvalConfig, available: int) -> tuple[EvalConfig, list[str]]:
    """A --sample larger than the data takes all of it: the config then names the number taken (so does the
    default run directory, `sample-<taken>-seed-<seed>`), and a notice says so."""
    if config.sample is None or config.sample <= available:
        return config, []
    notice = (
        f"--sample {config.sample}: {config.data} holds only {available} scenarios, so all {available} are "
        f"evaluated (recorded as --sample {available})"
    )
    return config.model_copy(update={"sample": available}), [notice]


def _providers(specs: list[str], models: ModelArgs, config: EvalConfig) -> dict[str, Provider]:
    """One provider per distinct spec, so a model judging itself shares one connection pool and lane; each asks
    as its capability row (with the command's models file and model arguments) says; under the Ray executor
    each as the driver holds it (a vLLM engine then loads on the cluster only)."""
    remote = parse_executor(config.executor).remote
    out: dict[str, Provider] = {}
    for spec in specs:
        if spec not in out:
            out[spec] = get_provider(spec, models.capabilities(spec), remote=remote)
    return out


def _check_prices(config: EvalConfig, specs: list[str]) -> None:
    """With --max-cost every spec needs a price, or the budget would be a guess."""
    if config.max_cost is None:
        return
    table = load_prices(config.prices)
    unknown = [s for s in specs if table.price(s) is None]
    if unknown:
        raise InputError(f"--max-cost: no price known for {', '.join(unknown)}; add it to a --prices FILE")


def _judge(
    config: EvalConfig, models: list[str], show: bool = True, args: ModelArgs | None = None
) -> tuple[JudgePlan, list[str]]:
    """The judging plan of a config (one judge or a panel) and its notices: a temperature chosen for
    --judge-samples, and every judge that grades a respondent of its own kind."""
    plan, notices = plan_judges(
        config.judge_specs,
        config.judge_prompts,
        temperature=config.judge_temperature,
        samples=config.judge_samples,
        keep_temperature=config.judge_repeats,
        batch_poll_s=config.batch_poll if config.judge_batch else None,
        show=show,
        models=args or command_model_args(config, [*models, *config.judge_specs]),
    )
    return plan, notices + self_preference_notices(config.judge_specs, models)


def _notices(specs: list[str]) -> list[str]:
    return [SMOKE_NOTICE] if EMBEDDED_MODEL in specs else []


def epochs_notice(config: EvalConfig, models: ModelArgs) -> list[str]:
    """--epochs K asks each item K times: at temperature 0 that is one answer K times, so it is refused;
    with no temperature sent (the provider's default) it is said. Each respondent's own temperature counts,
    its -M SPEC:temperature=T in place of --temperature."""
    if config.epochs == 1:
        return []
    k = config.epochs
    temperatures = {
        spec: respondent_settings(config, models.capabilities(spec), models).temperature for spec in config.models
    }
    at_zero = [spec for spec, temperature in temperatures.items() if temperature == 0]
    given = [spec for spec in at_zero if models.sets(spec, "temperature")]
    if given:
        raise InputError(
            f"--epochs {k} asks {given[0]} {k} times per item, which at its temperature 0 (-M {given[0]}:temperature=0) "
            f"gives one answer again and again; choose a temperature above 0 (e.g. -M {given[0]}:temperature=0.7)"
        )
    if at_zero:
        who = "each model" if len(at_zero) == len(config.models) else ", ".join(at_zero)
        raise InputError(
            f"--epochs {k} asks {who} {k} times per item, which at --temperature 0 "
            "gives one answer again and again; choose a temperature above 0 (e.g. --temperature 0.7)"
        )
    unset = [spec for spec, temperature in temperatures.items() if temperature is None]
    if not unset:
        return []
    to = "" if len(unset) == len(config.models) else f" to {', '.join(unset)}"
    return [f"--epochs {k}: no temperature is sent{to}; each provider samples at its own default"]


def plan_run(config: EvalConfig, command: str = "eval", *, with_judge: bool = True) -> RunPlan:
    """The plan of `eval` (or of `generate` with `with_judge=False`) from its config."""
    if not config.models:
        raise InputError("no model given; pass --model SPEC (repeatable), e.g. --model openai/gpt-5.4")
    if with_judge and not config.judge:
        raise InputError("no judge given; pass --judge SPEC, or use `cobe generate` to generate only")
    specs = [*config.models, *(config.judge_specs if with_judge else [])]
    models = command_model_args(config, specs)
    epoch_notices = epochs_notice(config, models)
    judge, judge_notices = _judge(config, config.models, args=models) if with_judge else (None, [])
    scenarios, available = load_scenarios(config)
    if not scenarios:
        raise InputError(f"{config.data}: no scenarios to evaluate")
    config, sample_notices = fit_sample(config, available)
    templates = select_templates(config.templates, config.tier)
    _check_prices(config, specs)
    providers = _providers(specs, models, config)
    for provider in providers.values():  # baseline/swapped takes its partners from the run's scenarios
        provider.use_scenarios(scenarios)
    completion = {model for model in config.models if not providers[model].chat_template}
    items, cover = build_items(config.models, scenarios, templates, completion, config.epochs)
    if not items:
        raise InputError("no scenario has a query in the chosen phrasings, or can be phrased by the chosen templates")
    respondents = {spec: respondent_settings(config, providers[spec].capabilities, models) for spec in config.models}
    for spec, settings in respondents.items():
        providers[spec].check_config(settings)
    for member in judge.members if judge else ():
        providers[member.spec].check_config(member.settings)
    stored = config.stored() | {
        "data_fingerprint": data_fingerprint(scenarios.docs()),
        "template_names": [t.name for t in templates],
        "model_settings": {spec: settings_dict(settings) for spec, settings in respondents.items()},
    }
    notices = (
        _notices(specs)
        + sample_notices
        + cover.notices(len(scenarios))
        + reasoning_notice(providers, config.models, respondents)
        + epoch_notices
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
        respondents=respondents,
        judge=judge,
        stored_config=stored,
        notices=notices,
        epochs=config.epochs,
    )


def _stored_run(store: Store, run_dir: Path) -> RunRow:
    row = store.latest_run()
    if row is None:
        raise InputError(f"{run_dir}: the store holds no run")
    return row


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
    row = _stored_run(store, run_dir)
    stored = run_config(store.path, row)
    options = dict(options)
    part = part_of(options)
    config = EvalConfig(
        **{k: v for k, v in options.items() if v is not None},
        judge=judge,
        judge_prompts=judge_prompts,
        models=stored["models"],
        data=stored["data"],
    )
    models = command_model_args(config, config.judge_specs)
    judging, judge_notices = _judge(config, stored["models"], show, models)
    _check_prices(config, config.judge_specs)
    providers = _providers(config.judge_specs, models, config)
    for member in judging.members:
        providers[member.spec].check_config(member.settings)
    plan = _stored_plan(store, run_dir, row, config, judging, providers, models)
    plan.notices += judge_notices
    if not part.whole:
        chosen = part.select(plan.items, str(run_dir))
        if not chosen:
            raise InputError(f"{run_dir}: {part.described()} chooses no item of the run; nothing to judge")
        plan.part, plan.all_items, plan.items = part, plan.items, chosen
        plan.notices.append(
            f"judging a part of the run ({part.described()}): {len(chosen)} of {len(plan.all_items)} items; "
            "the rest stay pending under this judge, and its verdict set records the part"
        )
    return plan


def plan_exports(store: Store, run_dir: Path) -> RunPlan:
    """The plan of a command that only rewrites a stored run's exports (`cobe judge RUN --show`): its items,
    and neither a judge nor a provider."""
    row = _stored_run(store, run_dir)
    stored = run_config(store.path, row)
    config = EvalConfig(models=stored["models"], data=stored["data"])
    return _stored_plan(store, run_dir, row, config, None, {}, ModelArgs())


def _stored_plan(
    store: Store,
    run_dir: Path,
    row: RunRow,
    config: EvalConfig,
    judging: JudgePlan | None,
    providers: dict[str, Provider],
    args: ModelArgs,
) -> RunPlan:
    stored = stored_items(store, row)
    models = stored.config["models"]
    return RunPlan(
        command="judge",
        config=config,
        run_dir=run_dir,
        scenarios=stored.scenarios,
        templates=stored.templates,
        items=stored.items,
        skipped=stored.cover.skipped,
        unphrased=stored.cover.unphrased,
        providers=providers,
        respondents={},
        judge=judging,
        stored_config=stored.config,
        notices=_notices([*models, *config.judge_specs]) + stored.cover.notices(len(stored.scenarios), wordings=False),
        run_id=row.id,
        epochs=stored.epochs,
        recorded=recorded_respondents(stored.config, args),
    )
