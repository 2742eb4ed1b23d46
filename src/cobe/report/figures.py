"""Grouped bar charts in the paper's style: one colour per model, value labels on the bars."""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")  # reports are written headless; never pick an interactive backend

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

#: Okabe–Ito: distinguishable under the common colour-vision deficiencies
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
STYLE: dict[str, Any] = {
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.alpha": 0.3,
    "svg.fonttype": "none",  # text stays text in SVG: smaller files, selectable labels
    "svg.hashsalt": "cobe",  # stable element ids, so reports diff cleanly
}


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


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("phrasing", "phrasing", "template", "accuracy", "Accuracy by phrasing", "accuracy (%)"),
    FigureSpec("graph_type", "graph_type", "graph_type", "accuracy", "Accuracy by causal graph type", "accuracy (%)"),
    FigureSpec("domain", "domain", "domain", "accuracy", "Accuracy by domain", "accuracy (%)"),
    FigureSpec(
        "failure_mode",
        "failure_mode",
        "failure_mode_label",
        "accuracy",
        "Accuracy by failure mode",
        "accuracy (%)",
        horizontal=True,
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


def grouped_bars(table: pd.DataFrame, spec: FigureSpec, labels: list[str]) -> plt.Figure:
    """One group of bars per category value, one bar (and colour) per model label."""
    pivot = table.pivot_table(index=spec.category, columns="label", values=spec.value, aggfunc="first", sort=False)
    models = [label for label in labels if label in pivot.columns]
    categories = [str(c) for c in pivot.index]
    n_cat, n_mod = len(categories), max(len(models), 1)
    width = 0.8 / n_mod
    positions = np.arange(n_cat)
    long_axis = max(4.0, 0.9 + n_cat * (0.35 + 0.22 * n_mod))
    size = (8.0, min(long_axis, 30.0)) if spec.horizontal else (min(max(6.0, long_axis), 30.0), 4.2)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    label_size = 7 if n_mod * n_cat <= 40 else 6
    for index, model in enumerate(models):
        values = pivot[model].to_numpy(dtype=float)
        offset = positions - 0.4 + width * (index + 0.5)
        colour = OKABE_ITO[index % len(OKABE_ITO)]
        bars = (
            ax.barh(offset, np.nan_to_num(values), height=width, color=colour, label=model)
            if spec.horizontal
            else ax.bar(offset, np.nan_to_num(values), width=width, color=colour, label=model)
        )
        texts = ["–" if np.isnan(v) else f"{v:.0f}" for v in values]
        ax.bar_label(
            bars, labels=texts, padding=2, fontsize=label_size, rotation=0 if spec.horizontal or n_mod <= 3 else 90
        )
    wrapped = [textwrap.fill(c, 34 if spec.horizontal else 14) for c in categories]
    if spec.horizontal:
        ax.set_yticks(positions, wrapped)
        ax.invert_yaxis()
        ax.set_xlim(0, 110)
        ax.set_xlabel(spec.ylabel)
        ax.grid(axis="x", alpha=0.3)
        ax.grid(axis="y", visible=False)
    else:
        ax.set_xticks(positions, wrapped)
        ax.set_ylim(0, 110)
        ax.set_ylabel(spec.ylabel)
    ax.set_title(spec.title, loc="left", fontweight="bold")
    # outside the axes, so the legend never hides a bar or the axis label; a run where nothing was
    # scored draws no bar, and then has nothing to list
    if ax.get_legend_handles_labels()[0]:
        fig.legend(frameon=False, fontsize=8, loc="outside lower center", ncols=min(n_mod, 4))
    return fig


def render_figures(
    tables: dict[str, pd.DataFrame], labels: list[str], formats: tuple[str, ...] = ("svg", "png")
) -> dict[str, dict[str, bytes]]:
    """Each figure drawn once and saved in every requested format, as bytes: {name: {fmt: data}}."""
    rendered: dict[str, dict[str, bytes]] = {}
    # the stubs type rc keys as a Literal of every known name; ours are all valid keys
    with plt.rc_context(STYLE):  # type: ignore[arg-type]
        for spec in FIGURES:
            table = tables.get(spec.table)
            if table is None or table.empty:
                continue
            if spec.query:
                table = table.query(spec.query)
            table = table.dropna(subset=[spec.category])
            if table.empty:
                continue
            fig = grouped_bars(table, spec, labels)
            rendered[spec.name] = {}
            for fmt in formats:
                buffer = io.BytesIO()
                fig.savefig(
                    buffer,
                    format=fmt,
                    dpi=150 if fmt == "png" else None,
                    metadata={"Date": None} if fmt == "svg" else None,
                )
                rendered[spec.name][fmt] = buffer.getvalue()
            plt.close(fig)
    return rendered
