"""The review app against the holes an attack found: CSRF text, own contributions, sessions, sizes, roles."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from cobe.curate import create_audit, record_review
from cobe.curate.links import revoke_links, rotate_links
from cobe.curate.review import add_reviewer, queue, reviews_of
from cobe.curate.web import create_app
from support.curate_project import add_variation

CONTRIBUTION = {
    "domain": "weather",
    "story": "A storm hit the village at noon. The fair was cancelled and the stalls stayed packed.",
    "intervention": "the storm had passed north",
    "illustrative_answer": "The storm passed north of the village. The fair went ahead.",
    "preserve": "A fair was planned in the village.",
    "change": "The fair was cancelled.\nThe stalls stayed packed.",
}


class Clock:
    """A clock the test moves by hand, for session expiry."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def people(project) -> dict[str, str]:
    """Private-link tokens of two reviewers and the admin."""
    tokens = {name: add_reviewer(project, name) for name in ("alice", "bob")}
    tokens["boss"] = add_reviewer(project, "boss", role="admin")
    return tokens


def signed_in(app, token: str) -> TestClient:
    client = TestClient(app, base_url="http://127.0.0.1")
    landing = client.get(f"/r/{token}")
    assert landing.status_code == 200 and "cobe_session" in client.cookies
    return client


def csrf_of(client: TestClient, path: str = "/") -> str:
    return re.search(r'name="csrf_token" value="([0-9a-f]+)"', client.get(path).text).group(1)


@pytest.mark.parametrize("token", ["é" * 64, "²" * 64, "☃"])
def test_a_non_ascii_csrf_token_is_refused_not_a_crash(project, people, token) -> None:
    app = create_app(project.root)
    alice, boss = signed_in(app, people["alice"]), signed_in(app, people["boss"])
    form = {"decision": "approve", "comment": "", "csrf_token": token}
    assert alice.post("/item/1v0/review", data=form).status_code == 403
    assert alice.post("/contribute", data={**CONTRIBUTION, "csrf_token": token}).status_code == 403
    assert alice.post("/logout", data={"csrf_token": token}).status_code == 403
    assert boss.post("/admin/resolve/1v0", data={**form, "reason": "x"}).status_code == 403
    assert reviews_of(project, "1v0") == [] and project.status_counts()["candidate"] == 0


def test_nobody_reviews_their_own_contribution_in_the_app(project, people) -> None:
    app = create_app(project.root)
    alice, bob = signed_in(app, people["alice"]), signed_in(app, people["bob"])
    added = alice.post("/contribute", data={**CONTRIBUTION, "csrf_token": csrf_of(alice, "/contribute")})
    assert "candidate 4v0" in added.text
    project.set_status("4v0", "core", actor="test", is_core=True)
    variation = project.item("4v0").scenario.model_copy(update={"id": "4v1", "variation": 1})
    project.add_item(variation, status="variation", source="test", actor="augment", parent_id="4v0")
    assert [i.id for i in queue(project, "alice")] == ["1v0", "2v0", "3v0"]
    assert {"4v0", "4v1"} <= {i.id for i in queue(project, "bob")}
    for item_id in ("4v0", "4v1"):
        page = alice.get(f"/item/{item_id}").text
        assert 'id="own"' in page and 'id="approve"' not in page
        refused = alice.post(f"/item/{item_id}/review", data={"decision": "approve", "csrf_token": csrf_of(alice)})
        assert refused.status_code == 400 and "alice contributed it" in refused.text
        assert reviews_of(project, item_id) == []
    assert bob.post("/item/4v0/review", data={"decision": "approve", "csrf_token": csrf_of(bob)}).status_code == 200


def test_the_admin_reviews_nothing_in_the_app(project, people) -> None:
    boss = signed_in(create_app(project.root), people["boss"])
    refused = boss.post("/item/1v0/review", data={"decision": "approve", "csrf_token": csrf_of(boss, "/admin")})
    assert refused.status_code == 403 and reviews_of(project, "1v0") == []


