"""report.html's scenario view in Chromium: every model's answer to one scenario side by side, opened from a card
and by id, the list narrowed to scenarios where models disagree, and model output shown as text.

The report joins the site's judged results (three models, one overall verdict each) with a run of our own on the
same scenarios (three verdicts per answer), as a researcher's report of imported and own models is made. A
screenshot of the view goes to $COBE_SCREENSHOTS when it is set."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from cobe.core.results import CHECKS
from cobe.integrations.site_results import import_site_results
from cobe.judge.checks import row_status
from cobe.report import build_report
from support.results import write_run

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "category-examples.json"
ATTACK = '<script>window.__xss = 1</script><img src=x onerror="window.__xss=2">'
OWN = "mock/own-model"
# the rewrite a word diff shows: its kept and inserted runs, without the deleted ones
AFTER = "(box) => [...box.children].filter(c => c.tagName !== 'DEL').map(c => c.textContent).join('')"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian's Chromium is not installed at {CHROMIUM}"),
]


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def _own_run(site_rows: list[dict], directory: Path) -> Path:
    """Our own model on the site's scenarios, judged check by check: it fails one check where the site's first
    model failed, and passes the rest."""
    rows = []
    for i, row in enumerate(r for r in site_rows if r["model"] == site_rows[0]["model"]):
        verdicts = {check: "T" for check in CHECKS}
        if row["status"] == "failed":
            verdicts[CHECKS[i % len(CHECKS)]] = "F"
        status, passed = row_status(verdicts, None)
        response = ATTACK if i == 1 else row["response"] + " So it went."
        rows.append(
            row
            | {"run_id": "own", "model": OWN, "judge": "mock/judge", "judge_prompts": "paper", "response": response}
            | {"verdicts": verdicts, "judge_raw": dict(verdicts), "unscored": {}, "passed": passed, "status": status}
        )
    return write_run(directory, rows)


def _disagreeing(rows: list[dict], models: set[str]) -> set[str]:
    """Scenarios where, on one phrasing, one of `models` passes and another fails (computed apart from the page)."""
    sides: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: {"passed": set(), "failed": set()})
    for row in rows:
        if row["model"] in models and row["status"] in ("passed", "failed"):
            sides[(row["scenario_id"], row["template"])][row["status"]].add(row["model"])
    return {sid for (sid, _), side in sides.items() if any(p != f for p in side["passed"] for f in side["failed"])}


@pytest.fixture
def report(tmp_path: Path) -> tuple[Path, list[dict]]:
    site = import_site_results(SITE, tmp_path / "site").out
    own = _own_run(_rows(site), tmp_path / "own")
    out = build_report([site, own], out=tmp_path / "report", formats="html", resamples=0, across_judges=True)
    return out.out / "report.html", _rows(site) + _rows(own)


def _shown(page) -> dict[str, dict]:
    """The scenario view's rows: model → its status, verdict cells and rewrite as the page shows them."""
    rows = page.locator("#scenario-view tbody tr")
    shown = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        shown[row.get_attribute("data-model")] = {
            "status": row.get_attribute("data-status"),
            "verdicts": row.locator("td.verdict-cell").all_inner_texts(),
            "rewrite": row.locator(".response").evaluate(AFTER),
        }
    return shown


