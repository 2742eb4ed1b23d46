"""The `paper` judge prompt set's shape (App. D.2) and the appendix's placeholders."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.judge import load_judge_prompts
from cobe.judge.prompt_sets import placeholders, render_judge_text

EXAMPLE = re.compile(r"^\d+\. .+ → ([TF]) \(.+\)$", re.MULTILINE)
REWRITE = "Ravi caught the 8:05 ferry, so he reached the island before lunch."


@pytest.mark.parametrize(("check", "count"), [("connectors", 6), ("preserve", 5), ("change", 8)])
def test_each_check_has_its_worked_examples_with_both_letters(check: str, count: int) -> None:
    letters = EXAMPLE.findall(load_judge_prompts("paper").texts[check])
    assert len(letters) == count and set(letters) == {"T", "F"}


@pytest.mark.parametrize(
    ("check", "shows"),
    [("connectors", {"response"}), ("preserve", {"criterion", "response"}), ("change", {"criterion", "response"})],
)
def test_each_check_shows_only_what_the_paper_showed(check: str, shows: set[str]) -> None:
    assert placeholders(load_judge_prompts("paper").texts[check]) == shows


@pytest.mark.parametrize("check", ["connectors", "preserve", "change"])
def test_criterion_rules_examples_tolerance_material_then_the_answer(check: str, scenario) -> None:
    text = load_judge_prompts("paper").messages(check, scenario, REWRITE)[-1].content
    order = [
        text.index("Criterion:"),
        text.index("Answer T if"),
        text.index("Answer F if"),
        text.index("Worked examples"),
        text.index("several alternative rewrites"),
        text.index(REWRITE),
        text.index("exactly one character, T or F"),
    ]
    assert order == sorted(order) and text.rstrip().endswith("exactly one character, T or F.")
    assert scenario.story not in text and "Rewrite the original text" not in text  # no story, no query


def test_the_appendix_placeholders_stand_for_our_values() -> None:
    text = "A: $response_text | B: ${response_text} | C: $eq1 | D: ${eq2} | E: costs $42 and $eq10 | F: {response}"
    assert placeholders(text) == {"response", "eq1", "eq2"}
    out = render_judge_text(text, response="R", eq1="keep", eq2="change")
    assert out == "A: R | B: R | C: keep | D: change | E: costs $42 and $eq10 | F: R"


def test_an_appendix_folder_needs_its_criterion_and_the_rewrite(tmp_path: Path, scenario) -> None:
    folder = tmp_path / "pasted"
    folder.mkdir()
    (folder / "connectors.txt").write_text("Connectors in: $response_text. Reply T or F.")
    (folder / "preserve.txt").write_text("Keep: $eq1\nRewrite: $response_text")
    (folder / "change.txt").write_text("Change: $eq2\nRewrite: $response_text")
    prompts = load_judge_prompts(str(folder))
    assert prompts.name == "pasted" and prompts.config.temperature == 0 and prompts.config.choices == ("T", "F")
    assert (
        prompts.messages("change", scenario, REWRITE)[-1].content
        == f"Change: {scenario.change_text}\nRewrite: {REWRITE}"
    )
    (folder / "preserve.txt").write_text("Keep: $eq2\nRewrite: $response_text")  # the wrong criterion
    with pytest.raises(InputError, match=r"preserve\.txt: missing placeholder\(s\) \{criterion\} or \$eq1"):
        load_judge_prompts(str(folder))
