"""`cobe judges agree`: the path a researcher walks to validate a judge against the authors' verdicts. A
site-shaped file (our own stories, the site's nested layout and verdict words) is imported, judged by a judge
on a local server speaking the OpenAI protocol and scripted to agree with the published verdicts on a known
share, and the agreement report's pass rates, kappa and 2×2 cells are checked exactly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import CliResult, assert_one_line_error, run_cobe
from support.openai_server import ThreadedServer

JUDGE = "openai-api/localfake/fake-model"
MODELS = ("m-a", "m-b")
CORES = range(11, 17)  # six core examples of two variations each: 12 scenarios
GRAPHS = ("Chain-like", "Fork-like", "Collider-like")

# per model, what the site published and what the scripted judge does, response by response:
#   (published verdict, judge): judge "pass" answers T to every check, "fail" F, "garbled" no letter at all
PLAN = {
    "m-a": [("unknown", "pass")]
    + [("correct", "pass")] * 4
    + [("wrong", "fail")] * 4
    + [("correct", "fail")]
    + [("wrong", "pass")] * 2,
    "m-b": [("correct", "garbled"), ("unknown", "garbled")]
    + [("correct", "pass")] * 4
    + [("wrong", "fail")] * 3
    + [("correct", "fail")]
    + [("wrong", "pass")] * 2,
}


def _ids() -> list[tuple[int, int]]:
    return [(core, variation) for core in CORES for variation in (1, 2)]


def _marker(model: str, core: int, variation: int) -> str:
    return f"[{model}:{core}v{variation}]"


def write_site_file(path: Path) -> Path:
    """The site's `category-examples.json` shape: examples under `by_domain` and `by_graph`, each carrying
    every model's response and verdict."""
    examples = []
    for n, (core, variation) in enumerate(_ids()):
        outputs = {
            model: {
                "response": f"Tom walked home in the rain {_marker(model, core, variation)}, so his coat got wet.",
                "verdict": PLAN[model][n][0],
            }
            for model in MODELS
        }
        examples.append(
            {
                "example_id": f"{core}v{variation}",
                "coreset_id": core,
                "variation_id": variation,
                "query_idx": 2,
                "original": f"Tom ({core}.{variation}) walked home in the sun, so his coat stayed dry.",
                "query": "Rewrite the original text, based on what would have happened instead had it rained.",
                "gold_answer": "Tom walked home in the rain, so his coat got wet.",
                "should_not_change": ["Tom walked home."],
                "should_change": ["His coat stayed dry."],
                "model_outputs": outputs,
            }
        )
    by_graph: dict[str, list[dict]] = {}
    for example in examples:
        by_graph.setdefault(GRAPHS[example["coreset_id"] % len(GRAPHS)], []).append(example)
    document = {"examples_per_category": 10, "by_domain": {"Engineering": examples}, "by_graph": by_graph}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def judge_script() -> list[dict]:
    """Rules of the fake server: a response to fail gets F from every check, a garbled one no letter."""
    answers = {"fail": "F", "garbled": "??"}
    return [
        {"contains": [_marker(model, core, variation)], "answer": answers[PLAN[model][n][1]]}
        for model in MODELS
        for n, (core, variation) in enumerate(_ids())
        if PLAN[model][n][1] in answers
    ]


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An imported site run, judged by the scripted judge (its verdicts now shown, the site's kept); the tests
    only read it."""
    tmp_path = tmp_path_factory.mktemp("agree")
    run = tmp_path / "runs" / "site"
    imported = run_cobe(
        "import", str(write_site_file(tmp_path / "category-examples.json")), "--from", "cobe-site", "--out", str(run)
    )
    assert imported.returncode == 0, imported.stderr
    server = ThreadedServer(script=judge_script())
    try:
        env = {"LOCALFAKE_BASE_URL": server.base_url, "LOCALFAKE_API_KEY": None}
        done = run_cobe("judge", str(run), "--judge", JUDGE, env=env)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    yield run


def agree(run: Path, *extra: str) -> CliResult:
    return run_cobe("judges", "agree", str(run), "--resamples", "200", *extra)


def test_a_scripted_judge_against_the_published_verdicts(judged: Path) -> None:
    result = json.loads(agree(judged, "--json").stdout)
    assert result["reference"] == "cobe-site (published)" and result["rows"] == 24 and result["exit_code"] == 0
    [compared] = result["sets"]
    assert compared["judge"] == JUDGE and compared["judge_prompts"] == "paper"
    groups = {g["model"]: g for g in compared["groups"]}
    assert list(groups) == ["m-a", "m-b", "all"]
    a, b, both = groups["m-a"], groups["m-b"], groups["all"]
    # m-a: 4 both pass, 4 both fail, 1 only the site passes, 2 only the judge passes; m-b: 4, 3, 1, 2
    assert [a[c] for c in ("both_pass", "both_fail", "reference_pass_set_fail", "reference_fail_set_pass")] == [
        4,
        4,
        1,
        2,
    ]
    assert [b[c] for c in ("both_pass", "both_fail", "reference_pass_set_fail", "reference_fail_set_pass")] == [
        4,
        3,
        1,
        2,
    ]
    assert (a["compared"], b["compared"], both["compared"]) == (11, 10, 21)
    assert (a["kappa"], b["kappa"], both["kappa"]) == (
        pytest.approx(28 / 61),
        pytest.approx(0.4),
        pytest.approx(16 / 37),
    )
    assert (a["reference_accuracy"], a["set_accuracy"]) == (pytest.approx(500 / 11), pytest.approx(600 / 11))
    assert (b["reference_accuracy"], b["set_accuracy"]) == (pytest.approx(50.0), pytest.approx(60.0))
    assert (both["agreement"], both["difference"]) == (pytest.approx(100 * 15 / 21), pytest.approx(100 * 2 / 21))
    low, high = both["kappa_ci"]
    assert low < 16 / 37 < high and both["ci_unit"] == "core example" and both["clusters"] == 6
    assert compared["left_out"] == {
        "errors": 0,
        "not_judged": 0,
        "unscored_both": 1,
        "unscored_reference": 1,
        "unscored_set": 1,
    }
    differ = {(d["model"], d["scenario_id"], d["reference"], d["set"]) for d in compared["differences"]}
    assert len(compared["differences"]) == 6
    assert ("m-a", "15v2", "passed", "failed") in differ and ("m-b", "16v2", "failed", "passed") in differ


def test_the_text_report_shows_the_table_what_was_left_out_and_the_first_differences(judged: Path) -> None:
    shown = agree(judged)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.startswith("Agreement with cobe-site (published) on ") and "(24 rows)" in out
    assert f"{JUDGE} (prompts paper) vs. cobe-site (published)" in out
    [overall] = [line for line in out.splitlines() if line.startswith("│ all ")]
    cells = [cell.strip() for cell in overall.strip("│").split("│")]
    assert cells[:7] == ["all", "21", "47.6", "57.1", "+9.5", "71.4", "0.432"]
    assert cells[8:] == ["8", "7", "2", "4"]
    assert "kappa 95% CI: bootstrap over 6 core examples (200 resamples, seed 0)." in out
    assert "Left out: 1 unscored by the reference, 1 by this set, 1 by both; 0 not yet judged" in out
    assert "Rows where they differ (6):" in out and "  m-a 15v2 A: reference passed, this set failed" in out


def test_another_set_as_the_reference_and_the_one_line_errors(judged: Path, tmp_path: Path) -> None:
    swapped = json.loads(agree(judged, "--reference", JUDGE, "--json").stdout)
    assert swapped["reference"] == f"{JUDGE} (prompts paper)"
    [published] = swapped["sets"]
    assert published["judge"] == "cobe-site (published)"
    both = published["groups"][-1]
    assert both["kappa"] == pytest.approx(16 / 37)  # kappa is symmetric; the cells swap sides
    assert (both["reference_pass_set_fail"], both["reference_fail_set_pass"]) == (4, 2)

    assert_one_line_error(
        agree(judged, "--reference", "openai/nobody"), "--reference openai/nobody", "names no verdict set"
    )
    assert_one_line_error(agree(tmp_path), "not a run directory")
    unjudged = tmp_path / "unjudged"
    site = write_site_file(tmp_path / "site.json")
    assert run_cobe("import", str(site), "--from", "cobe-site", "--out", str(unjudged)).returncode == 0
    alone = agree(unjudged)
    assert alone.returncode == 2
    assert_one_line_error(alone, "no verdict set but the reference cobe-site (published)", "cobe judge")
    as_json = agree(unjudged, "--json")
    assert as_json.returncode == 2 and json.loads(as_json.stdout)["exit_code"] == 2


def test_a_judge_that_fails_everything_has_no_kappa_and_says_why(tmp_path: Path) -> None:
    run = tmp_path / "site"
    site = write_site_file(tmp_path / "site.json")
    assert run_cobe("import", str(site), "--from", "cobe-site", "--out", str(run)).returncode == 0
    judged = run_cobe("judge", str(run), "--judge", "mock/judge-fail")
    assert judged.returncode == 0, judged.stderr
    [compared] = json.loads(agree(run, "--json").stdout)["sets"]
    for group in compared["groups"]:  # by the formula 0.000, with a bootstrap interval of 0.000 – 0.000
        assert group["kappa"] is None and group["kappa_ci"] is None
        assert group["kappa_undefined"] == "undefined: this set said fail on every item"
    out = agree(run).stdout
    [overall] = [line for line in out.splitlines() if line.startswith("│ all ")]
    assert "undefined" in overall and "0.000" not in overall
    assert "kappa of all: undefined: this set said fail on every item." in out
