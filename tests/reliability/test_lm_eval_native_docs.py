"""`cobe import --from lm-eval` of a task whose documents each hold a whole scenario (native or paper-shaped,
one document per query) imports them: the repeats of one scenario are one scenario, not "duplicate id"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cobe.core.errors import InputError
from cobe.integrations.lm_eval import import_lm_eval
from cobe.run import judge_run
from support.run_data import scenario


def paper_shaped(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "Core Set ID": doc["core_id"],
        "Variation ID": doc["variation"],
        "Domain": doc["domain"],
        "Story": doc["story"],
        "Query": doc["queries"],
        "Illustrative answer (not scored)": doc["illustrative_answer"],
        "Evaluation criteria": [doc["preserve"][0], doc["change"][0]],
    }


def write_samples(path: Path, docs: list[dict[str, Any]]) -> Path:
    lines = []
    for number, doc in enumerate(docs):
        record = {
            "doc_id": number,
            "doc": doc,
            "arguments": {"gen_args_0": {"arg_0": "a prompt", "arg_1": {"temperature": 0.0, "max_gen_toks": 64}}},
            "resps": [[f"Answer {number}."]],
            "filtered_resps": [f"Answer {number}."],
        }
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("shape", ["native", "paper"])
def test_documents_holding_whole_scenarios_import_without_data(tmp_path: Path, shape: str) -> None:
    docs = []
    for i in (1, 2):
        whole = scenario(i) if shape == "native" else paper_shaped(scenario(i))
        docs += [whole | ({"template": t} if shape == "native" else {"query_idx": q}) for q, t in enumerate("ABC")]
    samples = write_samples(tmp_path / "samples_cobe_2026-12-04T10-00-00.jsonl", docs)
    imported = import_lm_eval(samples, tmp_path / "run", model="org/model")
    assert (imported.responses, imported.scenarios, imported.templates) == (6, 2, ["A", "B", "C"])
    judge_run(tmp_path / "run", "mock/judge-pass")


def test_documents_of_one_scenario_that_differ_are_still_refused_in_one_line(tmp_path: Path) -> None:
    first, second = scenario(1) | {"template": "A"}, scenario(1) | {"template": "B", "story": "Another story."}
    samples = write_samples(tmp_path / "samples.jsonl", [first, second])
    with pytest.raises(InputError, match="duplicate id .*differ beyond the query they ask; give the dataset") as info:
        import_lm_eval(samples, tmp_path / "run", model="org/model")
    assert "\n" not in str(info.value)
