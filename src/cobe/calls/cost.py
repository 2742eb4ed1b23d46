"""Prices, token estimates and the --max-cost budget."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from cobe.core.errors import BudgetExceeded, InputError
from cobe.core.jsonfile import read_mapping

BUNDLED_PRICES = Path(str(files("cobe.calls").joinpath("prices.yaml")))
#: the share of the normal price a provider's batch API charges (OpenAI Batch: half)
BATCH_DISCOUNT = 0.5


#: the shortest prompt prefix most providers cache (OpenAI, Gemini Flash, most Claude models), where a
#: price entry does not say
CACHE_MIN_TOKENS = 1024


@dataclass(frozen=True)
class Price:
    """USD per million tokens: input, output, and the two parts of the input a prompt cache touches,
    `cached_input` (read from the cache) and `cache_write` (written to it; Anthropic charges 1.25 times
    base input). Unset, both cost base input. Batch APIs charge `batch_discount` of all of it.
    `cache_min_tokens`: the shortest prefix the provider caches at all."""

    input: float
    output: float
    batch_discount: float = BATCH_DISCOUNT
    cached_input: float | None = None
    cache_write: float | None = None
    cache_min_tokens: int = CACHE_MIN_TOKENS

    def cost(self, input_tokens: int, output_tokens: int, cached: int = 0, written: int = 0) -> float:
        """USD for one call's tokens; `cached` and `written` are parts of `input_tokens`."""
        fresh = max(0, input_tokens - cached - written)
        read_rate = self.input if self.cached_input is None else self.cached_input
        write_rate = self.input if self.cache_write is None else self.cache_write
        return (fresh * self.input + cached * read_rate + written * write_rate + output_tokens * self.output) / 1e6

    def batch_cost(self, input_tokens: int, output_tokens: int, cached: int = 0, written: int = 0) -> float:
        """USD for one call's tokens answered through a provider's batch API (cache prices discounted alike)."""
        return self.cost(input_tokens, output_tokens, cached, written) * self.batch_discount


FREE = Price(0.0, 0.0)


class PriceTable:
    """Looks a spec up by exact spec, model name, then the model's last path part."""

    def __init__(self, models: dict[str, Price], free_prefixes: set[str]) -> None:
        self.models = models
        self.free_prefixes = free_prefixes

    def price(self, spec: str) -> Price | None:
        """The price of a spec, FREE for local/mock/baseline providers, None when unknown."""
        prefix, _, model = spec.partition("/")
        if prefix in self.free_prefixes:
            return FREE
        for key in (spec, model, model.rsplit("/", 1)[-1]):
            if key in self.models:
                return self.models[key]
        return None


def load_prices(path: str | Path | None = None) -> PriceTable:
    """The bundled price estimates, with entries of `path` (or $COBE_PRICES) laid over them."""
    table = _read(BUNDLED_PRICES)
    extra = path or os.environ.get("COBE_PRICES")
    if extra:
        user = _read(Path(extra))
        table.models.update(user.models)
        table.free_prefixes |= user.free_prefixes
    return table


def _read(path: Path) -> PriceTable:
    if not path.exists():
        raise InputError(f"{path}: price file not found")
    data = read_mapping(path, "a price file (YAML)")
    models: dict[str, Price] = {}
    entries = data.get("models", {})
    if not isinstance(entries, dict):
        raise InputError(f"{path}: expected 'models:' mapping name -> {{input: USD, output: USD}} per million tokens")
    for name, entry in entries.items():
        models[str(name)] = _price(path, str(name), entry)
    free = data.get("free_prefixes") or []
    if not isinstance(free, list) or not all(isinstance(p, str) for p in free):
        raise InputError(f"{path}: free_prefixes: expected a list of spec prefixes, e.g. [mock/, local/]")
    return PriceTable(models, set(free))


_PRICE_FIELDS = ("input", "output", "batch_discount", "cached_input", "cache_write", "cache_min_tokens")


def _price(path: Path, name: str, entry: object) -> Price:
    """One model's entry: {input, output} USD per million tokens, and optionally batch_discount, the
    cache rates and cache_min_tokens; anything else is a typo, refused in one line."""
    expected = "{input: number, output: number, batch_discount?, cached_input?, cache_write?, cache_min_tokens?}"
    if not isinstance(entry, dict):
        raise InputError(f"{path}: model {name!r}: expected {expected}")
    unknown = sorted(set(map(str, entry)) - set(_PRICE_FIELDS))
    if unknown:
        raise InputError(f"{path}: model {name!r}: unknown field {unknown[0]!r}; known: {', '.join(_PRICE_FIELDS)}")
    try:
        rates = [float(entry[k]) if entry.get(k) is not None else None for k in ("cached_input", "cache_write")]
        discount = float(entry.get("batch_discount", BATCH_DISCOUNT))
        least = entry.get("cache_min_tokens", CACHE_MIN_TOKENS)
        if isinstance(least, bool) or not isinstance(least, int) or least < 0:
            raise ValueError
        price = Price(float(entry["input"]), float(entry["output"]), discount, rates[0], rates[1], least)
    except (TypeError, KeyError, ValueError):
        raise InputError(f"{path}: model {name!r}: expected {expected} (cache_min_tokens a whole number)") from None
    # a negative, infinite or NaN price would turn every budget check into nonsense
    amounts = [price.input, price.output, *(rate for rate in rates if rate is not None)]
    if not all(math.isfinite(v) and v >= 0 for v in amounts) or not 0 <= discount <= 1:
        raise InputError(
            f"{path}: model {name!r}: prices must be finite USD amounts >= 0 and batch_discount between 0 and 1"
        )
    return price


def estimate_tokens(text: str) -> int:
    """A rough token count from text length (about four characters a token in English)."""
    return len(text) // 4 + 1


class Budget:
    """Spending cap of one command: a call reserves its estimated cost before it starts."""

    def __init__(self, max_cost: float | None) -> None:
        self.max_cost = max_cost
        self.spent = 0.0
        self.reserved = 0.0
        self.exceeded = False

    def reserve(self, amount: float) -> None:
        """Hold `amount` USD for a call about to start, or raise BudgetExceeded if it would not fit."""
        if self.max_cost is None:
            return
        if self.exceeded or self.spent + self.reserved + amount > self.max_cost:
            self.exceeded = True
            raise BudgetExceeded(
                f"stopped before exceeding --max-cost ${self.max_cost:.4f} (spent ${self.spent:.4f}); "
                "raise --max-cost and run the same command again to resume"
            )
        self.reserved += amount

    def settle(self, reserved: float, actual: float) -> None:
        """Replace a reservation by what the call really cost."""
        if self.max_cost is not None:
            self.reserved = max(0.0, self.reserved - reserved)
        self.spent += actual
