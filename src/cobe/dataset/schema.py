"""The typed model of one CoBe scenario and its optional causal graph.

The graph links each criterion sentence to a variable (`Fact`). A preserve fact is normally about
a variable the intervention cannot reach. Two flags on a preserve fact say why it may be about
one the intervention does reach:

- `invariant: true` — a physical law, fixed rule or definition: true whatever happens;
- `holds_despite: true` — a consequence of the intervened variable that still holds after the
  intervention because another cause keeps it true (the paper's 403v1: the umbrella is still
  taken, now for the repair errand). The flag asserts that the fact is a descendant of the
  intervened variable, never the intervened variable itself; validation checks both.

Change facts carry neither flag.
"""

from __future__ import annotations

import re
from enum import Enum

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from cobe.dataset.queries import LABELS, label_queries

ID_PATTERN = re.compile(r"^(?P<core>\d+)v(?P<variation>\d+)$")
#: the domain of a scenario whose file names none (the site's files mostly do not)
UNKNOWN_DOMAIN = "unknown"


class GraphType(str, Enum):
    """The six causal-graph families of the paper (Table 4)."""

    chain = "chain"
    collider = "collider"
    fork = "fork"
    diamond = "diamond"
    correlated = "correlated"
    hybrid = "hybrid"


class FailureMode(str, Enum):
    """The seven failure patterns the paper names (Fig. 9); values are stable tags."""

    unchanged_reason = "unchanged_reason"  # (i) overlooking an unchanged reason for an action
    background_rationalised = "background_rationalised"  # (ii) changing background facts
    stale_consequence = "stale_consequence"  # (iii) retaining a consequence whose reason is gone
    physical_quantitative = "physical_quantitative"  # (iv) physical or quantitative constraints
    spatial = "spatial"  # (v) inconsistent spatial consequences
    unsupported_connector = "unsupported_connector"  # (vi) unsupported causal connector
    history_rewritten = "history_rewritten"  # (vii) changing historical facts to match a preference


FAILURE_MODE_LABELS: dict[FailureMode, str] = {
    FailureMode.unchanged_reason: "(i) overlooking an unchanged reason for an action",
    FailureMode.background_rationalised: "(ii) changing background facts to rationalise the intervention",
    FailureMode.stale_consequence: "(iii) retaining a consequence whose reason no longer applies",
    FailureMode.physical_quantitative: "(iv) violating physical or quantitative constraints",
    FailureMode.spatial: "(v) inconsistent spatial consequences",
    FailureMode.unsupported_connector: "(vi) unsupported causal connector",
    FailureMode.history_rewritten: "(vii) changing historical facts to match a new preference",
}


class Edge(BaseModel):
    """A directed cause → effect edge, or a bidirected (confounded) pair when `bidirected`."""

    model_config = ConfigDict(extra="forbid")

    source: str
    target: str
    bidirected: bool = False


class Fact(BaseModel):
    """Links one criterion sentence to the graph variable it is about."""

    model_config = ConfigDict(extra="forbid")

    text: str
    variable: str
    invariant: bool = False  # a physical law or definitional fact: true whatever the intervention
    # a preserve fact about a descendant of the intervention that another cause keeps true
    holds_despite: bool = False


class CausalGraph(BaseModel):
    """A small causal graph: variables, edges, the intervened variable and fact links."""

    model_config = ConfigDict(extra="forbid")

    variables: list[str]
    edges: list[Edge]
    intervened: str
    preserve_facts: list[Fact] = Field(default_factory=list)
    change_facts: list[Fact] = Field(default_factory=list)


class Scenario(BaseModel):
    """One dataset item: a story, three phrasings of one intervention, and its criteria."""

    model_config = ConfigDict(extra="forbid")

    id: str
    core_id: int
    variation: int
    domain: str = UNKNOWN_DOMAIN
    story: str
    queries: list[str]
    # the phrasing of each query (A, B, C or other) where the file's numbering says more than the words
    # do; empty when the words alone tell (see `phrasings`), and then left out of the scenario's JSON
    query_phrasings: list[str] = Field(default_factory=list)
    illustrative_answer: str = ""
    preserve: list[str]
    change: list[str]
    graph_type: GraphType | None = None
    failure_modes: list[FailureMode] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    intervention: str | None = None
    original_condition: str | None = None
    graph: CausalGraph | None = None

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not ID_PATTERN.match(value):
            raise ValueError(f"id {value!r} is not of the form <core>v<variation>, e.g. 317v3")
        return value

    @model_validator(mode="after")
    def _labels_fit(self) -> Scenario:
        if self.query_phrasings:
            if len(self.query_phrasings) != len(self.queries):
                raise ValueError(f"query_phrasings: expected one label per query ({len(self.queries)})")
            unknown = sorted(set(self.query_phrasings) - set(LABELS))
            if unknown:
                raise ValueError(f"query_phrasings: unknown label {unknown[0]!r}; expected one of {', '.join(LABELS)}")
        return self

    @model_serializer(mode="wrap")
    def _without_derived_labels(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        # labels the words already give are not written, so a scenario's JSON (the data fingerprint,
        # the store) is what it was before labels existed
        data: dict[str, object] = handler(self)
        if not self.query_phrasings:
            data.pop("query_phrasings", None)
        return data

    @property
    def phrasings(self) -> list[str]:
        """The phrasing of each query in `queries`: A, B, C or other (what it says, else the file's numbering)."""
        return list(self.query_phrasings) or label_queries(self.queries)

    def query_in(self, phrasing: str) -> str | None:
        """The scenario's query in a phrasing (A, B, C or other), or None when it has none."""
        for label, query in zip(self.phrasings, self.queries):
            if label == phrasing:
                return query
        return None

    @property
    def preserve_text(self) -> str:
        """Criterion string 1 as the judge sees it."""
        return " ".join(self.preserve)

    @property
    def change_text(self) -> str:
        """Criterion string 2 as the judge sees it."""
        return " ".join(self.change)


def make_id(core_id: int, variation: int) -> str:
    """The official id of a core example's variation, e.g. (317, 3) → '317v3'."""
    return f"{core_id}v{variation}"
