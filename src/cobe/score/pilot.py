"""What a pilot run says for planning: each model's pass rate, the spread of its scenarios, how much of
that spread lies between core examples (families), its human labels and its discordance with other
models on the same items (docs/STATISTICS.md §3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from cobe.score.accuracy import PHRASING
from cobe.score.calibration import HUMAN, human_pass


def family_icc(per_scenario: pd.Series, cores: pd.Series) -> float | None:
    """The share of the per-scenario variance that lies between core examples (one-way ANOVA, ρ_c ≥ 0);
    None without at least two cores and one of them with two scenarios."""
    groups = per_scenario.groupby(cores.to_numpy())
    sizes = groups.size().to_numpy(dtype=float)
    k, total = len(sizes), float(sizes.sum())
    if k < 2 or total <= k:
        return None
    means = groups.mean().to_numpy(dtype=float)
    between = float((sizes * (means - float(per_scenario.mean())) ** 2).sum()) / (k - 1)
    within = float(groups.var(ddof=1).fillna(0.0).mul(groups.size() - 1).sum()) / (total - k)
    n0 = (total - float((sizes**2).sum()) / total) / (k - 1)  # the mean family size, unequal sizes allowed
    core_part = max((between - within) / n0, 0.0)
    if core_part + within == 0:
        return None
    return core_part / (core_part + within)


@dataclass(frozen=True)
class Pilot:
    """What a pilot run says about one model, and about pairs of models on the same items."""

    model: str
    pass_rate: float
    scenarios: int
    phrasings: int  # phrasings per scenario (the mean, rounded; the site's files have one each)
    items: int
    scenario_variance: float  # sample variance of per-scenario mean pass
    icc: float | None  # correlation of phrasings within a scenario (one-way ANOVA, 0 to 1)
    human_rate: float | None = None  # share of rated items humans pass
    correlation: float | None = None  # judge–human correlation on rated items
    rated: int = 0
    discordance: dict[str, float] | None = None  # other model → share of paired items with one pass
    cores: int | None = None  # core examples among the scenarios (None: the rows name no core)
    core_icc: float | None = None  # share of the per-scenario variance between core examples

    @property
    def variations(self) -> float | None:
        """Mean scenarios per core example; None when the rows name no core."""
        return self.scenarios / self.cores if self.cores else None


def phrasing_icc(part: pd.DataFrame) -> float | None:
    """The correlation of one scenario's phrasings: the share of the per-item variance between scenarios
    (the families' one-way ANOVA, over items grouped by scenario), so never below 0 nor above 1; None without
    a scenario answered in two phrasings."""
    return family_icc(part["pass"].astype(float).reset_index(drop=True), part["scenario_id"].reset_index(drop=True))


def _human_agreement(part: pd.DataFrame) -> tuple[float | None, float | None, int]:
    """(human pass rate, judge–human correlation, rated items) of one model's scored rows."""
    if HUMAN not in part.columns:
        return None, None, 0
    humans = [human_pass(labels) for labels in part[HUMAN]]
    pairs = [(bool(h), bool(j)) for h, j in zip(humans, part["pass"]) if h is not None]
    if len(pairs) < 2:
        return None, None, len(pairs)
    h = np.array([p[0] for p in pairs], dtype=float)
    j = np.array([p[1] for p in pairs], dtype=float)
    correlation = float(np.corrcoef(h, j)[0, 1]) if h.std() > 0 and j.std() > 0 else 0.0
    return float(h.mean()), correlation, len(pairs)


def _discordances(per_item: pd.Series) -> dict[str, dict[str, float]]:
    """Per model, the share of the items it and another model both scored where exactly one of them passes.

    One table of items × models, compared column against column: a lookup per pair of models took a third
    of a second on nine models' site file, a fifth of a `cobe plan`."""
    wide = per_item.unstack(level=0)
    names = [str(name) for name in wide.columns]
    values = wide.to_numpy(dtype=float, na_value=np.nan)
    present = ~np.isnan(values)
    shares: dict[str, dict[str, float]] = {}
    for index, name in enumerate(names):
        both = present[:, [index]] & present
        differ = ((values[:, [index]] != values) & both).sum(axis=0)
        counts = both.sum(axis=0)
        shares[name] = {
            other: float(differ[j] / counts[j]) for j, other in enumerate(names) if j != index and counts[j]
        }
    return shares


def pilot_from_frame(df: pd.DataFrame, by: str = "label") -> list[Pilot]:
    """Rates of each model in a results frame (with human answers where a study rated it)."""
    scored = df[df["scored"]]
    per_item = scored.groupby([by, "scenario_id", PHRASING])["pass"].all()
    discordances = _discordances(per_item)
    pilots = []
    for model, part in scored.groupby(by, sort=True):
        per_scenario = part.groupby("scenario_id")["pass"].mean()
        rate = float(part["pass"].mean())
        # per scenario, not over the run: 124 scenarios of one phrasing each in three wordings are × 1, not × 3
        phrasings = max(1, round(float(part.groupby("scenario_id")[PHRASING].nunique().mean())))
        variance = float(per_scenario.var(ddof=1)) if len(per_scenario) > 1 else rate * (1 - rate)
        human_rate, correlation, rated = _human_agreement(part)
        cores = core_icc = None
        if "core_id" in part.columns and not part["core_id"].isna().any():
            core_of = part.groupby("scenario_id")["core_id"].first().reindex(per_scenario.index)
            cores, core_icc = int(core_of.nunique()), family_icc(per_scenario, core_of)
        pilots.append(
            Pilot(
                model=str(model),
                pass_rate=rate,
                scenarios=int(per_scenario.size),
                phrasings=phrasings,
                items=int(len(part)),
                scenario_variance=variance,
                icc=phrasing_icc(part) if phrasings > 1 else None,
                human_rate=human_rate,
                correlation=correlation,
                rated=rated,
                discordance=discordances.get(str(model)) or None,
                cores=cores,
                core_icc=core_icc,
            )
        )
    return pilots
