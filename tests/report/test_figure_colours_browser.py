"""Nine models in one report, read in Chromium: every model its own colour in each figure's legend, and the
same model the same colour in every figure, also where one model has no bar in a figure.

A screenshot of the nine-model phrasing figure goes to $COBE_SCREENSHOTS when it is set."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from cobe.report import build_report
from cobe.report.palette import PALETTE, bar_style
from support.results import make_rows, write_run

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
MODELS = ("gpt", "gemini", "claude", "llama3-70b", "gemma2-27b", "phi4", "qwen2.5-7b", "llama3-8b", "mistral-7b")

# the legend of a matplotlib SVG: each entry's patch (its computed fill and hatching) and the text after it
LEGEND = """() => {
  const entries = [];
  const groups = [...document.querySelectorAll('#legend_1 > g')];
  for (let i = 0; i + 1 < groups.length; i++) {
    const path = groups[i].querySelector('path');
    const text = groups[i + 1].querySelector('text');
    if (path && text && !groups[i].querySelector('text')) {
      entries.push([text.textContent, getComputedStyle(path).fill]);
    }
  }
  return entries;
}"""


def test_twelve_colours_then_the_colours_again_hatched():
    looks = [bar_style(i) for i in range(24)]
    assert len({look.colour for look in looks[:12]}) == 12 == len(PALETTE)
    assert all(look.hatch == "" for look in looks[:12])
    assert len(set(looks)) == 24 and looks[12].colour == looks[0].colour and looks[12].hatch


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian's Chromium is not installed at {CHROMIUM}")
def test_nine_models_nine_colours_the_same_in_every_figure(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    runs = []
    for index, model in enumerate(MODELS):
        rows = make_rows(model, 24, 0.3 + 0.06 * index, run_id=f"run-{index}")
        if model == "gemini":  # no graph types: gemini has no bar in that figure, the models after it still keep theirs
            rows = [row | {"graph_type": None} for row in rows]
        runs.append(write_run(tmp_path / f"run{index}", rows))
    build_report(runs, out=tmp_path / "out", formats="html", resamples=50)
    shots = Path(os.environ.get("COBE_SCREENSHOTS") or tmp_path)
    colours: dict[str, set[str]] = {}
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((tmp_path / "out" / "report.html").as_uri())
        figures = page.locator("img.figure")
        names = figures.evaluate_all("(imgs) => imgs.map(i => i.dataset.figure)")
        sources = figures.evaluate_all("(imgs) => imgs.map(i => i.src)")
        assert {"phrasing", "graph_type", "domain", "failure_mode", "checks"} <= set(names)
        figures.nth(names.index("phrasing")).screenshot(path=str(shots / "report-nine-models-phrasing.png"))
        for name, source in zip(names, sources):
            svg = tmp_path / f"{name}.svg"
            svg.write_bytes(base64.b64decode(source.split(",", 1)[1]))
            page.goto(svg.as_uri())
            legend = page.evaluate(LEGEND)
            expected = len(MODELS) - (name == "graph_type")
            assert len(legend) == expected and len({fill for _, fill in legend}) == expected, (name, legend)
            for model, fill in legend:
                colours.setdefault(model, set()).add(fill)
        browser.close()
    assert set(colours) == set(MODELS)
    assert all(len(fills) == 1 for fills in colours.values()), colours
    assert len({next(iter(fills)) for fills in colours.values()}) == len(MODELS)
