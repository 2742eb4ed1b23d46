"""The scripted evaluation the integration tests share: four invented scenarios × templates A, B, C,
answered by two scripted respondents and judged by a scripted judge, so a run holds passes, fails
(on every check, and on the change check alone) and unscored verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from support.run_data import scenario

MODEL_A = "mock/file:model_a.yaml"
MODEL_B = "mock/file:model_b.yaml"
JUDGE = "mock/file:judge.yaml"
N_SCENARIOS = 4
# judge prompts are matched in this order: the first key found in the prompt decides the answer
JUDGE_SCRIPT = {"GARBLE": "maybe", "FAILALL": "F", "before noon": "F", "default": "T"}
# (scenario, template) → the marker a respondent adds to its answer; an answer without one passes every check
OUTCOMES = {
    MODEL_A: {(1, "B"): "FAILALL", (1, "C"): "GARBLE", (4, "C"): "FAILALL"},
    MODEL_B: {(1, "A"): "FAILALL", (2, "A"): "FAILALL", (2, "C"): "GARBLE"},
}
QUERY_KEYS = {
    "A": "instead had the baker {i} closed early",
    "B": "if the baker {i} had closed early",
    "C": "occurred had the baker {i} closed early",
}


def scenarios() -> list[dict]:
    """The dataset: scenario 3's change criterion is one the scripted judge always finds still true."""
    items = [scenario(i) for i in range(1, N_SCENARIOS + 1)]
    items[2]["change"] = ["Many visitors bought bread before noon."]
    return items


def response(model: str, i: int, template: str) -> str:
    """The scripted answer of `model` to scenario i under `template`."""
    marker = OUTCOMES[model].get((i, template), "")
    return f"Baker {i} closed early although a festival was on. Few visitors bought bread. {marker}".strip()


def respondent_script(model: str) -> dict[str, str]:
    """The mock/file mapping of a respondent: a substring of each prompt → the answer."""
    return {QUERY_KEYS[t].format(i=i): response(model, i, t) for i in range(1, N_SCENARIOS + 1) for t in QUERY_KEYS}


def write_inputs(root: Path) -> Path:
    """The dataset and the three mock scripts under `root`; returns the dataset path."""
    data = root / "data.jsonl"
    data.write_text("".join(json.dumps(s) + "\n" for s in scenarios()), encoding="utf-8")
    for model in (MODEL_A, MODEL_B):
        (root / model.split(":", 1)[1]).write_text(yaml.safe_dump(respondent_script(model)), encoding="utf-8")
    (root / JUDGE.split(":", 1)[1]).write_text(yaml.safe_dump(JUDGE_SCRIPT, sort_keys=False), encoding="utf-8")
    return data


def read_jsonl(path: Path) -> list[dict]:
    """Every JSON object of a JSON-lines file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
