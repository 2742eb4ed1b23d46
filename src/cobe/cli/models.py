"""`cobe models check`: whether models take the settings a run would send them, one minimal call each."""

from __future__ import annotations

from pathlib import Path

import click

from cobe.cli import options
from cobe.core.errors import AuthenticationFailed, ModelRefused, RunIncomplete, UnusableReplies, exit_code_lines


@click.group("models")
def models() -> None:
    """Check models before a run: one minimal call with the run's exact settings."""


@models.command("check", epilog="\b\nExit codes:\n" + "\n".join(exit_code_lines()))
@click.argument("specs", nargs=-1, required=True, metavar="SPEC...")
@click.option(
    "--as",
    "role",
    type=click.Choice(["respondent", "judge", "both"]),
    default="both",
    show_default=True,
    help="Check the settings a run sends the model as a respondent, as a judge, or both.",
)
@options.TEMPERATURE.but(env=False)
@options.REASONING_EFFORT.but(env=False)
@options.MAX_TOKENS.but(env=False)
@options.MODEL_ARG.but(env=False)
@options.MODELS_FILE.but(env=False)
@options.JUDGE_PROMPTS.but(env=False)
@options.JUDGE_TEMPERATURE.but(env=False)
@options.CALL_STORE
@options.PRICES.but(env=False)
@options.CONCURRENCY.but(env=False)
@options.TIMEOUT
@options.MAX_RETRIES
@options.MAX_RETRY_WAIT
@options.REASK_UNSCORED
def check_cmd(
    specs: tuple[str, ...],
    role: str,
    run_dir: Path | None,
    prices: Path | None,
    concurrency: int | None,
    timeout: float | None,
    max_retries: int,
    max_retry_wait: float,
    reask_unscored: bool,
    **settings: object,
) -> None:
    """Send each SPEC one minimal call with the settings a run would send it, and say, one line each,
    whether it took them (with the call's cost) or refused one (naming the parameter and the fix).

    Calls are stored: checking again answers from the store and costs nothing.
    """
    from cobe.core.secrets import scrub
    from cobe.diagnostics.models_check import ROLES, check

    roles = ROLES if role == "both" else (role,)
    results = check(
        list(specs),
        roles,
        run_dir=run_dir,
        prices=prices,
        max_retries=max_retries,
        max_retry_wait=max_retry_wait,
        timeout=timeout,
        concurrency=concurrency,
        reask_unscored=reask_unscored,
        **settings,
    )
    for result in results:
        click.echo(scrub(result.line()))  # a server's words, on stdout: scrubbed as stderr is
    keys = [r for r in results if r.key_refused is not None]
    if keys:  # exit 6, as a run's preflight: every call with this key would be refused alike
        raise AuthenticationFailed(keys[0].key_refused or "")
    refused = [r for r in results if r.refused is not None]
    if refused:
        raise ModelRefused(f"{len(refused)} of {len(results)} checks refused; the first: {refused[0].refused}")
    unusable = [r for r in results if r.unusable is not None]
    if unusable:  # exit 2, as a run's preflight: the run's answers would come back alike
        raise UnusableReplies(
            f"{len(unusable)} of {len(results)} checks answered nothing a run can use; the first: {unusable[0].unusable}"
        )
    failed = [r for r in results if not r.ok]
    if failed:
        raise RunIncomplete(
            f"{len(failed)} of {len(results)} checks failed after their retries (not a refusal of the settings); "
            "run the same command again to ask them again"
        )
