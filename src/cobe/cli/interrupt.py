"""Ctrl-C in the `cobe` command: the first stops the work cleanly, a second one (or a clean stop that
takes too long) ends the process at once. Either way it exits 130, with no traceback or warning.

The default handler raises KeyboardInterrupt wherever the main thread happens to be; inside an event
loop a second Ctrl-C then lands in the middle of the first one's clean-up (closing the store, writing
the exports), which printed tracebacks and "coroutine ... was never awaited". While a command runs,
SIGINT is handled here instead:
- first: with an event loop running, every task of it is cancelled from inside the loop (the engine's
  clean-up then runs as for any cancellation); in plain code, KeyboardInterrupt is raised as before.
  A watchdog is armed: if the process has not ended GRACE_S later, it ends then.
- second: the process ends now. Every finished call is already committed to the store (each commits
  alone), so stopping without the clean-up loses nothing but the exports, which the next command writes.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, NoReturn

from cobe.cli.json_end import INTERRUPTED_STATE, end_object
from cobe.core.errors import INTERRUPTED

#: how long the first Ctrl-C's clean stop may take before the process ends anyway (130 within 5 s)
GRACE_S = 4.0
#: seconds between looks at whether the unraisable hook has returned, before a swallowed press is sent again
RESEND_POLL_S = 0.001
AGAIN = "Interrupted again; stopped at once. Finished work is saved; run the same command again to resume."
TOO_SLOW = "Interrupted; the clean stop took too long, so cobe stopped at once. Finished work is saved; run the same command again to resume."


class _CtrlC:
    """The SIGINT handler of one command: counts the interrupts and arms the watchdog."""

    def __init__(self, as_json: Callable[[], bool]) -> None:
        self.interrupts = 0
        self.watchdog: threading.Timer | None = None
        self.as_json = as_json  # whether the command asked for --json: its end is then one JSON object too
        self.resent = False  # the next SIGINT is our own: a press a callback swallowed, delivered again
        self.hooking = False  # the unraisable hook is still running: the press is sent again once it is not
        self.previous_hook = sys.unraisablehook

    def count(self) -> int:
        """Ctrl-C presses so far."""
        return self.interrupts

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.resent:  # the same press again, not a second one
            self.resent = False
            self._stop()
            return
        self.interrupts += 1
        if self.interrupts > 1:
            stop_now(AGAIN, self.as_json())
        self.watchdog = threading.Timer(GRACE_S, lambda: stop_now(TOO_SLOW, self.as_json()))
        self.watchdog.daemon = True
        self.watchdog.start()
        self._stop()

    def unraisable(self, unraisable: Any) -> None:
        """`sys.unraisablehook` while the command runs: a KeyboardInterrupt raised inside a callback Python runs
        for itself (an import lock's weakref callback, a `__del__`) is printed as "Exception ignored" and lost, and
        the command ran on to exit 0 (seen in CI, a Ctrl-C during start-up); it is delivered again instead."""
        if self.interrupts and isinstance(unraisable.exc_value, KeyboardInterrupt):
            # sent from a thread once this hook has returned: raised here (raise_signal runs the handler at
            # once), the KeyboardInterrupt would be lost again, in the hook
            self.resent = self.hooking = True
            threading.Thread(target=self._send_again, name="cobe-ctrl-c", daemon=True).start()
            self.hooking = False  # the last step: no call after it, where Python could run the handler
            return
        self.previous_hook(unraisable)

    def _send_again(self) -> None:
        while self.hooking:
            time.sleep(RESEND_POLL_S)
        os.kill(os.getpid(), signal.SIGINT)

    def _stop(self) -> None:
        loop = _running_loop()
        # plain code, or a loop with nothing in flight but the code running now (planning, say): unwind it as
        # Python always does; with calls in flight, they are cancelled from inside the loop
        if loop is None or len(sys.modules["asyncio"].all_tasks(loop)) <= 1:
            raise KeyboardInterrupt
        loop.call_soon_threadsafe(_cancel_every_task, loop)


def _running_loop() -> Any:
    """The event loop running in this thread, if any (asyncio is only looked at once something imported it,
    so `cobe --help` does not pay for importing it)."""
    asyncio = sys.modules.get("asyncio")
    try:
        return asyncio.get_running_loop() if asyncio is not None else None
    except (RuntimeError, AttributeError):  # no loop; or asyncio still being imported, so no loop either
        return None


def _cancel_every_task(loop: Any) -> None:
    # a task cancelled before its first step never runs the coroutine it was given (an HTTP client's connection
    # attempt started a moment before the Ctrl-C, say), and Python warns about that coroutine when it is
    # collected; after a Ctrl-C that is the expected end of it, not a fault to report
    warnings.filterwarnings("ignore", message=r"coroutine '.*' was never awaited", category=RuntimeWarning)
    for task in sys.modules["asyncio"].all_tasks(loop):
        task.cancel()


def cancelled(exc: BaseException) -> bool:
    """Whether `exc` is an asyncio cancellation (what a first Ctrl-C turns into inside an event loop)."""
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(exc, asyncio.CancelledError)


def exit_now(code: object) -> NoReturn:
    """End an interrupted command with `code` after flushing its output, skipping the interpreter's shutdown
    (during which SIGINT is back to its default and a last Ctrl-C would kill the process mid-way)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code if isinstance(code, int) else INTERRUPTED)


