"""Fixtures: a small synthetic run and a study over it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cobe.annotate.app import create_app
from cobe.annotate.study import create_study
from cobe.web.serving import listen

from .synthetic import make_row, write_run


@pytest.fixture
def small_run(tmp_path: Path) -> Path:
    """Six rateable rows from two models, one errored row and one HTML-bearing response."""
    rows = [make_row(i, "mock/a" if i % 2 else "mock/b") for i in range(6)]
    rows[0]["response"] = "<script>alert('x')</script><b>bold</b> & more"
    broken = make_row(7, "mock/a")
    broken.update(response=None, response_error="timeout", status="error", verdicts={}, passed=None)
    rows.append(broken)
    return write_run(tmp_path / "run", rows)


@pytest.fixture
def small_study(small_run: Path, tmp_path: Path):
    """A 6-item, 2-rater study over small_run, with its links."""
    return create_study(
        small_run, tmp_path / "study", n=6, seed=1, raters=2, base_url="http://testserver", models="all"
    )


N_ITEMS = 5


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, object]]:
    """A real uvicorn server on 127.0.0.1 (in a thread) serving a fresh 5-item, 2-rater study."""
    import uvicorn

    rows = [make_row(i, "mock/a" if i % 2 else "mock/b") for i in range(N_ITEMS)]
    rows[1]["response"] = "<img src=x onerror=alert(1)> kept as text"
    run_dir = write_run(tmp_path / "run", rows)
    sock = listen("127.0.0.1", 0)  # bound and listening now: early requests wait in its backlog
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    links = create_study(run_dir, n=N_ITEMS, seed=7, raters=2, base_url=base, models="all")
    config = uvicorn.Config(create_app(links.path), access_log=False, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    yield base, links
    srv.should_exit = True
    thread.join(timeout=10)
