"""The judge audit's reliability figure: the judge's P(T), binned, against the share its reference calls T.

A point is one bin of a reliability table (`cobe.judge.audit_result.CheckCalibration`): where the judge's mean
P(T) in the bin sits on the x axis, the reference's share of T on the y axis, its area the bin's verdicts. A
judge whose confidence holds lies on the diagonal. One series for the probes (every check pooled, against the
verdicts the probes must get; their per-check tables stay in the card's text) and one for each table of a
reference on a run's responses (each check it judged, and P(pass) against its pass/fail). Drawn at the report's
width and font scale (`cobe.report.figures`), as SVG whose bytes depend on the card alone.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from cobe.judge.audit_result import POOLED
from cobe.report.figures import FIGURE_WIDTH, LEGEND_SIZE, STYLE, TITLE_SIZE
from cobe.report.wrapping import TextFit

if TYPE_CHECKING:
    from cobe.judge.audit_card import JudgeAudit

#: the share of the width a title or a legend may fill (as the report's other figures)
_ROOM = 0.92
#: points² of a marker per verdict in its bin, and the smallest and largest marker
_AREA_PER_ITEM, _AREA_MIN, _AREA_MAX = 4.0, 12.0, 300.0
_DIAGONAL = "#888888"


def series(card: Mapping[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(legend label, bins) of each table the figure draws: the probes' pooled one, then the reference's."""
    out = []
    pooled = next((t for t in card.get("calibration") or [] if t.get("check") == POOLED), None)
    if pooled and pooled.get("items"):
        out.append((f"against the verdicts the probes must get, {POOLED} (ECE {pooled['ece']:.3f})", pooled["bins"]))
    reference = card.get("reference") or {}
    for table in reference.get("tables") or []:
        if table.get("items"):
            label = f"{table['check']} against {reference['reference']} (ECE {table['ece']:.3f})"
            out.append((label, table["bins"]))
    return out


def reliability_svg(card: JudgeAudit | Mapping[str, Any]) -> bytes | None:
    """The figure of an audit's card (a `JudgeAudit` or its audit.json) as SVG bytes; None where no table holds a
    verdict with P(T), so there is nothing to draw."""
    data = card.model_dump(mode="json", exclude={"answers"}) if not isinstance(card, Mapping) else card
    drawn = series(data)
    if not drawn:
        return None
    # the stubs type rc keys as a Literal of every known name; ours are all valid keys
    with matplotlib.rc_context(STYLE):  # type: ignore[arg-type]
        fig = _figure(str(data.get("judge") or "the judge"), drawn)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def _figure(judge: str, drawn: list[tuple[str, list[dict[str, Any]]]]) -> Figure:
    fig = Figure(figsize=(FIGURE_WIDTH, 4.6 + 0.2 * len(drawn)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], linestyle="--", linewidth=0.9, color=_DIAGONAL, label="a judge right as often as it says")
    for index, (label, bins) in enumerate(drawn):
        said = [b["mean_p"] for b in bins]
        seen = [b["observed"] for b in bins]
        areas = [min(max(_AREA_PER_ITEM * b["items"], _AREA_MIN), _AREA_MAX) for b in bins]
        colour = f"C{index}"
        ax.plot(said, seen, linewidth=1.0, color=colour, alpha=0.6)
        ax.scatter(said, seen, s=areas, color=colour, edgecolors="white", linewidths=0.5, label=label, zorder=3)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    ax.set_xlabel("the judge's P(T) or P(pass), mean of its bin")
    ax.set_ylabel("share the reference calls T (or pass)")
    ax.grid(axis="both", alpha=0.3)
    room = FIGURE_WIDTH * 72 * _ROOM
    title = f"Reliability of the judge's confidence: {judge} (marker area: verdicts in the bin)"
    fig.suptitle(TextFit(TITLE_SIZE, bold=True).wrap(title, room), x=0.01, ha="left", fontweight="bold")
    handles, labels = ax.get_legend_handles_labels()
    fit = TextFit(LEGEND_SIZE)
    wrapped = [fit.wrap(text, room - LEGEND_SIZE * 4.8) for text in labels]
    fig.legend(handles, wrapped, frameon=False, loc="outside lower center", ncols=1)
    return fig
