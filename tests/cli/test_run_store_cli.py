"""`cobe eval` on a run directory whose cobe.sqlite is empty, unreadable or damaged: one line, nothing touched;
with --force-new the old store and exports are moved aside, never deleted."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from cobe.cli.main import main
from support.run_data import write_dataset

KINDS = ["empty", "random bytes", "corrupt page", "directory", "unreadable"]


def cobe(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the real command line in this process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def eval_args(data: Path, run_dir: Path, *more: str) -> list[str]:
    base = [
        "eval",
        "--model",
        "mock/echo",
        "--judge",
        "mock/judge-pass",
        "--data",
        str(data),
        "--run-dir",
        str(run_dir),
    ]
    return [*base, "--templates", "A", "--no-report", *more]


def finished_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """(data file, run dir) of a complete run, with a drawn report and figures beside its exports."""
    data = write_dataset(tmp_path / "data.jsonl", 2)
    run_dir = tmp_path / "run"
    code, _, err = cobe(capsys, *eval_args(data, run_dir))
    assert code == 0, err
    (run_dir / "report.html").write_text("<html>the old report</html>")
    (run_dir / "figures").mkdir()
    (run_dir / "figures" / "accuracy.svg").write_text("<svg/>")
    assert not (run_dir / "cobe.sqlite-wal").exists()  # closed cleanly: every page is in the main file
    return data, run_dir


def damage(store: Path, kind: str) -> None:
    if kind == "empty":
        store.write_bytes(b"")
    elif kind == "random bytes":
        store.write_bytes(os.urandom(store.stat().st_size))
    elif kind == "corrupt page":  # the first query of a run reads this page: `runs`
        db = sqlite3.connect(store)
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'runs'").fetchone()[0]
        db.close()
        with open(store, "r+b") as handle:
            handle.seek((root - 1) * page_size)
            handle.write(os.urandom(page_size))
    elif kind == "directory":
        store.unlink()
        store.mkdir()
        (store / "something").write_text("kept")
    elif kind == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("root reads any file")
        store.chmod(0)


def snapshot(folder: Path) -> dict[str, bytes | tuple[int, int, int]]:
    """Every file's bytes (size, mtime and mode for one this user may not read)."""
    found: dict[str, bytes | tuple[int, int, int]] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        info = path.stat()
        readable = os.access(path, os.R_OK)
        found[str(path.relative_to(folder))] = (
            path.read_bytes() if readable else (info.st_size, info.st_mtime_ns, info.st_mode)
        )
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_an_unusable_store_is_refused_in_one_line_and_nothing_changes(tmp_path, capsys, kind):
    data, run_dir = finished_run(tmp_path, capsys)
    store = run_dir / "cobe.sqlite"
    damage(store, kind)
    before = snapshot(run_dir)
    code, out, err = cobe(capsys, *eval_args(data, run_dir))
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(f"error: {store}: not a usable cobe store (") and "--force-new" in line
    assert snapshot(run_dir) == before
    assert sorted(p.name for p in run_dir.iterdir()) == sorted(
        {name.split("/")[0] for name in before} | {"cobe.sqlite"}
    )


@pytest.mark.parametrize("kind", ["empty", "corrupt page", "directory"])
def test_force_new_moves_the_store_and_exports_aside(tmp_path, capsys, kind):
    data, run_dir = finished_run(tmp_path, capsys)
    damage(run_dir / "cobe.sqlite", kind)
    before = snapshot(run_dir)
    code, out, err = cobe(capsys, *eval_args(data, run_dir, "--force-new"))
    assert code == 0, err
    (aside,) = [p for p in run_dir.iterdir() if p.name.startswith("previous-")]
    assert snapshot(aside) == before  # every old file, byte for byte
    assert f"note: {run_dir / 'cobe.sqlite'}: not a usable cobe store" in err and f"moved to {aside}" in err
    assert "complete" in out and "respondent 2 calls (0 from store" in out  # a fresh store: nothing cached
    assert (run_dir / "results.jsonl").is_file() and not (run_dir / "report.html").exists()
    assert (run_dir / "cobe.sqlite").stat().st_mode & 0o777 == 0o600


def test_a_healthy_store_is_kept_by_force_new(tmp_path, capsys):
    data, run_dir = finished_run(tmp_path, capsys)
    code, out, err = cobe(capsys, *eval_args(data, run_dir, "--force-new"))
    assert code == 0, err
    assert not [p for p in run_dir.iterdir() if p.name.startswith("previous-")]
    assert "respondent 0 calls (2 from store" in out  # the new run is answered from the same store
