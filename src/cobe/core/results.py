"""The row shape of `results.jsonl`: one scenario × template × model, with its verdicts.

Every stage above the dataset reads or writes these rows (the engine, scoring, reports, rating
studies, imports), so the type sits at the bottom of the package layers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

#: a judge check's answer: T (the check is satisfied) or F
Verdict = Literal["T", "F"]
Status = Literal["passed", "failed", "unscored", "error", "pending"]
#: a judge check, by name
Check = Literal["connectors", "preserve", "change"]
#: every check a row holds a verdict of, in the order reports list them (the paper's E0 connectors, E1
#: preserve, E2 change)
CHECKS: tuple[Check, ...] = ("connectors", "preserve", "change")
#: the checks as the paper's failure plot (Fig. 6) names and orders them: E1 upstream, E2 downstream, E3
CHECK_LABELS: dict[Check, str] = {
    "preserve": "preserve (upstream)",
    "change": "change (downstream)",
    "connectors": "connectors",
}


class ResultRow(BaseModel):
    """One judged (or not yet judged) response; reports, ratings and imports all read this."""

    run_id: str
    model: str
    judge: str | None = None
    judge_prompts: str | None = None  # name of the judge prompt set
    scenario_id: str
    core_id: int
    variation: int
    domain: str
    graph_type: str | None = None
    failure_modes: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    template: str  # "A".."G", "H1", "H2"
    # which of a model's answers to this scenario and template (--epochs K: 1..K); results.jsonl writes it
    # for runs of several epochs only
    epoch: int = Field(default=1, ge=1)
    tier: int = 1
    phrasing: int = 0  # index of the phrasing within its tier (0..2 for A..C)
    story: str = ""
    query: str = ""
    prompt: str = ""
    preserve: list[str] = Field(default_factory=list)
    change: list[str] = Field(default_factory=list)
    response: str | None = None
    # the part of the response the judge saw, where a template asks for reasoning first (H2)
    judged_response: str | None = None
    response_error: str | None = None
    # why the response was left unscored without any judge call: "truncated" (cut off by the token
    # limit); "no_final_marker" in rows written before such replies were judged whole
    unjudged: str | None = None
    # a reasoning template's reply without its final-story line, judged whole (written only when true)
    no_marker: bool = False
    verdicts: dict[str, Verdict | None] = Field(default_factory=dict)  # check -> T/F/None
    judge_raw: dict[str, str | None] = Field(default_factory=dict)
    p_true: dict[str, float | None] = Field(default_factory=dict)
    unscored: dict[str, str] = Field(default_factory=dict)  # check -> reason
    # a judge panel or --judge-samples: judge spec -> check -> each sample's verdict (None: unparseable or
    # failed); `verdicts` then holds their strict majority. Empty for one judge asked once.
    member_verdicts: dict[str, dict[str, list[Verdict | None]]] = Field(default_factory=dict)
    passed: bool | None = None  # None when unscored or errored
    status: Status = "pending"
