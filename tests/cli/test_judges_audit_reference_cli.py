"""`cobe judges audit --run-dir RUN --reference REF`: how far the audited judge's P(T) on a run's responses holds
against a reference the run holds (the site's published verdicts, the human majority of the run's rating study,
another verdict set such as a panel's majority), read from the store with no call for it.

One imported site run of 20 responses is judged by two scripted judges with the same letters: `fair` says
P(pass) = 0.8 (P(T) = 0.8^(1/3) on each check) where it passes, and the reference agrees on 4 in 5 of those;
`bold` says 0.999 on each check. Where they fail a response every reference fails it too.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cobe.annotate import StudyStore, create_study
from support.cli import CliResult, assert_one_line_error, run_cobe
from support.openai_server import ThreadedServer, contract_env

FAIR, BOLD = "openai-api/localfake/fair", "openai-api/localfake/bold"
PANEL = ("openai-api/localfake/p1", "openai-api/localfake/p2", "openai-api/localfake/p3")
PUBLISHED = "cobe-site (published)"
ANTHROPIC = "anthropic/claude-opus-4-7"
N = 20
JUDGE_PASSES = range(15)  # the judges pass responses 0-14 and fail 15-19
PUBLISHED_FAILS = {0, 5, 10}  # of the passed: 12 of 15 correct, as fair says
HUMANS_FAIL = PUBLISHED_FAILS | {1}  # of the passed: 11 of 15 pass the human majority
FAIR_P, BOLD_P = 0.8 ** (1 / 3), 0.999


def _ids() -> list[str]:
    return [f"{11 + n // 2}v{1 + n % 2}" for n in range(N)]


def write_site_file(path: Path) -> Path:
    """The site's per-category sample: one model's response per scenario, each with the site's verdict."""
    examples = []
    for n, example in enumerate(_ids()):
        core, variation = (int(part) for part in example.split("v"))
        published = "wrong" if n in PUBLISHED_FAILS or n not in JUDGE_PASSES else "correct"
        examples.append(
            {
                "example_id": example,
                "coreset_id": core,
                "variation_id": variation,
                "query_idx": 2,
                "original": f"Ines ({example}) cycled to the market in the dry, so her bag stayed clean.",
                "query": "Rewrite the original text, based on what would have happened instead had it poured.",
                "gold_answer": "Ines cycled to the market in the rain, so her bag got muddy.",
                "should_not_change": ["Ines cycled to the market."],
                "should_change": ["Her bag stayed clean."],
                "model_outputs": {
                    "m-a": {"response": f"Ines cycled to the market in the rain [r{n}], so her bag got muddy.",
                            "verdict": published},
                },
            }
        )  # fmt: skip
    document = {
        "examples_per_category": 10,
        "by_domain": {"Engineering": examples},
        "by_graph": {"Chain-like": examples},
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def script(p_sure: float) -> list[dict]:
    """Every check of response n: T with P(T) `p_sure` where the judge passes it, else F with P(T) 0.05."""
    return [
        {"contains": [f"[r{n}]"], "answer": "T", "p_true": p_sure}
        if n in JUDGE_PASSES
        else {"contains": [f"[r{n}]"], "answer": "F", "p_true": 0.05}
        for n in range(N)
    ]


def rate(run: Path) -> None:
    """A three-rater study of every response: Yes where the human majority passes it (one rater dissents once)."""
    create_study(run, n=N, seed=0, raters=3)
    store = StudyStore(run / "study")
    raters = [p for p in store.principals() if p.role == "rater"]
    for item in store.items():
        n = int(item.response.split("[r")[1].split("]")[0])
        passes = n in JUDGE_PASSES and n not in HUMANS_FAIL
        for index, rater in enumerate(raters):
            dissent = n == 2 and index == 0
            store.save_rating(rater.id, item.id, "No" if passes == dissent else "Yes", "")


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadedServer]:
    """One fake server for the module: the judges' scripts while the run is made, the default verdict after."""
    served = ThreadedServer()
    try:
        yield served
    finally:
        served.close()


def env_of(server: ThreadedServer) -> dict[str, str | None]:
    return {"LOCALFAKE_BASE_URL": server.base_url, "LOCALFAKE_API_KEY": None, **contract_env(server)}


def judge(server: ThreadedServer, run: Path, *args: str) -> None:
    done = run_cobe("judge", str(run), *args, env=env_of(server))
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, server: ThreadedServer) -> Path:
    """The imported run, judged by fair, bold, a panel, a judge without logprobs, and two judges of one
    response each; rated by a study. Each test audits a copy."""
    tmp = tmp_path_factory.mktemp("reference")
    run = tmp / "run"
    imported = run_cobe("import", str(write_site_file(tmp / "category-examples.json")), "--from", "cobe-site",
                        "--out", str(run))  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    server.control(script=script(FAIR_P))
    judge(server, run, "--judge", FAIR)
    server.control(script=script(BOLD_P))
    judge(server, run, "--judge", BOLD)
    judge(server, run, *(arg for spec in PANEL for arg in ("--judge", spec)))
    judge(server, run, "--judge", ANTHROPIC)
    judge(server, run, "--judge", "openai-api/localfake/part-a", "--ids", "11v1")
    judge(server, run, "--judge", "openai-api/localfake/part-b", "--ids", "11v2")
    server.control(reset=True)
    rate(run)
    return run


