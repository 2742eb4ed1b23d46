"""The review app in headless Chromium against a real uvicorn server: two reviewers, one
disagreement, the admin's resolution, a contribution; then the datasheet matches the database."""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest

from cobe.curate import open_project
from support.curate_project import COBE, CORES, add_variation, cobe

CHROMIUM = "/usr/bin/chromium"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's Chromium is not installed"),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def served(tmp_path: Path):
    """A project with three core examples and reviewers, served by `cobe curate serve`."""
    proj = tmp_path / "proj"
    cobe("curate", "init", str(proj))
    cobe("curate", "import", str(proj), str(CORES))
    cobe("curate", "promote", str(proj), "1v0", "2v0", "3v0")
    cobe("curate", "check", str(proj))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    out = cobe(
        "curate", "reviewers", str(proj), "--add", "alice", "--add", "bob", "--admin", "boss", "--base-url", base
    ).stdout
    links = dict(re.findall(r"^(\w+) \(\w+\): (\S+)$", out, re.M))
    server = subprocess.Popen(
        [str(COBE), "curate", "serve", str(proj), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        # the command prints its "serving" line only once its port is bound and listening
        assert server.stdout is not None and server.stdout.readline().startswith(b"serving ")
        yield proj, base, links
    finally:
        server.terminate()
        server.wait(timeout=10)


def _review(page, base: str, item_id: str, decision: str, comment: str) -> None:
    page.goto(f"{base}/item/{item_id}")
    assert page.locator("#checks").count() == 1  # the automatic checks sit beside the item
    page.fill("textarea[name=comment]", comment)
    page.click(f"#{decision}")
    page.wait_for_url(f"{base}/")


def test_two_reviewers_disagree_and_the_admin_resolves(served, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    proj, base, links = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            alice = browser.new_context().new_page()
            alice.goto(links["alice"])
            alice.wait_for_url(f"{base}/")  # the landing page moves on: the token left the address bar
            assert alice.locator("#queue tbody tr").count() == 3
            for item_id in ("1v0", "2v0", "3v0"):
                _review(alice, base, item_id, "approve", "reads well")
            assert alice.locator("#empty").count() == 1

            bob = browser.new_context().new_page()
            bob.goto(links["bob"])
            bob.wait_for_url(f"{base}/")
            _review(bob, base, "1v0", "approve", "")
            _review(bob, base, "2v0", "approve", "")
            _review(bob, base, "3v0", "reject", "<b>the ferry</b> fact is vague")

            # a forged form without the CSRF token is refused
            forged = bob.request.post(f"{base}/item/1v0/review", form={"decision": "reject"})
            assert forged.status == 403

            # contribution form: the validator's own messages, then a clean submission
            bob.goto(f"{base}/contribute")
            bob.fill("input[name=domain]", "weather")
            bob.fill("input[name=intervention]", "the storm had passed north")
            bob.click("#submit")
            assert "story: required field is empty" in bob.inner_text("#problems")
            bob.fill(
                "textarea[name=story]",
                "A storm hit the village at noon. The fair was cancelled and the stalls stayed packed.",
            )
            bob.fill(
                "textarea[name=illustrative_answer]", "The storm passed north of the village. The fair went ahead."
            )
            bob.fill("textarea[name=preserve]", "A fair was planned in the village.")
            bob.fill("textarea[name=change]", "The fair was cancelled.\nThe stalls stayed packed.")
            bob.click("#submit")
            assert "candidate 4v0" in bob.inner_text("#added")

            admin = browser.new_context().new_page()
            admin.goto(links["boss"])
            admin.wait_for_url(f"{base}/admin")
            section = admin.locator("#d-3v0")
            assert "<b>the ferry</b> fact is vague" in section.inner_text()  # shown as text, not markup
            assert section.locator("b").count() == 0
            section.locator("textarea[name=reason]").fill("the second criterion is concrete enough")
            section.locator("button[value=approve]").click()
            admin.wait_for_url(f"{base}/admin")
            assert admin.locator("#none").count() == 1

            # a reviewer cannot open the admin page
            alice.goto(f"{base}/admin")
            assert "This page is for the admin" in alice.inner_text("#message")
        finally:
            browser.close()

    out = tmp_path / "release"
    # approved core examples alone make no release: only variations (v >= 1) are released
    refused = cobe("curate", "release", str(proj), "--out", str(out), check=False)
    assert refused.returncode == 2 and "3 approved core example(s) v0 are never released" in refused.stderr
    with open_project(proj) as project:
        variation = add_variation(project, "1v0")
    for reviewer in ("alice", "bob"):
        cobe("curate", "review", str(proj), variation, "--reviewer", reviewer, "--approve")
    cobe("curate", "release", str(proj), "--out", str(out))
    sheet = json.loads((out / "datasheet.json").read_text())["pipeline"]
    db = sqlite3.connect(proj / "project.sqlite")
    one = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
    assert sheet["released"] == one("SELECT COUNT(*) FROM items WHERE status = 'released'") == 1
    assert sheet["candidates"] == one("SELECT COUNT(*) FROM items WHERE source != 'augment'") == 4
    assert sheet["core"] == one("SELECT COUNT(*) FROM items WHERE is_core = 1") == 3
    assert sheet["reviews"]["reviews"] == one("SELECT COUNT(*) FROM reviews") == 8
    assert (
        sheet["reviews"]["disagreements"] == 1
        and sheet["reviews"]["resolved"] == one("SELECT COUNT(*) FROM resolutions") == 1
    )
    assert sheet["reviews"]["approved_by_both"] == 3
    assert one("SELECT actor FROM events WHERE item_id = '3v0' AND to_status = 'approved'") == "admin:boss"
    assert "| disagreements resolved by the admin | 1 |" in (out / "datasheet.md").read_text()
