"""Reading a text file line by line numbers and refuses exactly as reading it whole does."""

from __future__ import annotations

from pathlib import Path

import pytest

from cobe.core.jsonfile import FileProblem, read_text, split_lines, text_lines


@pytest.mark.parametrize(
    "content",
    [
        b"one\ntwo\n",
        b"\xef\xbb\xbfbom first\r\nwindows\r\n\r\nlast without newline",
        b"old mac\rline\rends\n",
        "a line with \u2028 inside and \u0085 too\nnext\n".encode(),
        b"\n\n\nblank lines first\n",
        b"",
    ],
)
def test_lines_are_numbered_as_the_whole_text_splits_them(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(content)
    assert list(text_lines(path)) == list(split_lines(read_text(path)))


def test_lines_break_at_newlines_only():
    text = "a \u2028 b\r\nc \u0085 d\re\n\nf \u2029"
    assert list(split_lines(text)) == [(1, "a \u2028 b"), (2, "c \u0085 d\re"), (3, ""), (4, "f \u2029")]


@pytest.mark.parametrize(
    "content",
    [
        b"fine\nnot \xff fine\n",  # invalid UTF-8 on line 2
        b"ok\n" + b"x" * 100 + b"\0rest\n",  # a NUL inside the binary probe
        b"\xef\xbb\xbf" + b"y" * 20_000 + b"\n\xc3(\n",  # after a long first line: offsets count every byte
    ],
)
def test_a_bad_file_is_refused_with_the_same_words(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(content)
    with pytest.raises(FileProblem) as whole:
        read_text(path)
    with pytest.raises(FileProblem) as lines:
        list(text_lines(path))
    assert (str(lines.value), lines.value.line) == (str(whole.value), whole.value.line)
