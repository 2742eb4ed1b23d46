"""What a JSON object handed to `cobe import` seems to be, when it is not a list of results.

A file that parses but holds one object (the site's published totals, its file of the paper's tables,
an inspect log, a run's summary.json) is no results file; saying "invalid JSON" of it sends the user
looking for a syntax error that is not there. This names what the object looks like and which files
each `--from` takes (the table of importers, `cobe.integrations.importers`).
"""

from __future__ import annotations

from typing import Any

from cobe.integrations.importers import importable

_TOTALS = {"correct", "wrong", "total", "accuracy"}


def _names(keys: Any, most: int = 6) -> str:
    listed = [str(k) for k in keys]
    shown = ", ".join(repr(k) for k in listed[:most])
    return shown + (f" and {len(listed) - most} more" if len(listed) > most else "")


def _holds_totals(value: Any) -> bool:
    """Whether a mapping holds per-model totals ({model: {correct, wrong, …}}), at any of two levels."""
    if not isinstance(value, dict):
        return False
    return any(isinstance(v, dict) and bool(_TOTALS & v.keys() or _holds_totals(v)) for v in value.values())


def _looks_like_tables(data: dict[str, Any]) -> bool:
    """Keys naming tables or figures (table5, Table 7, fig_8 …), or nested numbers with no item ids."""
    named = any(str(k).lower().replace(" ", "").startswith(("table", "fig")) for k in data)
    return named or (not _item_ids(data) and _numbers_inside(data))


def _item_ids(value: Any, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(value, dict):
        if {"example_id", "scenario_id", "Core Set ID"} & value.keys():
            return True
        return any(_item_ids(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_item_ids(v, depth + 1) for v in value[:20])
    return False


def _numbers_inside(value: Any, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return True
    if isinstance(value, dict):
        return any(_numbers_inside(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_numbers_inside(v, depth + 1) for v in value[:20])
    return False


def describe_object(data: dict[str, Any]) -> str:
    """What a JSON object seems to be, as a clause: 'the CoBe site's published totals (eval-statistics.json) …'."""
    keys = set(data)
    if "overall" in keys and keys & {"by_domain", "by_graph"} and _holds_totals(data):
        return (
            "the CoBe site's published totals (eval-statistics.json): correct / wrong counts per model, with no "
            "item's verdict, so there is nothing per item to import"
        )
    if keys & {"by_domain", "by_graph", "examples_per_category"}:
        return "the CoBe site's judged examples grouped by category (category-examples.json): import it with --from cobe-site"
    if {"eval", "samples"} <= keys:
        return "an inspect_ai log: import it with --from inspect"
    if {"run_id", "state"} <= keys or "models" in keys and "judge_fingerprint" in keys:
        return "a cobe run's summary.json: the run directory holding it is already a run (`cobe report DIR`)"
    lists = [k for k, v in data.items() if isinstance(v, list) and v and all(isinstance(i, dict) for i in v)]
    if lists and _item_ids({k: data[k] for k in lists}):
        return (
            f"a JSON object holding lists of results under {_names(lists)}: import that list on its own "
            "(as a JSON array or JSON lines)"
        )
    if _looks_like_tables(data):
        return (
            f"a file of published tables or aggregate scores (keys {_names(data)}), such as the site's file of the "
            "paper's own tables: scores per model, no verdict per item, so there is nothing per item to import"
        )
    return f"a JSON object with keys {_names(data)}, not a list of results"


def not_results(path: Any, data: dict[str, Any]) -> str:
    """The one-sentence error for a JSON object that `cobe import` cannot import."""
    return f"{path}: a JSON object that is not a results file; it seems to be {describe_object(data)}; {importable()}"
