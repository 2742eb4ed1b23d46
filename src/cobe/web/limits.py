"""Size limits on what a browser may send: the whole request body, each form field, JSON size and nesting.

Standard library only. The numbers are generous for the texts the apps hold (stories average ~40 words)
and small enough that no request can make the server parse or store megabytes.
"""

from __future__ import annotations

from cobe.core.errors import InputError

MAX_BODY_BYTES = 256 * 1024  # the largest legitimate form (a contribution in a non-Latin script) is ~150 KB encoded
MAX_COMMENT = 4000  # free-text comments and reasons, in characters
MAX_JSON_DEPTH = 8  # a causal graph nests three levels deep ({"edges": [{"source": ...}]})


def text_length(text: str) -> int:
    """Characters as the user typed them: a browser sends each newline of a textarea as CR LF."""
    return len(text.replace("\r\n", "\n"))


def too_long(name: str, text: str, limit: int) -> str | None:
    """A one-line problem when `text` exceeds `limit` characters, else None."""
    length = text_length(text)
    if length <= limit:
        return None
    return f"{name}: {length:,} characters; at most {limit:,} are accepted"


def json_depth(text: str) -> int:
    """How deeply arrays and objects nest in JSON text, counted without parsing it (brackets in strings ignored)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def json_problem(name: str, text: str, max_chars: int, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """A one-line problem when JSON text is too long or nests too deeply to be parsed safely, else None."""
    problem = too_long(name, text, max_chars)
    if problem:
        return problem
    # json.loads recurses once per level, so very deep nesting would end in RecursionError, not a message
    depth = json_depth(text)
    if depth > max_depth:
        return f"{name}: nested {depth:,} levels deep; at most {max_depth} are accepted"
    return None


def check_port(port: int) -> int:
    """The port to listen on, or InputError: a TCP port is 1-65535 (99999 once ended in an OverflowError)."""
    if not 1 <= port <= 65535:
        raise InputError(f"--port {port}: expected a port from 1 to 65535")
    return port
