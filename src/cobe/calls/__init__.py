"""The call path every model call goes through: the `Caller` (the store's cache, coalescing of identical
calls in flight, the --max-cost budget, one committed row per finished call), the `Scheduler`
(concurrency that adapts to 429s, --rpm/--tpm, timeouts, retries; `limits.py`), call keys (`keys.py`)
and prices (`cost.py`).

    caller = Caller.open("calls.sqlite")
    record = await caller.call(provider, messages, settings, role="judge")
"""

from cobe.calls.caller import Caller, RoleStats, key_refused
from cobe.calls.cost import Budget, PriceTable, load_prices
from cobe.calls.scheduler import Scheduler

__all__ = ["Budget", "Caller", "PriceTable", "RoleStats", "Scheduler", "key_refused", "load_prices"]