def test_every_model_on_one_scenario_from_a_card_by_id_and_where_models_disagree(report, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    html, rows = report
    models = {row["model"] for row in rows}
    assert len(models) == 4
    by_model = {(r["scenario_id"], r["model"]): r for r in rows}
    attacked = next(r["scenario_id"] for r in rows if r["response"] == ATTACK)
    scenarios = {row["scenario_id"] for row in rows}
    shots = Path(os.environ.get("COBE_SCREENSHOTS") or tmp_path)
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(html.as_uri())

        # from a card: the response browser's card of one answer opens every model's answer to its scenario
        page.fill("[data-filter='search']", "101v1")
        page.locator("#rows article").first.locator("a.scenario-link").click()
        page.wait_for_selector("#scenario-view[data-scenario='101v1'] tbody tr")
        assert page.url.endswith("#scenario=101v1")
        shown = _shown(page)
        assert set(shown) == models
        for model, got in shown.items():
            row = by_model[("101v1", model)]
            assert got["status"] == row["status"]
            if model == OWN:  # three verdicts, in the report's check order
                assert got["verdicts"] == [row["verdicts"][c] for c in ("preserve", "change", "connectors")]
            else:  # the site's one overall verdict
                letter = {"passed": "T", "failed": "F"}.get(row["status"], "unscored")
                assert got["verdicts"][0].splitlines()[0] == f"overall: {letter}" and len(got["verdicts"]) == 1
            assert got["rewrite"] == row["response"]
        page.locator("#scenarios").screenshot(path=str(shots / "report-scenario-view.png"))

        # by id, typed in the box: a scenario with markup in an answer shows it as text
        page.fill("#scenario-id", attacked)
        page.press("#scenario-id", "Enter")
        page.wait_for_selector(f"#scenario-view[data-scenario='{attacked}'] tbody tr")
        own_row = page.locator(f"#scenario-view tbody tr[data-model='{OWN}']")
        assert ATTACK in own_row.locator(".response").inner_text()
        assert page.locator("#scenario-view script, #scenario-view img").count() == 0

        # the disagreement filter: its count, and the scenarios it lists, as computed here from the same rows
        page.check("#scenario-disagree")
        count = page.locator("#scenario-count")
        expected = _disagreeing(rows, models)
        assert 0 < len(expected) < len(scenarios)
        assert (count.get_attribute("data-disagree"), count.get_attribute("data-total")) == (
            str(len(expected)),
            str(len(scenarios)),
        )
        assert f"Models disagree on {len(expected)} of {len(scenarios)} scenarios" in count.inner_text()
        listed = page.locator("#scenario-list li").evaluate_all("(items) => items.map(i => i.dataset.scenario)")
        assert set(listed) == expected and len(listed) == len(expected)

        # two models alone (as the gpt, gemini and claude of nine): their own count, their own rows
        pair = {"gpt-5.4-pro", "claude-opus-4.7"}
        for model in models - pair:
            page.locator("#scenario-models label", has_text=model).locator("input").uncheck()
        expected_pair = _disagreeing(rows, pair)
        assert 0 < len(expected_pair) < len(expected)
        assert count.get_attribute("data-disagree") == str(len(expected_pair))
        assert f"Models disagree on {len(expected_pair)} of {len(scenarios)} scenarios" in count.inner_text()
        listed = page.locator("#scenario-list li").evaluate_all("(items) => items.map(i => i.dataset.scenario)")
        assert set(listed) == expected_pair
        assert set(_shown(page)) == pair

        # by id in the address, on a fresh load; an unknown id (markup included) is said as text
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(html.as_uri() + "#scenario=" + attacked)
        page.wait_for_selector(f"#scenario-view[data-scenario='{attacked}'] tbody tr")
        assert set(_shown(page)) == models
        page.evaluate("location.hash = '#scenario=%3Cimg%20src%3Dx%20onerror%3D%22window.__xss%3D3%22%3E'")
        page.wait_for_selector("#scenario-view p.warn")
        assert "No scenario <img" in page.locator("#scenario-view").inner_text()
        assert page.locator("#scenario-view img").count() == 0
        assert page.evaluate("window.__xss") is None
        browser.close()
    assert errors == []


def test_a_run_of_two_epochs_labels_each_answer_by_its_epoch(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    from support.results import make_rows

    rows = [row | {"epoch": epoch} for row in make_rows("mock/model", 2, 0.5, templates=("A",)) for epoch in (1, 2)]
    run = write_run(tmp_path / "run", rows)
    html = build_report([run], out=tmp_path / "report", formats="html", resamples=0).out / "report.html"
    sid = rows[0]["scenario_id"]
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(html.as_uri() + "#scenario=" + sid)
        page.wait_for_selector(f"#scenario-view[data-scenario='{sid}'] tbody tr")
        # one model, one phrasing, two answers: each row says which epoch it is, in epoch order
        assert page.locator("#scenario-view tbody tr .epoch").all_inner_texts() == ["epoch 1", "epoch 2"]
        page.fill("[data-filter='search']", sid)
        cards = page.locator("#rows article header .epoch")
        cards.first.wait_for()
        assert sorted(cards.all_inner_texts()) == ["epoch 1", "epoch 2"]
        browser.close()
    assert errors == []
