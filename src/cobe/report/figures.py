"""Grouped bar charts in the paper's style: one colour per model, value labels on the bars.

Every figure is drawn at one width and with one set of font sizes, so a report that shows them side by
side shows them at one scale. Titles, category names and model names are wrapped to the room they have
(measured with the font they are drawn in), and the legend sits below the axes in as many columns as fit.
"""

from __future__ import annotations

import io
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib import patheffects

# Figure with its own Agg canvas, never pyplot: reports are written headless, nothing needs pyplot's
# figure manager, and importing it costs every `cobe eval` a third of a second
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from cobe.report.palette import BarStyle, model_styles
from cobe.report.tables import MIN_CELL
from cobe.report.wrapping import TextFit

if TYPE_CHECKING:
    from cobe.report.against import Against

#: inches; one width for every figure, so a page scales them all alike
FIGURE_WIDTH = 6.0
#: points: one scale across figures
TITLE_SIZE, TEXT_SIZE, TICK_SIZE, LEGEND_SIZE, BAR_LABEL_SIZE = 10.0, 9.0, 8.0, 8.0, 7.0
#: beyond this many categories (or bars) a chart lies on its side: its category names then have a line each
MAX_UPRIGHT_CATEGORIES, MAX_UPRIGHT_BARS = 6, 24
MAX_LEGEND_COLUMNS = 4
STYLE: dict[str, Any] = {
    "font.size": TEXT_SIZE,
    "axes.titlesize": TITLE_SIZE,
    "figure.titlesize": TITLE_SIZE,
    "axes.labelsize": TEXT_SIZE,
    "xtick.labelsize": TICK_SIZE,
    "ytick.labelsize": TICK_SIZE,
    "legend.fontsize": LEGEND_SIZE,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.alpha": 0.3,
    "svg.fonttype": "none",  # text stays text in SVG: smaller files, selectable labels
    "svg.hashsalt": "cobe",  # stable element ids, so reports diff cleanly
}
# the share of the width a title or a legend may fill: what a browser's fallback font may add stays inside
_ROOM = 0.92


@dataclass
class FigureSpec:
    """Which table a figure draws and how."""

    name: str
    table: str
    category: str
    value: str
    title: str
    ylabel: str
    horizontal: bool = False
    query: str | None = None  # a pandas query selecting the rows to draw
    intervals: bool = False  # the table has ci_low / ci_high (error bars) and `small` (cells drawn pale)


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("phrasing", "phrasing", "template", "accuracy", "Accuracy by phrasing", "accuracy (%)", intervals=True),
    FigureSpec(
        "graph_type",
        "graph_type",
        "graph_type",
        "accuracy",
        "Accuracy by causal graph type",
        "accuracy (%)",
        intervals=True,
    ),
    FigureSpec("domain", "domain", "domain", "accuracy", "Accuracy by domain", "accuracy (%)", intervals=True),
    FigureSpec(
        "failure_mode",
        "failure_mode",
        "failure_mode_label",
        "accuracy",
        "Accuracy by failure mode",
        "accuracy (%)",
        horizontal=True,
        intervals=True,
    ),
    FigureSpec(
        "checks",
        "error_types",
        "error_label",
        "failure_rate",
        "Failure rate by error type (E1-E3: judge checks; E4-E5: responses on numeric / latent scenarios)",
        "failure rate (%)",
    ),
    FigureSpec("tiers", "tiers", "tier", "accuracy", "Accuracy by prompt tier", "accuracy (%)"),
)


#: the report's figures beside the paper's (`cobe report --against paper`): tables of cobe.report.against
PAPER_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("paper_error_types", "paper_error_types", "group_label", "value",
               "Failure rate by error type, beside the paper's Fig. 6", "failure rate (%)", horizontal=True),
    FigureSpec("paper_graph_type", "paper_graph_type", "group_label", "value",
               "Accuracy by causal graph type, beside the paper's Fig. 7", "accuracy (%)", horizontal=True),
    FigureSpec("paper_phrasing", "paper_phrasing", "group_label", "value",
               "Accuracy by phrasing, beside the paper's Fig. 8", "accuracy (%)", horizontal=True),
    FigureSpec("paper_failure_mode", "paper_failure_mode", "group_label", "value",
               "Accuracy by failure mode, beside the paper's Fig. 9", "accuracy (%)", horizontal=True),
)  # fmt: skip


