"""The work items of a run: one model answering one scenario under one template, once per epoch.

`build_items` makes every item of a plan in one pass over its scenarios, with the `Coverage` that says
what it left out; `stored_items` makes them again from a run's store, for a re-judge or a switch of the
verdict set a run shows (no dataset file and no provider needed).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cobe.dataset.queries import UNMATCHED
from cobe.dataset.schema import Scenario
from cobe.dataset.spool import ScenarioSpool
from cobe.models.base import Message
from cobe.prompts.completion import completion_messages
from cobe.prompts.render import respondent_messages, select_templates, wording_kind
from cobe.prompts.templates import Template
from cobe.store.damage import run_config

if TYPE_CHECKING:
    from cobe.store.rows import RunRow
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
    epoch: int = 1  # which of the model's answers to this scenario and template (--epochs), from 1

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
        """(model, scenario id, template): with the epoch, how the store finds this item's response."""
        return self.model, self.scenario_id, self.template.name

    @property
    def work_key(self) -> tuple[str, str, str, int]:
        """(model, scenario id, template, epoch): this item apart from every other of the run."""
        return self.model, self.scenario_id, self.template.name, self.epoch


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
    models: list[str],
    scenarios: ScenarioSpool,
    templates: list[Template],
    completion: Collection[str] = (),
    epochs: int = 1,
) -> tuple[list[Item], Coverage]:
    """Every epoch × model × scenario × template, and the plan's `Coverage`; one pass reads each scenario once.

    A pair that cannot be made never stops the plan: a tier-1 phrasing the scenario has no query in, or a
    tier 2-4 template that cannot be phrased for it (its id is kept), is skipped and counted. Models in
    `completion` (base models without a chat template) get each prompt in the plain completion format.
    Epochs come one after another, so a run stopped early holds whole epochs first.
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
        Item(model, scenarios, position, template, model in completion, epoch)
        for epoch in range(1, epochs + 1)
        for model in models
        for position, template in chats
    ]
    return items, cover


@dataclass
class StoredItems:
    """A stored run's items, made again from its store: configuration, scenarios, templates and coverage."""

    config: dict[str, Any]  # the configuration as the store recorded it
    scenarios: ScenarioSpool
    templates: list[Template]
    items: list[Item]
    cover: Coverage
    epochs: int


def stored_items(store: Store, row: RunRow) -> StoredItems:
    """The items of the stored run `row` (every model, scenario, template and epoch it planned)."""
    stored = run_config(store.path, row)
    scenarios = ScenarioSpool()
    for scenario, doc in store.scenarios(row.id):
        scenarios.append(scenario, doc)
    templates = select_templates(stored["template_names"])
    epochs = int(stored.get("epochs") or 1)  # runs made before --epochs hold one
    items, cover = build_items(stored["models"], scenarios, templates, epochs=epochs)
    return StoredItems(stored, scenarios, templates, items, cover, epochs)
