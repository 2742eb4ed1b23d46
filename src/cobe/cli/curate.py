"""`cobe curate`: dataset construction, from contributions to a release with its datasheet."""

from __future__ import annotations

import click

from cobe.cli import options
from cobe.cli.json_end import done
from cobe.curate import project as proj
from cobe.curate.links import link
from cobe.web.access import SESSION_ABSOLUTE, SESSION_IDLE
from cobe.web.limits import check_port

# options two curate commands share; those shared with other commands are in cobe.cli.options
THRESHOLD = options.option("--threshold", default=90.0, help="Near-duplicate threshold (token-set ratio, 0-100).")
DECISION = options.option("--approve/--reject", default=None, help="The decision: approve or reject the item.")
REASON = options.option("--reason", help="Why, recorded in the item's history.")


def _open(directory: str) -> proj.Project:
    return proj.open_project(directory)


def _link(base_url: str, token: str) -> str:
    return link(base_url, token)


@click.group()
def curate() -> None:
    """Build a dataset: contributions, augmentation, checks, review, audit and release."""


@curate.command("init")
@click.argument("directory")
def init_cmd(directory: str) -> None:
    """Create a dataset project (an SQLite database) in DIRECTORY."""
    proj.init_project(directory).close()
    click.echo(f"created dataset project in {directory}")


@curate.command("import")
@click.argument("directory")
@click.argument("file")
def import_cmd(directory: str, file: str) -> None:
    """Add every scenario of FILE (any shape cobe reads) as a candidate."""
    from cobe.curate.contributions import import_file

    with _open(directory) as project:
        result = import_file(project, file)
    for problem in result.problems:
        click.echo(f"  {problem}", err=True)
    for line in result.skipped:
        click.echo(f"  skipped {line}", err=True)
    click.echo(f"imported {len(result.added)} candidate(s) from {file} ({result.shape}); skipped {len(result.skipped)}")


@curate.command("promote")
@click.argument("directory")
@click.argument("ids", nargs=-1, required=True)
@click.option("--to", "to", type=click.Choice(["core", "rejected"]), default="core", show_default=True)
@REASON.but(default="")
@click.option("--actor", default="cli", show_default=True, help="Who is promoting.")
def promote_cmd(directory: str, ids: tuple[str, ...], to: str, reason: str, actor: str) -> None:
    """Make candidates core examples (or reject them)."""
    from cobe.curate.contributions import promote

    with _open(directory) as project:
        moved = promote(project, list(ids), to=to, actor=actor, reason=reason)
    click.echo(f"{len(moved)} item(s) now {to}: {', '.join(moved)}")


@curate.command("augment")
@click.argument("directory")
@click.option("--model", required=True, help="Model spec that writes the variations, e.g. openai/gpt-5.4.")
@click.option("--per-core", default=25, show_default=True, help="Target number of variations per core example.")
@options.CONCURRENCY.but(env=False, default=4, show_default=True)
@options.TIMEOUT.but(env=False)
@click.option("--max-attempts", default=3, show_default=True, help="Tries per variation before giving up.")
@THRESHOLD
def augment_cmd(
    directory: str,
    model: str,
    per_core: int,
    concurrency: int,
    timeout: float | None,
    max_attempts: int,
    threshold: float,
) -> None:
    """Generate variations of every core example; invalid outputs are rejected, counted and regenerated."""
    from cobe.curate.augment import augment

    with _open(directory) as project:
        result = augment(
            project,
            model,
            per_core=per_core,
            concurrency=concurrency,
            timeout=timeout,
            max_attempts=max_attempts,
            threshold=threshold,
        )
    rejects = ", ".join(f"{k} {v}" for k, v in sorted(result.rejects.items())) or "none"
    click.echo(
        f"added {len(result.added)} variation(s) in {result.calls} call(s); rejected: {rejects}; "
        f"gave up on {result.gave_up} slot(s)"
    )


@curate.command("check")
@click.argument("directory")
@click.option("--judge", default=None, help="Judge model spec for the self-consistency check.")
@THRESHOLD
@options.CONCURRENCY.but(env=False, default=4, show_default=True)
@options.TIMEOUT.but(env=False)
def check_cmd(directory: str, judge: str | None, threshold: float, concurrency: int, timeout: float | None) -> None:
    """Run the automatic checks on every live item and store the results for reviewers."""
    from cobe.curate.checks import run_checks

    with _open(directory) as project:
        failures = run_checks(project, judge=judge, threshold=threshold, concurrency=concurrency, timeout=timeout)
    for failure in failures:
        click.echo(str(failure))
    click.echo(f"{len(failures)} failure(s)", err=True)
    if failures:
        raise SystemExit(1)


