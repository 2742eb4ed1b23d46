"""Helpers of the reliability suite: the CLI against the fake server, eval arguments, a non-root runner."""

from __future__ import annotations

import ctypes
import os
import pickle
from pathlib import Path

from support.cli import CliResult, run_cobe
from support.openai_server import ThreadedServer

SPEC = "openai-api/fake/fake-model"
#: a key shaped like OpenAI's; the echoing server repeats it in its error bodies
KEY = "sk-proj-Reliability0123456789abcdefSECRET"


def provider_env(server: ThreadedServer) -> dict[str, str]:
    """What `openai-api/fake/...` reads: the fake server's URL and the key it is sent."""
    return {"FAKE_BASE_URL": server.base_url, "FAKE_API_KEY": KEY}


def cobe_at(server: ThreadedServer, *args: str, cwd: Path | None = None) -> CliResult:
    """`cobe ARGS` in-process with the fake server's URL and key in the environment."""
    return run_cobe(*args, cwd=cwd, env=provider_env(server))


def eval_args(data: Path, run_dir: Path, *more: str, model: str = SPEC, judge: str = SPEC) -> list[str]:
    """`cobe eval` on `data` into `run_dir`, quick retries, no report unless asked, and no preflight: these
    tests aim faults at a run's item calls by their order (the preflight has tests of its own,
    tests/calls/test_preflight.py)."""
    return [
        "eval",
        *("--model", model, "--judge", judge, "--data", str(data), "--run-dir", str(run_dir)),
        # a flag given once only: a repeat is refused (issue 29, item 3), so a test's own --max-retries replaces it
        *(() if "--max-retries" in more else ("--max-retries", "1")),
        *("--no-report", "--no-preflight", *more),
    ]


# ---- running as a user who cannot write everywhere ---------------------------------------
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2
_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_file_override() -> None:
    """Give up root's power to write where permission bits forbid it (this process only)."""
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = _CapHeader(_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    keep = ~((1 << _CAP_DAC_OVERRIDE) | (1 << _CAP_DAC_READ_SEARCH)) & 0xFFFFFFFF
    data[0].effective &= keep
    data[0].permitted &= keep
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def run_cobe_unprivileged(*args: str, cwd: Path | None = None) -> CliResult:
    """`cobe ARGS` as a user bound by permission bits: in-process for a normal user; root runs it in a
    forked child that first drops CAP_DAC_OVERRIDE, so a read-only directory is read-only for it too."""
    if os.geteuid() != 0:
        return run_cobe(*args, cwd=cwd)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 1
        try:
            os.close(read)
            _drop_file_override()
            result = run_cobe(*args, cwd=cwd)
            with os.fdopen(write, "wb") as out:
                pickle.dump(result, out)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as incoming:
        payload = incoming.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and payload, "the unprivileged child failed"
    result: CliResult = pickle.loads(payload)
    return result
