"""cobe.cli.interrupt: a Ctrl-C that lands inside a callback Python runs for itself still stops the command."""

from __future__ import annotations

import os
import signal
import time
import weakref

from cobe.cli.interrupt import ctrl_c_handled


def _press_inside_a_callback() -> None:
    """Free an object whose weakref callback is running when SIGINT arrives: the handler's KeyboardInterrupt is
    raised inside the callback, where Python prints "Exception ignored" and drops it (an import lock's callback at
    start-up, as CI met it)."""

    class Held:
        pass

    def callback(_: object) -> None:
        signal.raise_signal(signal.SIGINT)
        sum(range(1000))  # bytecode after the signal: the handler runs here, inside the callback

    held = Held()
    ref = weakref.ref(held, callback)
    del held
    assert ref() is None


def _in_a_child(body: str) -> tuple[int, str]:
    """Run `body` (a step of this module) in a forked child under ctrl_c_handled: (exit code, what it wrote)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the handler's watchdog and os._exit must not reach the test process
        os.close(read)
        outcome = "finished"
        try:
            with ctrl_c_handled() as handler:
                globals()[body]()
                deadline = time.monotonic() + 5  # the command going on, where a re-delivered press lands
                while time.monotonic() < deadline:
                    pass
        except KeyboardInterrupt:
            outcome = f"interrupted after {handler.count()} press"
        os.write(write, outcome.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        said = pipe.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), said


def test_a_ctrl_c_a_callback_swallowed_is_delivered_again_as_the_same_press():
    code, said = _in_a_child("_press_inside_a_callback")
    assert (code, said) == (0, "interrupted after 1 press")


def test_without_the_swallowing_callback_one_press_is_one_interrupt():
    code, said = _in_a_child("_press_in_plain_code")
    assert (code, said) == (0, "interrupted after 1 press")


def _press_in_plain_code() -> None:
    signal.raise_signal(signal.SIGINT)
    sum(range(1000))