@curate.command("reviewers")
@click.argument("directory")
@click.option("--add", "names", multiple=True, help="Register a reviewer; prints their private link.")
@click.option("--admin", "admins", multiple=True, help="Register an admin (resolves disagreements).")
@options.BASE_URL
def reviewers_cmd(directory: str, names: tuple[str, ...], admins: tuple[str, ...], base_url: str) -> None:
    """Issue private review links (shown once), or list the reviewers; `cobe curate links` replaces lost ones."""
    from cobe.curate.review import add_reviewer, reviewers

    with _open(directory) as project:
        for role, group in (("reviewer", names), ("admin", admins)):
            for name in group:
                click.echo(f"{name} ({role}): {_link(base_url, add_reviewer(project, name, role))}")
        if not names and not admins:
            for person in reviewers(project):
                click.echo(f"{person.name} ({person.role})")


LINKS_HELP = f"""List everyone with a private link; --rotate issues new links, --revoke disables them.

A rotated or revoked link stops working at once, and so do the sessions it opened. A session (the
cookie a link sets) ends after {SESSION_IDLE.days} days without use or {SESSION_ABSOLUTE.days} days after
sign-in; opening the link again starts a new one."""


@curate.command("links", help=LINKS_HELP)
@click.argument("directory")
@options.LINKS
@options.BASE_URL
def links_cmd(directory: str, rotate: bool, revoke: bool, who: tuple[str, ...], base_url: str) -> None:
    """List, rotate or revoke the private links of reviewers, admins and audit experts."""
    from cobe.curate.links import revoke_links, revoked_links, rotate_links
    from cobe.curate.review import reviewers

    if rotate and revoke:
        raise click.UsageError("give --rotate or --revoke, not both")
    with _open(directory) as project:
        if rotate:
            roles = {person.name: person.role for person in reviewers(project)}
            for name, token in rotate_links(project, list(who) or None).items():
                click.echo(f"{name} ({roles[name]}): {_link(base_url, token)}")
            click.echo("New links are shown only now; the old ones and their sessions no longer work.")
            return
        if revoke:
            names = revoke_links(project, list(who) or None)
            click.echo(f"revoked {len(names)} link(s): {', '.join(names)}; `--rotate --who NAME` issues a new one")
            return
        revoked = revoked_links(project)
        for person in reviewers(project):
            state = f"revoked {revoked[person.name]}" if person.name in revoked else "active"
            click.echo(f"{person.name} ({person.role}): {state}")


def _decision(approve: bool | None) -> str:
    if approve is None:
        raise click.UsageError("give --approve or --reject")
    return "approve" if approve else "reject"


@curate.command("review")
@click.argument("directory")
@click.argument("item_id")
@click.option("--reviewer", required=True, help="Who is reviewing.")
@DECISION
@click.option("--comment", default="", help="What the reviewer noted.")
def review_cmd(directory: str, item_id: str, reviewer: str, approve: bool | None, comment: str) -> None:
    """Record one reviewer's decision on an item (the web app's rules: reviewers only, never their own contribution)."""
    from cobe.curate.review import record_review

    with _open(directory) as project:
        outcome = record_review(project, item_id, reviewer, _decision(approve), comment)
    click.echo(f"{item_id}: {outcome}")


@curate.command("disagreements")
@click.argument("directory")
def disagreements_cmd(directory: str) -> None:
    """List items whose two reviewers disagree, with their comments."""
    from cobe.curate.review import disagreements, reviews_of

    with _open(directory) as project:
        for item in disagreements(project):
            votes = "; ".join(f"{r['reviewer']} {r['decision']}: {r['comment']}" for r in reviews_of(project, item.id))
            click.echo(f"{item.id}: {votes}")


@curate.command("resolve")
@click.argument("directory")
@click.argument("item_id")
@click.option("--admin", "actor", required=True, help="Name of the admin deciding.")
@DECISION
@REASON.but(required=True)
def resolve_cmd(directory: str, item_id: str, actor: str, approve: bool | None, reason: str) -> None:
    """Record the admin's decision on a disagreement."""
    from cobe.curate.review import resolve

    with _open(directory) as project:
        click.echo(f"{item_id}: {resolve(project, item_id, actor, _decision(approve), reason)}")


@curate.command("serve")
@click.argument("directory")
@options.HOST
@options.PORT
def serve_cmd(directory: str, host: str, port: int) -> None:
    """Serve the review and contribution web app."""
    from cobe.curate.web import create_app
    from cobe.web.serving import listen, serve

    check_port(port)
    _open(directory).close()  # a one-line error for a wrong directory, before the server starts
    sock = listen(host, port)  # bound first: the line below is printed once the port accepts connections
    click.echo(f"serving {directory} on http://{host}:{port}/ (open a private link from `cobe curate reviewers`)")
    serve(create_app(directory), sock)


