"""Saved llama.cpp states, so a prompt that begins like an earlier one skips re-reading that beginning.

On two CPU cores the embedded model reads a prompt at roughly 100 tokens a second, and judge
prompts share long beginnings: each check's instructions (and worked examples), and for the three
phrasings of a scenario the story and criterion too. llama.cpp reuses only the prompt its context
holds right now, which the interleaved checks keep replacing, so a few states are kept aside here:
the context's own state bytes (KV cache and all, a few MB each), never the Python-side logits copy
that `Llama.save_state` makes (half a gigabyte with this vocabulary).
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from typing import Any

#: states kept; three checks, the respondent's prompt and a little slack
CAPACITY = 6
#: a shorter shared beginning is cheaper to re-read than to restore
MIN_SHARED = 16


def shared_prefix(a: list[int], b: list[int]) -> int:
    """How many leading tokens two sequences share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class PrefixStates:
    """A few saved context states of one `Llama`, keyed by the tokens each holds, least recently used out."""

    def __init__(self, capacity: int = CAPACITY, min_shared: int = MIN_SHARED) -> None:
        self.capacity, self.min_shared = capacity, min_shared
        self._saved: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self.restored_tokens = 0  # tokens not re-read thanks to a restore (for tests and benchmarks)

    def restore(self, llm: Any, tokens: list[int]) -> int:
        """Put the state sharing the longest beginning with `tokens` into `llm`; returns that length.

        The context keeps its own tokens when they share at least as much. Either way the caller
        evaluates only `tokens[shared:]` (at least one token, to get fresh logits).
        """
        current = [int(t) for t in llm.input_ids[: llm.n_tokens]]
        best_len, best_key = shared_prefix(current, tokens), None
        for key in self._saved:
            length = shared_prefix(list(key), tokens)
            if length > best_len:
                best_len, best_key = length, key
        if best_key is not None and best_len >= self.min_shared:
            import llama_cpp

            data = self._saved[best_key]
            self._saved.move_to_end(best_key)
            buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
            if llama_cpp.llama_state_set_data(llm._ctx.ctx, buffer, len(data)) != len(data):
                llm.reset()
                return 0
            llm.input_ids[: len(best_key)] = best_key
            llm.n_tokens = len(best_key)
            if hasattr(llm, "_requires_eval"):
                llm._requires_eval = True  # the logits in hand are the saved state's, not this prompt's
        elif best_len < self.min_shared:
            return 0
        self.restored_tokens += best_len
        return best_len

    def save(self, llm: Any) -> None:
        """Keep the context's current state, keyed by the tokens it holds."""
        import llama_cpp

        key = tuple(int(t) for t in llm.input_ids[: llm.n_tokens])
        if len(key) < self.min_shared:
            return
        size = llama_cpp.llama_state_get_size(llm._ctx.ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_get_data(llm._ctx.ctx, buffer, size)
        self._saved[key] = ctypes.string_at(buffer, written)
        self._saved.move_to_end(key)
        # a state whose tokens begin the new one adds nothing the new one lacks
        for old in [k for k in self._saved if k != key and key[: len(k)] == k]:
            del self._saved[old]
        while len(self._saved) > self.capacity:
            self._saved.popitem(last=False)

    def clear(self) -> None:
        """Forget every saved state."""
        self._saved.clear()


def evaluate_prompt(llm: Any, tokens: list[int], states: PrefixStates) -> None:
    """Evaluate `tokens` in `llm`, re-reading only what no saved state already holds, then save the state."""
    shared = states.restore(llm, tokens)
    keep = min(shared, len(tokens) - 1)
    if keep <= 0:
        llm.reset()
    else:
        llm.n_tokens = keep  # eval() drops the cache past n_tokens before it reads the rest
    llm.eval(tokens[max(keep, 0) :])
    states.save(llm)
