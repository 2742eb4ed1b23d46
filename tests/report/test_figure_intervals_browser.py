"""The breakdown figures (phrasing, graph type, domain, failure mode) read in Chromium: every bar has its 95%
error bar, and a cell with fewer than MIN_CELL scored responses is starred and said to be, not a plain bar."""

from __future__ import annotations

import base64
import os

import pytest

from cobe.report import build_report
from cobe.report.load import load_runs
from cobe.report.tables import MIN_CELL, build_tables
from support.results import make_rows, write_run

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
MODELS = ("gpt", "gemini", "claude")
BREAKDOWNS = {"phrasing": 3, "graph_type": 6, "domain": 6, "failure_mode": 7}  # categories in each figure

# in a matplotlib SVG: the whiskers drawn (one dark path per error bar, over its white halo), the value labels
# starred, and the title
READ = """() => ({
  whiskers: [...document.querySelectorAll('g[id^="LineCollection_"] path')]
    .filter(p => getComputedStyle(p).stroke === 'rgb(51, 51, 51)').length,
  starred: [...document.querySelectorAll('#axes_1 text')].map(t => t.textContent).filter(t => /^[0-9]+\\*$/.test(t)),
  title: [...document.querySelectorAll('text')].map(t => t.textContent).join(' '),
})"""


def _runs(tmp_path):
    runs = []
    for index, model in enumerate(MODELS):
        rows = make_rows(model, 30, 0.4 + 0.1 * index, run_id=f"run-{index}")
        for row in rows:
            if row["scenario_id"] in ("100v1", "100v2"):  # a domain of 2 scenarios: 6 scored rows per model
                row["domain"] = "rare"
        runs.append(write_run(tmp_path / f"run{index}", rows))
    return runs


def test_breakdown_tables_carry_intervals_and_mark_small_cells(tmp_path):
    tables = build_tables(load_runs(_runs(tmp_path)).frame, resamples=200)
    for name in BREAKDOWNS:
        table = tables[name]
        assert table["ci_low"].notna().all() and (table["ci_low"] <= table["ci_high"]).all(), name
        assert (table["small"] == (table["scored"] < MIN_CELL)).all()
    domain = tables["domain"]
    assert set(domain.loc[domain["small"], "domain"]) == {"rare"}


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian's Chromium is not installed at {CHROMIUM}")
def test_every_breakdown_bar_has_an_error_bar_and_small_cells_are_marked(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    build_report(_runs(tmp_path), out=tmp_path / "out", formats="html", resamples=100)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((tmp_path / "out" / "report.html").as_uri())
        figures = page.locator("img.figure")
        found = dict(
            zip(
                figures.evaluate_all("(imgs) => imgs.map(i => i.dataset.figure)"),
                figures.evaluate_all("(imgs) => imgs.map(i => i.src)"),
            )
        )
        read = {}
        for name in BREAKDOWNS:
            svg = tmp_path / f"{name}.svg"
            svg.write_bytes(base64.b64decode(found[name].split(",", 1)[1]))
            page.goto(svg.as_uri())
            read[name] = page.evaluate(READ)
        browser.close()
    for name, categories in BREAKDOWNS.items():
        assert read[name]["whiskers"] == categories * len(MODELS), name
        assert "95% CI" in read[name]["title"], name
    # the domain of two scenarios: each model's bar starred, and the title says what a star is
    assert len(read["domain"]["starred"]) == len(MODELS)
    assert f"under {MIN_CELL} scored" in read["domain"]["title"]
    assert read["phrasing"]["starred"] == [] and "scored" not in read["phrasing"]["title"]
