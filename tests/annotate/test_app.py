"""The rating app's security and flow, through FastAPI's TestClient."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from cobe.annotate.app import create_app
from cobe.annotate.store import StudyStore
from cobe.annotate.study import create_study


def token_path(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def sign_in(app, link: str) -> TestClient:
    client = TestClient(app, base_url="http://testserver")
    response = client.get(token_path(link))
    assert response.status_code == 200
    assert "cobe_session" in client.cookies
    return client


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def item_of(html: str) -> int:
    return int(re.search(r'name="item_id" value="(\d+)"', html).group(1))


@pytest.fixture
def app(small_study):
    return create_app(small_study.path)


def test_link_sets_strict_httponly_cookie_and_moves_to_token_free_url(app, small_study):
    client = TestClient(app)
    response = client.get(token_path(small_study.raters["rater-1"]))
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "max-age" in cookie
    assert 'http-equiv="refresh" content="0; url=/rate"' in response.text
    token = small_study.raters["rater-1"].rsplit("/", 1)[1]
    assert token not in response.text
    assert client.get("/rate", follow_redirects=False).headers["location"].startswith("/rate/")


def test_security_headers(app, small_study):
    response = sign_in(app, small_study.raters["rater-1"]).get("/rate/1")
    assert response.headers["content-security-policy"].startswith("default-src 'self'")
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert "<script" not in response.text.replace("<script>alert", "")  # no script of our own


@pytest.mark.parametrize("path", ["/rate", "/rate/1", "/items", "/done", "/admin", "/admin/export.csv", "/"])
def test_without_a_session_is_refused(app, path):
    assert TestClient(app).get(path, follow_redirects=False).status_code == 401


def test_bad_token_and_forged_cookie_are_refused(app, small_study):
    client = TestClient(app)
    assert client.get("/r/" + "x" * 43).status_code == 403
    # an admin token on the rater path (and the reverse) does not sign in
    assert client.get(token_path(small_study.admin).replace("/a/", "/r/")).status_code == 403
    client.cookies.set("cobe_session", "forged")
    assert client.get("/rate/1").status_code == 401


def test_post_without_or_with_wrong_csrf_is_refused_and_writes_nothing(app, small_study):
    client = sign_in(app, small_study.raters["rater-1"])
    page = client.get("/rate/1").text
    form = {"item_id": item_of(page), "label": "Yes", "comment": ""}
    assert client.post("/rate/1", data=form).status_code == 403
    assert client.post("/rate/1", data={**form, "csrf_token": "0" * 64}).status_code == 403
    # the CSRF token of another session (rater-2's) does not work for rater-1's session
    other = sign_in(app, small_study.raters["rater-2"])
    other_csrf = csrf_of(other.get("/rate/1").text)
    assert client.post("/rate/1", data={**form, "csrf_token": other_csrf}).status_code == 403
    assert StudyStore(small_study.path).all_ratings() == []


def test_tampered_item_id_is_refused(app, small_study):
    client = sign_in(app, small_study.raters["rater-1"])
    page = client.get("/rate/1").text
    csrf, item = csrf_of(page), item_of(page)
    for bad in [item + 1000, "abc", "", -1]:
        response = client.post("/rate/1", data={"item_id": bad, "label": "No", "csrf_token": csrf})
        assert response.status_code == 400
    # an item id that exists but sits at another position of the assignment is refused too
    second = item_of(client.get("/rate/2").text)
    assert client.post("/rate/1", data={"item_id": second, "label": "No", "csrf_token": csrf}).status_code == 400
    assert client.post("/rate/99", data={"item_id": item, "label": "No", "csrf_token": csrf}).status_code == 400
    assert client.post("/rate/1", data={"item_id": item, "label": "Maybe", "csrf_token": csrf}).status_code == 400
    assert StudyStore(small_study.path).all_ratings() == []


def test_a_rater_acts_only_as_themself(app, small_study):
    a = sign_in(app, small_study.raters["rater-1"])
    b = sign_in(app, small_study.raters["rater-2"])
    store = StudyStore(small_study.path)
    b_page = b.get("/rate/1").text
    assert (
        b.post(
            "/rate/1",
            data={"item_id": item_of(b_page), "label": "No", "comment": "b-secret-note", "csrf_token": csrf_of(b_page)},
            follow_redirects=False,
        ).status_code
        == 303
    )
    # rater-1 posts rater-2's item id at rater-2's position: it is either refused or saved as rater-1's own answer
    a_page = a.get("/rate/1").text
    response = a.post("/rate/1", data={"item_id": item_of(b_page), "label": "Yes", "csrf_token": csrf_of(a_page)})
    if item_of(a_page) != item_of(b_page):
        assert response.status_code == 400
    ratings = {(r.rater, r.item_id): r for r in store.all_ratings()}
    assert ratings[("rater-2", item_of(b_page))].label == "No"
    assert all(r.rater != "rater-1" or r.item_id == item_of(a_page) for r in ratings.values())
    # rater-1 never sees rater-2's answer or comment, on any page
    for pos in range(1, 7):
        assert "b-secret-note" not in a.get(f"/rate/{pos}").text
    assert "b-secret-note" not in a.get("/items").text
    # and has no access to the admin pages or export
    assert a.get("/admin").status_code == 403
    assert a.get("/admin/export.csv").status_code == 403


def test_html_in_a_response_renders_as_text(app, small_study):
    client = sign_in(app, small_study.raters["rater-1"])
    pages = [client.get(f"/rate/{pos}").text for pos in range(1, 7)]
    page = next(p for p in pages if "alert(" in p)
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt; &amp; more" in page
    assert "<script>" not in page and "<b>bold" not in page


def test_study_title_does_not_leak_the_run_directory(small_run, tmp_path):
    # run directories are named after their models, e.g. runs/openai_gpt-5.4__cobe
    named = small_run.rename(small_run.parent / "mock_a__mock_b__data")
    study = create_study(named, tmp_path / "titled", n=6, seed=1, raters=1, base_url="http://testserver", models="all")
    client = sign_in(create_app(study.path), study.raters["rater-1"])
    assert "mock_a" not in client.get("/rate/1").text


def test_rater_never_sees_criteria_model_or_verdict(app, small_study):
    client = sign_in(app, small_study.raters["rater-1"])
    text = "".join(client.get(f"/rate/{pos}").text for pos in range(1, 7)) + client.get("/items").text
    for hidden in ["Fact 0 stays", "Consequence", "mock/a", "mock/b", "judge"]:
        assert hidden not in text


def test_flow_progress_back_list_resume_and_upsert(app, small_study):
    client = sign_in(app, small_study.raters["rater-1"])
    first = client.get("/rate/1").text
    assert "Item <strong>1</strong> of 6" in first
    response = client.post(
        "/rate/1",
        data={"item_id": item_of(first), "label": "Yes", "comment": "fine", "csrf_token": csrf_of(first)},
        follow_redirects=False,
    )
    assert response.headers["location"] == "/rate/2"
    second = client.get("/rate/2").text
    client.post("/rate/2", data={"item_id": item_of(second), "label": "Other", "csrf_token": csrf_of(second)})
    # go back and change the first answer: an upsert, not a second row
    back = client.get("/rate/1").text
    assert "Saved answer: <strong>Yes</strong>" in back and ">fine</textarea>" in back
    client.post(
        "/rate/1", data={"item_id": item_of(back), "label": "No", "comment": "changed", "csrf_token": csrf_of(back)}
    )
    ratings = StudyStore(small_study.path).ratings_of(1)
    assert len(ratings) == 2 and ratings[item_of(first)].label == "No"
    # a new browser (no cookie) resumes at the next unanswered item via the same link
    again = sign_in(app, small_study.raters["rater-1"])
    assert again.get("/rate", follow_redirects=False).headers["location"] == "/rate/3"
    listing = again.get("/items").text
    assert listing.count('href="/rate/') >= 12 and "not yet" in listing


def test_rotated_link_replaces_the_old_one(app, small_study):
    from cobe.annotate.study import rotate_links

    old = sign_in(app, small_study.raters["rater-1"])
    new = rotate_links(small_study.path, who=["rater-1"], base_url="http://testserver")
    assert set(new.raters) == {"rater-1"} and new.admin is None
    assert TestClient(app).get(token_path(small_study.raters["rater-1"])).status_code == 403
    assert old.get("/rate/1").status_code == 401  # its sessions ended with the old token
    assert sign_in(app, new.raters["rater-1"]).get("/rate/1").status_code == 200


def test_admin_sees_progress_and_exports_csv(app, small_study):
    rater = sign_in(app, small_study.raters["rater-2"])
    page = rater.get("/rate/1").text
    rater.post(
        "/rate/1", data={"item_id": item_of(page), "label": "No", "comment": "=cmd()", "csrf_token": csrf_of(page)}
    )
    admin = sign_in(app, small_study.admin)
    overview = admin.get("/admin").text
    assert "rater-1" in overview and "rater-2" in overview
    assert small_study.admin.rsplit("/", 1)[1] not in overview
    assert admin.get("/rate/1").status_code == 403
    csv_text = admin.get("/admin/export.csv").text.splitlines()
    assert csv_text[0] == "rater,item,label,comment,answered_at"
    assert len(csv_text) == 2 and csv_text[1].startswith("rater-2,") and ",No,'=cmd()," in csv_text[1]


def test_logout_needs_csrf_and_ends_the_session(app, small_study):
    client = sign_in(app, small_study.raters["rater-1"])
    page = client.get("/rate/1").text
    assert client.post("/logout", data={}).status_code == 403
    assert client.post("/logout", data={"csrf_token": csrf_of(page)}).status_code == 200
    assert client.get("/rate/1").status_code == 401


def test_tokens_never_reach_logs(monkeypatch, small_study):
    import logging

    import uvicorn

    from cobe.annotate import app as app_module
    from cobe.web.security import RedactTokens, redact

    token = small_study.raters["rater-1"].rsplit("/", 1)[1]
    assert token not in redact(f'127.0.0.1:5000 - "GET /r/{token} HTTP/1.1" 200')
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, "", 0, '%s - "%s %s"', ("127.0.0.1", "GET", f"/a/{token}"), None
    )
    RedactTokens().filter(record)
    assert token not in record.getMessage()
    seen = {}

    def run(self, sockets=None):
        seen.update(access_log=self.config.access_log, address=sockets[0].getsockname())
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    app_module.serve(small_study.path, port=0)
    assert seen["access_log"] is False and seen["address"][0] == "127.0.0.1"


def test_real_server_refuses_without_token_and_logs_no_token(server, caplog):
    import httpx

    base, links = server
    token = links.raters["rater-1"].rsplit("/", 1)[1]
    with caplog.at_level("DEBUG"):
        assert httpx.get(base + "/rate").status_code == 401
        with httpx.Client(base_url=base) as client:
            assert client.get(f"/r/{token}").status_code == 200
            page = client.get("/rate", follow_redirects=True)
            assert page.status_code == 200 and "Item <strong>1</strong>" in page.text
            assert client.post(page.url.path, data={"item_id": item_of(page.text), "label": "Yes"}).status_code == 403
    server_logs = [r.getMessage() for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    assert not any(token in message for message in server_logs)


class Clock:
    """A clock the test moves by hand, for session expiry."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.mark.parametrize("token", ["é" * 64, "²" * 64, "☃"])
