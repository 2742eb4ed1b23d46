"""One set-up for every command that writes a run: `evaluate` and `judge_run` both hold the run directory's lock
and its disk reserve through `cobe.run.engine.set_up_run`, and give both back however the command ends; a
`Session` is complete when built."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cobe.core.lock import lock_holder
from cobe.core.reserve import RESERVE_NAME
from cobe.run import engine, rejudge
from cobe.run.config import EvalConfig
from cobe.run.engine import RunSetUp, generate, open_session, set_up_run
from cobe.run.plan import plan_run
from cobe.store.directory import open_run_store


class Stopped(Exception):
    """Raised by the watching progress, as any error inside a run would be."""


class Watch:
    """A progress that notes what the run directory holds when the first stage starts, then fails the command."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.seen: tuple[bool, bool] | None = None

    def start(self, stage: str, total: int, done: int) -> None:
        self.seen = (lock_holder(self.run_dir) is not None, (self.run_dir / RESERVE_NAME).exists())
        raise Stopped(stage)

    def advance(self, stage: str, error: bool = False) -> None:
        pass


def test_the_set_up_holds_the_lock_and_reserve_and_gives_them_back_on_an_error(tmp_path):
    with pytest.raises(Stopped), set_up_run(tmp_path, "eval", None, lambda: open_run_store(tmp_path, False)) as setup:
        assert lock_holder(tmp_path)["command"] == "eval"
        assert (tmp_path / RESERVE_NAME).exists() and setup.store.reserve is not None
        raise Stopped("inside")
    assert lock_holder(tmp_path) is None and not (tmp_path / RESERVE_NAME).exists()
    with pytest.raises(sqlite3.ProgrammingError):  # closed, whoever held it
        setup.store.db.execute("SELECT 1")


def test_generate_and_judge_run_both_go_through_the_one_set_up(data_file, tmp_path, monkeypatch):
    commands: list[str] = []
    real = engine.set_up_run

    def spy(run_dir, command, executor, open_store):
        commands.append(command)
        return real(run_dir, command, executor, open_store)

    assert rejudge.set_up_run is real  # re-judging imports the engine's own
    monkeypatch.setattr(engine, "set_up_run", spy)
    monkeypatch.setattr(rejudge, "set_up_run", spy)
    run_dir = tmp_path / "run"
    config = EvalConfig(data=str(data_file), models=["mock/echo"], run_dir=run_dir)
    generated = Watch(run_dir)
    with pytest.raises(Stopped):
        generate(config, generated)
    assert generated.seen == (True, True)
    assert lock_holder(run_dir) is None and not (run_dir / RESERVE_NAME).exists()
    generate(config)  # the stopped run resumes, and its responses are there to judge
    judged = Watch(run_dir)
    with pytest.raises(Stopped):
        rejudge.judge_run(run_dir, "mock/judge-pass", progress=judged)
    assert judged.seen == (True, True)
    assert lock_holder(run_dir) is None and not (run_dir / RESERVE_NAME).exists()
    assert commands == ["generate", "generate", "judge"]


def test_a_session_is_complete_when_built(data_file, tmp_path):
    plan = plan_run(EvalConfig(data=str(data_file), models=["mock/echo"], run_dir=tmp_path / "run"), with_judge=False)
    plan.run_dir.mkdir()
    store, _ = open_run_store(plan.run_dir, False)
    try:
        pool = plan.scenarios[:1]  # what --judge-check's self-test would draw from
        session = open_session(plan, RunSetUp(store, notices=["the store was set aside"]), pool=pool)
        assert session.notices == [*plan.notices, "the store was set aside"]
        assert session.check_pool is pool and session.replaced is None
    finally:
        store.close()
