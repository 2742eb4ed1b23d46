"""Two `cobe judges check` started together on one cache pay for each call once.

Issue 23, item 5: two self-tests on one cache store paid twice (49-50 requests where 25 are needed).
Now the second waits for the first (saying so on stderr) and then answers everything from the store.
Two real processes against the fake server: the first one's requests are held unanswered until the
second has said it waits, so the two always overlap.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from typing import IO

from reliability_helpers import KEY, SPEC

from support.run_data import write_dataset

_CLI = "import sys; from cobe.cli.main import main; main(sys.argv[1:])"


def _lines(stream: IO[str]) -> queue.Queue[str]:
    """The lines of a child's stream, as they come, on a queue."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def test_the_second_self_test_waits_and_pays_nothing(fake, tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 6)
    env = os.environ | {"FAKE_BASE_URL": fake.base_url, "FAKE_API_KEY": KEY, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = [sys.executable, "-c", _CLI, "judges", "check", "--judge", SPEC, "--data", str(data), "--n", "4"]
    fake.control(hold_after=0)  # nothing is answered until the second process is waiting
    first = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = None
    try:
        fake.wait_for(lambda stats: stats.held >= 1, timeout=120)
        second = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said = _lines(second.stderr).get(timeout=120)
        assert said.startswith("note: ") and "judges check" in said and "waiting for it to finish" in said
        assert fake.stats()["requests"] == fake.stats()["held"]  # only the first one's calls went out
        fake.control(hold_after=None)
        out_first, err_first = first.communicate(timeout=300)
        second.wait(timeout=300)
        out_second = second.stdout.read()
    finally:
        for process in (first, second):
            if process is not None:
                process.kill()
    assert first.returncode == 0, err_first
    assert second.returncode == 0
    stats = fake.stats()
    assert stats["requests"] == len(stats["bodies"]) > 0  # no request sent twice
    assert "judge calls: 0 made" in out_second and "judge calls: 0 made" not in out_first
