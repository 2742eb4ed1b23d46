"""Every option of every command, wherever it is declared, reads its COBE_<COMMAND>_<FLAG> variable as `cobe
--help` promises, and a one-value option given twice is one usage line, as cobe.cli.once says.

Issue 43, items 15 and 17: 157 of 259 options had no such variable (--json read COBE_<COMMAND>_AS_JSON, a shared
flag only COBE_<FLAG>), and 64 one-value options declared outside cobe.cli.options kept the last of two values
silently (`plan --detect 5 --detect 6`, `annotate create --tier 1 --tier 2`, `import --out a --out b`).
"""

from __future__ import annotations

import json

import click
import pytest

from cobe.cli.once import Once, takes_one
from support.cli import run_cobe
from support.commands import every_command


def _options() -> list[tuple[str, click.Option]]:
    return [
        (path, param)
        for path, command in every_command()
        for param in command.params
        if isinstance(param, click.Option) and param.name != "help"
    ]


def test_every_flag_has_its_commands_variable():
    missing = []
    for path, param in _options():
        flag = next(f for f in param.opts if f.startswith("--"))
        own = "_".join(["COBE", *path.split(), flag.lstrip("-")]).upper().replace("-", "_")
        envvar = [param.envvar] if isinstance(param.envvar, str) else list(param.envvar or [])
        if not envvar or envvar[0] != own:
            missing.append(f"cobe {path} {flag}: {envvar}")
    assert not missing, missing
    assert len(_options()) > 250


def test_every_one_value_option_refuses_a_repeat():
    slipping = [
        f"cobe {path} {param.opts[0]}"
        for path, param in _options()
        if takes_one({"multiple": param.multiple, "is_flag": param.is_flag, "count": param.count}, tuple(param.opts))
        and not isinstance(param, Once)
    ]
    assert not slipping, slipping


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("plan", "--detect", "5", "--detect", "6"), "--detect given 2 times (5, 6)"),
        (("annotate", "create", "RUN", "--tier", "1", "--tier", "2"), "--tier given 2 times (1, 2)"),
        (("import", "FILE", "--out", "a", "--out", "b"), "--out given 2 times (a, b)"),
        (("data", "validate", "x", "--strict", "--json", "--json"), None),  # flags may repeat: no value to lose
    ],
)
def test_a_command_declared_option_given_twice_is_refused(tmp_path, args, said):
    result = run_cobe(*args, cwd=tmp_path)
    if said is None:
        assert "given 2 times" not in result.stderr
        return
    assert result.returncode == 2
    assert f"Error: {said}: it takes one value; give it once" in result.stderr.splitlines()


def test_a_commands_own_variable_sets_its_flag_and_overrides_the_shared_one(tmp_path):
    planned = run_cobe("plan", "--pass-rate", "0.5", env={"COBE_PLAN_DETECT": "5"})
    assert planned.returncode == 0 and "scenarios to tell two models 5 points apart" in planned.stdout
    as_json = run_cobe("plan", "--pass-rate", "0.5", env={"COBE_PLAN_JSON": "1"})
    assert json.loads(as_json.stdout)["answers"]
    shared = run_cobe("plan", "--pass-rate", "0.5", env={"COBE_JSON": "1"})
    assert json.loads(shared.stdout)["answers"]
    overridden = run_cobe("plan", "--pass-rate", "0.5", env={"COBE_JSON": "1", "COBE_PLAN_JSON": "0"})
    assert overridden.stdout.startswith("scenarios for the accuracy's CI half-width")
