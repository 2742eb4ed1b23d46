"""Where a command's model calls run: here (`local`, the default) or on a Ray cluster (`ray[:ADDRESS]`).

`ray` alone starts a private Ray instance on this machine for the command (never another user's);
`ray:ADDRESS` joins the cluster there (`auto`, `HOST:PORT`, or `ray://HOST:PORT` through Ray Client).
Either way this process stays the driver: it plans, reads and writes the store, and draws the
progress; the cluster's workers only answer calls (docs/SCALE.md). Ray missing, or no cluster at
ADDRESS, is one line and exit 3 before any call or any write to the run directory.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import socket
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cobe.core.errors import InputError, ProviderUnavailable
from cobe.core.secrets import scrub, scrub_cut

LOCAL = "local"
RAY = "ray"
INSTALL = "pip install 'cobe[ray]'"
#: how long a HOST:PORT address may take to accept a connection before it counts as no cluster
CONNECT_TIMEOUT_S = 3.0
# environment variables a worker needs as the driver has them: cobe's own settings, API keys and
# OpenAI-compatible base URLs (keys travel to the cluster's workers, never to the store or a log)
_FORWARDED_PREFIXES = ("COBE_",)
_FORWARDED_SUFFIXES = ("_API_KEY", "_BASE_URL", "_KEY")
LOOPBACK = "127.0.0.1"
MAX_PORT = 65535
#: the Ray Client form of an address, which needs the ray[client] extra (grpcio)
CLIENT_SCHEME = "ray://"
#: Ray's C++ core prints to stderr below any Python logging setting; set this yourself to see its lines
NATIVE_LOG_LEVEL = "RAY_BACKEND_LOG_LEVEL"
#: the most bytes an AF_UNIX socket's path holds (108 on Linux, 104 on macOS, the closing NUL included)
SOCKET_PATH_MAX = (104 if sys.platform == "darwin" else 108) - 1
#: what Ray adds to its folder for its longest socket: the session (its start to the microsecond and the pid of
#: the process that starts it: Linux's largest, 2**22 - 1, has 7 digits), then the object store's socket with a
#: node's index (a cluster of several nodes on one machine numbers them)
RAY_SOCKET_TAIL = len("/session_2026-12-07_16-09-27_200452_4194303/sockets/plasma_store.99")
#: the folder Ray keeps its sessions in, under its temporary folder ($RAY_TMPDIR, else $TMPDIR, else /tmp)
RAY_FOLDER = "ray"


@dataclass(frozen=True)
class Executor:
    """A parsed --executor value."""

    kind: str = LOCAL
    address: str | None = None

    @property
    def remote(self) -> bool:
        """Whether calls run on a Ray cluster."""
        return self.kind == RAY

    def __str__(self) -> str:
        return self.kind if self.address is None else f"{self.kind}:{self.address}"


def parse_executor(value: str | None) -> Executor:
    """`local`, `ray` or `ray:ADDRESS` as an Executor; anything else is an InputError naming the flag."""
    text = (value or LOCAL).strip()
    kind, sep, address = text.partition(":")
    if kind == LOCAL and not sep:
        return Executor()
    if kind == RAY and (not sep or address.strip()):
        _check_port(text, address.strip())
        return Executor(RAY, address.strip() or None)
    raise InputError(f"--executor {text}: expected local, ray or ray:ADDRESS (e.g. ray:auto, ray:10.0.0.5:6379)")


def _check_port(text: str, address: str) -> None:
    """InputError for a HOST:PORT (or ray://HOST:PORT) whose port is no TCP port: Ray would retry it for minutes."""
    host, sep, port = address.partition("://")[2 if "://" in address else 0].rpartition(":")
    if not sep or host.endswith(":") or (host.startswith("[") and not host.endswith("]")):
        return  # no port, or an IPv6 address without one: Ray's own default port
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= MAX_PORT):
        raise InputError(f"--executor {text}: port {port!r} is not a TCP port; expected 1-{MAX_PORT}")


def forwarded_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The variables of this process that the cluster's workers get: COBE_*, *_API_KEY, *_KEY, *_BASE_URL."""
    env = os.environ if environ is None else environ
    return {
        name: value
        for name, value in env.items()
        if name.startswith(_FORWARDED_PREFIXES) or name.endswith(_FORWARDED_SUFFIXES)
    }


def _reachable(address: str) -> bool:
    """Whether HOST:PORT accepts a TCP connection (other address forms are left to Ray)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return True
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=CONNECT_TIMEOUT_S):
            return True
    except OSError:
        return False


def _loopback(address: str) -> bool:
    """Whether a Ray address names this machine by its loopback interface (127.x, localhost)."""
    host = address.split("://")[-1].rpartition(":")[0] or address
    return host == "localhost" or host.startswith("127.")


def loopback_only(ray: Any) -> None:
    """Make Ray of this machine alone bind and talk to 127.0.0.1: node, GCS, workers, never another interface.

    Ray turns a loopback node address into the machine's outward one unless its one-machine switch is off
    (`RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`, read at import: the loaded constant is set too). The variable is
    inherited by every process Ray starts here.
    """
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    if constants is not None:
        constants.ENABLE_RAY_CLUSTER = False


def _quiet() -> None:
    """The command's own progress and summary stay its only output, as under the local executor: no usage
    report, no log lines of Ray's (they stay in the Ray session's log folder)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    for name in ("ray", "ray.data"):  # set after Ray's own logging setup, which runs on import
        logging.getLogger(name).setLevel(logging.ERROR)


