"""The `cobe` command: a thin shell over the library, one module per command group."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from importlib import import_module

import click

from cobe.cli.interrupt import cancelled, ctrl_c_handled, exit_now
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
    "compare": "cobe.cli.report:compare_cmd",
    "import": "cobe.cli.report:import_cmd",
    "export": "cobe.cli.export:export_cmd",
    "annotate": "cobe.cli.annotate:annotate",
    "agreement": "cobe.cli.agreement:agreement_cmd",
    "judges": "cobe.cli.judges:judges",
    "models": "cobe.cli.models:models",
    "plan": "cobe.cli.plan:plan_cmd",
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
    "compare": "Paired comparison of two runs on the same items.",
    "import": "Import verdicts, inspect logs or lm-eval samples produced elsewhere as a run.",
    "export": "Export a run as an inspect log, a Hugging Face dataset, Every Eval Ever records or DPO pairs.",
    "annotate": "Human rating studies and their web app.",
    "agreement": "Judge–human agreement for a rating study.",
    "judges": "Self-test judges on probes, rank them against human ratings, diff their verdicts.",
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
        return getattr(import_module(module), attr)

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
    consequences. Every flag can also be set as COBE_<COMMAND>_<FLAG>, e.g. COBE_EVAL_MODEL.
    """


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI and turn a CobeError into one line on stderr and its exit code (EXIT_CODES).

    Ctrl-C ends it with 130 at any moment (`cobe.cli.interrupt`): cleanly at the first, at once at a second.
    """
    with ctrl_c_handled() as ctrl_c:
        try:
            _main(argv, ctrl_c.count)
        except SystemExit as done:
            if ctrl_c.count():  # interrupted: end now, before a Ctrl-C more could meet Python's own shutdown
                exit_now(done.code)
            raise


def _main(argv: list[str] | None, interrupts: Callable[[], int]) -> None:
    try:
        code = cli.main(args=argv, standalone_mode=False)
    except click.exceptions.Abort:  # click's form of a Ctrl-C that came while it parsed or dispatched
        click.echo(INTERRUPTED_LINE, err=True)
        sys.exit(INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except CobeError as exc:
        click.echo(f"error: {scrub(str(exc))}", err=True)  # a provider may have repeated an API key in it
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo(INTERRUPTED_LINE, err=True)
        sys.exit(INTERRUPTED)
    except Exception as exc:
        if interrupts():  # the Ctrl-C, dressed as a library's error (pydantic wraps one raised in a serializer)
            click.echo(INTERRUPTED_LINE, err=True)
            sys.exit(INTERRUPTED)
        if is_disk_full(exc):  # wherever a full disk was met first: a file, a store, a lock
            click.echo(f"error: {out_of_space(getattr(exc, 'filename', None))}", err=True)
            sys.exit(DiskFull.exit_code)
        # a bug: its traceback is for a bug report, so it is shown, keys scrubbed out
        click.echo(scrub(traceback.format_exc()).rstrip(), err=True)
        sys.exit(1)
    except BaseException as exc:
        if not (cancelled(exc) and interrupts()):  # a cancellation that no Ctrl-C caused is a bug
            raise
        click.echo(INTERRUPTED_LINE, err=True)
        sys.exit(INTERRUPTED)
    sys.exit(code if isinstance(code, int) else 0)
