"""Reference answers as a 'model': `baseline/identity` (the story unchanged), `baseline/illustrative`
(the dataset's illustrative rewrite) and `baseline/swapped` (another core example's illustrative
rewrite). They bound the judge from both sides; the judge self-test (`cobe judges check`) uses all three."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cobe.core.errors import InputError
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider
from cobe.models.registry import register

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

KINDS = ("identity", "illustrative", "swapped")


def swap_partners(scenarios: Sequence[Scenario]) -> dict[str, Scenario]:
    """Each scenario's partner for `baseline/swapped`: a scenario of the next core example.

    Core examples with an illustrative answer are ordered by id and taken cyclically, so the
    partner always comes from a different core example; inside it, the scenario at the same
    position (by variation, wrapping round) is taken. Same scenarios, same partners, whatever
    their order.
    """
    return {sid: scenarios[position] for sid, position in partner_positions(scenarios).items()}


def partner_positions(scenarios: Sequence[Scenario]) -> dict[str, int]:
    """The partners of `swap_partners` as positions in `scenarios`, found in one pass that keeps no scenario."""
    by_core: dict[int, list[tuple[int, str, int]]] = defaultdict(list)  # core id → (variation, id, position)
    for position, scenario in enumerate(scenarios):
        if scenario.illustrative_answer and scenario.illustrative_answer.strip():
            by_core[scenario.core_id].append((scenario.variation, scenario.id, position))
    cores = sorted(by_core)
    if len(cores) < 2:
        raise InputError(
            "baseline/swapped needs scenarios from at least two core examples with an illustrative answer; "
            f"got {len(cores)}"
        )
    for rows in by_core.values():
        rows.sort()
    partners: dict[str, int] = {}
    for index, core in enumerate(cores):
        others = by_core[cores[(index + 1) % len(cores)]]
        for rank, (_, sid, _) in enumerate(by_core[core]):
            partners[sid] = others[rank % len(others)][2]
    return partners


class BaselineProvider(Provider):
    """Answers from the scenario itself: zero tokens, zero cost, no network."""

    def __init__(self, spec: str, provider: str, model: str) -> None:
        super().__init__(spec, provider, model)
        # swapped only: the scenarios partners come from, and each scenario id's partner's position in them
        self._pool: Sequence[Scenario] = ()
        self._partners: dict[str, int] | None = None

    def use_scenarios(self, scenarios: Sequence[Scenario]) -> None:
        """Give `baseline/swapped` the scenarios it takes partners from (the others ignore them); a partner is
        read from them when it is asked for, so a spooled dataset stays on disk."""
        if self.model == "swapped":
            self._partners, self._pool = partner_positions(scenarios), scenarios

    def answer(self, scenario: Scenario) -> str:
        """The baseline's answer to a scenario: its story, its illustrative answer or its partner's."""
        if self.model == "identity":
            return scenario.story
        if self.model == "illustrative":
            if not scenario.illustrative_answer:
                raise InputError(f"scenario {scenario.id}: {self.spec} needs a non-empty illustrative answer")
            return scenario.illustrative_answer
        if self._partners is None:
            raise InputError(
                f"{self.spec} answers with another scenario's illustrative rewrite, so it needs the dataset: "
                "use it through a run or `cobe judges check`"
            )
        position = self._partners.get(scenario.id)
        if position is None:
            raise InputError(f"scenario {scenario.id}: {self.spec} has no partner (no illustrative answer?)")
        return self._pool[position].illustrative_answer

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """The baseline's answer (see `answer`), read from `scenario`."""
        if scenario is None:
            raise InputError(f"model spec {self.spec!r}: baselines answer from the scenario, so pass scenario=")
        return ModelOutput(text=self.answer(scenario), finish_reason="stop")

    def max_connections(self) -> int:
        """Nothing to wait on."""
        return 64

    def portable(self) -> bool:
        """Its answers come from the run's other scenarios, which only the driver holds."""
        return False


@register("baseline", judges=False)
def _baseline_factory(spec: str, model: str) -> Provider:
    if model not in KINDS:
        raise InputError(
            f"model spec {spec!r}: unknown baseline; expected baseline/identity, baseline/illustrative "
            "or baseline/swapped"
        )
    return BaselineProvider(spec, "baseline", model)
