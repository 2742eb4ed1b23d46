"""Private links of reviewers, admins and audit experts, and the web sessions they open.

One policy with the rating app (cobe.web.access): a link works until rotated or revoked, either of
which ends its sessions at once; a session ends after a quiet week or a month after sign-in.
"""

from __future__ import annotations

from cobe.core.errors import InputError
from cobe.curate.project import Project
from cobe.curate.review import Reviewer, reviewer_named, reviewers
from cobe.web.access import Access, AccessTables

ACCESS_TABLES = AccessTables(principals="reviewers", key="name", owner="reviewer")
DEFAULT_ACCESS = Access(ACCESS_TABLES)


def link(base_url: str, token: str) -> str:
    """A private link of the review app (every role signs in at /r/<token>)."""
    return f"{base_url.rstrip('/')}/r/{token}"


def reviewer_for_token(project: Project, token: str, access: Access = DEFAULT_ACCESS) -> Reviewer | None:
    """The person an unrevoked link token belongs to, checking every stored hash in constant time."""
    name = access.holder(project.conn, token)
    return None if name is None else reviewer_named(project, str(name))


def start_session(project: Project, name: str, access: Access = DEFAULT_ACCESS) -> str:
    """A fresh session id for `name`'s cookie; only its hash is stored."""
    with project.transaction() as conn:
        return access.start_session(conn, name)


def session_reviewer(project: Project, session_id: str, access: Access = DEFAULT_ACCESS) -> Reviewer | None:
    """The person of a live session; None when unknown, expired, or their link was rotated or revoked."""
    name = access.session_holder(project.conn, session_id)
    return None if name is None else reviewer_named(project, str(name))


def end_session(project: Project, session_id: str, access: Access = DEFAULT_ACCESS) -> None:
    """Forget one session (sign out)."""
    access.end_session(project.conn, session_id)


def _named(project: Project, who: list[str] | None) -> list[str]:
    names = [person.name for person in reviewers(project)]
    unknown = sorted(set(who or []) - set(names))
    if unknown:
        raise InputError(
            f"{project.root}: no one named {', '.join(unknown)} (known: {', '.join(names) or 'nobody yet'})"
        )
    return [name for name in names if not who or name in who]


def rotate_links(project: Project, who: list[str] | None = None, access: Access = DEFAULT_ACCESS) -> dict[str, str]:
    """New tokens for everyone (or the named people); their old links and sessions stop working at once."""
    names = _named(project, who)
    with project.transaction() as conn:
        return {name: access.issue_link(conn, name) for name in names}


def revoke_links(project: Project, who: list[str] | None = None, access: Access = DEFAULT_ACCESS) -> list[str]:
    """Disable the links of everyone (or the named people) and end their sessions; returns their names."""
    names = _named(project, who)
    with project.transaction() as conn:
        for name in names:
            access.revoke_link(conn, name)
    return names


def revoked_links(project: Project) -> dict[str, str]:
    """Names whose link is revoked, with when."""
    return {str(name): at for name, at in DEFAULT_ACCESS.revoked(project.conn).items()}
