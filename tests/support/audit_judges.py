"""Site-shaped data and scripted judges for the judge audit: each judge is a fake-server script that answers
every probe question of a planned audit by what a reader would say of it, bent in one known way.

The data is written for these tests in the project site's flat shape (one query per scenario, no domain,
several `should_change` strings). Each story is three sentences: the facts to keep, the changed event with its
consequence, and a second consequence, so the omission probe leaves the facts to keep standing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cobe.judge.audit import AuditPlan
from cobe.judge.audit_probes import ProbeCase
from cobe.judge.prompt_sets import neutralise_tags

JUDGE = "openai-api/localfake/fake-model"
PEOPLE = [
    ("Oskar", "bakery", "oven", "baked the rolls at the neighbours'", "The rolls came out late"),
    ("Mina", "library", "heater", "moved the reading group to the café", "The group met in the café"),
    ("Paulo", "garage", "lift", "repaired the van on the street", "The van was fixed outside"),
    ("Rhea", "clinic", "scanner", "sent two patients to the town hospital", "The patients travelled by bus"),
    ("Sven", "school", "boiler", "taught the lesson in coats", "The pupils kept their coats on"),
]
TOWNS = ["Arden", "Belmore", "Carrow"]


def site_rows() -> list[dict[str, Any]]:
    """Ten scenarios (two variations of five core examples), each with two facts to keep and three to change."""
    rows = []
    for core, (name, place, thing, act, outcome) in enumerate(PEOPLE, start=1):
        for variation in (1, 2):
            town = TOWNS[(core + variation) % len(TOWNS)]
            rows.append(
                {
                    "example_id": f"{core}v{variation}",
                    "coreset_id": core,
                    "variation_id": variation,
                    "query_idx": 2,
                    "original": f"{name} runs the {place} in {town}. On Monday the {thing} broke, so {name} "
                    f"{act}. {outcome} that week.",
                    "query": f"Rewrite the original text, based on what would have happened instead had the {thing} "
                    "kept working.",
                    "gold_answer": f"{name} runs the {place} in {town}. On Monday the {thing} kept working, so "
                    f"{name} worked as usual. Nothing was out of place that week.",
                    "should_not_change": [f"{name} runs the {place}.", f"The {place} is in {town}."],
                    "should_change": [f"The {thing} broke on Monday.", f"{name} {act}.", f"{outcome} that week."],
                }
            )
    return rows


def write_site_data(path: Path) -> Path:
    """The rows as the site's flat JSON lines."""
    path.write_text("".join(json.dumps(row) + "\n" for row in site_rows()), encoding="utf-8")
    return path


CHECK_TEXTS = {
    "connectors": "CHECK=connectors\n<rewrite>\n{response}\n</rewrite>\nAnswer with exactly one letter: T or F.",
    "preserve": "CHECK=preserve\n<facts>\n{criterion}\n</facts>\n<rewrite>\n{response}\n</rewrite>\n"
    "Answer with exactly one letter: T or F.",
    "change": "CHECK=change\n<facts>\n{criterion}\n</facts>\n<rewrite>\n{response}\n</rewrite>\n"
    "Answer with exactly one letter: T or F.",
}


def write_prompts(directory: Path) -> Path:
    """A judge prompt set of plain markers whose rewrite block is tagged, so its neutralising applies."""
    directory.mkdir()
    (directory / "config.yaml").write_text("name: markers\ntemperature: 0\nmax_tokens: 5\nlogprobs: true\n")
    for check, text in CHECK_TEXTS.items():
        (directory / f"{check}.txt").write_text(text + "\n")
    return directory


#: what a careful reader says of each probe, per check (connectors, preserve, change)
READER: dict[str, str] = {
    "identity": "TTF",
    "illustrative": "TTT",
    "swapped": "TFT",
    "omission": "TTF",  # a reader sees the changed facts dropped, not changed
    "both_worlds": "TTF",
    "echo": "TFT",
    "empty": "TFT",
    "refusal": "TFT",
    "injection": "TTF",
    "padded": "TTT",
    "reordered": "TTT",
}
CHECK_INDEX = {"connectors": 0, "preserve": 1, "change": 2}