@pytest.fixture
def run(made: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(made, copy)
    return copy


def audit(server: ThreadedServer, run: Path, judge_spec: str, *extra: str) -> CliResult:
    """A small audit (two scenarios, the unchanged story only, one ask) kept beside the run."""
    return run_cobe(
        "judges", "audit", "--judge", judge_spec, "--run-dir", str(run), "--n", "2", "--probes", "identity",
        "--repeats", "1", *extra, cwd=run.parent, env=env_of(server),
    )  # fmt: skip


def reference_of(result: CliResult) -> dict:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["reference"]


def table(reference: dict, check: str) -> dict:
    return next(t for t in reference["tables"] if t["check"] == check)


def test_ece_ranks_the_over_confident_judge_below_the_calibrated_one_against_the_published_verdicts(server, run):
    fair = reference_of(audit(server, run, FAIR, "--reference", PUBLISHED, "--json"))
    bold = reference_of(audit(server, run, BOLD, "--reference", PUBLISHED, "--json"))
    assert fair["reference"] == PUBLISHED and fair["rows"] == N
    # the site publishes one verdict per response: only the pass row, P(pass) the product of the three P(T)
    assert [t["check"] for t in fair["tables"]] == ["pass"]
    fair_pass, bold_pass = table(fair, "pass"), table(bold, "pass")
    assert fair_pass["items"] == bold_pass["items"] == N
    assert fair_pass["ece"] == pytest.approx(0.0, abs=1e-3)
    assert bold_pass["ece"] == pytest.approx(15 / N * (BOLD_P**3 - 12 / 15), abs=1e-4)
    assert fair_pass["brier"] == pytest.approx((12 * 0.2**2 + 3 * 0.8**2) / N, abs=1e-4)
    assert fair_pass["ece"] < bold_pass["ece"]
    passed = next(b for b in fair_pass["bins"] if b["items"] == 15)
    assert passed["mean_p"] == pytest.approx(0.8) and passed["observed"] == pytest.approx(0.8)


def test_ece_ranks_them_the_same_way_against_the_human_majority_of_the_runs_study(server, run):
    fair = audit(server, run, FAIR, "--reference", "study")
    assert fair.returncode == 0, fair.stderr
    line = next(line for line in fair.stdout.splitlines() if "human majority" in line)
    assert "20 responses" in line and "P(pass)" in line and "expected calibration error 0.050" in line
    card = json.loads((run / "audit.json").read_text())["reference"]
    bold = reference_of(audit(server, run, BOLD, "--reference", f"study:{run / 'study'}", "--json"))
    assert card["kind"] == "human" and card["rows"] == N
    assert table(card, "pass")["ece"] == pytest.approx(15 / N * (0.8 - 11 / 15), abs=1e-4)
    assert table(bold, "pass")["ece"] == pytest.approx(15 / N * (BOLD_P**3 - 11 / 15), abs=1e-4)
    assert table(card, "pass")["ece"] < table(bold, "pass")["ece"]
    # the figure beside the card draws the reference's reliability
    svg = (run / "audit_reliability.svg").read_text()
    assert svg.startswith("<?xml") and "human majority" in svg


def test_a_panels_majority_is_a_reference_check_by_check(server, run):
    listed = run_cobe("runs", str(run), "--verdict-sets", "--json")
    panel = next(s for s in json.loads(listed.stdout)["verdict_sets"] if s["members"])
    reference = reference_of(audit(server, run, FAIR, "--reference", panel["judge_fingerprint"], "--json"))
    assert [t["check"] for t in reference["tables"]] == ["connectors", "preserve", "change", "pass"]
    change = table(reference, "change")
    assert change["items"] == N
    # fair says 0.928 on the 15 the panel calls T, 0.05 on the 5 it calls F
    assert change["ece"] == pytest.approx(15 / N * (1 - FAIR_P) + 5 / N * 0.05, abs=1e-4)


def test_a_judge_without_logprobs_is_said_once_for_the_probes_and_the_reference(server, run):
    (run / "audit_reliability.svg").write_text("<svg/>")  # an earlier audit's figure
    result = audit(server, run, ANTHROPIC, "--reference", PUBLISHED)
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stdout.splitlines() if "log-probabilities" in line]
    assert said == [
        f"  - {ANTHROPIC} returns no first-token log-probabilities (its API gives none, as Anthropic's does, or the "
        f"prompt set does not ask for them), so how far its confidence holds is not measured, on the probes or "
        f"against {PUBLISHED}"
    ]
    assert not (run / "audit_reliability.svg").exists()  # nothing to draw: the earlier figure is not left to mislead


def test_a_reference_that_shares_no_response_with_the_judge_is_refused_before_any_call(server, run):
    before = server.stats()["requests"]
    refused = audit(server, run, "openai-api/localfake/part-a", "--reference", "openai-api/localfake/part-b")
    assert_one_line_error(refused, "openai-api/localfake/part-b", "shares no response")
    assert refused.returncode == 2 and server.stats()["requests"] == before
    assert not (run / "audit.json").exists()


def test_a_reference_needs_the_run_and_the_judges_verdicts_on_it(server, run):
    alone = run_cobe("judges", "audit", "--judge", FAIR, "--reference", PUBLISHED, "--probes", "identity",
                     cwd=run.parent, env=env_of(server))  # fmt: skip
    assert_one_line_error(alone, "--reference", "--run-dir RUN")
    unjudged = audit(server, run, "openai-api/localfake/never", "--reference", PUBLISHED)
    assert_one_line_error(unjudged, "no verdicts of openai-api/localfake/never", "cobe judge")
    assert unjudged.returncode == 2
