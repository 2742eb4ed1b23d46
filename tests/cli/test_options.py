"""Options several commands take are declared once: one help text, one environment variable name per flag."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from cobe.cli import options
from cobe.cli.curate import DECISION, REASON, THRESHOLD
from cobe.cli.main import cli
from support.commands import every_command

# flags that name different things in different commands (how many of what, which file, whose model),
# so each command rightly declares its own
# --against: `plan` sets a model against another, `report` the runs against the paper's figures
DISTINCT = {
    "--n",
    "--out",
    "--model",
    "--to",
    "--check",
    "--tier",
    "--run-dir",
    "--admin",
    "--judge",
    "--against",
    "--reference",
}


def _commands() -> Iterator[tuple[str, click.Command]]:
    return every_command()


def _declared() -> dict[str, set[str]]:
    """flag → the help texts of the shared declarations of it."""
    shared = [value for value in vars(options).values() if isinstance(value, options.SharedOption)]
    helps: dict[str, set[str]] = defaultdict(set)
    for declared in [*shared, THRESHOLD, DECISION, REASON]:
        helps[declared.flags[0].split("/")[0]].add(declared.settings["help"])
    return helps


def test_an_option_several_commands_take_reads_the_same_in_each() -> None:
    declared = _declared()
    seen: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for path, command in _commands():
        for param in command.params:
            if isinstance(param, click.Option):
                seen[param.opts[0]].append((path, param.help))
    repeated = {flag: uses for flag, uses in seen.items() if len(uses) > 1 and flag not in DISTINCT}
    assert "--concurrency" in repeated and "--judge-prompts" in repeated
    for flag, uses in repeated.items():
        assert flag in declared, f"{flag} is declared by {len(uses)} commands; declare it once in cobe.cli.options"
        for path, text in uses:
            assert text in declared[flag], f"cobe {path} {flag}: its help drifted from cobe.cli.options"


def test_shared_environment_variables_follow_the_flag() -> None:
    """Each option reads its command's variable first (COBE_EVAL_CONCURRENCY), then the one several commands
    share, named for the flag alone (COBE_CONCURRENCY)."""
    for path, command in _commands():
        for param in command.params:
            if isinstance(param, click.Option) and param.envvar and len(param.envvar) > 1:
                flag = param.opts[0].split("/")[0].lstrip("-").upper().replace("-", "_")
                own = "_".join(["COBE", *path.split(), flag]).upper().replace("-", "_")
                assert list(param.envvar) == [own, f"COBE_{flag}"], (path, flag)


def test_a_command_may_drop_the_variable_or_change_the_default_but_not_the_help() -> None:
    with pytest.raises(TypeError, match="--concurrency: its help is declared once"):
        options.CONCURRENCY.but(help="Concurrent calls.")

    @click.command()
    @options.CONCURRENCY.but(env=False, default=4, show_default=True)
    @options.JSON.but(dest="json_out")
    def probe(concurrency: int, json_out: bool) -> None:
        click.echo(f"{concurrency} {json_out}")

    runner = CliRunner()
    assert runner.invoke(probe, [], env={"COBE_CONCURRENCY": "9"}).output == "4 False\n"
    assert runner.invoke(probe, ["--concurrency", "2", "--json"]).output == "2 True\n"
    refused = runner.invoke(probe, ["--concurrency", "0"])
    assert refused.exit_code == 2 and "0 is not in the range x>=1" in refused.output


def test_judges_check_still_reads_its_judge_from_the_environment() -> None:
    shown = CliRunner().invoke(cli, ["judges", "check", "--help"]).output
    assert "COBE_JUDGE]" in shown.replace("\n", " ").replace("  ", " ") or "COBE_JUDGE;" in shown
    param = next(p for p in dict(_commands())["judges check"].params if p.name == "judge_specs")
    assert param.envvar == ["COBE_JUDGES_CHECK_JUDGE", "COBE_JUDGE"] and param.required


def test_curate_statuses_are_the_projects():
    from cobe.curate.project import STATUSES

    assert options.CURATE_STATUSES == STATUSES


def test_default_judge_prompts_are_the_judges():
    from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS

    assert options.DEFAULT_JUDGE_PROMPTS == DEFAULT_JUDGE_PROMPTS