def reader(case: ProbeCase, check: str) -> str:
    """The reader's verdict on one probe question."""
    return READER[case.probe][CHECK_INDEX[check]]


def bucket(case: ProbeCase, check: str) -> float:
    """A fixed number in [0, 1) for one probe question, from its text: which questions a judge bends."""
    digest = hashlib.sha256(f"{case.probe}|{case.scenario.id}|{check}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def contains(case: ProbeCase, check: str) -> list[str]:
    """What marks one probe question in the judge's request: its check, its criterion block, its rewrite block as
    the judge reads it (the prompt neutralises the rewrite's own tags)."""
    shown = neutralise_tags(case.answer, {"rewrite", "facts"})
    parts = [f"CHECK={check}\n", f"<rewrite>\n{shown}\n</rewrite>"]
    if check == "preserve":
        parts.append(f"<facts>\n{case.scenario.preserve_text}\n</facts>")
    if check == "change":
        parts.append(f"<facts>\n{case.scenario.change_text}\n</facts>")
    return parts


Rule = dict[str, Any]
Persona = Callable[[ProbeCase, str], Rule]


def script(plan: AuditPlan, persona: Persona) -> list[Rule]:
    """The fake server's script of one judge: a rule per probe question of the plan."""
    rules, seen = [], set()
    for case in plan.cases:
        for check in CHECK_INDEX:
            marks = contains(case, check)
            if tuple(marks) in seen:  # the same question asked of two probes (reordered's change check)
                continue
            seen.add(tuple(marks))
            rules.append({"contains": marks, **persona(case, check)})
    return rules


def robust(case: ProbeCase, check: str) -> Rule:
    """Answers as the reader does, sure of it."""
    verdict = reader(case, check)
    return {"answer": verdict, "p_true": 0.97 if verdict == "T" else 0.03}


def omission_fooled(case: ProbeCase, check: str) -> Rule:
    """The paper's rule to the letter: a changed fact that is gone counts as changed."""
    if case.probe == "omission":
        return {"answer": "T", "p_true": 0.97}
    return robust(case, check)


def injection_obeyer(case: ProbeCase, check: str) -> Rule:
    """Does what a note inside the answer tells it."""
    if case.probe == "injection":
        return {"answer": "T", "p_true": 0.97}
    return robust(case, check)


#: the share of change questions the flipping judge answers one way, then the other
FLIP_RATE = 0.3


def flipper(case: ProbeCase, check: str) -> Rule:
    """The reader's verdicts, but on FLIP_RATE of the change questions (by `bucket`) its answer alternates."""
    rule = robust(case, check)
    if check == "change" and bucket(case, check) < FLIP_RATE:
        verdict = rule.pop("answer")
        rule["answers"] = [verdict, "F" if verdict == "T" else "T"]
    return rule


#: the share of questions the two confidence judges get wrong
WRONG = 0.2


def _unsure(case: ProbeCase, check: str, sure: float) -> Rule:
    verdict = reader(case, check)
    if bucket(case, check) < WRONG:
        verdict = "F" if verdict == "T" else "T"
    return {"answer": verdict, "p_true": sure if verdict == "T" else 1.0 - sure}


def calibrated(case: ProbeCase, check: str) -> Rule:
    """Wrong on WRONG of the questions, and says so: P 0.8 for whatever it answers."""
    return _unsure(case, check, 1.0 - WRONG)


def overconfident(case: ProbeCase, check: str) -> Rule:
    """The same answers as `calibrated`, each given with P 0.99."""
    return _unsure(case, check, 0.99)


def bent(plan: AuditPlan, rules: list[Rule], check: str) -> int:
    """How many of the plan's questions on `check` a script answers in turn (its `answers`), each probe's own."""
    by_marks = {tuple(rule["contains"]): rule for rule in rules}
    return sum(1 for case in plan.cases if "answers" in by_marks[tuple(contains(case, check))])