def stop_now(why: str, as_json: bool = False) -> NoReturn:
    """End the process at once with exit code 130, saying `why` on stderr (no clean-up, no buffered output);
    under --json, with the command's one JSON object on stdout as well."""
    with contextlib.suppress(OSError):
        os.write(2, f"\n{why}\n".encode())
        if as_json:
            os.write(1, (end_object(INTERRUPTED, why, INTERRUPTED_STATE) + "\n").encode())
    os._exit(INTERRUPTED)


ENDING = "Interrupted as the command ended; its work is saved."


def ending(signum: int, frame: FrameType | None) -> None:
    """The SIGINT handler of a `cobe` process whose command has ended (its output, its JSON object too, printed):
    exit 130 with a line, at once, however far its ending has gone."""
    stop_now(ENDING)


def end_process(code: object) -> NoReturn:
    """End the `cobe` process with its command's exit `code`, without the interpreter's finalization.

    Finalization gives SIGINT back to its default handler and then tears down every module, pandas' and SciPy's
    included: a Ctrl-C landing there killed the process by SIGINT (status -2, no line; 10 of 30 `cobe plan` runs
    interrupted in their last 15 %). What finalization does that matters is done here first, with `ending` still
    handling SIGINT: other threads joined (and threading's exit hooks run), exit functions run, output flushed.
    """
    shutdown = getattr(threading, "_shutdown", None)  # what the interpreter calls first as it finalizes
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    if code is not None and not isinstance(code, int):  # sys.exit("text"): Python prints it and exits 1
        with contextlib.suppress(Exception):
            print(code, file=sys.stderr)
        code = 1
    exit_now(code or 0)


@contextlib.contextmanager
def ctrl_c_handled(as_json: Callable[[], bool] = lambda: False, after: Any = None) -> Iterator[_CtrlC]:
    """Handle SIGINT as this module says while the block runs (main thread only), then restore the handler, or
    install `after` in its place (the `cobe` process: `ending`, so no press meets a handler in between).

    Once interrupted, the watchdog stays armed past the block: if exiting hangs (a thread that will not
    stop, a provider's connection), the process still ends GRACE_S after the first Ctrl-C.
    """
    handler = _CtrlC(as_json)
    if threading.current_thread() is not threading.main_thread():
        yield handler
        return
    previous = signal.signal(signal.SIGINT, handler)
    sys.unraisablehook = handler.unraisable
    try:
        yield handler
    finally:
        sys.unraisablehook = handler.previous_hook
        if not handler.interrupts:  # once interrupted it stays: a Ctrl-C while exiting must not raise anywhere
            signal.signal(signal.SIGINT, previous if after is None else after)
