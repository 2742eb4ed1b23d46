"""`--model llamacpp/PATH` naming anything but a GGUF model is one line (exit 2), never llama-cpp-python's
`ValueError: Failed to load model from file` traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset

pytest.importorskip("llama_cpp")


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"hello, not weights\n", "is not a GGUF model file"),
        (b"", "is not a GGUF model file"),
        (b"GGUF\x03\x00\x00\x00cut short", "llama.cpp cannot load"),  # a GGUF header, then nothing whole
    ],
)
def test_a_file_that_is_not_a_whole_gguf_model_is_one_line(tmp_path: Path, content: bytes, needle: str) -> None:
    weights = tmp_path / "not-a-model"
    weights.write_bytes(content)
    data = write_dataset(tmp_path / "data.jsonl", 1)
    result = run_cobe(
        *("eval", "--model", f"llamacpp/{weights}", "--judge", "mock/judge-pass", "--data", str(data)),
        *("--run-dir", str(tmp_path / "run"), "--no-report"),
    )
    assert result.returncode == 2
    assert_one_line_error(result, f"llamacpp/{weights}", needle)


@pytest.mark.parametrize("kind", ["directory", "device"])
def test_a_path_that_is_not_a_regular_file_says_what_it_is(tmp_path: Path, kind: str) -> None:
    target = tmp_path if kind == "directory" else Path("/dev/zero")
    result = run_cobe(
        "generate", "--model", f"llamacpp/{target}", "--data", str(write_dataset(tmp_path / "d.jsonl", 1))
    )
    assert result.returncode == 2
    assert_one_line_error(result, "directory" if kind == "directory" else "not a regular file")
