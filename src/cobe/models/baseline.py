"""Reference answers as a 'model': `baseline/identity` (the story unchanged), `baseline/illustrative`
(the dataset's illustrative rewrite) and `baseline/swapped` (another core example's illustrative
rewrite). They bound the judge from both sides in a run; the judge self-test and audit ask the judge about
the same three answers (`cobe.judge.audit_probes`), built from the scenario without a provider."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cobe.core.errors import InputError
from cobe.dataset.partners import partner_positions, swap_partners
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider
from cobe.models.registry import register

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

KINDS = ("identity", "illustrative", "swapped")
__all__ = ["KINDS", "BaselineProvider", "partner_positions", "swap_partners"]


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
