"""What calls not yet made would cost, estimated before they are sent (`--dry-run` of a run and of a judge audit).

Input tokens are estimated from the messages' text; a judge call's output is its letter, plus a level's full
thinking budget where the judge thinks (its limit is room to think, not what it spends); a marked constant
head is priced at the prompt-cache rate once an earlier call has written it.
"""

from __future__ import annotations

from cobe.calls.cost import Price, PriceTable, estimate_tokens
from cobe.models.base import GenerateConfig, Message
from cobe.models.capabilities import ModelCapabilities
from cobe.models.reasoning import THINKING_BUDGET

#: the output tokens of a judge's answer, its one letter with room to spare
VERDICT_TOKENS = 5


def verdict_tokens(caps: ModelCapabilities, settings: GenerateConfig) -> int:
    """Output tokens of one judge call: its letter, plus a level's full thinking budget where the judge thinks."""
    tokens = VERDICT_TOKENS
    if caps.thinks(settings.reasoning_effort):
        tokens += THINKING_BUDGET.get(settings.reasoning_effort or caps.provider_default, THINKING_BUDGET["medium"])
    return min(settings.max_tokens or tokens, tokens)


class CallPricer:
    """Adds up the estimated price of calls one by one; a spec without a price is named, never guessed."""

    def __init__(self, prices: PriceTable) -> None:
        self.prices = prices
        self.cost = 0.0
        self.unpriced: set[str] = set()
        self.cached_input_tokens = 0  # estimated input tokens read from a prompt cache
        self.cache_heads: set[tuple[str, str]] = set()  # (spec, constant head) a call has already written

    def add(self, spec: str, messages: list[Message], tokens_out: int, *, batch: bool = False) -> None:
        """Add one call's price: its constant head read from the prompt cache after the first call that wrote
        it (where the head reaches the model's cache_min_tokens), and the batch discount with --judge-batch."""
        price = self.prices.price(spec)
        if price is None:
            self.unpriced.add(spec)
            return
        tokens_in = sum(estimate_tokens(m.content) for m in messages)
        cached, written = self._cache(spec, messages, price)
        self.cached_input_tokens += cached
        self.cost += (price.batch_cost if batch else price.cost)(tokens_in, tokens_out, cached, written)

    def _cache(self, spec: str, messages: list[Message], price: Price) -> tuple[int, int]:
        """(input tokens read from the prompt cache, tokens written to it) of one call, estimated: the system
        text and the marked head, cached once the first call with it has written it. A provider without a
        write price caches that first prefix at no surcharge, so only later calls differ."""
        heads = [m for m in messages if m.cache_prefix]
        if not heads:
            return 0, 0
        head = "".join(m.content for m in messages if m.role == "system") + heads[0].content[: heads[0].cache_prefix]
        tokens = estimate_tokens(head)
        if tokens < price.cache_min_tokens:
            return 0, 0  # below the model's minimum: billed at the full input price
        if (spec, head) in self.cache_heads:
            return tokens, 0
        self.cache_heads.add((spec, head))
        return 0, tokens if price.cache_write is not None else 0

    def total(self) -> float | None:
        """The estimated USD of every call added, rounded; None when any spec had no price."""
        return None if self.unpriced else round(self.cost, 6)
