"""The site's published totals (`eval-statistics.json`), set beside a run's own figures (the paper's Fig. 7).

The file holds, per model, `{correct, wrong, unknown, total, accuracy}` in `overall`, `by_domain` and
`by_graph` (graph keys spelled as the site spells them: `Chain-like` … `Hydrid`), over 7,125 items per model;
its accuracy is correct / (correct + wrong). `cobe import FILE --from cobe-site` keeps it as `published.json`
in the folder it writes (cobe.integrations.site_totals), and `cobe report RUN --published FILE_OR_FOLDER` adds
three tables: per model and group, the run's accuracy by the same rule beside the published one. Both forms are
read here, below the import, because the report reads them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from cobe.core.errors import InputError
from cobe.core.jsonfile import kind_of, read_json
from cobe.dataset.graph_labels import read_graph_type
from cobe.score.accuracy import pooled_accuracy

PUBLISHED_FILE = "published.json"
#: the file's groupings → the result-row column each is compared on ("overall": the whole run)
SCOPES = {"overall": None, "by_domain": "domain", "by_graph": "graph_type"}
COUNTS = ("correct", "wrong", "unknown", "total")
COLUMNS = ["scope", "group", "model", *COUNTS, "accuracy"]


def is_published_totals(data: Any) -> bool:
    """Whether a parsed JSON document is the site's statistics file (totals, not examples)."""
    if not isinstance(data, dict) or not isinstance(data.get("overall"), dict):
        return False
    return all(isinstance(v, dict) and "correct" in v for v in data["overall"].values())


def read_published(path: str | Path) -> pd.DataFrame:
    """The published totals as one row per scope, group and model; a file or a folder `cobe import` wrote. Every
    field is checked: what is not a count where a count belongs is one line naming its place (InputError)."""
    file = Path(path)
    if file.is_dir():
        file = file / PUBLISHED_FILE
    data = read_json(file, "the site's eval-statistics.json")
    if isinstance(data, dict) and data.get("rows") is not None and "overall" not in data:  # as imported
        return pd.DataFrame([_imported_row(file, i, row) for i, row in _listed(file, data["rows"])], columns=COLUMNS)
    if not is_published_totals(data):
        raise InputError(f"{file}: expected the site's eval-statistics.json: overall, by_domain, by_graph → model → "
                         "{correct, wrong, unknown, total, accuracy}")  # fmt: skip
    rows = []
    for scope in SCOPES:
        block = data.get(scope) or {}
        groups = {"all": block} if scope == "overall" else _mapping(file, scope, block, "group → model → counts")
        for group, models in groups.items():
            label = _graph(group) if scope == "by_graph" else str(group)
            where = scope if scope == "overall" else f"{scope}: {group}"
            for model, counts in _mapping(file, where, models or {}, "model → counts").items():
                rows.append({"scope": scope, "group": label, "model": model, **_counts(file, where, model, counts)})
    return pd.DataFrame(rows, columns=COLUMNS)