def test_a_non_ascii_csrf_token_is_refused_not_a_crash(app, small_study, token):
    client = sign_in(app, small_study.raters["rater-1"])
    page = client.get("/rate/1").text
    form = {"item_id": item_of(page), "label": "Yes", "csrf_token": token}
    assert client.post("/rate/1", data=form).status_code == 403
    assert client.post("/logout", data={"csrf_token": token}).status_code == 403
    assert StudyStore(small_study.path).all_ratings() == []


@pytest.mark.parametrize("bad", ["²", "٣", "1²", "１", "1e3", "9" * 40])
def test_ids_and_positions_are_ascii_digits_or_refused(app, small_study, bad):
    client = sign_in(app, small_study.raters["rater-1"])
    csrf = csrf_of(client.get("/rate/1").text)
    assert client.post("/rate/1", data={"item_id": bad, "label": "Yes", "csrf_token": csrf}).status_code == 400
    assert client.post(f"/rate/{bad}", data={"item_id": "1", "label": "Yes", "csrf_token": csrf}).status_code == 400
    missing = client.get(f"/rate/{bad}")
    assert missing.status_code == 404 and "There is no item" in missing.text
    assert StudyStore(small_study.path).all_ratings() == []


def test_a_comment_over_the_limit_is_refused_not_cut(app, small_study):
    client = sign_in(app, small_study.raters["rater-1"])
    page = client.get("/rate/1").text
    form = {"item_id": item_of(page), "label": "No", "csrf_token": csrf_of(page)}
    refused = client.post("/rate/1", data={**form, "comment": "x" * 4001})
    assert refused.status_code == 400 and "comment: 4,001 characters; at most 4,000 are accepted" in refused.text
    assert StudyStore(small_study.path).all_ratings() == []
    # a textarea filled to its maxlength arrives with CR LF newlines and is still accepted
    saved = client.post("/rate/1", data={**form, "comment": "ok\r\n" * 1000}, follow_redirects=False)
    assert saved.status_code == 303 and len(StudyStore(small_study.path).all_ratings()) == 1


