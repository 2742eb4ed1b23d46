"""`cobe annotate`: create a human rating study, (re)issue its private links, serve the rating app."""

from __future__ import annotations

import click
from rich.table import Table

from cobe.annotate.study import (
    ALL_MODELS,
    DEFAULT_TITLE,
    StudyLinks,
    create_study,
    open_study,
    revoke_links,
    rotate_links,
)
from cobe.cli import options
from cobe.cli.display import plain_console
from cobe.core.errors import InputError
from cobe.web.access import SESSION_ABSOLUTE, SESSION_IDLE
from cobe.web.limits import check_port


def _print_links(links: StudyLinks) -> None:
    """Links go to stdout once; the study keeps only their hashes."""
    click.echo(f"Study: {links.path}  ({links.n_items} items)")
    if links.per_model:
        click.echo("Items per model: " + ", ".join(f"{m} {k}" for m, k in sorted(links.per_model.items())))
    click.echo("Private links (shown only now; send each rater their own, keep the admin link to yourself):")
    for name, url in links.raters.items():
        click.echo(f"  {name}: {url}")
    if links.admin:
        click.echo(f"  admin: {links.admin}")
    click.echo(
        "Lost a link? `cobe annotate links STUDY --rotate [--who rater-2]` issues a new one and disables the old."
    )


LINKS_HELP = f"""Show who is in STUDY; --rotate issues new private links, --revoke disables them.

Links are stored only as hashes. A session (the cookie a link sets) ends after {SESSION_IDLE.days} days
without use or {SESSION_ABSOLUTE.days} days after sign-in; opening the link again starts a new one."""


@click.group()
def annotate() -> None:
    """Human rating studies: sample a run's responses, rate them in a browser, export the labels."""


@annotate.command("create")
@click.argument("run", type=click.Path(exists=True))
@click.option("--n", "n", type=int, default=250, show_default=True, help="Number of responses to rate.")
@options.SEED.but(env=False)
@click.option("--raters", type=int, default=3, show_default=True, help="Number of raters; each rates every item.")
@click.option(
    "--out", "out", type=click.Path(file_okay=False), default=None, help="Study directory [default: RUN/study]."
)
@options.BASE_URL
@click.option(
    "--title",
    default=DEFAULT_TITLE,
    show_default=True,
    help="Heading raters see; keep model names out of it, raters rate blind.",
)
@click.option(
    "--model",
    "models",
    multiple=True,
    help="Sample only this model's responses; repeatable [default: the run's one model; a run of several "
    "needs --model or --models all].",
)
@click.option(
    "--models",
    "all_models",
    type=click.Choice([ALL_MODELS]),
    default=None,
    help="`all`: sample every model of the run, stratified by model.",
)
@click.option(
    "--tier",
    type=click.IntRange(1, 4),
    default=None,
    help="Sample only responses to this prompt tier (1 = the dataset's queries A–C) [default: every tier].",
)
def create_cmd(
    run: str,
    n: int,
    seed: int,
    raters: int,
    out: str | None,
    base_url: str,
    title: str,
    models: tuple[str, ...],
    all_models: str | None,
    tier: int | None,
) -> None:
    """Sample N responses of RUN into a new study and print the private links.

    A run of several models needs --model (repeatable) or --models all (every model, stratified).
    The paper's human study (App. D.4.1) rated 250 tier-1 responses of one model, three raters each:

    \b
        cobe annotate create RUN --model MODEL --tier 1 --n 250 --raters 3

    The majority label needs the same Yes/No answer from more than half of the raters (two of
    three; both of two); "Other" abstains, and items without a majority are listed by `cobe
    agreement` and left out of its figures.
    """
    if all_models and models:
        raise InputError("--model and --models all exclude each other; give one")
    links = create_study(
        run,
        out,
        n=n,
        seed=seed,
        raters=raters,
        base_url=base_url,
        title=title,
        models=ALL_MODELS if all_models else models,
        tier=tier,
    )
    _print_links(links)
    if links.n_items < n:
        click.echo(
            f"note: only {links.n_items} rateable responses matched, fewer than --n {n}; the study holds them all."
        )


@annotate.command("links", help=LINKS_HELP)
@click.argument("study", type=click.Path(exists=True))
@options.LINKS
@options.BASE_URL.but(default=None, show_default="the one given at creation")
def links_cmd(study: str, rotate: bool, revoke: bool, who: tuple[str, ...], base_url: str | None) -> None:
    """Show who is in STUDY; --rotate issues new private links, --revoke disables them."""
    if rotate and revoke:
        raise click.UsageError("give --rotate or --revoke, not both")
    if rotate:
        _print_links(rotate_links(study, who=list(who) or None, base_url=base_url))
        return
    if revoke:
        names = revoke_links(study, who=list(who) or None)
        click.echo(f"Revoked {len(names)} link(s): {', '.join(names)}. `--rotate --who NAME` issues a new one.")
        return
    store = open_study(study)
    table = Table(title=f"{store.path}")
    for column in ("person", "role", "link", "answered", "assigned"):
        table.add_column(column)
    progress = {p["name"]: p for p in store.progress()}
    revoked = store.revoked_links()
    for person in store.principals():
        row = progress.get(person.name, {})
        link = f"revoked {revoked[person.id]}" if person.id in revoked else "active"
        table.add_row(person.name, person.role, link, str(row.get("answered", "")), str(row.get("assigned", "")))
    plain_console(soft_wrap=True).print(table)
    click.echo("Links are stored only as hashes and cannot be shown again; use --rotate to issue new ones.")


@annotate.command("status")
@click.argument("study", type=click.Path(exists=True))
def status_cmd(study: str) -> None:
    """Progress per rater."""
    store = open_study(study)
    table = Table(title=f"{store.path} — {len(store.items())} items")
    for column in ("rater", "answered", "assigned", "last answer"):
        table.add_column(column)
    for p in store.progress():
        table.add_row(str(p["name"]), str(p["answered"]), str(p["assigned"]), str(p["last"] or "—"))
    plain_console(soft_wrap=True).print(table)


@annotate.command("serve")
@click.argument("study", type=click.Path(exists=True))
@options.HOST
@options.PORT
def serve_cmd(study: str, host: str, port: int) -> None:
    """Serve the rating app for STUDY (raters open their private links; Ctrl-C stops)."""
    from cobe.annotate.app import create_app
    from cobe.web.serving import listen, serve

    check_port(port)
    store = open_study(study)
    sock = listen(host, port)  # bound first: the line below is printed once the port accepts connections
    click.echo(f"Serving {store.path} on http://{host}:{port}/ (no access log: links carry tokens). Ctrl-C to stop.")
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo("warning: reachable from other machines; put it behind HTTPS before sending links.", err=True)
    serve(create_app(store.path), sock)
