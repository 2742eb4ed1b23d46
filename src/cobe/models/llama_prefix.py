"""Saved llama.cpp states, so a prompt that begins like an earlier one skips re-reading that beginning,
with answers that never depend on which prompts came before.

On two CPU cores the embedded model reads a prompt at a few hundred tokens a second at best, and
judge prompts share long beginnings: each check's instructions and worked examples, and for the
phrasings of a scenario its criterion too. llama.cpp reuses only the prompt its context holds right
now, which interleaved checks keep replacing, so a few states are kept aside here: the context's own
state bytes (KV cache and all, a few MB each), never the Python-side logits copy that
`Llama.save_state` makes (half a gigabyte with this vocabulary).

Determinism: a prompt read in pieces can give slightly different logits from one read whole, and a
greedy argmax can flip on that. So every prompt is read in the same fixed pieces, CHUNK tokens at
absolute positions 0, CHUNK, 2·CHUNK …, whether or not a state is reused, and a state is reused only
up to a piece boundary inside the part that was itself read in pieces. A reused beginning is then
bit for bit what reading it afresh would give, and each answer is independent of the calls before it.

Models with sliding-window attention (Gemma 3: 512 tokens) add one limit: a state written out and
read back gives the same logits as a fresh read only when the reuse stays inside the window
(measured with the judge prompts: 448 tokens reused exact, 512 not), while the live context reused in
place is exact at any length. So a saved state is reused only below the window.
"""

from __future__ import annotations

import ctypes
import sys
from collections import OrderedDict
from typing import Any

#: the fixed piece every prompt is read in; a reused beginning ends on a multiple of it
CHUNK = 64
#: states kept: the three checks, a few respondent prompts, and room for the previous item's checks
CAPACITY = 8


def shared_prefix(a: tuple[int, ...] | list[int], b: tuple[int, ...] | list[int]) -> int:
    """How many leading tokens two sequences share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class PrefixStates:
    """A few saved context states of one `Llama`, keyed by the prompt tokens each read, least recently used out."""

    def __init__(self, capacity: int = CAPACITY, chunk: int = CHUNK) -> None:
        self.capacity, self.chunk = capacity, chunk
        self._saved: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self._current: tuple[int, ...] = ()  # the prompt the context last read in pieces (its KV holds it)
        self.reused_tokens = 0  # tokens not re-read thanks to a saved or current state (for tests)

    def _usable(self, key: tuple[int, ...], tokens: list[int]) -> int:
        # at least one token is left to read, so the logits are this prompt's own
        return min(shared_prefix(key, tokens), len(tokens) - 1) // self.chunk * self.chunk

    def _saved_limit(self, llm: Any) -> int:
        """How many tokens of a saved state may be reused: below the model's sliding window, if it has one."""
        import llama_cpp

        window = int(llama_cpp.llama_model_n_swa(llm._model.model))
        return sys.maxsize if window <= 0 else (window - 1) // self.chunk * self.chunk

    def restore(self, llm: Any, tokens: list[int]) -> int:
        """Make `llm` hold the longest reusable beginning of `tokens`; returns its length (a multiple of CHUNK)."""
        best, best_key = self._usable(self._current, tokens), None
        limit = self._saved_limit(llm) if self._saved else 0
        for key in self._saved:
            usable = min(self._usable(key, tokens), limit)
            if usable > best:
                best, best_key = usable, key
        if best_key is not None:
            import llama_cpp

            data = self._saved[best_key]
            self._saved.move_to_end(best_key)
            buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
            if llama_cpp.llama_state_set_data(llm._ctx.ctx, buffer, len(data)) != len(data):
                self._current = ()
                return 0
            llm.input_ids[: len(best_key)] = best_key
            self._current = best_key
        self.reused_tokens += best
        return best

    def read(self, llm: Any, tokens: list[int]) -> None:
        """Read `tokens` into `llm` in fixed pieces, reusing what a state holds, then keep the state."""
        if not tokens:
            llm.reset()
            self._current = ()
            return
        keep = self.restore(llm, tokens)
        if keep == 0:
            llm.reset()
        else:
            llm.n_tokens = keep  # eval() drops the cache past n_tokens before it reads on
        for start in range(keep, len(tokens), self.chunk):
            llm.eval(tokens[start : start + self.chunk])
        self._current = tuple(tokens)
        self._save(llm)

    def _save(self, llm: Any) -> None:
        import llama_cpp

        size = llama_cpp.llama_state_get_size(llm._ctx.ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_get_data(llm._ctx.ctx, buffer, size)
        key = self._current
        self._saved[key] = ctypes.string_at(buffer, written)
        self._saved.move_to_end(key)
        # a state whose prompt begins the new one adds nothing the new one lacks
        for old in [k for k in self._saved if k != key and key[: len(k)] == k]:
            del self._saved[old]
        while len(self._saved) > self.capacity:
            self._saved.popitem(last=False)

    def forget_current(self) -> None:
        """The context was changed outside `read` (reset, another reader): do not trust what it holds."""
        self._current = ()

    def clear(self) -> None:
        """Forget every saved state."""
        self._saved.clear()
        self._current = ()
