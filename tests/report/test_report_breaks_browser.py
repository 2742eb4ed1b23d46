"""Nine models' report in Chromium, squeezed: run ids and short model names break only after `/`, `-` or `_`
(or not at all), never inside a word or a hash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cobe.report import build_report
from support.results import make_rows, write_run

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# short names and run ids like the site import's and a hash-named run's
MODELS = ("gpt", "gemini", "claude", "llama3-70b", "gemma2-27b", "phi4", "qwen2.5-7b", "llama3-8b", "mistral-7b")
RUN_IDS = ("site", "3f50a2367c1d", "site_import-2", "run-20261204-abcdef", "site", "3f50a2367c1d", "x", "y", "z")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian's Chromium is not installed at {CHROMIUM}"),
]

# for each leaderboard cell naming a model or a run: the characters a line ends after, where it does
LINE_ENDS = """(selector) => {
  const ends = [];
  for (const cell of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    const chars = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getBoundingClientRect();
        if (rect.width > 0) chars.push([node.data[i], Math.round(rect.top)]);
      }
    }
    for (let i = 1; i < chars.length; i++) {
      if (chars[i][1] > chars[i - 1][1] + 2) ends.push([cell.textContent.trim(), chars[i - 1][0]]);
    }
  }
  return ends;
}"""


@pytest.fixture
def nine_models(tmp_path: Path) -> list[Path]:
    runs = []
    for index, (model, run_id) in enumerate(zip(MODELS, RUN_IDS)):
        rows = make_rows(model, 12, 0.3 + 0.05 * index, run_id=run_id)
        runs.append(write_run(tmp_path / f"run{index}", rows))
    return runs


@pytest.mark.parametrize("width", [1280, 800])
def test_names_and_run_ids_break_only_at_separators(nine_models, tmp_path, width):
    sync_api = pytest.importorskip("playwright.sync_api")
    build_report(nine_models, out=tmp_path / "out", formats="html", resamples=0)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto((tmp_path / "out" / "report.html").as_uri())
        page.wait_for_selector("#leaderboard table")
        cells = "#leaderboard td.label, #leaderboard td code, #runs td code"
        assert page.locator(cells).count() >= 18
        ends = page.evaluate(LINE_ENDS, cells)
        browser.close()
    assert [end for end in ends if end[1] not in "/-_"] == []
