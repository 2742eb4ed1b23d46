"""--epochs K refuses a respondent that would answer K times at temperature 0 by its effective temperature: a
-M SPEC:temperature=T counts in place of --temperature, both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.run import EvalConfig, evaluate


def config(data: Path, tmp_path: Path, **given: object) -> EvalConfig:
    base: dict[str, object] = {
        "data": str(data),
        "models": ["mock/echo"],
        "judge": "mock/judge-pass",
        "epochs": 3,
        "limit": 1,
        "run_dir": tmp_path / "run",
    }
    return EvalConfig(**(base | given))


def test_a_model_argument_of_temperature_zero_is_refused_under_epochs(data_file: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"asks mock/echo 3 times .*-M mock/echo:temperature=0\)") as info:
        evaluate(config(data_file, tmp_path, temperature=0.7, model_args=["mock/echo:temperature=0"]))
    assert "\n" not in str(info.value)
    assert not (tmp_path / "run").exists()  # refused before a run directory


def test_a_model_argument_above_zero_answers_the_zero_of_the_command(data_file: Path, tmp_path: Path) -> None:
    summary = evaluate(config(data_file, tmp_path, temperature=0.0, model_args=["mock/echo:temperature=0.7"]))
    assert summary.summary["epochs"] == 3


def test_only_the_models_left_at_temperature_zero_are_named(data_file: Path, tmp_path: Path) -> None:
    models = ["mock/echo", "mock/fixed:Same answer."]
    with pytest.raises(InputError, match=r"asks mock/fixed:Same answer. 3 times .* --temperature 0") as info:
        evaluate(config(data_file, tmp_path, models=models, temperature=0.0, model_args=["mock/echo:temperature=1"]))
    assert "mock/echo" not in str(info.value)