def _mapping(file: Path, where: str, value: Any, expected: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{file}: {where}: is {kind_of(value)}; expected an object of {expected}")
    return value


def _listed(file: Path, rows: Any) -> list[tuple[int, Any]]:
    if not isinstance(rows, list):
        raise InputError(f"{file}: rows: is {kind_of(rows)}; expected a list of the totals `cobe import` wrote")
    return list(enumerate(rows, 1))


def _imported_row(file: Path, number: int, row: Any) -> dict[str, Any]:
    """One row of a published.json `cobe import` wrote, checked as the site's own figures are."""
    where = f"rows[{number}]"
    if not isinstance(row, dict) or row.get("scope") not in SCOPES:
        raise InputError(f"{file}: {where}: expected an object with scope ({', '.join(SCOPES)}), group, model, counts")
    if not isinstance(row.get("group"), str) or not isinstance(row.get("model"), str):
        raise InputError(f"{file}: {where}: group and model must be text")
    counts = _counts(file, where, row["model"], row)
    return {"scope": row["scope"], "group": row["group"], "model": row["model"], **counts}


def _graph(label: str) -> str:
    found = read_graph_type(str(label))
    return found.value if found is not None else str(label)


#: more items than any benchmark holds: a count above it is a damaged file (and a float could not hold it exactly)
MOST = 2**53


def _count(file: Path, where: str, model: str, counts: dict[str, Any], name: str) -> int | None:
    value = counts.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MOST:
        raise InputError(f"{file}: {where}: {model}: {name} is {value!r:.40}; expected a count (a whole number ≥ 0)")
    return value


def _counts(file: Path, where: str, model: str, counts: Any) -> dict[str, Any]:
    if not isinstance(counts, dict):
        raise InputError(f"{file}: {where}: {model}: is {kind_of(counts)}; expected {{{', '.join(COUNTS)}, accuracy}}")
    correct, wrong = (_count(file, where, model, counts, name) for name in ("correct", "wrong"))
    if correct is None or wrong is None:
        raise InputError(f"{file}: {where}: {model}: expected the counts correct and wrong")
    unknown = _count(file, where, model, counts, "unknown") or 0
    total = _count(file, where, model, counts, "total") or correct + wrong + unknown
    judged = correct + wrong
    # the site's rule, recomputed: its `accuracy` may be a share or a percentage
    accuracy = 100.0 * correct / judged if judged else float("nan")
    return {"correct": correct, "wrong": wrong, "unknown": unknown, "total": total, "accuracy": accuracy}


def beside_published(df: pd.DataFrame, published: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per scope, the run's accuracy (correct / (correct + wrong), the site's rule) beside the published one, for
    each model the site publishes under the same name; tables named published_overall / _domain / _graph_type."""
    tables = {}
    for scope, column in SCOPES.items():
        part = published[published["scope"] == scope]
        if part.empty:
            continue
        keys = ["model"] if column is None else ["model", column]
        ours = pooled_accuracy(df, by=keys).rename(columns={"pooled_accuracy": "run_accuracy", "scored": "run_scored"})
        if column is None:
            ours["group"] = "all"
        else:
            ours = ours.rename(columns={column: "group"})
        ours["group"] = ours["group"].astype(str)
        theirs = part.rename(columns={"accuracy": "published_accuracy", "total": "published_total"})
        merged = theirs.merge(ours, on=["model", "group"], how="left")
        merged["difference"] = merged["run_accuracy"] - merged["published_accuracy"]
        name = {"overall": "published_overall", "by_domain": "published_domain", "by_graph": "published_graph_type"}
        tables[name[scope]] = merged[
            ["model", "group", "run_accuracy", "run_scored", "published_accuracy", "published_total", "difference"]
        ].sort_values(["group", "model"], ignore_index=True)
    return tables


#: the tables beside the site's totals, with their titles, in the order a report shows them
TITLES = {
    "published_overall": "Overall",
    "published_graph_type": "By causal graph type",
    "published_domain": "By domain",
}


def release_label(tables: dict[str, pd.DataFrame]) -> str:
    """How every view names the site's totals: their file and how many items a model they count."""
    overall = tables.get("published_overall")
    totals = overall["published_total"].dropna() if overall is not None and not overall.empty else None
    count = f": {int(totals.max()):,} items a model" if totals is not None and len(totals) else ""
    return f"the site's release (eval-statistics.json{count}), not the paper's (2,000 scenarios × 3 phrasings)"


def published_payload(tables: dict[str, pd.DataFrame]) -> dict[str, Any] | None:
    """report.html's section beside the site's totals: each table one row per model and group; None without one."""
    blocks = []
    for name, title in TITLES.items():
        table = tables.get(name)
        if table is None or table.empty:
            continue
        rows = [
            ["–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}" if isinstance(v, float)
             else str(v) for v in row]
            for row in table.itertuples(index=False)
        ]  # fmt: skip
        blocks.append({"title": title, "columns": [str(c) for c in table.columns], "rows": rows})
    if not blocks:
        return None
    note = (f"Each model's accuracy in this report by the site's rule, correct / (correct + wrong), beside "
            f"{release_label(tables)}, for the model of the same name; difference = run minus published, in points.")  # fmt: skip
    return {"note": note, "tables": blocks}