@curate.command("audit")
@click.argument("directory")
@click.option("--n", "n", default=100, show_default=True, help="Items to sample.")
@options.SEED.but(env=False)
@click.option("--experts", default=3, show_default=True, help="Experts, each rating every sampled item.")
@options.BASE_URL
def audit_cmd(directory: str, n: int, seed: int, experts: int, base_url: str) -> None:
    """Sample approved items for an expert audit and print one private link per expert."""
    from cobe.curate.audit import create_audit

    with _open(directory) as project:
        audit = create_audit(project, n=n, seed=seed, experts=experts)
    click.echo(f"audit {audit.id}: {len(audit.item_ids)} item(s)")
    for name, token in audit.tokens.items():
        click.echo(f"{name}: {_link(base_url, token)}")


@curate.command("audit-import")
@click.argument("directory")
@click.argument("file")
def audit_import_cmd(directory: str, file: str) -> None:
    """Import expert ratings from CSV (expert,item_id,coherence,grammar,validity,diversity,feedback)."""
    from cobe.curate.audit import import_ratings

    with _open(directory) as project:
        click.echo(f"imported {import_ratings(project, file)} row(s) from {file}")


@curate.command("audit-summary")
@click.argument("directory")
@options.JSON
def audit_summary_cmd(directory: str, as_json: bool) -> None:
    """Mean and spread of the expert ratings, per scale and per expert."""
    from cobe.curate.audit import audit_summary, summary_markdown

    with _open(directory) as project:
        summary = audit_summary(project)
    click.echo(done(summary) if as_json else summary_markdown(summary))


@curate.command("release")
@click.argument("directory")
@click.option("--out", required=True, help="Output folder.")
@click.option("--public-share", default=0.1, show_default=True, help="Share of the items in the public split.")
@options.SEED.but(env=False)
def release_cmd(directory: str, out: str, public_share: float, seed: int) -> None:
    """Write the approved variations (paper JSON, site JSON, native JSONL), the split and the datasheet.

    Core examples (variation 0) are never released, as in the paper: only their variations are.
    """
    from cobe.curate.release import release

    with _open(directory) as project:
        result = release(project, out, public_share=public_share, seed=seed)
    click.echo(
        f"released {len(result.items)} item(s) to {result.out} "
        f"({len(result.public)} public, {len(result.private)} private)"
    )
    if result.held_back:
        click.echo(f"not released: {len(result.held_back)} core example(s) (v0): {', '.join(result.held_back)}")


@curate.command("status")
@click.argument("directory")
def status_cmd(directory: str) -> None:
    """How many items are at each stage."""
    with _open(directory) as project:
        for status, n in project.status_counts().items():
            click.echo(f"{status}: {n}")


@curate.command("list")
@click.argument("directory")
@options.ITEM_STATUS
@options.JSON
def list_cmd(directory: str, statuses: tuple[str, ...], as_json: bool) -> None:
    """The project's items with their ids, stage, domain and origin, by core example and variation."""
    from cobe.cli.display import listing

    with _open(directory) as project:
        items = project.items(*statuses)
    if as_json:
        click.echo(done({"items": [_listed(item) for item in items]}))
        return
    if not items:
        which = " or ".join(statuses) + " " if statuses else ""
        click.echo(f"no {which}items in {directory}")
        return
    rows = [tuple(_listed(item).values()) for item in items]
    listing(("id", "status", "domain", "origin", "story"), rows, title=f"{len(items)} item(s) in {directory}")


def _listed(item: proj.Item) -> dict[str, str]:
    origin = f"from {item.parent_id}" if item.parent_id else item.source
    return {
        "id": item.id,
        "status": item.status,
        "domain": item.scenario.domain,
        "origin": origin,
        "story": item.scenario.story,
    }


@curate.command("show")
@click.argument("directory")
@click.argument("item_id")
def show_cmd(directory: str, item_id: str) -> None:
    """One item's lineage and history."""
    with _open(directory) as project:
        item = project.item(item_id)
        click.echo(
            f"{item.id}: {item.status}; source {item.source}; from {item.parent_id or '-'}; "
            f"model {item.model or '-'}; prompt {item.prompt_fingerprint or '-'}"
        )
        for event in project.events(item_id):
            click.echo(
                f"  {event['at']} {event['from_status'] or '-'} -> {event['to_status']} by {event['actor']}: {event['reason']}"
            )
