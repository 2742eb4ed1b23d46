"""A rating study's labels join only the run whose responses it rated.

Issue 23, item 4: `report RUN --study OTHER_RUN/study` joined another run's human labels by (scenario,
template, model) and reported "human labels 1" for a different story, exit 0. Now a study whose rated
responses are not the run's is refused in one line, exit 2 — studies made before the run id was
recorded included, since every study keeps the story, query and response it rated.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import assert_one_line_error, run_cobe
from support.run_data import scenario


def run_on(tmp_path: Path, name: str, story_word: str) -> Path:
    """A run of mock/echo over two scenarios whose stories carry `story_word` (the same ids in every run)."""
    rows = [scenario(i) for i in (1, 2)]
    for row in rows:
        row["story"] = row["story"].replace("festival", story_word)
    data = tmp_path / f"{name}.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run = tmp_path / name
    args = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run)]
    assert run_cobe(*args, "--no-report").returncode == 0
    return run


def rated_study(run: Path, *, legacy: bool = False) -> Path:
    """A study of `run` with every item rated Yes by one rater; `legacy`: without the run id today's code records."""
    assert run_cobe("annotate", "create", str(run), "--n", "6", "--raters", "1").returncode == 0
    from cobe.annotate.store import StudyStore

    store = StudyStore(run / "study")
    if legacy:
        with store.transaction() as db:
            db.execute("DELETE FROM meta WHERE key = 'run_id'")
    rater = next(p for p in store.principals() if p.role == "rater")
    for item in store.items():
        assert store.save_rating(rater.id, item.id, "Yes", "")
    return run / "study"


def test_a_study_of_another_run_is_refused_in_one_line(tmp_path):
    ours, other = run_on(tmp_path, "ours", "festival"), run_on(tmp_path, "other", "parade")
    study = rated_study(other)
    result = run_cobe("report", str(ours), "--study", str(study), "--out", str(tmp_path / "report"))
    assert result.returncode == 2
    assert_one_line_error(result, str(study), "rated responses are not responses of", str(ours))
    assert not (tmp_path / "report").exists()
    agreement = run_cobe("agreement", str(study), "--run", str(ours))
    assert agreement.returncode == 2
    assert_one_line_error(agreement, "rated responses are not responses of")
    from cobe.annotate.store import StudyStore

    run_id = json.loads((other / "summary.json").read_text())["run_id"]
    assert StudyStore(study).meta("run_id") == run_id  # a study records the run it rated


def test_a_study_made_before_runs_were_recorded_still_works_for_its_own_run_only(tmp_path):
    ours, other = run_on(tmp_path, "ours", "festival"), run_on(tmp_path, "other", "parade")
    study = rated_study(ours, legacy=True)
    own = run_cobe("report", str(ours), "--study", str(study), "--out", str(tmp_path / "report"))
    assert own.returncode == 0, own.stderr
    assert "human labels" in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    default = run_cobe("report", str(ours))  # RUN/study/ is found on its own
    assert default.returncode == 0, default.stderr
    foreign = run_cobe("report", str(other), "--study", str(study), "--out", str(tmp_path / "report2"))
    assert foreign.returncode == 2
    assert_one_line_error(foreign, "rated responses are not responses of")


def test_a_run_judged_again_keeps_its_study(tmp_path):
    ours = run_on(tmp_path, "ours", "festival")
    study = rated_study(ours)
    assert run_cobe("judge", str(ours), "--judge", "mock/judge-fail").returncode == 0
    again = run_cobe("report", str(ours), "--study", str(study), "--out", str(tmp_path / "report"))
    assert again.returncode == 0, again.stderr