@contextlib.contextmanager
def cluster(executor: Executor) -> Iterator[Any]:
    """The `ray` module joined to the executor's cluster for the command's duration; None for `local`."""
    if not executor.remote:
        yield None
        return
    ray, started = connect(executor)
    try:
        yield ray
    finally:
        if started and ray.is_initialized():
            ray.shutdown()


def connect(executor: Executor, num_cpus: int | None = None) -> tuple[Any, bool]:
    """Start or join the Ray cluster of `executor`: (the `ray` module, whether this call started it); exit 3
    when Ray is not installed or no cluster answers at its address."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # the driver's C++ core writes its warnings (an actor's max_restarts, ...) straight to stderr
    os.environ.setdefault(NATIVE_LOG_LEVEL, "fatal")
    try:
        import ray
        import ray.data
    except ImportError:
        raise ProviderUnavailable(f"--executor {executor}: Ray is not installed; run {INSTALL}") from None
    if (executor.address or "").startswith(CLIENT_SCHEME) and not _importable("grpc"):
        raise ProviderUnavailable(
            f"--executor {executor}: a ray:// address joins through Ray Client, which needs ray[client] (grpcio); "
            f"run {INSTALL}"
        )
    _quiet()
    if ray.is_initialized():  # a test or a notebook that started Ray already: run on it
        _quiet_data(ray)
        return ray, False
    address = executor.address
    if address is not None and not _reachable(address):
        raise ProviderUnavailable(f"--executor {executor}: no Ray cluster answers at {address}")
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.ERROR,
        "configure_logging": False,
    }
    if address is None or _loopback(address):
        loopback_only(ray)
        options["_node_ip_address"] = LOOPBACK
    if address is None:  # Ray's sockets go in its folder: one whose paths fit, chosen before Ray starts
        options["_temp_dir"] = os.path.join(ray_root(label=f"--executor {executor}"), RAY_FOLDER)
    try:
        with _native_lines_aside():
            if address is None:
                ray.init(address="local", num_cpus=num_cpus, **options)
            else:
                ray.init(address=address, **options)
    except (OSError, RuntimeError, ValueError) as exc:  # OSError: a folder Ray cannot write, a socket it cannot bind
        reason = scrub_cut((scrub(str(exc)).splitlines() or [type(exc).__name__])[0], 200)
        done = "started" if address is None else "joined"
        raise ProviderUnavailable(f"--executor {executor}: no Ray cluster could be {done} ({reason})") from None
    _quiet_data(ray)
    return ray, True


def ray_root(between: int = 0, label: str = "--executor ray") -> str:
    """The folder a private Ray's sessions folder (`ROOT/ray`) goes in: $RAY_TMPDIR where set, else the first of
    $TMPDIR and /tmp that leaves Ray's socket paths within AF_UNIX's bytes, with `between` more characters of the
    caller's own folders in between; one line (ProviderUnavailable) where none does.

    Ray builds each socket's path from its folder (RAY_SOCKET_TAIL more bytes), so a long $TMPDIR (a CI runner's,
    a macOS one) fails Ray's start with a path it cannot bind: the folder is chosen before Ray is started."""
    room = SOCKET_PATH_MAX - RAY_SOCKET_TAIL - len(os.sep + RAY_FOLDER) - between
    chosen = os.environ.get("RAY_TMPDIR")
    if chosen:  # the user's own choice: used as it is, or refused
        candidates = [("RAY_TMPDIR", chosen)]
    else:
        candidates = [("TMPDIR", os.environ.get("TMPDIR", "")), ("/tmp", "/tmp")]
    tried = []
    for name, root in candidates:
        if not root:
            continue
        size = len(os.fsencode(root))
        if size <= room:  # Ray makes the folder where it is missing, as it does with its default
            return root
        tried.append(f"{name if name == root else f'{name} {root}'} ({size} bytes)")
    raise ProviderUnavailable(
        f"{label}: no folder leaves room for Ray's sockets (their paths hold {SOCKET_PATH_MAX} bytes, and Ray adds "
        f"{RAY_SOCKET_TAIL + len(os.sep + RAY_FOLDER) + between} to its folder): {', '.join(tried)}; "
        f"set RAY_TMPDIR to a folder of at most {room} bytes"
    )


def _importable(name: str) -> bool:
    """Whether `import name` would find a module (one blocked in sys.modules counts as missing)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@contextlib.contextmanager
def _native_lines_aside() -> Iterator[None]:
    """File descriptor 2 into a scratch file while Ray starts: its C++ core prints the log level it read there
    before that level applies. Nothing of cobe's prints meanwhile; a failure still reaches the user as an
    exception, in one line."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    saved = os.dup(2)
    try:
        with tempfile.TemporaryFile() as aside:
            os.dup2(aside.fileno(), 2)
            try:
                yield
            finally:
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.flush()
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def _quiet_data(ray: Any) -> None:
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    if hasattr(context, "enable_operator_progress_bars"):
        context.enable_operator_progress_bars = False
