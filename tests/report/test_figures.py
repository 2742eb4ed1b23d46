"""Figures that fit: titles and model names wrapped to the room they have, one width and one font scale for
every figure, and the legend below the axes, inside the image (measured by matplotlib itself; the browser
test measures the same SVGs in Chromium)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from cobe.report.figures import (
    FIGURE_WIDTH,
    FIGURES,
    LEGEND_SIZE,
    STYLE,
    TITLE_SIZE,
    grouped_bars,
    legend_columns,
    lies_on_its_side,
)
from cobe.report.load import load_runs
from cobe.report.tables import build_tables
from cobe.report.wrapping import TextFit
from support.results import make_rows, write_run

LONG = [
    "openai-api/local2/Meta-Llama-3.1-70B-Instruct-Turbo",
    "baseline/identity",
    "anthropic/claude-opus-4-7-20260101",
    "google/gemini-3.1-pro-preview-long-context",
]


def test_a_spec_without_spaces_breaks_after_its_slashes_and_never_runs_past_the_width():
    fit = TextFit(8.0)
    wrapped = fit.wrap("openai-api/local2/Meta-Llama-3.1-70B-Instruct-Turbo", 120)
    lines = wrapped.split("\n")
    assert len(lines) > 1 and "".join(lines) == "openai-api/local2/Meta-Llama-3.1-70B-Instruct-Turbo"
    assert lines[0].endswith(("/", "-"))
    assert all(fit.width(line) <= 120 for line in lines)
    # a word with no separator is cut between characters, and still fits
    assert all(fit.width(line) <= 20 for line in fit.wrap("abcdefghijklmnop", 20).split("\n"))
    assert fit.wrap("short words stay on one line", 500) == "short words stay on one line"


def test_the_legend_takes_as_many_columns_as_its_names_allow():
    assert legend_columns(["mock/a", "mock/b"], 400)[0] == 2
    columns, names = legend_columns(LONG, FIGURE_WIDTH * 72)
    assert 1 <= columns < 4
    fit = TextFit(LEGEND_SIZE)
    room = FIGURE_WIDTH * 72 / columns
    assert all(fit.width(line) < room for name in names for line in name.split("\n"))
    assert [name.replace("\n", "") for name in names] == LONG


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> dict[str, pd.DataFrame]:
    rows = []
    for index, model in enumerate(LONG):
        rows += make_rows(model, 40, 0.3 + 0.15 * index, run_id=f"r{index}")
    run = write_run(tmp_path_factory.mktemp("four") / "run", rows)
    return build_tables(load_runs([run]).frame, resamples=0)


@pytest.mark.parametrize("spec", [spec for spec in FIGURES if spec.name != "tiers"], ids=lambda spec: spec.name)
def test_every_figure_is_one_width_and_keeps_its_title_and_legend_inside(spec, tables):
    table = tables[spec.table].dropna(subset=[spec.category])
    with plt.rc_context(STYLE):
        fig = grouped_bars(table, spec, LONG)
        try:
            fig.canvas.draw()
            renderer = fig.canvas.get_renderer()
            frame = fig.bbox
            assert fig.get_figwidth() == FIGURE_WIDTH
            title = fig.get_suptitle()
            assert title.replace("\n", " ") == spec.title
            parts = [fig._suptitle, *fig.legends]
            assert len(fig.legends) == 1
            for artist in parts:
                box = artist.get_window_extent(renderer)
                assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            # below the axes
            assert fig.legends[0].get_window_extent(renderer).y1 <= fig.axes[0].get_window_extent(renderer).y0
            assert fig._suptitle.get_fontsize() == TITLE_SIZE
        finally:
            plt.close(fig)


def test_the_long_title_of_the_error_types_wraps_instead_of_being_cut(tables):
    spec = next(spec for spec in FIGURES if spec.name == "checks")
    with plt.rc_context(STYLE):
        fig = grouped_bars(tables[spec.table], spec, LONG)
        try:
            assert fig.get_suptitle().count("\n") >= 1
        finally:
            plt.close(fig)


def test_many_categories_lie_on_their_side_so_their_names_get_a_line_each():
    spec = next(spec for spec in FIGURES if spec.name == "domain")
    assert not lies_on_its_side(spec, 5, 4)
    assert lies_on_its_side(spec, 9, 2) and lies_on_its_side(spec, 6, 5)