def lies_on_its_side(spec: FigureSpec, categories: int, models: int) -> bool:
    """Whether a figure draws horizontal bars: asked for, or too many categories or bars to stand upright."""
    return spec.horizontal or categories > MAX_UPRIGHT_CATEGORIES or categories * models > MAX_UPRIGHT_BARS


def _size(horizontal: bool, categories: int, models: int) -> tuple[float, float]:
    if not horizontal:
        return FIGURE_WIDTH, 4.4
    return FIGURE_WIDTH, min(max(3.2, 1.4 + categories * (0.3 + 0.2 * models)), 30.0)


def grouped_bars(
    table: pd.DataFrame,
    spec: FigureSpec,
    labels: list[str],
    *,
    published: Collection[str] = (),
    notes: Mapping[tuple[str, str], str] | None = None,
) -> Figure:
    """One group of bars per category value, one bar per model label, in the look `labels` gives it (its place
    in the report's list, so the same in every figure). Labels in `published` are drawn in the published style
    (their colour, striped); `notes` puts a word beside a (category, label) bar's value ("not comparable")."""
    pivot = table.pivot_table(index=spec.category, columns="label", values=spec.value, aggfunc="first", sort=False)
    models = [label for label in labels if label in pivot.columns]
    low, high, small = (_pivot(table, spec, column, pivot) for column in ("ci_low", "ci_high", "small"))
    categories = [str(c) for c in pivot.index]
    n_cat, n_mod = len(categories), max(len(models), 1)
    horizontal = lies_on_its_side(spec, n_cat, n_mod)
    width = 0.8 / n_mod
    positions = np.arange(n_cat)
    styles = model_styles(labels)
    fig = Figure(figsize=_size(horizontal, n_cat, n_mod), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    for index, model in enumerate(models):
        values = pivot[model].to_numpy(dtype=float)
        offset = positions - 0.4 + width * (index + 0.5)
        look = _look(styles[model], model in published)
        faint = small[model].fillna(0).to_numpy(dtype=bool) if spec.intervals else np.zeros(n_cat, bool)
        bars = (
            ax.barh(offset, np.nan_to_num(values), height=width, label=model, **look)
            if horizontal
            else ax.bar(offset, np.nan_to_num(values), width=width, label=model, **look)
        )
        gid = model_gid(labels.index(model), model)
        for number, (bar, few) in enumerate(zip(bars, faint)):
            bar.set_gid(f"{gid}-bar{number}")
            if few:  # too few scored responses to read: its colour kept, a dashed outline, its label starred
                bar.set(edgecolor=SMALL_EDGE, linestyle="--", linewidth=0.9)
        ends = values
        if spec.intervals:
            lows, highs = low[model].to_numpy(dtype=float), high[model].to_numpy(dtype=float)
            _whiskers(ax, offset, values, lows, highs, horizontal)
            ends = np.fmax(values, highs)
        said = notes or {}
        texts = [
            ("–" if np.isnan(v) else f"{v:.0f}{'*' if few else ''}")
            + (f" {said[(category, model)]}" if (category, model) in said else "")
            for v, few, category in zip(values, faint, categories)
        ]
        upright = horizontal or n_mod <= 3
        _value_labels(ax, offset, np.nan_to_num(ends), texts, horizontal, upright)
    ticks = TextFit(TICK_SIZE)
    if horizontal:
        # a category name gets up to a third of the width, a line per phrase
        ax.set_yticks(positions, [ticks.wrap(c, FIGURE_WIDTH * 72 / 3) for c in categories])
        ax.invert_yaxis()
        ax.set_xlim(0, 130 if notes else 110)
        ax.set_xlabel(spec.ylabel)
        ax.grid(axis="x", alpha=0.3)
        ax.grid(axis="y", visible=False)
    else:
        room = FIGURE_WIDTH * 72 * 0.8 / max(n_cat, 1)
        ax.set_xticks(positions, [ticks.wrap(c, room) for c in categories])
        ax.set_ylim(0, 110)
        ax.set_ylabel(spec.ylabel)
    title = TextFit(TITLE_SIZE, bold=True).wrap(_title(spec, table), FIGURE_WIDTH * 72 * _ROOM)
    fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
    # below the axes, so the legend never hides a bar or the axis label; a run where nothing was
    # scored draws no bar, and then has nothing to list
    if models and ax.get_legend_handles_labels()[0]:
        _legend(fig, models, labels, styles, published)
    return fig


#: the outline of a bar with too few scored responses to read, and the stripes of a published bar
SMALL_EDGE, PUBLISHED_HATCH = "#444444", "////"


def model_gid(index: int, label: str) -> str:
    """The SVG id of a model's bars and legend swatch: its place in the report's labels and its name."""
    return f"m{index}-{re.sub(r'[^A-Za-z0-9]+', '-', label).strip('-') or 'model'}"


def _look(style: BarStyle, published: bool) -> dict[str, Any]:
    """How a model's bars are drawn: its colour at full strength; striped white where it hatches or is published."""
    hatch = style.hatch or (PUBLISHED_HATCH if published else "")
    # the hatching in a colour of its own (white stripes on the fill), so an outline never recolours it
    return {
        "facecolor": style.colour,
        "hatch": hatch or None,
        "hatchcolor": "white",
        "edgecolor": "white",
        "linewidth": 0,
    }


def _whiskers(
    ax: Any, offset: np.ndarray, values: np.ndarray, lows: np.ndarray, highs: np.ndarray, horizontal: bool
) -> None:
    """95% CI whiskers, a dark line over a white halo, so they show on the darkest bar and on the page alike."""
    errors = np.nan_to_num(np.clip([values - lows, highs - values], 0, None))
    whiskers: dict[str, Any] = {"fmt": "none", "ecolor": "#333333", "elinewidth": 0.7, "capsize": 1.5}
    drawn = (
        ax.errorbar(values, offset, xerr=errors, **whiskers)
        if horizontal
        else ax.errorbar(offset, values, yerr=errors, **whiskers)
    )
    halo = [patheffects.Stroke(linewidth=2.2, foreground="#ffffff"), patheffects.Normal()]
    for artist in drawn.lines[1] + drawn.lines[2]:  # caps and bar lines
        artist.set_path_effects(halo)


def _pivot(table: pd.DataFrame, spec: FigureSpec, column: str, like: pd.DataFrame) -> pd.DataFrame:
    """`column` laid out as the figure's values are (category × label); NaN where the table lacks it."""
    if not spec.intervals or column not in table.columns:
        return pd.DataFrame(np.nan, index=like.index, columns=like.columns)
    values = table.assign(**{column: table[column].astype(float)})
    pivot = values.pivot_table(index=spec.category, columns="label", values=column, aggfunc="first", sort=False)
    return pivot.reindex(index=like.index, columns=like.columns)


def _value_labels(
    ax: Any, positions: np.ndarray, ends: np.ndarray, texts: list[str], horizontal: bool, upright: bool
) -> None:
    """Each bar's value just past its bar or its error bar, whichever reaches further."""
    # past the bar's end: to its right when it lies on its side, above it when it stands
    place = (
        {"xytext": (2, 0), "va": "center", "ha": "left"}
        if horizontal
        else {"xytext": (0, 2), "ha": "center", "va": "bottom", "rotation": 0 if upright else 90}
    )
    for position, end, text in zip(positions, ends, texts):
        point = (end, position) if horizontal else (position, end)
        ax.annotate(text, point, textcoords="offset points", fontsize=BAR_LABEL_SIZE, **place)


def _title(spec: FigureSpec, table: pd.DataFrame) -> str:
    """The figure's title, saying what its error bars are and what a starred, pale bar means where it has them."""
    if not spec.intervals:
        return spec.title
    parts = []
    if "ci_low" in table.columns and table["ci_low"].notna().any():
        parts.append("bars: 95% CI")
    if "small" in table.columns and table["small"].fillna(False).astype(bool).any():
        parts.append(f"* dashed: under {MIN_CELL} scored")
    return f"{spec.title} ({'; '.join(parts)})" if parts else spec.title


def legend_columns(names: list[str], width_pt: float) -> tuple[int, list[str]]:
    """(columns, wrapped names) of a legend `width_pt` wide: the most columns (up to four) in which no name
    needs more than two lines, each name wrapped to its column."""
    fit = TextFit(LEGEND_SIZE)
    # what an entry takes besides its text: the colour patch, the gaps beside it and between columns
    extra = LEGEND_SIZE * (2.0 + 0.8 + 2.0)
    for columns in range(min(len(names), MAX_LEGEND_COLUMNS), 0, -1):
        room = width_pt / columns - extra
        wrapped = [fit.wrap(name, room) for name in names]
        if columns == 1 or all(text.count("\n") <= 1 for text in wrapped):
            return columns, wrapped
    raise AssertionError("unreachable: one column always fits")


def _legend(
    fig: Figure, models: list[str], labels: list[str], styles: dict[str, BarStyle], published: Collection[str]
) -> None:
    """The legend below the axes: a swatch per model in its own full colour (never a pale bar's), with its id."""
    handles = [Patch(label=model, **_look(styles[model], model in published)) for model in models]
    columns, names = legend_columns(models, FIGURE_WIDTH * 72 * _ROOM)
    legend = fig.legend(handles, names, frameon=False, loc="outside lower center", ncols=columns)
    for model, patch in zip(models, legend.get_patches()):
        patch.set_gid(f"{model_gid(labels.index(model), model)}-legend")


def render_figures(
    tables: dict[str, pd.DataFrame],
    labels: list[str],
    formats: tuple[str, ...] = ("svg", "png"),
    *,
    against: Against | None = None,
) -> dict[str, dict[str, bytes]]:
    """Each figure drawn once and saved in every requested format, as bytes: {name: {fmt: data}}; with `against`,
    the paper's figures too, its bars striped as published and each run's bar that is not comparable said to be."""
    rendered: dict[str, dict[str, bytes]] = {}
    # the stubs type rc keys as a Literal of every known name; ours are all valid keys
    with matplotlib.rc_context(STYLE):  # type: ignore[arg-type]
        for spec in FIGURES:
            table = tables.get(spec.table)
            if table is None or table.empty:
                continue
            if spec.query:
                table = table.query(spec.query)
            table = table.dropna(subset=[spec.category])
            if table.empty:
                continue
            rendered[spec.name] = _saved(grouped_bars(table, spec, labels), formats)
        for spec in PAPER_FIGURES if against is not None else ():
            table = tables.get(spec.table)
            if table is None or table.empty:
                continue
            assert against is not None
            fig = grouped_bars(
                table,
                replace(spec, title=f"{spec.title} (striped: {against.paper.release.label()})"),
                labels,
                published=against.paper_labels,
                notes=against.notes(spec.name.removeprefix("paper_")),
            )
            rendered[spec.name] = _saved(fig, formats)
    return rendered


def _saved(fig: Figure, formats: tuple[str, ...]) -> dict[str, bytes]:
    """A drawn figure's bytes in each format."""
    saved = {}
    for fmt in formats:
        buffer = io.BytesIO()
        fig.savefig(
            buffer, format=fmt, dpi=150 if fmt == "png" else None, metadata={"Date": None} if fmt == "svg" else None
        )
        saved[fmt] = buffer.getvalue()
    return saved
