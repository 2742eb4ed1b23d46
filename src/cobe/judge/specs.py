"""Judge specs as a command names them: the --judge values split into distinct specs, and the name a
panel of them goes by in runs, exports and reports. Below both the judging plan (`judge_plan`) and the panel
that carries it out (`panel`), so neither imports the other for them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cobe.core.errors import InputError


def split_specs(values: Iterable[str]) -> list[str]:
    """Judge specs from repeated and comma-separated values ("a/x,b/y"), in order, each once.

    A piece without '/' continues the spec before it, so a scripted spec such as mock/cycle:T,F
    survives the split. The same judge twice is refused: ask one judge several times with
    --judge-samples instead.
    """
    specs: list[str] = []
    for value in values:
        for piece in value.split(","):
            piece = piece.strip()
            if not piece:
                continue
            if "/" not in piece and specs:
                specs[-1] = f"{specs[-1]},{piece}"
            else:
                specs.append(piece)
    twice = sorted({spec for spec in specs if specs.count(spec) > 1})
    if twice:
        raise InputError(
            f"--judge: {', '.join(twice)} named twice; a panel needs distinct judges "
            "(ask one judge several times with --judge-samples)"
        )
    return specs


def panel_name(specs: Sequence[str]) -> str:
    """How runs, exports and reports name a panel of judges (one judge: its spec)."""
    return specs[0] if len(specs) == 1 else "panel(" + ", ".join(specs) + ")"
