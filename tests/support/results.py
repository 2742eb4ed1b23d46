"""Synthetic results.jsonl rows (valid ResultRow dicts) and run directories for report tests."""

from __future__ import annotations

import json
import random
from pathlib import Path

from cobe.core.results import CHECKS, ResultRow
from cobe.judge.checks import row_status

DOMAINS = ("travel", "cooking", "sports", "school", "work")
GRAPH_TYPES = ("chain", "collider", "fork", "diamond", "correlated", "hybrid")
MODES = (
    "unchanged_reason",
    "background_rationalised",
    "stale_consequence",
    "physical_quantitative",
    "spatial",
    "unsupported_connector",
    "history_rewritten",
)
TEMPLATES = ("A", "B", "C")
WORDS = [
    "the",
    "a",
    "river",
    "town",
    "baker",
    "bus",
    "rain",
    "early",
    "late",
    "kept",
    "walked",
    "opened",
    "closed",
    "market",
    "coffee",
    "bridge",
]


def _story(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(30)).capitalize() + "."


def make_rows(
    model: str = "mock/model",
    n_scenarios: int = 20,
    pass_rate: float = 0.6,
    seed: int = 0,
    run_id: str = "run-1",
    templates: tuple[str, ...] = TEMPLATES,
    tier: int = 1,
    unscored_rate: float = 0.0,
    error_rate: float = 0.0,
) -> list[dict]:
    """Rows for n_scenarios × templates with a given share passing; failures pick one failing check."""
    rng = random.Random(f"{seed}-{model}-{run_id}")
    meta = random.Random(seed)  # scenario metadata is the same for every model at one seed
    rows = []
    for index in range(n_scenarios):
        core, variation = 100 + index // 3, index % 3 + 1
        story = _story(meta)
        scenario = {
            "scenario_id": f"{core}v{variation}",
            "core_id": core,
            "variation": variation,
            "domain": DOMAINS[index % len(DOMAINS)],
            "graph_type": GRAPH_TYPES[index % len(GRAPH_TYPES)],
            "failure_modes": [MODES[index % len(MODES)]],
            "tags": ["numeric"] if index % 4 == 0 else (["latent"] if index % 4 == 1 else []),
            "story": story,
            "preserve": [f"Fact {index} stays."],
            "change": [f"Fact {index} changes."],
        }
        for phrasing, template in enumerate(templates):
            verdicts = {check: "T" for check in CHECKS}
            unscored: dict[str, str] = {}
            error = None
            response = story.replace("river", "lake") + " Then it rained."
            if rng.random() >= pass_rate:
                verdicts[rng.choice(CHECKS)] = "F"
            if rng.random() < unscored_rate:
                verdicts["change"] = None
                unscored["change"] = "no T/F letter in judge output"
            if rng.random() < error_rate:
                error, response, verdicts = "timeout", None, {}
            status, passed = row_status(verdicts, error)
            row = ResultRow(
                run_id=run_id,
                model=model,
                judge="mock/judge",
                template=template,
                tier=tier,
                phrasing=phrasing,
                query=f"Rewrite the original text, had {template} happened.",
                response=response,
                response_error=error,
                verdicts=verdicts,
                judge_raw={c: v for c, v in verdicts.items() if v},
                unscored=unscored,
                passed=passed,
                status=status,
                **scenario,
            )
            rows.append(row.model_dump())
    return rows


def _judged_row(
    run_id: str, model: str, core: int, variation: int, template: str, phrasing: int, verdicts: dict
) -> dict:
    """One judged row of scenario `<core>v<variation>` under `template` (phrasing index `phrasing`)."""
    status, passed = row_status(verdicts, None)
    return ResultRow(
        run_id=run_id,
        model=model,
        scenario_id=f"{core}v{variation}",
        core_id=core,
        variation=variation,
        domain="travel",
        template=template,
        phrasing=phrasing,
        verdicts=verdicts,
        passed=passed,
        status=status,
        story="s",
        response="r",
    ).model_dump()


def rows_with_counts(model: str, counts: dict[str, tuple[int, int]], run_id: str = "run-1") -> list[dict]:
    """Rows whose per-template (passes, scored) are exactly `counts`; one scenario per row index."""
    rows = []
    for phrasing, (template, (passes, scored)) in enumerate(counts.items()):
        for index in range(scored):
            verdict = "T" if index < passes else "F"
            verdicts = {"connectors": "T", "preserve": verdict, "change": "T"}
            rows.append(_judged_row(run_id, model, index + 1, 1, template, phrasing, verdicts))
    return rows


def family_rows(
    model: str, cores: int = 20, variations: int = 10, passing: frozenset[int] | None = None, run_id: str = "run-1"
) -> list[dict]:
    """Rows for cores × variations × A–C whose outcome is fixed by the core: cores in `passing` (default:
    the odd ones) pass every variation and phrasing, the others fail them all."""
    chosen = passing if passing is not None else frozenset(range(1, cores + 1, 2))
    rows = []
    for core in range(1, cores + 1):
        verdict = "T" if core in chosen else "F"
        verdicts = {"connectors": "T", "preserve": "T", "change": verdict}
        for variation in range(1, variations + 1):
            for phrasing, template in enumerate(TEMPLATES):
                rows.append(_judged_row(run_id, model, core, variation, template, phrasing, verdicts))
    return rows


def write_run(directory: Path, rows: list[dict], agreement: dict | None = None) -> Path:
    """A run directory holding results.jsonl (and agreement.json when given)."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "results.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    if agreement is not None:
        (directory / "agreement.json").write_text(json.dumps(agreement), encoding="utf-8")
    return directory
