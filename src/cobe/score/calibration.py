"""Human-calibrated pass rates: what humans would say of a model, from the judge's verdict on every item
and human labels on a random subset, by prediction-powered inference (ppi-python, PPI++).

The estimate is the judge's pass rate corrected by the judge's mistakes measured where humans
rated; its interval carries both the sampling error and the judge's error. It needs the rated items
to be a random sample of the judged ones (a rating study samples them so, per model).

What "per check" can mean here: the rating study asks one overall Yes/No question, so humans label
the three-T composite only. A human Yes says every check holds, a No does not say which one failed;
each check's human pass rate is therefore at least the composite's, and the composite's lower bound
is the only calibrated statement the labels allow per check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cobe.core.results import CHECKS
from cobe.score.agreement import majority_label
from cobe.score.binomial import clopper_pearson

LEVEL = 0.95
#: the column of a results frame holding each row's human answers (Yes / No / Other per rater)
HUMAN = "human_labels"
PER_CHECK_NOTE = (
    "the rating study asks one overall question: a human Yes means every check holds, a No does not say "
    "which failed, so a check's human pass rate is only known to be at least the composite's lower bound"
)


@dataclass(frozen=True)
class CalibratedRate:
    """A pass rate as humans would judge it, as shares in [0, 1], with what it rests on."""

    estimate: float
    ci_low: float
    ci_high: float
    judge_only: float  # the judge's own pass rate over every scored item
    labeled: int  # items with both a judge verdict and a human majority
    unlabeled: int  # scored items without a human majority
    method: str  # "ppi++", or "exact" (human labels only) when the judge's labels carry nothing to add


def human_pass(labels: Sequence[str | None] | None) -> bool | None:
    """Whether the rater majority passes the item (Yes); None without labels or a majority."""
    if labels is None or len(labels) == 0:
        return None
    majority = majority_label(list(labels))
    return None if majority is None else majority == "Yes"


def calibrated_rate(
    human: Sequence[bool] | np.ndarray,
    judge_labeled: Sequence[bool] | np.ndarray,
    judge_unlabeled: Sequence[bool] | np.ndarray,
    level: float = LEVEL,
) -> CalibratedRate:
    """PPI++ estimate and `level` interval of the human pass rate (ppi-python's `ppi_mean_ci`).

    `human` and `judge_labeled` are paired labels of the rated items, `judge_unlabeled` the judge's
    labels of the other scored items. With no unlabeled item, or judge labels that never vary, the
    judge has nothing to add and the exact binomial interval of the human labels is returned.
    """
    y = np.asarray(human, dtype=float)
    y_hat = np.asarray(judge_labeled, dtype=float)
    y_unlabeled = np.asarray(judge_unlabeled, dtype=float)
    if y.size != y_hat.size:
        raise ValueError(f"human and judge labels differ in length ({y.size} vs {y_hat.size})")
    if y.size < 2:
        raise ValueError("a calibrated rate needs at least two human-labelled items")
    judge_all = np.concatenate([y_hat, y_unlabeled])
    judge_only = float(judge_all.mean())
    if y_unlabeled.size == 0 or judge_all.min() == judge_all.max():
        low, high = clopper_pearson(int(y.sum()), int(y.size), level)
        return CalibratedRate(float(y.mean()), low, high, judge_only, int(y.size), int(y_unlabeled.size), "exact")
    from ppi_py import ppi_mean_ci  # loads numba; only when a study calibrates a run

    low_arr, high_arr = ppi_mean_ci(y, y_hat, y_unlabeled, alpha=1.0 - level)
    low, high = float(np.ravel(low_arr)[0]), float(np.ravel(high_arr)[0])
    estimate = (low + high) / 2.0  # the interval is centred on the PPI++ point estimate
    return CalibratedRate(
        estimate=min(1.0, max(0.0, estimate)),
        ci_low=max(0.0, low),
        ci_high=min(1.0, high),
        judge_only=judge_only,
        labeled=int(y.size),
        unlabeled=int(y_unlabeled.size),
        method="ppi++",
    )


def _overall(part: pd.DataFrame, level: float) -> dict[str, object]:
    scored = part[part["status"].isin(["passed", "failed"])]
    judge = scored["status"].eq("passed").to_numpy()
    human = [human_pass(labels) for labels in scored[HUMAN]]
    rated = np.array([h is not None for h in human], dtype=bool)
    record: dict[str, object] = {
        "judge_rate": 100.0 * judge.mean() if judge.size else float("nan"),
        "labeled": int(rated.sum()),
        "unlabeled": int((~rated).sum()),
    }
    if rated.sum() < 2:
        return record | {"note": "fewer than two rated items with a human majority"}
    result = calibrated_rate([bool(h) for h in human if h is not None], judge[rated], judge[~rated], level=level)
    return record | {
        "calibrated": 100.0 * result.estimate,
        "ci_low": 100.0 * result.ci_low,
        "ci_high": 100.0 * result.ci_high,
        "method": result.method,
    }


def _check_rate(part: pd.DataFrame, check: str) -> float:
    verdicts = part["verdicts"].map(lambda v: (v or {}).get(check))
    judged = verdicts.isin(["T", "F"])
    return 100.0 * float((verdicts == "T").sum()) / judged.sum() if judged.sum() else float("nan")


COLUMNS = [
    "target",
    "judge_rate",
    "calibrated",
    "ci_low",
    "ci_high",
    "at_least",
    "labeled",
    "unlabeled",
    "method",
    "note",
]


def calibration_table(df: pd.DataFrame, by: Sequence[str] = ("label",), level: float = LEVEL) -> pd.DataFrame:
    """Per group: the composite's calibrated pass rate (%) beside the judge's, then each check's judge
    pass rate with the one calibrated statement the overall labels allow (`at_least`)."""
    keys = list(by)
    if df.empty or HUMAN not in df.columns or df[HUMAN].isna().all():
        return pd.DataFrame(columns=keys + COLUMNS)
    records = []
    for group, part in df.groupby(keys, sort=True, dropna=False):
        group = group if isinstance(group, tuple) else (group,)
        head = dict(zip(keys, group))
        overall = _overall(part, level)
        records.append(head | {"target": "overall"} | overall)
        floor = overall.get("ci_low")
        for check in CHECKS:
            records.append(
                head
                | {
                    "target": check,
                    "judge_rate": _check_rate(part, check),
                    "at_least": floor,
                    "labeled": overall["labeled"],
                    "unlabeled": overall["unlabeled"],
                    "note": PER_CHECK_NOTE,
                }
            )
    return pd.DataFrame(records).reindex(columns=keys + COLUMNS)
