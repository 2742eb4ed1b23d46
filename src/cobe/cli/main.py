"""The `cobe` command: a thin shell over the library, one module per command group."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any, NoReturn

import click

from cobe.cli.every_flag import finish
from cobe.cli.interrupt import ENDING, cancelled, ctrl_c_handled, end_process, ending, exit_now, stop_now
from cobe.cli.json_asked import json_asked
from cobe.cli.json_end import ERROR_STATE, INTERRUPTED_STATE, JsonAsked, asked_before_failing, end_object
from cobe.core.errors import INTERRUPTED, CobeError, DiskFull, exit_code_lines
from cobe.core.reserve import is_disk_full, out_of_space
from cobe.core.secrets import scrub
from cobe.core.version import __version__

# command name → "module:attribute"; modules load only when their command runs, so
# `cobe --help` stays fast and no provider SDK is imported before it is needed.
COMMANDS: dict[str, str] = {
    "data": "cobe.cli.data:data",
    "eval": "cobe.cli.evaluate:eval_cmd",
    "generate": "cobe.cli.evaluate:generate_cmd",
    "judge": "cobe.cli.evaluate:judge_cmd",
    "prompts": "cobe.cli.prompts:prompts",
    "runs": "cobe.cli.runs:runs_cmd",
    "report": "cobe.cli.report:report_cmd",
    "compare": "cobe.cli.compare:compare_cmd",
    "import": "cobe.cli.imports:import_cmd",
    "export": "cobe.cli.export:export_cmd",
    "annotate": "cobe.cli.annotate:annotate",
    "agreement": "cobe.cli.agreement:agreement_cmd",
    "judges": "cobe.cli.judges:judges",
    "models": "cobe.cli.models:models",
    "plan": "cobe.cli.study:plan_cmd",
    "curate": "cobe.cli.curate:curate",
}

SHORT_HELP: dict[str, str] = {
    "data": "Inspect, validate, convert and sample datasets.",
    "eval": "Generate responses and judge them (the whole pipeline).",
    "generate": "Generate responses only; judge them later.",
    "judge": "Judge stored responses again, with no respondent call.",
    "prompts": "Show exactly what a respondent or a judge receives for one scenario.",
    "runs": "List run directories and their state.",
    "report": "Tables, figures and an HTML report from one or many runs.",
    "compare": "Paired comparison of two runs, or of every pair of several models, on the same items.",
    "import": "Import verdicts, inspect logs or lm-eval samples produced elsewhere as a run.",
    "export": "Export runs as inspect logs, a Hugging Face dataset, Every Eval Ever records, DPO pairs or the CoBe site's files.",
    "annotate": "Human rating studies and their web app.",
    "agreement": "Judge–human agreement for a rating study.",
    "judges": "Self-test judges on probes, rank them against human ratings, diff their verdicts, check them against published ones.",
    "models": "Check that models take a run's settings: one minimal call each, before money is spent.",
    "plan": "How many scenarios and human labels a study needs; what difference it detects.",
    "curate": "Build a dataset: contributions, augmentation, checks, review, release.",
}


INTERRUPTED_LINE = "Interrupted; finished work is saved. Run the same command again to resume."

# commands that were renamed: the old name says where the command went instead of "no such command"
MOVED: dict[str, str] = {"build": "curate"}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in MOVED:
            raise click.UsageError(f"`cobe {name}` is now `cobe {MOVED[name]}`; run `cobe {MOVED[name]} --help`")
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        # every option, wherever declared, gets its variable and refuses a second value (cobe.cli.every_flag)
        return finish(getattr(import_module(module), attr), (name,))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # listing help must not import every command module
        with formatter.section("Commands"):
            formatter.write_dl([(name, SHORT_HELP.get(name, "")) for name in COMMANDS])


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "COBE"},
    epilog="\b\nExit codes:\n" + "\n".join(exit_code_lines()),
)
@click.version_option(__version__, prog_name="cobe")
def cli() -> None:
    """Run the CoBe benchmark: conversational counterfactual text editing.

    A model gets a short story and a request to rewrite it had something else happened;
    an LLM judge checks that it kept what the change cannot affect and changed only the
    consequences. Every flag can also be set as COBE_<COMMAND>_<FLAG>, e.g. COBE_EVAL_MODEL or
    COBE_DATA_VALIDATE_STRICT; a flag several commands share also reads COBE_<FLAG> (COBE_MODEL,
    COBE_JSON), which the command's own variable overrides.
    """


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI and turn a CobeError into one line on stderr and its exit code (EXIT_CODES).

    Ctrl-C ends it with 130 at any moment (`cobe.cli.interrupt`): cleanly at the first, at once at a second.
    Under --json every exit also prints one JSON object on stdout (`cobe.cli.json_end`).
    """
    words = sys.argv[1:] if argv is None else argv
    # asked before anything is parsed: a Ctrl-C at start-up or an unknown command ends before any option is read
    asked = JsonAsked(asked=json_asked(words))
    ends = argv is None  # a command line's own run (not a caller's in-process use): nothing follows but its end
    script = (
        ends and _the_cobe_script()
    )  # the `cobe` process itself: it ends here, without the interpreter's finalization
    code: object = 0
    try:
        with ctrl_c_handled(lambda: asked.asked, after=ending if ends else None) as ctrl_c:
            try:
                _main(argv, ctrl_c.count, asked)
            except SystemExit as done:
                if ctrl_c.count():  # interrupted: end now, before a Ctrl-C more could meet Python's own shutdown
                    exit_now(done.code)
                if not script:
                    raise
                code = done.code
    except KeyboardInterrupt:
        if not ends:
            raise
        # a press as the command ended, after its work and its output: 130 and a line, never a death by SIGINT
        stop_now(ENDING)
    end_process(code)


