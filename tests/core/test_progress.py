"""Progress off a terminal: a plain line per stage every 10 s or 5% (done, failed, rate, ETA), even while no call
ends; and the engine's retries and refusals as they happen with -v."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from cobe.core.progress import PLAIN_EVERY_S, PlainProgress
from support.run_data import write_dataset

SPEC = "openai-api/fake/fake-model"
HUNG_S = 600  # reached only by a process that hangs: the tests wait on events


class Lines:
    """A stream that hands each written line, with the time it came, to whoever waits for it."""

    def __init__(self) -> None:
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.seen: list[str] = []

    def write(self, text: str) -> None:
        for line in text.splitlines():
            if line:
                self.lines.put((time.monotonic(), line))

    def flush(self) -> None:
        pass

    def close(self) -> None:
        """The writer is gone: a wait for a line that cannot come ends at once."""
        self.lines.put((time.monotonic(), None))

    def next(self) -> tuple[float, str]:
        when, line = self.lines.get(timeout=HUNG_S)
        assert line is not None, f"no more lines; the stream said: {self.seen}"
        self.seen.append(line)
        return when, line

    def rest(self) -> list[str]:
        """Every line still waiting, up to the writer's end."""
        out = []
        while not self.lines.empty():
            _, line = self.lines.get()
            if line is not None:
                out.append(line)
        return out


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class TimerClock(Clock):
    """A clock the test moves by hand, which counts how often the progress's timer thread has read it: each of its
    looks at whether a line is due reads it, so the test knows, by an event and not a sleep, that one was made."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.read = threading.Condition()

    def __call__(self) -> float:
        if threading.current_thread() is not threading.main_thread():
            with self.read:
                self.reads += 1
                self.read.notify_all()
        return self.now

    def looked(self) -> None:
        """Return once the timer has made a whole look at the clock since the call: three reads hold one (the
        timer reads it before its wait and in its check, so of any three one is a check followed by a wait)."""
        with self.read:
            seen = self.reads
            assert self.read.wait_for(lambda: self.reads >= seen + 3, timeout=HUNG_S), "the timer never looked"


def test_a_line_at_the_start_at_each_5_percent_and_at_the_end():
    stream, clock = Lines(), Clock()
    with PlainProgress(stream=stream, every=10_000, clock=clock) as progress:  # the timer never fires here
        progress.start("generate", 40, 0)
        assert stream.next()[1] == "progress: generate 0/40 done (0%), 0 failed, 0.0/s, ETA unknown"
        clock.now += 2.0
        progress.advance("generate")  # 2.5%: no line
        assert stream.lines.empty()
        progress.advance("generate", error=True)  # 5%
        assert stream.next()[1] == "progress: generate 2/40 done (5%), 1 failed, 1.0/s, ETA 38 s"
        progress.advance("generate")
        progress.advance("generate")  # 10%, but within a second of the last line: a small fast run stays short
        assert stream.lines.empty()
        clock.now += 1.0
        for _ in range(36):
            progress.advance("generate")
        lines = stream.rest()
        assert lines == ["progress: generate 5/40 done (12%), 1 failed, 1.7/s, ETA 21 s"] + [
            "progress: generate 40/40 done (100%), 1 failed, 13.3/s, ETA done"
        ]


def test_a_line_every_interval_while_nothing_ends():
    """The clock is the test's: the timer looks at it (every quarter second of real time, while it stands still)
    and writes nothing until the test has moved it by the interval, then the stage's line again."""
    stream, clock = Lines(), TimerClock()
    with PlainProgress(stream=stream, every=0.25, clock=clock) as progress:  # quarters add up exactly in binary
        progress.start("judge", 10, 4)  # 4 already in the store
        _, line = stream.next()
        assert line == "progress: judge 4/10 done (40%), 0 failed, 0.0/s, ETA unknown"
        for _ in range(2):
            clock.now += 0.125
            clock.looked()
            assert stream.lines.empty()  # half the interval: not before its time
            clock.now += 0.125
            assert stream.next()[1] == line
    assert PLAIN_EVERY_S == 10.0


def test_verbose_lines_say_each_retry_as_it_happens():
    stream = Lines()
    with PlainProgress(verbose=True, stream=stream, every=10_000) as progress:
        progress.event("retry 1 of 6 for a call to x/y in 1.0 s (RateLimitError: slow down)")
        assert stream.next()[1] == "progress: retry 1 of 6 for a call to x/y in 1.0 s (RateLimitError: slow down)"
    with PlainProgress(stream=stream, every=10_000) as quiet:
        quiet.event("never shown")
    assert stream.lines.empty()


def test_a_piped_eval_shows_progress_while_no_call_ends(tmp_path: Path, openai_server) -> None:
    """`cobe eval` with its output in pipes, against a server that answers nothing until told: the progress
    line comes again while no call ends (every 10 s: PLAIN_EVERY_S, whose timer the test above drives), then the
    run finishes and ends with its table."""
    data = write_dataset(tmp_path / "data.jsonl", 2)
    openai_server.control(hold_after=0)  # every request waits, unanswered
    args = ["eval", "--model", SPEC, "--judge", SPEC, "--data", str(data), "--concurrency", "2", "--no-report"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COBE_", "FAKE_"))}
    env["FAKE_BASE_URL"] = openai_server.base_url
    command = [sys.executable, "-c", "from cobe.cli.main import main; main()", *args, "--run-dir", str(tmp_path / "r")]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stream = Lines()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            stream.write(line)
        stream.close()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        # the preflight is the first stage: its two probes (the model as respondent, and as judge) are held
        starts = [stream.next()]
        assert [line for _, line in starts] == ["progress: preflight 0/2 done (0%), 0 failed, 0.0/s, ETA unknown"]
        openai_server.wait_for(lambda s: s.held == 2, timeout=HUNG_S)
        later = [stream.next()]  # the stage again, though no call has ended
        assert [line for _, line in later] == [line for _, line in starts]
        assert openai_server.stats()["held"] == 2 and openai_server.stats()["ok"] == 0
        openai_server.control(hold_after=None)
        # stdout alone: communicate() would read stderr too, taking lines from the reader thread
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.wait(timeout=HUNG_S)
    finally:
        proc.kill()
    assert proc.returncode == 0 and out.startswith(f"{tmp_path / 'r'}: complete")
    reader.join(timeout=HUNG_S)
    rest = stream.rest()
    shown = " ".join(rest)
    assert "progress: preflight 2/2 done (100%)" in shown
    assert "progress: generate 6/6 done (100%)" in shown and "progress: judge 6/6 done (100%)" in shown, rest
