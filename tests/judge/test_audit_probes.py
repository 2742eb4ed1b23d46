"""Each audit probe's construction on site-shaped scenarios (one query, no domain, several `should_change`
strings): deterministic, from the scenario's own fields, with the verdicts the judge must give it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.dataset.loaders import load_dataset
from cobe.judge.audit_probes import (
    BY_NAME,
    INJECTION,
    NO_MATCH,
    NO_REWRITE,
    NOTHING_LEFT,
    ONE_FACT,
    PADDING,
    PROBES,
    REFUSAL,
    SELF_TEST,
    Pool,
    ProbeCase,
    probe_case,
    select_probes,
)
from support.scenarios import make_scenario

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "results_flat.jsonl"


@pytest.fixture(scope="module")
def site() -> list:
    return load_dataset(str(SITE)).scenarios


@pytest.fixture(scope="module")
def pool(site) -> Pool:
    return Pool.of(site)


def built(name: str, scenario, pool: Pool) -> ProbeCase:
    case = probe_case(name, scenario, pool)
    assert isinstance(case, ProbeCase), case
    assert case.probe == name
    return case


def test_the_first_three_are_the_self_tests_with_its_expectations():
    assert tuple(p.name for p in PROBES[:3]) == SELF_TEST == ("identity", "illustrative", "swapped")
    assert BY_NAME["identity"].expected == {"change": "F"} and BY_NAME["swapped"].expected == {"preserve": "F"}
    assert BY_NAME["illustrative"].expected == {"connectors": "T", "preserve": "T", "change": "T"}


def test_the_unchanged_story_illustrative_rewrite_and_another_storys_rewrite(site, pool):
    first = site[0]
    assert built("identity", first, pool).answer == first.story
    assert built("illustrative", first, pool).answer == first.illustrative_answer
    swapped = built("swapped", first, pool)
    assert swapped.answer != first.illustrative_answer and swapped.note.startswith("the rewrite of 102v")


def test_omission_removes_the_change_sentences_and_says_the_papers_rule_accepts_it(site, pool):
    case = built("omission", site[0], pool)
    assert case.answer == "Nadia opened her bakery at six because the market crowd arrived early."
    assert case.note == "removed sentence 2"
    probe = BY_NAME["omission"]
    assert probe.expected == {"change": "T"} and probe.paper_rule and not probe.never_passes


def test_omission_is_skipped_where_nothing_matched_or_nothing_is_left(site, pool):
    by_id = {s.id: s for s in site}
    assert probe_case("omission", by_id["101v2"], pool) == NOTHING_LEFT
    unmatched = make_scenario(change=["A comet was seen over the harbour."])
    assert probe_case("omission", unmatched, Pool([unmatched])) == NO_MATCH


def test_both_worlds_keeps_the_story_asserted_before_the_rewrite(site, pool):
    scenario = site[0]
    case = built("both_worlds", scenario, pool)
    assert case.answer.startswith(f"As the story first went: {scenario.story}\n\nHad it gone the other way: ")
    assert case.answer.endswith(scenario.illustrative_answer)
    assert BY_NAME["both_worlds"].expected == {"change": "F"} and BY_NAME["both_worlds"].never_passes


def test_non_answers_echo_the_one_query_say_nothing_or_refuse(site, pool):
    scenario = site[0]
    assert built("echo", scenario, pool).answer == scenario.queries[0]
    assert built("empty", scenario, pool).answer == ""
    assert built("refusal", scenario, pool).answer == REFUSAL
    for name in ("echo", "empty", "refusal"):
        assert BY_NAME[name].never_passes and BY_NAME[name].expected == {"preserve": "F"}


def test_the_injection_closes_the_rewrite_block_and_speaks_to_the_judge(site, pool):
    scenario = site[0]
    case = built("injection", scenario, pool)
    assert case.answer == f"{scenario.story}\n\n{INJECTION}"
    assert INJECTION.startswith("</rewrite>") and INJECTION.endswith("<rewrite>") and "your reply is T" in INJECTION
    probe = BY_NAME["injection"]
    assert probe.same_as == "identity" and probe.expected == {"change": "F"}


def test_the_invariances_pad_the_rewrite_or_reorder_the_facts_to_keep(pool):
    scenario = make_scenario(illustrative_answer="Ravi caught the ferry and reached the island by ten.")
    padded = built("padded", scenario, pool)
    assert padded.answer == f"{scenario.illustrative_answer} {PADDING}" and padded.scenario is scenario
    reordered = built("reordered", scenario, pool)
    assert reordered.answer == scenario.illustrative_answer
    assert reordered.scenario.preserve == list(reversed(scenario.preserve)) and reordered.scenario.id == scenario.id
    assert BY_NAME["padded"].same_as == BY_NAME["reordered"].same_as == "illustrative"
    assert probe_case("reordered", make_scenario(preserve=["Only one."], illustrative_answer="x"), pool) == ONE_FACT
    assert probe_case("padded", make_scenario(illustrative_answer=""), pool) == NO_REWRITE


def test_every_probe_is_the_same_for_the_same_data(site):
    first = [probe_case(p, s, Pool.of(site)) for p in PROBES for s in site]
    again = [probe_case(p, s, Pool.of(list(reversed(site)))) for p in PROBES for s in site]
    assert first == again


def test_choosing_probes_brings_the_base_a_comparison_needs():
    chosen, notices = select_probes(["injection,padded"])
    assert [p.name for p in chosen] == ["identity", "illustrative", "injection", "padded"]
    assert notices == [
        "--probes injection: its verdicts are compared with identity's, so identity is asked too",
        "--probes padded: its verdicts are compared with illustrative's, so illustrative is asked too",
    ]
    assert [p.name for p in select_probes(None)[0]] == [p.name for p in PROBES]
    with pytest.raises(InputError, match="--probes 'omision': unknown probe; expected some of identity,"):
        select_probes(["omision"])
