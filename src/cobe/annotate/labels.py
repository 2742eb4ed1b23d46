"""Human answers of the rating studies made on runs, keyed the way reports join them to results rows.

A run's own study lives in `<run>/study/study.sqlite` (where `cobe annotate create` puts it); a study
given explicitly belongs to the run it was made from (its recorded run directory), or to the only run
asked about. Reports use these answers to calibrate the judge's pass rates (`cobe.score.calibration`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cobe.annotate.store import STUDY_FILE, study_file
from cobe.core.errors import InputError

#: run directory (resolved) → item key 'scenario_id:template:model' → the raters' answers
RunLabels = dict[str, dict[str, list[str]]]


def study_answers(study: str | Path) -> dict[str, list[str]]:
    """Every answer of a study, grouped by item key."""
    # here, not at the top: the agreement report loads the judge package, which a run without a study never needs
    from cobe.annotate.agreement_report import labels_from_study

    answers: dict[str, list[str]] = {}
    for label in labels_from_study(study):
        answers.setdefault(label.item, []).append(label.label)
    return answers


def _run_of(path: Path) -> Path:
    return (path if path.is_dir() else path.parent).resolve()


def run_labels(runs: Sequence[str | Path], study: str | Path | None = None) -> RunLabels:
    """The human answers for each run that has a study: `study` for its run, else `<run>/study/`."""
    dirs = [_run_of(Path(run)) for run in runs]
    found: RunLabels = {}
    if study is not None:
        path = study_file(study)
        if not path.is_file():
            raise InputError(f"{path}: no rating study here (expected a {STUDY_FILE} or its directory)")
        from cobe.annotate.store import StudyStore

        recorded = StudyStore(path).meta("run_dir")
        owner = Path(recorded).resolve() if recorded else None
        if owner not in dirs:
            if len(dirs) != 1:
                raise InputError(
                    f"{path}: the study was made from {recorded or 'an unknown run'}, which is not among the runs; "
                    "give that run, or a single run"
                )
            owner = dirs[0]
        check_study_of_run(path, owner)
        found[str(owner)] = study_answers(path)
    for directory in dirs:
        own = directory / "study" / STUDY_FILE
        if str(directory) not in found and own.is_file():
            check_study_of_run(own, directory)
            found[str(directory)] = study_answers(own)
    return found


def check_study_of_run(study: str | Path, run_dir: str | Path) -> None:
    """InputError unless every response the study rated is one of the run's: the same story, query and response
    text under the same scenario, template and model.

    The rated texts are what a study has always kept of each item, so studies made before studies recorded
    their run's id are recognised the same way; a run judged again keeps its responses, and passes.
    """
    from cobe.annotate.store import StudyStore
    from cobe.annotate.study import item_key, read_results

    store = StudyStore(study_file(study))
    rated = store.items()
    rows = {item_key(row): (row.story, row.query, row.response or "") for row in read_results(run_dir)}
    foreign = [item.key for item in rated if rows.get(item.key) != (item.story, item.query, item.response)]
    if not foreign:
        return
    made_from = store.meta("run_dir") or "another run"
    run_id = store.meta("run_id")
    raise InputError(
        f"{store.path}: {len(foreign)} of {len(rated)} rated responses are not responses of {run_dir} (e.g. "
        f"{foreign[0]}); the study was made from {made_from}{f' (run {run_id})' if run_id else ''}: give that run, "
        "or a study made from this one"
    )
