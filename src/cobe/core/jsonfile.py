"""Reading the files users hand to cobe: regular files only, text as UTF-8, JSON, JSON lines, YAML and CSV.

Every reader of a user's file goes through here (datasets, imported verdicts, results.jsonl,
mock scripts, price files, mapping files, judge prompt configs), so each kind of bad file gets
one wording everywhere:
- a FIFO, a device or a socket is refused before a byte is read (reading one blocks or never ends);
- binary content and invalid UTF-8 name the line;
- JSON or YAML nested deeper than any cobe file needs is refused, instead of Python's parsers
  overflowing the stack (RecursionError) or later code recursing into it;
- YAML aliases that expand into a huge document (a "billion laughs") are refused by size;
- a CSV the csv module cannot read (a field over its size limit, a stray NUL) names the line.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from cobe.core.errors import InputError
from cobe.core.files import file_kind

#: the deepest nesting accepted; cobe's own files nest at most about eight levels
MAX_DEPTH = 100
#: the most values a YAML file may expand to (its aliases counted each time they are used)
MAX_YAML_NODES = 200_000
_BINARY_PROBE = 8192


class FileProblem(InputError):
    """A file that cannot be read as what it should be; `reason` and `line` without the path, for reports.

    `parser_message` is the JSON parser's own message (e.g. "Extra data"), where one said it.
    """

    def __init__(self, path: str | Path, reason: str, line: int | None = None, parser_message: str = "") -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {reason}")
        self.path, self.reason, self.line, self.parser_message = str(path), reason, line, parser_message


def open_regular(path: str | Path, what: str = "a file") -> IO[bytes]:
    """`path` opened for reading in binary, or FileProblem if it is missing, unreadable or not a regular file."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer would otherwise block before fstat can refuse it
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise FileProblem(path, "file not found") from None
    except NotADirectoryError:
        raise FileProblem(path, f"a part of the path is a file, not a directory; expected {what}") from None
    except OSError as exc:
        raise FileProblem(path, f"cannot be read ({exc.strerror or exc}); expected {what}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = file_kind(mode)
            plain = "" if kind == "a directory" else ", not a regular file"
            raise FileProblem(path, f"is {kind}{plain}; expected {what}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | Path, what: str = "a file", max_bytes: int | None = None) -> bytes:
    """The whole content of a regular file (see `open_regular`); FileProblem past `max_bytes`, before reading it."""
    with open_regular(path, what) as handle:
        try:
            if max_bytes is None:
                return handle.read()
            # the size is checked on the open file, and the read bounded too: a file may grow after its fstat
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(max_bytes + 1) if size <= max_bytes else b""
        except OSError as exc:
            raise FileProblem(path, f"cannot be read ({exc.strerror or exc}); expected {what}") from None
        if size > max_bytes or len(data) > max_bytes:
            raise FileProblem(path, f"holds more than {max_bytes:,} bytes; expected {what}")
        return data


def decode(data: bytes, path: str | Path, what: str = "a text file") -> str:
    """UTF-8 text (a BOM is dropped), or FileProblem for binary content or invalid UTF-8, naming the line."""
    if b"\0" in data[:_BINARY_PROBE]:
        raise FileProblem(path, f"is a binary file; expected {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # utf-8-sig counts from after a BOM; the offset and line name the file's own bytes
        start = exc.start + (3 if data.startswith(codecs.BOM_UTF8) else 0)
        line = data.count(b"\n", 0, start) + 1
        raise FileProblem(path, f"invalid UTF-8 at byte offset {start}", line) from None


def text_lines(path: str | Path, what: str = "a text file") -> Iterator[tuple[int, str]]:
    """(line number, line) of a regular file's UTF-8 text, read as it goes, split and numbered at each \\n
    (a \\r\\n ending counts as one); a problem `read_text` would refuse the file for raises FileProblem when reached."""
    with open_regular(path, what) as handle:
        offset = 0
        for number, raw in enumerate(handle, start=1):  # split on b"\n" only, as `decode` counts lines
            if offset < _BINARY_PROBE and b"\0" in raw[: _BINARY_PROBE - offset]:
                raise FileProblem(path, f"is a binary file; expected {what}")
            try:
                text = raw.decode("utf-8-sig" if offset == 0 else "utf-8")
            except UnicodeDecodeError as exc:
                raise FileProblem(path, f"invalid UTF-8 at byte offset {offset + exc.start}", number) from None
            offset += len(raw)
            yield number, _strip_ending(text)


def _strip_ending(line: str) -> str:
    # only the line's own ending goes: a \r, U+2028 or U+0085 inside it is text (JSON allows them in strings)
    return line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith("\n") else line


def split_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of text split at each \\n only (a \\r\\n ending counts as one), as JSON lines are
    and as the JSON parser numbers lines; `str.splitlines` would also break at \\r, U+2028, U+0085, ..."""
    lines = text.split("\n")
    if lines[-1] == "":  # the text's last \n ends a line; it starts none
        lines.pop()
    for number, line in enumerate(lines, start=1):
        yield number, line[:-1] if line.endswith("\r") else line


def read_text(path: str | Path, what: str = "a text file", max_bytes: int | None = None) -> str:
    """A regular file's content as UTF-8 text (refused past `max_bytes`, where given)."""
    return decode(read_bytes(path, what, max_bytes), path, what)


def _check_depth(value: Any, path: str | Path, line: int | None, max_nodes: int | None = None) -> Any:
    """`value` unchanged, or FileProblem when it nests deeper than MAX_DEPTH (or holds more than max_nodes values)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if max_nodes is not None and seen > max_nodes:
            raise FileProblem(path, f"expands to more than {max_nodes:,} values; expected a small file", line)
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            raise FileProblem(path, f"nested more than {MAX_DEPTH} levels deep", line)
        stack.extend((child, depth + 1) for child in children)
    return value


def parse_json(text: str, path: str | Path, line: int | None = None) -> Any:
    """One JSON document (`line`: where it starts, for JSON lines); FileProblem naming line and column if bad."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        at = exc.lineno + (line - 1 if line else 0)
        raise FileProblem(path, f"invalid JSON: {exc.msg} (line {at}, column {exc.colno})", at, exc.msg) from None
    except RecursionError:
        raise FileProblem(path, f"nested more than {MAX_DEPTH} levels deep", line) from None
    return _check_depth(value, path, line)


def jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) for each non-blank line of JSON-lines text."""
    for number, line in split_lines(text):
        if line.strip():
            yield number, line


def read_json(path: str | Path, what: str = "a JSON file") -> Any:
    """A regular file holding one JSON document."""
    return parse_json(read_text(path, what), path)


def iter_jsonl(path: str | Path, what: str = "a JSON-lines file") -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line, read as it goes; the first bad line raises FileProblem."""
    with open_regular(path, what) as handle:
        for number, raw in enumerate(handle, start=1):
            if b"\0" in raw:
                raise FileProblem(path, f"is a binary file; expected {what}", number)
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise FileProblem(path, f"invalid UTF-8 at column {exc.start + 1}", number) from None
            if line.strip():
                yield number, parse_json(line, path, number)


def parse_yaml(text: str, path: str | Path) -> Any:
    """One YAML document, loaded safely (no Python objects), with the same depth and size limits as JSON."""
    import yaml  # a dependency of cobe, imported when a YAML file is read

    try:
        value = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        at = mark.line + 1 if mark is not None else None
        raise FileProblem(path, f"invalid YAML: {exc.problem or exc}", at) from None
    except yaml.YAMLError as exc:
        raise FileProblem(path, f"invalid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise FileProblem(path, f"nested more than {MAX_DEPTH} levels deep") from None
    return _check_depth(value, path, None, MAX_YAML_NODES)


def read_yaml(path: str | Path, what: str = "a YAML file", max_bytes: int | None = None) -> Any:
    """A regular file holding one YAML document."""
    return parse_yaml(read_text(path, what, max_bytes), path)


def read_mapping(path: str | Path, what: str = "a YAML file", *, max_bytes: int | None = None) -> dict[str, Any]:
    """A YAML (or JSON) file whose top level is a mapping; an empty file is an empty mapping."""
    value = read_yaml(path, what, max_bytes)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FileProblem(path, f"expected a mapping of key: value at the top level, got {kind_of(value)}")
    return value


def read_csv(path: str | Path, what: str = "a CSV file") -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """(header, [(line number, row)]) of a CSV file with a header row; FileProblem naming the line if unreadable."""
    reader = csv.DictReader(io.StringIO(read_text(path, what), newline=""))
    try:
        rows = [(reader.line_num, dict(row)) for row in reader]
    except csv.Error as exc:
        # the reader counts the lines it finished; the error is in the one after them
        raise FileProblem(path, f"invalid CSV: {exc}", reader.line_num + 1) from None
    return list(reader.fieldnames or []), rows


def kind_of(value: Any) -> str:
    """A value's JSON kind in words, for messages: an object, a list, a string, ..."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"
