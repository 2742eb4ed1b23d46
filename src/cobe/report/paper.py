"""The paper's published figures as data: Table 5, the bar heights of Figs. 6-9, Table 7, the D.4.2 agreement
figures and Tables 2-4 of "CoBe: A Benchmark For Conversational Counterfactual Text Editing" (arXiv 2610.13057).

They are facts, and ship with cobe in `paper_figures.json`, in cobe's own shape: every group is named as cobe
names it (error types E1-E5, graph types `chain` … `hybrid`, phrasings A-C, failure modes by their tags, tiers
1-4), so the paper's bars sit beside a run's in the same tables. An updated release is given as a file
(`cobe report RUN --against FILE`, or COBE_PAPER_FIGURES for what `--against paper` means) in that shape, or
in the shape the figures were first transcribed in (`table5_accuracy`, `fig6_failure_rate_by_criterion` …),
which is read into cobe's.

These figures are the paper's release: 2,000 scenarios × 3 phrasings. The site's `eval-statistics.json`
(7,125 items a model) is another release and never stands in for them (cobe.report.published).
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from cobe.core.errors import InputError
from cobe.core.jsonfile import read_json
from cobe.dataset.schema import FailureMode, GraphType

#: `--against paper`: the bundled figures, unless this variable names a file in their shape
PAPER = "paper"
ENV = "COBE_PAPER_FIGURES"
BUNDLED = "paper_figures.json"
FORMAT = "cobe paper figures 1"
#: each figure's groups, as cobe names them
GROUPS: dict[str, frozenset[str]] = {
    "error_types": frozenset({"E1", "E2", "E3", "E4", "E5"}),
    "graph_type": frozenset(t.value for t in GraphType),
    "phrasing": frozenset({"A", "B", "C"}),
    "failure_mode": frozenset(m.value for m in FailureMode),
}
# the first transcription's names → cobe's
_ERRORS = {"E1 upstream": "E1", "E2 downstream": "E2", "E3 connectors": "E3", "E4 numeric": "E4", "E5 latent": "E5"}
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii")
_MODES = dict(zip(_ROMAN, (m.value for m in FailureMode)))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Strict):
    """Where the figures come from."""

    paper: str
    arxiv: str
    how: str


class Release(_Strict):
    """What the figures were measured on, and by which judge."""

    name: str
    scenarios: int
    phrasings: int
    judge: str
    judge_structure: str
    std: str
    tier_scenarios: int

    def label(self) -> str:
        """How every table and figure names this release: `paper (2,000 scenarios × 3 phrasings)`."""
        return f"paper ({self.scenarios:,} scenarios × {self.phrasings} phrasings)"


class Cell(_Strict):
    """One row of Table 5: accuracy and its std across phrasings, in %."""

    accuracy: float
    std: float


class PaperFigures(_Strict):
    """The paper's published numbers in cobe's shape (percentages unless a field says otherwise)."""

    format: Literal["cobe paper figures 1"]
    source: Source
    release: Release
    models: list[str]
    leaderboard: dict[str, Cell]
    frontier_mean: float | None = None
    figures: dict[str, dict[str, dict[str, float]]]  # figure (a key of GROUPS) → group → model → bar
    tiers: dict[str, dict[Literal["1", "2", "3", "4"], float]]
    agreement: dict[str, float]
    dataset: dict[str, float]
    domains_percent: dict[str, float]
    graph_types_percent: dict[str, float]

    @model_validator(mode="after")
    def _named_as_cobe_names_them(self) -> PaperFigures:
        known = set(self.models)
        if set(self.figures) != set(GROUPS):
            raise ValueError(f"figures: expected {', '.join(sorted(GROUPS))}; got {', '.join(sorted(self.figures))}")
        for name, groups in self.figures.items():
            unknown = set(groups) - GROUPS[name]
            if unknown:
                raise ValueError(f"figures.{name}: {', '.join(sorted(unknown))} not known; expected "
                                 f"{', '.join(sorted(GROUPS[name]))}")  # fmt: skip
            for group, values in groups.items():
                if set(values) - known:
                    raise ValueError(f"figures.{name}.{group}: {', '.join(sorted(set(values) - known))} not in models")
        for where, names in (("leaderboard", self.leaderboard), ("tiers", self.tiers)):
            if set(names) - known:
                raise ValueError(f"{where}: {', '.join(sorted(set(names) - known))} not in models")
        return self


def bundled_path() -> Path:
    """The figures cobe ships."""
    return Path(str(files("cobe.report").joinpath(BUNDLED)))


def load_paper(source: str | Path = PAPER) -> PaperFigures:
    """The paper's figures: `paper` (the bundled file, or the one COBE_PAPER_FIGURES names) or a file's; a file
    in neither shape is one line naming the file and the field (InputError, exit 2)."""
    if str(source) == PAPER:
        source = os.environ.get(ENV) or bundled_path()
    path = Path(source)
    data = read_json(path, "the paper's published figures (JSON)")
    if isinstance(data, dict) and "table5_accuracy" in data:
        data = from_transcription(path, data)
    try:
        return PaperFigures.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise InputError(f"{path}: {where}: {first['msg']}; expected the paper's figures in cobe's shape "
                         f"(format {FORMAT!r}, as {BUNDLED} in the cobe package)") from None  # fmt: skip


def is_transcription(data: Any) -> bool:
    """Whether a parsed JSON document is the paper's figures in either shape (not a site file)."""
    return isinstance(data, dict) and ("table5_accuracy" in data or data.get("format") == FORMAT)


def from_transcription(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """The first transcription's shape (`table5_accuracy`, `fig7_accuracy_by_graph_type` …) in cobe's."""

    def values(key: str) -> dict[str, Any]:
        block = data.get(key)
        found = block.get("values") if isinstance(block, dict) else None
        if not isinstance(found, dict):
            raise InputError(f"{path}: {key}.values: expected an object of the paper's figures")
        return found

    found = data.get("judge")
    judge: dict[str, Any] = found if isinstance(found, dict) else {}
    return {
        "format": FORMAT,
        "source": {
            "paper": "CoBe: A Benchmark For Conversational Counterfactual Text Editing",
            "arxiv": "2610.13057",
            "how": str(data.get("about") or "as transcribed in " + path.name),
        },
        "release": {
            "name": "the paper's release",
            "scenarios": (data.get("table2_dataset") or {}).get("scenarios", 2000),
            "phrasings": 3,
            "judge": judge.get("model", "Claude-Opus-4.7"),
            "judge_structure": judge.get("structure", ""),
            "std": "sample std across the three phrasings (ddof = 1)",
            "tier_scenarios": 500,
        },
        "models": data.get("models"),
        "leaderboard": values("table5_accuracy"),
        "frontier_mean": data.get("frontier_mean_accuracy"),
        "figures": {
            "error_types": {_ERRORS.get(k, k): v for k, v in values("fig6_failure_rate_by_criterion").items()},
            "graph_type": values("fig7_accuracy_by_graph_type"),
            "phrasing": values("fig8_accuracy_by_phrasing"),
            "failure_mode": {_MODES.get(k, k): v for k, v in values("fig9_accuracy_by_failure_mode").items()},
        },
        "tiers": {
            m: {k.removeprefix("tier"): v for k, v in t.items()} for m, t in values("table7_prompt_tiers").items()
        },
        "agreement": {k: v for k, v in (data.get("d42_judge_human_agreement") or {}).items() if k != "note"},
        "dataset": data.get("table2_dataset"),
        "domains_percent": data.get("table3_domains_percent"),
        "graph_types_percent": data.get("table4_graph_types_percent"),
    }
