"""How a base model without a chat template is asked and read, wherever it runs: in this process (llama.cpp,
`cobe.models.llamacpp`) or behind a server's completions endpoint (`cobe.models.openai_completions`).

The chat messages become one plain prompt (the system text, then the request, ending with an answer cue);
the model continues it, and the answer is its first paragraph, since a base model goes on to invent the next
example. A judge's question with fixed choices (T or F) is answered by whichever choice the model finds more
likely, where the model's first-token probabilities say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cobe.models.base import Message

# base models have no chat template: these stop them from inventing the next turn
PLAIN_STOPS = ("\nUser:",)


def plain_prompt(messages: list[Message]) -> str:
    """A template-free prompt for base models: system text, then User/Assistant turns."""
    parts = [m.content for m in messages if m.role == "system"]
    turns = [m for m in messages if m.role != "system"]
    if len(turns) == 1 and turns[0].role == "user":
        # one request (the common case): no speaker labels, which confuse small base models
        parts.append(turns[0].content)
        prompt = "\n\n".join(parts)
        # a completion-format prompt ends with its own answer cue ("Rewritten story:"): send it as it is
        return prompt.rstrip() if prompt.rstrip().endswith(":") else prompt + "\n\nAnswer:"
    for m in turns:
        parts.append(f"{'User' if m.role == 'user' else 'Assistant'}: {m.content}")
    return "\n\n".join(parts) + "\n\nAssistant:"


def first_paragraph(text: str) -> tuple[str, bool]:
    """(the answer: the continuation's first paragraph, whether a paragraph break ended it). A break before any
    text does not count: a continuation may open with a blank line."""
    stripped = text.strip()
    head, cut, _ = stripped.partition("\n\n")
    return head, bool(cut)


def _word(token: str) -> str:
    # tokenizers mark a leading space with 'Ġ' (byte BPE) or '▁' (SentencePiece)
    return token.replace("Ġ", " ").replace("▁", " ").strip()


def choose(top: Mapping[str, float], choices: Iterable[str]) -> str | None:
    """The likelier of `choices` among a first token's top alternatives (token → logprob; ' T' and 'T' are both T),
    or None where none of them is among the alternatives."""
    wanted = set(choices)
    best: tuple[float, str] | None = None
    for token, logprob in top.items():
        word = _word(token)
        if word in wanted and logprob is not None and (best is None or logprob > best[0]):
            best = (logprob, word)
    return None if best is None else best[1]
