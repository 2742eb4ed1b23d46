"""The figures a maintainer reruns to see the house's shape: lines per package and the longest functions.

    python scripts/house_figures.py [--top N]

Lines are every line of a package's .py files (blank and comment lines included, as `wc -l` counts them);
a function's length runs from its `def` (decorators excluded) to its last line, nested functions counted
inside their parent and on their own.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

SRC = Path(__file__).resolve().parent.parent / "src" / "cobe"
#: no function in src/ is longer (tests/test_house_figures.py holds the line)
MAX_FUNCTION_LINES = 80


class Function(NamedTuple):
    """One function's place and length."""

    where: str
    lines: int


def package_lines(src: Path = SRC) -> dict[str, int]:
    """Lines of each top-level package under src (modules at the top count as `(top)`)."""
    counts: dict[str, int] = {}
    for path in sorted(src.rglob("*.py")):
        relative = path.relative_to(src)
        package = relative.parts[0] if len(relative.parts) > 1 else "(top)"
        counts[package] = counts.get(package, 0) + len(path.read_text(encoding="utf-8").splitlines())
    return counts


def functions(src: Path = SRC) -> Iterator[Function]:
    """Every function and method under src with its length in lines."""
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                where = f"{path.relative_to(src.parent)}:{node.name}"
                yield Function(where, node.end_lineno - node.lineno + 1)


def main() -> None:
    """Print lines per package, the longest functions and how many pass 60 and 80 lines."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=5, help="how many of the longest functions to list (default 5)")
    top = parser.parse_args().top
    counts = package_lines()
    print("lines per package: " + " · ".join(f"{name} {lines:,}" for name, lines in counts.items()))
    print(f"lines in all: {sum(counts.values()):,}")
    every = sorted(functions(), key=lambda function: -function.lines)
    over = {limit: sum(function.lines > limit for function in every) for limit in (60, MAX_FUNCTION_LINES)}
    print(
        f"functions: {len(every):,}; over 60 lines: {over[60]}; over {MAX_FUNCTION_LINES}: {over[MAX_FUNCTION_LINES]}"
    )
    for function in every[:top]:
        print(f"  {function.lines:>4}  {function.where}")


if __name__ == "__main__":
    main()
