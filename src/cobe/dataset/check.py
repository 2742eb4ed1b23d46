"""Check a normalised record field by field, so that every problem is reported at once,
then build the `Scenario` only when no error was found.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from cobe.dataset.graph import check_graph, derive_graph_type
from cobe.dataset.graph_labels import read_graph_type
from cobe.dataset.queries import (
    LABELS,
    PHRASINGS,
    UNMATCHED,
    duplicate_labels,
    label_queries,
    position_hints,
    recognise_query,
)
from cobe.dataset.schema import ID_PATTERN, UNKNOWN_DOMAIN, CausalGraph, FailureMode, GraphType, Scenario, make_id
from cobe.dataset.shapes import MISSING, Normalised


def build_scenario(rec: Normalised, shape: str) -> Scenario | None:
    """The Scenario of a normalised record, or None when it has errors (reported on rec.sink)."""
    sink = rec.sink
    loose = shape != "native"  # CSV cells and some exports carry numbers as digit strings
    out: dict[str, Any] = {}
    core = _integer(rec, "core_id", loose)
    variation = _integer(rec, "variation", loose)
    out["id"] = _identity(rec, core, variation)
    if out["id"]:
        sink.id = out["id"]
        for problem in sink.problems:  # those found before the id was known
            problem.id = out["id"]
        match = ID_PATTERN.match(out["id"])
        assert match is not None
        if core is None and "core_id" not in rec.data:
            core = int(match["core"])
        if variation is None and "variation" not in rec.data:
            variation = int(match["variation"])
    out["core_id"], out["variation"] = core, variation
    out["domain"] = _domain(rec)
    out["story"] = _text(rec, "story", required=True)
    out["illustrative_answer"] = _text(rec, "illustrative_answer", required=False) or ""
    out["queries"] = _queries(rec, shape)
    out["query_phrasings"] = _query_phrasings(rec, out["queries"])
    for name in ("preserve", "change"):
        out[name] = _string_list(rec, name, required=True)
    for name in ("intervention", "original_condition"):
        out[name] = _text(rec, name, required=False)
    out["tags"] = _string_list(rec, "tags", required=False) or []
    out["graph_type"] = _graph_type(rec)
    out["failure_modes"] = _failure_modes(rec)
    out["graph"] = _graph(rec)
    if sink.has_errors:
        return None
    _lint(rec, out)
    if sink.has_errors:  # the graph checks can find errors too
        return None
    try:
        return Scenario(**out)
    except ValidationError as exc:  # a rule the field checks above missed; still one line each
        for err in exc.errors():
            sink.error(".".join(str(x) for x in err["loc"]) or "-", err["msg"])
        return None


def _value(rec: Normalised, name: str, required: bool) -> Any:
    value = rec.data.get(name, MISSING if required else None)
    if value is MISSING:
        if name in rec.data:  # the shape mapping reported it already
            return MISSING
        rec.sink.error(rec.label(name), "missing required field")
    return value


def _integer(rec: Normalised, name: str, loose: bool) -> int | None:
    value = rec.data.get(name)
    if value is None:
        return None
    if isinstance(value, str) and loose and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        rec.sink.error(rec.label(name), f"expected a non-negative integer, got {value!r}")
        return None
    return value


def _identity(rec: Normalised, core: int | None, variation: int | None) -> str | None:
    sink = rec.sink
    given = rec.data.get("id")
    if given is not None and not isinstance(given, str):
        sink.error(rec.label("id"), f"expected a string such as '317v3', got {given!r}")
        return None
    if given is not None and not ID_PATTERN.match(given):
        sink.error(rec.label("id"), f"id {given!r} is not of the form <core>v<variation>, e.g. 317v3")
        return None
    for name, number in (("core_id", core), ("variation", variation)):
        if number is None and name not in rec.data and given is None:
            sink.error(rec.label(name), "missing required field")
    if given is None:
        return make_id(core, variation) if core is not None and variation is not None else None
    match = ID_PATTERN.match(given)
    assert match is not None
    if (
        core is not None
        and int(match["core"]) != core
        or variation is not None
        and int(match["variation"]) != variation
    ):
        sink.error(
            rec.label("id"),
            f"id {given!r} disagrees with {rec.label('core_id')}={core} and {rec.label('variation')}={variation}",
        )
    return given


def _text(rec: Normalised, name: str, required: bool) -> str | None:
    value = _value(rec, name, required)
    if value is MISSING or value is None:
        return None
    if not isinstance(value, str):
        rec.sink.error(rec.label(name), f"expected a string, got {type(value).__name__}")
        return None
    if required and not value.strip():
        rec.sink.error(rec.label(name), "required field is empty")
        return None
    return value


def domain_missing(rec: Normalised) -> bool:
    """Whether a record names no domain (absent or blank): it is then `unknown`, never an error."""
    value = rec.data.get("domain")
    return value is None or value is MISSING or (isinstance(value, str) and not value.strip())


def _domain(rec: Normalised) -> str | None:
    # the loader says once per file how many scenarios had none, so nothing is reported here
    return UNKNOWN_DOMAIN if domain_missing(rec) else _text(rec, "domain", required=False)


def _query_phrasings(rec: Normalised, queries: list[str] | None) -> list[str]:
    """The labels to store: only where the file (a native record's own labels, the site's query_idx) gives
    other labels than the words and order alone."""
    if not queries:
        return []
    if "query_phrasings" in rec.data:  # a native record written with its labels
        given = _string_list(rec, "query_phrasings", required=False) or []
        if given and (len(given) != len(queries) or not set(given) <= set(LABELS)):
            rec.sink.error(
                "query_phrasings", f"expected one label per query, each one of {', '.join(LABELS)}; got {given!r}"
            )
            return []
        labels = given
    elif rec.query_hints is not None:
        labels = label_queries(queries, rec.query_hints)
    else:
        return []
    return labels if labels and labels != label_queries(queries, position_hints(len(queries))) else []


def _string_list(rec: Normalised, name: str, required: bool) -> list[str] | None:
    value = _value(rec, name, required)
    if value is MISSING or value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        rec.sink.error(rec.label(name), "expected a list of strings")
        return None
    if required and not any(v.strip() for v in value):
        rec.sink.error(rec.label(name), "required field is empty")
        return None
    return value


def _queries(rec: Normalised, shape: str) -> list[str] | None:
    sink = rec.sink
    queries = _string_list(rec, "queries", required=True)
    if queries is None:
        return None
    for i, query in enumerate(queries):
        if not query.strip():
            sink.error(f"{rec.label('queries')}[{i}]", "required field is empty")
    if len(queries) != len(PHRASINGS) and shape != "site":
        message = f"expected 3 queries (phrasings A, B, C), found {len(queries)}"
        # the site publishes one query per scenario and more, a native file may hold what it gave;
        # the paper's shape is a list of three by definition
        (sink.warning if shape == "native" else sink.error)(rec.label("queries"), message)
    return queries


def _graph_type(rec: Normalised) -> GraphType | None:
    value = rec.data.get("graph_type")
    if value is None:
        return None
    found = read_graph_type(value) if isinstance(value, str) else None
    if found is None:  # said once per label for the whole file, by the loader
        rec.unknown_graph = str(value)
    return found


def _failure_modes(rec: Normalised) -> list[FailureMode]:
    value = rec.data.get("failure_modes")
    if value is None:
        return []
    if not isinstance(value, list):
        rec.sink.error("failure_modes", "expected a list of strings")
        return []
    known = {m.value for m in FailureMode}
    for mode in value:
        if mode not in known:
            rec.sink.warning("failure_modes", f"unknown failure mode {mode!r}; ignored")
    return [FailureMode(m) for m in value if m in known]


def _graph(rec: Normalised) -> CausalGraph | None:
    value = rec.data.get("graph")
    if value is None:
        return None
    try:
        return CausalGraph.model_validate(value)
    except ValidationError as exc:
        for err in exc.errors():
            where = ".".join(["graph", *(str(x) for x in err["loc"])])
            rec.sink.error(where, err["msg"].lower())
        return None


def _lint(rec: Normalised, out: dict[str, Any]) -> None:
    # warnings on a record with no errors: template fit, criteria overlap, graph consistency
    sink = rec.sink
    _lint_queries(rec, out["queries"], out["query_phrasings"] or label_queries(out["queries"]))
    both = {s.strip() for s in out["preserve"]} & {s.strip() for s in out["change"]}
    for sentence in sorted(both):
        sink.warning("criteria", f"sentence appears in both preserve and change: {sentence!r}")
    graph: CausalGraph | None = out["graph"]
    if graph is None:
        return
    for finding in check_graph(graph, out["preserve"], out["change"]):
        (sink.error if finding.severity == "error" else sink.warning)(finding.field, finding.message)
    derived = derive_graph_type(graph)
    label = out["graph_type"]
    if label is not None and derived is not None and label != derived:
        sink.warning("graph_type", f"labelled {label.value!r} but the graph is {derived.value!r}")


def _lint_queries(rec: Normalised, queries: list[str], labels: list[str]) -> None:
    # a query in no phrasing is still evaluated (as `other`); one labelled by the file's numbering alone,
    # or in a phrasing out of the paper's order, is worth a look
    sink = rec.sink
    repeated = set(duplicate_labels(labels))
    numbering = "its query_idx" if rec.query_hints is not None or "query_phrasings" in rec.data else "its place"
    for i, (label, query) in enumerate(zip(labels, queries)):
        field = f"{rec.label('queries')}[{i}]"
        said = recognise_query(query)
        if i in repeated:
            sink.warning(field, f"a second query labelled {label}; only the first one is evaluated")
        elif label == UNMATCHED:
            sink.warning(field, f"query follows none of the phrasings A, B, C; evaluated as {UNMATCHED}")
        elif said is None:
            sink.warning(
                field, f"query follows none of the phrasings A, B, C in its words; labelled {label} by {numbering}"
            )
        elif len(queries) == len(PHRASINGS) and rec.query_hints is None and label != PHRASINGS[i]:
            sink.warning(field, f"query follows phrasing {label}, expected {PHRASINGS[i]} at position {i + 1}")
