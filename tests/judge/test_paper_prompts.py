"""The `paper` judge prompt set's shape (App. D.2), its rules and worked examples, and the appendix's placeholders."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.judge import load_judge_prompts, parse_verdict
from cobe.judge.prompt_sets import placeholders, render_judge_text

# a worked example: its heading names the case, its last line is the reply, a bare letter
EXAMPLE = re.compile(r"^Example (\d+): (.+?)\n((?:.+\n)*?)([TF])$", re.MULTILINE)
REWRITE = "Ravi caught the 8:05 ferry, so he reached the island before lunch."


def examples(check: str) -> list[tuple[str, str, str]]:
    """(case, material lines, letter) of each worked example of a check, in order."""
    text = load_judge_prompts("paper").texts[check]
    found = EXAMPLE.findall(text)
    assert [int(number) for number, *_ in found] == list(range(1, len(found) + 1))
    return [(case, body, letter) for _, case, body, letter in found]


@pytest.mark.parametrize(("check", "true", "false"), [("connectors", 2, 4), ("preserve", 2, 3), ("change", 5, 3)])
def test_each_check_has_its_worked_examples_leaning_as_the_papers_do(check: str, true: int, false: int) -> None:
    letters = [letter for *_, letter in examples(check)]
    assert (letters.count("T"), letters.count("F")) == (true, false)
    assert len(letters) == load_judge_prompts("paper").texts[check].count("\nExample ")


@pytest.mark.parametrize("check", ["connectors", "preserve", "change"])
def test_every_example_replies_with_the_bare_letter_the_parser_accepts(check: str) -> None:
    prompts = load_judge_prompts("paper")
    for _, _, letter in examples(check):
        assert parse_verdict(letter) == (letter, None)
    # the reply the examples show is one character: it fits the judge's token limit with room to spare
    assert prompts.config.max_tokens >= 1 and prompts.config.parser == "tf"
    assert "→" not in prompts.texts[check]  # the old "→ T (reason)" shape, which the parser rejects


# every kind of case App. D.2's worked examples cover, and the letter our example of it gives
CASES = [
    ("connectors", "the effect is offered as the cause", "F"),
    ("connectors", '"due to" is kept although its cause now argues against the effect', "F"),
    ("connectors", "the stated cause does not explain the effect", "F"),
    ("connectors", "the stated cause explains the effect", "T"),
    ("connectors", '"despite" marks a real contrast', "T"),
    ("preserve", "kept in other words, inside a longer causal sentence", "T"),
    ("preserve", "still stated under a negation", "T"),
    ("preserve", "another person does what the claim says", "F"),
    ("preserve", "an attempt is reported instead of the success", "F"),
    ("preserve", "two claims; the first is kept, the second is only implied", "F"),
    ("change", "the outcome is reversed", "T"),
    ("change", "another person does what the claim says", "T"),
    ("change", "still holds inside a longer sentence", "F"),
    ("change", "the object is swapped", "T"),
    ("change", "the quality is swapped", "T"),
    ("change", "only as what might have happened under another condition", "T"),
    ("change", "two claims joined in one sentence; the first changed, the second still holds", "F"),
    ("change", "still holds in other words", "F"),
]


@pytest.mark.parametrize(("check", "case", "letter"), CASES)
def test_each_rule_has_its_worked_example(check: str, case: str, letter: str) -> None:
    matching = [found for found in examples(check) if case in found[0]]
    assert len(matching) == 1 and matching[0][2] == letter


@pytest.mark.parametrize("check", ["preserve", "change"])
def test_a_two_claim_example_with_one_kept_and_one_broken_fails(check: str) -> None:
    two_claims = [(body, letter) for case, body, letter in examples(check) if case.startswith("two claims")]
    assert len(two_claims) == 1
    body, letter = two_claims[0]
    facts = re.search(r'^Facts: "(.+)"$', body, re.MULTILINE)
    assert facts is not None and (facts.group(1).count(". ") == 1 or " and " in facts.group(1))
    assert letter == "F"


def test_preserve_needs_every_claim_stated_and_implied_is_not_enough() -> None:
    text = load_judge_prompts("paper").texts["preserve"]
    assert "every claim in the facts-to-keep block must still be stated" in text
    assert "or is only implied: a claim the reader would have to infer is not stated" in text
    assert "clearly implied" not in text
    assert "One claim lost is enough for F" in text


def test_change_fails_when_any_claim_still_holds_written_once() -> None:
    text = load_judge_prompts("paper").texts["change"]
    assert "The check passes only if no listed claim still holds." in text
    assert "One claim kept is enough for F, however many others changed." in text
    # the old wording, under which one swapped part of a multi-part fact counted as changed
    assert "a part of it" not in text
    rules = text[text.index("Criterion:") : text.index("Worked examples")]
    assert rules.count("Answer T if") == rules.count("Answer F if") == 1


def test_the_first_paper_set_still_loads_with_its_fingerprint() -> None:
    # runs judged before the rules were made exact stored the name "paper" and this fingerprint
    old = load_judge_prompts("paper-v1")
    assert old.name == "paper-v1" and old.fingerprint == "2fa9a75ff3d1"
    assert "clearly implied" in old.texts["preserve"] and "replaces a part of it" in old.texts["change"]
    assert load_judge_prompts("paper").fingerprint != old.fingerprint
    assert old.config.generate_config() == load_judge_prompts("paper").config.generate_config()


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
