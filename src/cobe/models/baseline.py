"""Reference answers as a 'model': `baseline/identity` (the story unchanged) and
`baseline/illustrative` (the dataset's illustrative rewrite). They bound the judge from both sides."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cobe.core.errors import InputError
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider
from cobe.models.registry import register

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

KINDS = ("identity", "illustrative")


class BaselineProvider(Provider):
    """Answers from the scenario itself: zero tokens, zero cost, no network."""

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """The story (identity) or the illustrative answer, read from `scenario`."""
        if scenario is None:
            raise InputError(f"model spec {self.spec!r}: baselines answer from the scenario, so pass scenario=")
        text = scenario.story if self.model == "identity" else scenario.illustrative_answer
        if not text:
            raise InputError(f"scenario {scenario.id}: {self.spec} needs a non-empty illustrative answer")
        return ModelOutput(text=text, finish_reason="stop")

    def max_connections(self) -> int:
        """Nothing to wait on."""
        return 64


@register("baseline")
def _baseline_factory(spec: str, model: str) -> Provider:
    if model not in KINDS:
        raise InputError(f"model spec {spec!r}: unknown baseline; expected baseline/identity or baseline/illustrative")
    return BaselineProvider(spec, "baseline", model)
