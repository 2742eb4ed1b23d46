"""Judge–human agreement with failure as the positive class, and agreement among human raters.

Policies, stated once:
- Raters answer "Does the rewrite satisfy the criterion / pass?": Yes = pass, No = fail
  (`RATER_ANSWER_FAILS`). "Other" (unsure, not applicable) and missing answers abstain.
- The human label of an item is an absolute majority of its panel (App. D.4.1): more than half of
  the raters gave the same Yes/No answer, so two matching votes of three. An abstention ("Other",
  blank, not yet answered) is a vote for neither side: Yes/Yes/Other is Yes, but Yes/No/Other and
  Yes/Other/Other have no majority (None). Such items are counted and listed, never broken by a
  coin or by the judge.
- A statistic that is undefined for the data (precision with no predicted failure, kappa where either
  side gave one class only) is None, not 0, and kappa says why (`kappa_undefined`): a judge that fails
  everything agrees with nobody beyond chance, and its kappa of 0 by the formula would read as a measurement.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from cobe.core.errors import InputError

# the rater question is "does it pass?", so a "No" is a failure, the positive class
RATER_ANSWER_FAILS: dict[str, bool] = {"Yes": False, "No": True}
ABSTAIN_LABELS: frozenset[str] = frozenset({"Other"})


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def kappa_undefined(
    tp: int, fp: int, fn: int, tn: int, sides: tuple[str, str] = ("the judge", "the human majority")
) -> str | None:
    """Why Cohen's kappa of a 2×2 table (failure = positive; `sides`: who predicts, who is the reference) is
    undefined, in words; None where it is defined."""
    if tp + fp + fn + tn == 0:
        return "undefined: no item compared"
    for side, fails, passes in ((sides[0], tp + fp, fn + tn), (sides[1], tp + fn, fp + tn)):
        if not fails or not passes:
            return f"undefined: {side} said {'fail' if fails else 'pass'} on every item"
    return None


def metrics_from_counts(tp: int, fp: int, fn: int, tn: int) -> dict[str, Any]:
    """Accuracy, precision, recall, F1 and Cohen's kappa from a 2×2 table (failure = positive); kappa is None
    where either side gave one class only, and `kappa_undefined` says why."""
    n = tp + fp + fn + tn
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    f1 = _ratio(2 * tp, 2 * tp + fp + fn)
    accuracy = _ratio(tp + tn, n)
    kappa = None
    undefined = kappa_undefined(tp, fp, fn, tn)
    if undefined is None:
        observed = (tp + tn) / n
        # chance agreement: both say fail by chance, plus both say pass by chance
        expected = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
        kappa = _ratio(observed - expected, 1 - expected)
    return {
        "n": n,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "accuracy": accuracy,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "kappa": kappa,
        "kappa_undefined": undefined,
    }


def binary_metrics(judge_fail: Sequence[bool], human_fail: Sequence[bool]) -> dict[str, Any]:
    """`metrics_from_counts` for paired judge and human failure labels."""
    if len(judge_fail) != len(human_fail):
        raise InputError(f"judge and human labels differ in length ({len(judge_fail)} vs {len(human_fail)})")
    pairs = Counter((bool(j), bool(h)) for j, h in zip(judge_fail, human_fail))
    return metrics_from_counts(
        tp=pairs[(True, True)], fp=pairs[(True, False)], fn=pairs[(False, True)], tn=pairs[(False, False)]
    )


def _rater_label(label: str | None) -> str | None:
    """'Yes' / 'No' (case-insensitive), or None for an abstention ('Other', blank, missing)."""
    if label is None or (isinstance(label, float) and math.isnan(label)) or not str(label).strip():
        return None
    text = str(label).strip().capitalize()
    if text in ABSTAIN_LABELS:
        return None
    if text not in RATER_ANSWER_FAILS:
        raise InputError(f"rater label {label!r}: expected Yes, No or Other")
    return text


def majority_label(labels: Sequence[str | None]) -> str | None:
    """'Yes' or 'No' when more than half of the panel (all of `labels`) chose it; None otherwise.

    `labels` holds one entry per rater, abstentions included, so 'Other' and missing answers
    count towards the panel but for neither side.
    """
    counts = Counter(label for label in map(_rater_label, labels) if label is not None)
    needed = len(labels) // 2 + 1
    for answer in ("Yes", "No"):
        if counts[answer] >= needed:
            return answer
    return None


def majority_rule(raters: int) -> str:
    """What a human majority takes on a panel of `raters`, in words: "two matching Yes/No answers of three"."""
    if raters <= 1:
        return "a Yes or No answer from the one rater"
    if raters == 2:
        return "the same Yes/No answer from both raters"
    return f"{_count_word(raters // 2 + 1)} matching Yes/No answers of {_count_word(raters)}"


def _count_word(n: int) -> str:
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return words[n] if 0 <= n < len(words) else str(n)


def human_fail(labels: Sequence[str | None]) -> bool | None:
    """Whether the rater majority says the rewrite fails; None without a majority."""
    majority = majority_label(labels)
    return None if majority is None else RATER_ANSWER_FAILS[majority]


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _units(table: Sequence[Sequence[Hashable | None]]) -> list[list[Hashable]]:
    return [[value for value in row if not _is_missing(value)] for row in table]


def _answered_column(table: Sequence[Sequence[Hashable | None]], column: int) -> bool:
    return any(column < len(row) and not _is_missing(row[column]) for row in table)


def fleiss_kappa(table: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Fleiss' kappa over items × raters labels; items missing any rating are left out (Fleiss needs equal counts)."""
    from statsmodels.stats.inter_rater import fleiss_kappa as _fleiss

    # a rater of the panel who has answered nothing yet would otherwise leave every item incomplete
    answered = [c for c in range(max((len(row) for row in table), default=0)) if _answered_column(table, c)]
    table = [[row[c] for c in answered if c < len(row)] for row in table]
    complete = [row for row, kept in zip(table, _units(table)) if len(kept) == len(row) and len(row) >= 2]
    if not complete:
        return None
    # a ragged table (some items given to more raters) keeps the most common panel size
    width = Counter(len(row) for row in complete).most_common(1)[0][0]
    complete = [list(row) for row in complete if len(row) == width]
    categories = sorted({value for row in complete for value in row}, key=str)
    if len(categories) < 2:
        return None
    counts = np.array([[row.count(category) for category in categories] for row in complete], dtype=float)
    value = float(_fleiss(counts, method="fleiss"))
    return None if math.isnan(value) else value


