"""One colour per model in every figure of a report, read from the SVGs themselves: each bar of a model and its
legend swatch have that model's colour at full strength, cells with few scored responses included (they are
marked by their outline and a star, never by paling the colour), and error bars carry a light halo so they
show on the darkest bar (issue 44, item 9)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from cobe.report import build_report
from cobe.report.palette import model_styles
from support.results import make_rows, write_run

MODELS = ("gpt", "gemini", "claude", "llama3-70b", "gemma2-27b", "phi4", "qwen2.5-7b", "mistral-7b", "llama3-8b")
SVG = "{http://www.w3.org/2000/svg}"
_ID = re.compile(r"m(\d+)-.*-(bar\d+|legend)$")


def _fills(svg: Path) -> dict[int, set[tuple[str, str]]]:
    """Model index → the (fill, opacity) of each of its bars and its legend swatch; a hatched fill is read from
    its pattern's ground."""
    root = ET.parse(svg).getroot()
    patterns = {p.get("id"): _style(p.find(f"{SVG}rect")).get("fill", "#000000") for p in root.iter(f"{SVG}pattern")}
    found: dict[int, set[tuple[str, str]]] = {}
    for group in root.iter(f"{SVG}g"):
        matched = _ID.match(group.get("id") or "")
        if not matched:
            continue
        style = _style(group.find(f"{SVG}path"))
        fill = style.get("fill", "#000000")  # SVG's default fill, which matplotlib leaves unsaid
        if fill.startswith("url(#"):
            fill = patterns[fill[5:-1]]
        found.setdefault(int(matched.group(1)), set()).add((fill.lower(), style.get("opacity", "1")))
    return found


def _style(element: ET.Element | None) -> dict[str, str]:
    if element is None:
        return {}
    pairs = (part.split(":", 1) for part in (element.get("style") or "").split(";") if ":" in part)
    return {key.strip(): value.strip() for key, value in pairs}


def test_each_model_has_one_colour_in_every_figure_and_its_legend(tmp_path: Path) -> None:
    runs = []
    for index, model in enumerate(MODELS):
        # few scenarios: most domain cells hold under 10 scored responses
        runs.append(write_run(tmp_path / f"run{index}", make_rows(model, 12, 0.3 + 0.06 * index, run_id=f"r{index}")))
    report = build_report(runs, out=tmp_path / "out", formats="svg,json", resamples=20)
    labels = report.leaderboard["label"].tolist()
    styles = model_styles(labels)
    svgs = sorted((tmp_path / "out" / "figures").glob("*.svg"))
    assert {p.stem for p in svgs} >= {"phrasing", "graph_type", "domain", "failure_mode", "checks"}
    for svg in svgs:
        fills = _fills(svg)
        assert set(fills) == set(range(len(labels))), (svg.name, sorted(fills))
        for index, looks in fills.items():
            # its own colour, at full strength, on every bar and its swatch
            assert looks == {(styles[labels[index]].colour.lower(), "1")}, (svg.name, labels[index], looks)
    domain = (tmp_path / "out" / "figures" / "domain.svg").read_text()
    assert "under 10 scored" in domain  # small cells are still said to be small


def test_error_bars_wear_a_halo_that_shows_on_a_black_bar(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", make_rows("m", 30, 0.5))
    build_report([run], out=tmp_path / "out", formats="svg", resamples=50)
    root = ET.parse(tmp_path / "out" / "figures" / "phrasing.svg").getroot()
    strokes = [_style(path).get("stroke", "") for path in root.iter(f"{SVG}path")]
    # each whisker is drawn twice: a white halo under the dark line
    assert "#ffffff" in strokes and "#333333" in strokes
