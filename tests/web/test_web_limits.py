"""Field, JSON and port limits: a clear one-line problem instead of a crash or a silent truncation."""

from __future__ import annotations

import json

import pytest

from cobe.core.errors import InputError
from cobe.web.limits import check_port, json_depth, json_problem, too_long


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("", 0),
        ("3", 0),
        ('{"a": 1}', 1),
        ('{"edges": [{"source": "rain", "target": "wet"}]}', 3),
        ('["[[[[", "{{{{"]', 1),  # brackets inside strings do not count
        ('["\\"[[[["]', 1),  # nor after an escaped quote
        ("[" * 200_000 + "]" * 200_000, 200_000),
    ],
)
def test_json_depth_counts_nesting_without_parsing(text: str, depth: int) -> None:
    assert json_depth(text) == depth


def test_deep_json_is_refused_before_json_loads_could_recurse() -> None:
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(RecursionError):
        json.loads(deep)  # what the contribute form did with it: a 500
    assert json_problem("graph", deep, max_chars=20_000) == "graph: nested 5,000 levels deep; at most 8 are accepted"
    assert json_problem("graph", '{"edges": []}', max_chars=20_000) is None
    assert json_problem("graph", "[" * 30_000, max_chars=20_000) == (
        "graph: 30,000 characters; at most 20,000 are accepted"
    )


def test_a_textarea_newline_counts_once() -> None:
    # browsers send each newline as CR LF, so a textarea at its maxlength arrives longer than it
    assert too_long("comment", "a\r\n" * 2000, 4000) is None
    assert too_long("comment", "a" * 4001, 4000) == "comment: 4,001 characters; at most 4,000 are accepted"


@pytest.mark.parametrize("port", [0, -1, 65536, 99999])
def test_a_port_out_of_range_is_one_line(port: int) -> None:
    with pytest.raises(InputError, match=rf"^--port {port}: expected a port from 1 to 65535$"):
        check_port(port)
    assert check_port(8765) == 8765


def test_a_port_already_in_use_is_one_line_not_a_server_log() -> None:
    from cobe.core.errors import InputError
    from cobe.web.serving import listen

    taken = listen("127.0.0.1", 0)
    try:
        with pytest.raises(InputError, match=r"--port \d+: cannot listen there \(Address already in use\)"):
            listen("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()
