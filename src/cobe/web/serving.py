"""Running a web app: the port is bound before anything is printed, so "serving on …" is true when it appears."""

from __future__ import annotations

import os
import socket
from typing import Any

from cobe.core.errors import InputError
from cobe.web.security import install_log_redaction


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or one line saying why not (port taken, no such address, …)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, backlog=128)
    except OSError as exc:
        # create_server rewrites strerror with the address; the errno's own words are the one line we want
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise InputError(f"--host {host} --port {port}: cannot listen there ({reason})") from None


def serve(app: Any, sock: socket.socket) -> None:
    """Serve `app` on an already-bound socket until Ctrl-C; the access log stays off (links carry tokens)."""
    import uvicorn

    install_log_redaction()
    config = uvicorn.Config(app, access_log=False, log_level="warning", server_header=False)
    uvicorn.Server(config).run(sockets=[sock])
