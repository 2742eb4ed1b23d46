"""A four-model report with long model names, in Chromium at 1280 px: no text runs out of its box, numbers
keep to one line, and every figure (opened as the SVG it is) holds its title, labels and legend."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from cobe.report import build_report
from support.results import make_rows, write_run

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
MODELS = (
    "openai-api/local2/Meta-Llama-3.1-70B-Instruct-Turbo",
    "baseline/identity",
    "anthropic/claude-opus-4-7-20260101",
    "google/gemini-3.1-pro-preview-long-context",
)
WIDTH = 1280

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian's Chromium is not installed at {CHROMIUM}"),
]

# every laid-out element whose content is wider than its box, unless it scrolls by design
OVERFLOWING = """() => {
  const skip = new Set(['SCRIPT', 'STYLE', 'INPUT', 'SELECT', 'TEXTAREA', 'IMG', 'OPTION']);
  const found = [];
  for (const el of document.body.querySelectorAll('*')) {
    const style = getComputedStyle(el);
    if (skip.has(el.tagName) || style.display === 'inline' || style.display === 'none') continue;
    if (['auto', 'scroll'].includes(style.overflowX)) continue;
    if (el.scrollWidth > el.clientWidth + 1) found.push(el.tagName + ' ' + el.textContent.trim().slice(0, 60));
  }
  if (document.documentElement.scrollWidth > window.innerWidth) found.push('the page scrolls sideways');
  return found;
}"""
# numeric cells whose text takes more than one line
WRAPPED_NUMBERS = """() => [...document.querySelectorAll('td.num')].filter(td => {
  const range = document.createRange();
  range.selectNodeContents(td);
  const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top / 4)));
  return tops.size > 1;
}).map(td => td.textContent)"""
# in an SVG document: whether the legend lies inside the image, and every text that does not
OUTSIDE_SVG = """() => {
  const frame = document.documentElement.getBoundingClientRect();
  const inside = r => r.left >= frame.left - 0.5 && r.top >= frame.top - 0.5
    && r.right <= frame.right + 0.5 && r.bottom <= frame.bottom + 0.5;
  const legend = document.getElementById('legend_1');
  return {
    legend: legend === null ? null : inside(legend.getBoundingClientRect()),
    outside: [...document.querySelectorAll('text')].filter(t => !inside(t.getBoundingClientRect())).map(t => t.textContent),
  };
}"""


@pytest.fixture
def four_models(tmp_path: Path) -> Path:
    rows = []
    for index, model in enumerate(MODELS):
        rows += make_rows(model, 40, 0.3 + 0.15 * index, run_id=f"run-{index}")
    run = write_run(tmp_path / "four", rows)
    build_report([run], formats="html", resamples=50)
    return run / "report.html"


def test_a_four_model_report_fits_a_1280_pixel_window(four_models, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        page.goto(four_models.as_uri())
        page.wait_for_selector("#rows article")
        shots = Path(os.environ.get("COBE_SCREENSHOTS") or tmp_path)
        page.screenshot(path=str(shots / "report-four-models.png"), full_page=True)

        assert page.locator("#leaderboard table").first.locator("tbody tr").count() == len(MODELS)
        assert page.evaluate(OVERFLOWING) == []
        assert page.locator("td.num").count() > 40
        assert page.evaluate(WRAPPED_NUMBERS) == []

        figures = page.locator("img.figure")
        names = figures.evaluate_all("(imgs) => imgs.map(i => i.dataset.figure)")
        assert {"phrasing", "graph_type", "domain", "failure_mode", "checks"} <= set(names)
        # one drawing width for all: shown side by side, every figure's fonts come out the same size
        widths = figures.evaluate_all("(imgs) => imgs.map(i => [i.naturalWidth, Math.round(i.width)])")
        assert len(set(map(tuple, widths))) == 1, widths
        sources = figures.evaluate_all("(imgs) => imgs.map(i => i.src)")

        svg_page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        for name, source in zip(names, sources):
            svg = tmp_path / f"{name}.svg"
            svg.write_bytes(base64.b64decode(source.split(",", 1)[1]))
            svg_page.goto(svg.as_uri())
            found = svg_page.evaluate(OUTSIDE_SVG)
            assert found == {"legend": True, "outside": []}, name
        browser.close()