def _the_cobe_script() -> bool:
    """Whether this process is the installed `cobe` script (its __main__), not a program that called `main()`."""
    return Path(getattr(sys.modules.get("__main__"), "__file__", None) or "").name == "cobe"


def _main(argv: list[str] | None, interrupts: Callable[[], int], asked: JsonAsked | None = None) -> None:
    asked = asked or JsonAsked()
    words = sys.argv[1:] if argv is None else argv
    try:
        code = cli.main(args=argv, standalone_mode=False, obj=asked)
    except click.exceptions.Abort as exc:  # click's form of a Ctrl-C (a command's says where its work is saved)
        _end(INTERRUPTED, str(exc.__cause__ or "") or INTERRUPTED_LINE, INTERRUPTED_STATE, asked.asked)
    except click.ClickException as exc:
        exc.show()
        message = exc.format_message()
        _end(exc.exit_code, None, ERROR_STATE, asked.asked or asked_before_failing(exc, words), message)
    except CobeError as exc:
        line = f"error: {scrub(str(exc))}"  # a provider may have repeated an API key in it
        _end(exc.exit_code, line, getattr(exc, "state", ERROR_STATE), asked.asked, report=exc.report)
    except KeyboardInterrupt as exc:  # a command may say where its finished work is saved
        _end(INTERRUPTED, str(exc) or INTERRUPTED_LINE, INTERRUPTED_STATE, asked.asked)
    except Exception as exc:
        if interrupts():  # the Ctrl-C, dressed as a library's error (pydantic wraps one raised in a serializer)
            _end(INTERRUPTED, INTERRUPTED_LINE, INTERRUPTED_STATE, asked.asked)
        if is_disk_full(exc):  # wherever a full disk was met first: a file, a store, a lock
            _end(
                DiskFull.exit_code,
                f"error: {out_of_space(getattr(exc, 'filename', None))}",
                DiskFull.state,
                asked.asked,
            )
        # a bug: its traceback is for a bug report, so it is shown, keys scrubbed out
        bug = scrub(f"internal error: {type(exc).__name__}: {exc}")
        _end(1, scrub(traceback.format_exc()).rstrip(), ERROR_STATE, asked.asked, bug)
    except BaseException as exc:
        if not (cancelled(exc) and interrupts()):  # a cancellation that no Ctrl-C caused is a bug
            raise
        _end(INTERRUPTED, INTERRUPTED_LINE, INTERRUPTED_STATE, asked.asked)
    sys.exit(code if isinstance(code, int) else 0)


def _end(
    code: int,
    line: str | None,
    state: str,
    as_json: bool,
    message: str | None = None,
    report: dict[str, Any] | None = None,
) -> NoReturn:
    """End the command with `code`: its line on stderr (None: already shown) and, under --json, its one object."""
    if line is not None:
        click.echo(line, err=True)
    if as_json:
        said = message if message is not None else (line or "").removeprefix("error: ")
        click.echo(end_object(code, said, state, report))
    sys.exit(code)