def krippendorff_alpha(table: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Krippendorff's alpha for nominal labels over items × raters, missing values allowed (the
    `krippendorff` package); None where it is undefined (one value in all the data, no item rated twice)."""
    import krippendorff

    units = _units(table)
    categories = sorted({value for values in units for value in values}, key=str)
    if len(categories) < 2 or not any(len(values) >= 2 for values in units):
        return None
    index = {category: float(i) for i, category in enumerate(categories)}
    raters = max(len(row) for row in table)
    # the package reads raters × units, one number per value, NaN where a rater gave none
    data = np.full((raters, len(table)), np.nan)
    for unit, row in enumerate(table):
        for rater, value in enumerate(row):
            if not _is_missing(value):
                data[rater, unit] = index[value]
    with np.errstate(invalid="ignore", divide="ignore"):
        value = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    return None if math.isnan(value) else value


def bootstrap_ci(
    fn: Callable[[Any], float | None],
    data: Sequence[Any],
    n_resamples: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
) -> tuple[float, float] | None:
    """Percentile interval of `fn` over item resamples; undefined resamples are dropped, None if all are."""
    size = len(data)
    if size == 0:
        return None
    rng = np.random.default_rng(seed)
    stats: list[float] = []
    for _ in range(n_resamples):
        index = rng.integers(0, size, size)
        sample = data.iloc[index] if hasattr(data, "iloc") else [data[i] for i in index]
        value = fn(sample)
        if value is not None and not math.isnan(value):
            stats.append(float(value))
    if not stats:
        return None
    low, high = np.quantile(stats, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def _judge_fails(verdict: object) -> bool | None:
    """A judge verdict as failure: 'F'/False fails, 'T'/True passes, None is unscored."""
    if verdict is None:
        return None
    if isinstance(verdict, bool):
        return not verdict
    return {"T": False, "F": True}.get(str(verdict).strip().upper())


def agreement_metrics(
    judge_verdicts: Sequence[object],
    rater_labels: Sequence[Sequence[str | None]],
) -> dict[str, Any]:
    """Judge vs. human majority (failure positive) plus agreement among raters, with exclusions counted."""
    if len(judge_verdicts) != len(rater_labels):
        raise InputError(f"{len(judge_verdicts)} judge verdicts but {len(rater_labels)} rated items")
    judge_fail: list[bool] = []
    humans_fail: list[bool] = []
    no_majority = unscored = 0
    for verdict, labels in zip(judge_verdicts, rater_labels):
        judged, rated = _judge_fails(verdict), human_fail(labels)
        if rated is None:
            no_majority += 1
        elif judged is None:
            unscored += 1
        else:
            judge_fail.append(judged)
            humans_fail.append(rated)
    normalised = [[_rater_label(label) for label in labels] for labels in rater_labels]
    return {
        **binary_metrics(judge_fail, humans_fail),
        "items": len(rater_labels),
        "no_majority": no_majority,
        "judge_unscored": unscored,
        "fleiss_kappa": fleiss_kappa(normalised),
        "krippendorff_alpha": krippendorff_alpha(normalised),
    }