def test_sessions_end_after_a_quiet_week_and_after_thirty_days(project, people) -> None:
    clock = Clock()
    app = create_app(project.root, clock=clock)
    alice = signed_in(app, people["alice"])
    clock.advance(days=6, hours=23)
    assert alice.get("/").status_code == 200
    clock.advance(days=7)
    assert alice.get("/").status_code == 401  # a week without a request
    alice = signed_in(app, people["alice"])
    for days in (6, 6, 6, 6, 5):
        clock.advance(days=days)
        assert alice.get("/").status_code == 200
    clock.advance(days=2)
    assert alice.get("/").status_code == 401  # 31 days after sign-in, however busy


def test_rotated_and_revoked_links_end_their_sessions(project, people) -> None:
    app = create_app(project.root)
    alice, bob = signed_in(app, people["alice"]), signed_in(app, people["bob"])
    new = rotate_links(project, ["alice"])
    assert set(new) == {"alice"}
    assert alice.get("/").status_code == 401 and bob.get("/").status_code == 200
    assert TestClient(app).get(f"/r/{people['alice']}").status_code == 403
    alice = signed_in(app, new["alice"])
    assert revoke_links(project, ["alice"]) == ["alice"]
    assert alice.get("/").status_code == 401
    assert TestClient(app).get(f"/r/{new['alice']}").status_code == 403
    assert signed_in(app, rotate_links(project, ["alice"])["alice"]).get("/").status_code == 200


def test_deep_or_oversized_contributions_get_400_or_413_and_add_nothing(project, people) -> None:
    alice = signed_in(create_app(project.root), people["alice"])
    csrf = csrf_of(alice, "/contribute")
    deep = alice.post("/contribute", data={**CONTRIBUTION, "graph": "[" * 20_000, "csrf_token": csrf})
    assert deep.status_code == 400 and "graph: nested 20,000 levels deep; at most 8 are accepted" in deep.text
    nested = alice.post("/contribute", data={**CONTRIBUTION, "graph": "[" * 9 + "]" * 9, "csrf_token": csrf})
    assert nested.status_code == 400 and "graph: nested 9 levels deep" in nested.text
    long_story = alice.post("/contribute", data={**CONTRIBUTION, "story": "w" * 10_000, "csrf_token": csrf})
    assert long_story.status_code == 400
    assert "story: 10,000 characters; at most 2,000 are accepted" in long_story.text
    assert 'value="weather"' in long_story.text  # the form comes back filled in
    huge = alice.post("/contribute", data={**CONTRIBUTION, "story": "w" * 750_000, "csrf_token": csrf})
    assert huge.status_code == 413 and "too large to accept" in huge.text
    assert project.status_counts()["candidate"] == 0
    graph = '{"variables": ["storm", "fair"], "edges": [{"source": "storm", "target": "fair"}], "intervened": "storm"}'
    shallow = alice.post("/contribute", data={**CONTRIBUTION, "graph": graph, "csrf_token": csrf})
    assert shallow.status_code == 422 and "linked to no graph fact" in shallow.text  # the validator's turn
    fine = alice.post("/contribute", data={**CONTRIBUTION, "csrf_token": csrf})
    assert fine.status_code == 200 and "candidate 4v0" in fine.text


def test_audit_experts_never_see_criteria_and_scores_are_ascii_digits(project, people) -> None:
    for item_id in (add_variation(project, "1v0"), add_variation(project, "2v0")):
        record_review(project, item_id, "alice", "approve")
        record_review(project, item_id, "bob", "approve")
    audit = create_audit(project, n=2, seed=0, experts=1)
    ((_, token),) = audit.tokens.items()
    expert = signed_in(create_app(project.root), token)
    assert expert.get("/item/1v0").status_code == 403  # the item page shows the criteria
    assert expert.get("/contribute").status_code == 403
    form = {f"{s}_{i}": "4" for s in ("coherence", "grammar", "validity") for i in audit.item_ids}
    form |= {"diversity": "3", "csrf_token": csrf_of(expert, "/audit")}
    refused = expert.post("/audit", data={**form, f"grammar_{audit.item_ids[0]}": "²"})
    assert refused.status_code == 400 and "expected a whole number from 1 to 5" in refused.text
    assert expert.post("/audit", data=form).status_code == 200