def test_an_oversized_body_is_refused_before_it_is_read(app, small_study):
    client = sign_in(app, small_study.raters["rater-1"])
    page = client.get("/rate/1").text
    form = {"item_id": item_of(page), "label": "No", "csrf_token": csrf_of(page), "comment": "x" * 400_000}
    refused = client.post("/rate/1", data=form)
    assert refused.status_code == 413 and "too large to accept (at most 256 KB)" in refused.text
    assert refused.headers["x-frame-options"] == "DENY"

    def chunks():  # no Content-Length: the limit counts what arrives
        for _ in range(40):
            yield b"comment=" + b"x" * 10_000 + b"&"

    streamed = client.post("/rate/1", content=chunks(), headers={"content-type": "application/x-www-form-urlencoded"})
    assert streamed.status_code == 413
    assert StudyStore(small_study.path).all_ratings() == []


def test_sessions_end_after_a_quiet_week_and_after_thirty_days(small_study):
    clock = Clock()
    app = create_app(small_study.path, clock=clock)
    client = sign_in(app, small_study.raters["rater-1"])
    clock.advance(days=6)
    assert client.get("/rate/1").status_code == 200
    clock.advance(days=7, seconds=1)
    assert client.get("/rate/1").status_code == 401  # idle for more than a week
    client = sign_in(app, small_study.raters["rater-1"])  # the link still works
    for days in (6, 6, 6, 6, 5):  # used every few days: 29 days after sign-in it still works
        clock.advance(days=days)
        assert client.get("/rate/1").status_code == 200
    clock.advance(days=2)
    expired = client.get("/rate/1")
    assert expired.status_code == 401 and "Open the private link" in expired.text  # 31 days after sign-in


def test_a_revoked_link_and_its_sessions_stop_working(app, small_study):
    from cobe.annotate.study import revoke_links, rotate_links

    client = sign_in(app, small_study.raters["rater-1"])
    assert revoke_links(small_study.path, who=["rater-1"]) == ["rater-1"]
    assert client.get("/rate/1").status_code == 401
    refused = TestClient(app).get(token_path(small_study.raters["rater-1"]))
    assert refused.status_code == 403 and "revoked" in refused.text
    assert sign_in(app, small_study.raters["rater-2"]).get("/rate/1").status_code == 200  # others unaffected
    new = rotate_links(small_study.path, who=["rater-1"], base_url="http://testserver")
    assert sign_in(app, new.raters["rater-1"]).get("/rate/1").status_code == 200
    assert StudyStore(small_study.path).revoked_links() == {}
