"""Two raters in headless Chromium at the same time, each closing and resuming once; the admin export holds exactly their answers."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from cobe.annotate.store import StudyStore

from .conftest import N_ITEMS

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's Chromium (/usr/bin/chromium) is not installed"),
]


class Rater:
    """One rater's browser context: it answers the item on screen and remembers what it saved."""

    def __init__(self, browser, name: str, link: str, store: StudyStore, errors: list[str]) -> None:
        self.browser, self.name, self.link, self.store, self.errors = browser, name, link, store, errors
        self.answers: dict[str, tuple[str, str]] = {}
        self.open(self.link, state=None)

    def open(self, url: str, state) -> None:
        self.context = self.browser.new_context(storage_state=state)
        self.page = self.context.new_page()
        # a Content-Security-Policy violation would mean an inline script or style slipped in
        self.page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        self.page.goto(url)
        self.page.wait_for_url(re.compile(r"/rate/\d+$"))

    def position(self) -> int:
        return int(re.search(r"/rate/(\d+)$", self.page.url).group(1))

    def answer(self, label: str) -> None:
        page = self.page
        assert page.locator(".progress").inner_text().startswith(f"Item {self.position()} of {N_ITEMS}")
        item_id = int(page.input_value("input[name=item_id]"))
        comment = f"{self.name} says {label} at {self.position()}"
        page.check(f'input[name=label][value="{label}"]')
        page.fill("#comment", comment)
        with page.expect_navigation():
            page.click("form.rating button[type=submit]")
        self.answers[self.store.item(item_id).key] = (label, comment)

    def close_and_resume(self, keep_cookies: bool) -> None:
        """Close the browser; come back with the saved profile, or by opening the private link again."""
        state = self.context.storage_state() if keep_cookies else None
        self.context.close()
        self.open(self.link.rsplit("/r/", 1)[0] + "/" if keep_cookies else self.link, state)


def test_two_raters_at_once_close_resume_and_export(server):
    playwright = pytest.importorskip("playwright.sync_api")
    base, links = server
    store = StudyStore(links.path)
    errors: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        a = Rater(browser, "rater-1", links.raters["rater-1"], store, errors)
        b = Rater(browser, "rater-2", links.raters["rater-2"], store, errors)
        assert a.position() == b.position() == 1

        a.answer("Yes")
        b.answer("No")
        a.answer("No")
        b.answer("Other")
        assert (a.position(), b.position()) == (3, 3)

        # each closes the browser once and resumes at the next unanswered item
        a.close_and_resume(keep_cookies=True)
        b.close_and_resume(keep_cookies=False)
        assert (a.position(), b.position()) == (3, 3)
        assert "Signed in as rater-1" in a.page.inner_text("header")
        assert "Signed in as rater-2" in b.page.inner_text("header")

        # rater-1 goes back and changes the previous answer (an upsert), then returns to work
        a.page.click("text=← Previous")
        a.page.wait_for_url(re.compile(r"/rate/2$"))
        assert a.page.is_checked('input[name=label][value="No"]')
        a.answer("Other")
        assert a.position() == 3

        # the HTML-looking response renders as text in the browser
        a.page.goto(base + "/items")
        assert a.page.locator("img").count() == 0
        a.page.goto(base + "/rate")
        while len(a.answers) < N_ITEMS or len(b.answers) < N_ITEMS:
            for rater, label in ((a, "Yes"), (b, "No")):
                if len(rater.answers) < N_ITEMS:
                    if not re.search(r"/rate/\d+$", rater.page.url):
                        rater.page.goto(base + "/rate")
                    rater.answer(label)
        for rater in (a, b):
            rater.page.wait_for_url(re.compile(r"/done$"))
            assert f"{N_ITEMS} of {N_ITEMS}" in rater.page.inner_text("main")

        # a rater cannot reach the admin pages
        assert a.context.request.get(base + "/admin/export.csv").status == 403

        admin = browser.new_context()
        page = admin.new_page()
        page.goto(links.admin)
        page.wait_for_url(re.compile(r"/admin$"))
        assert "rater-1" in page.inner_text("table") and "rater-2" in page.inner_text("table")
        with page.expect_download() as download_info:
            page.click("text=Download ratings (CSV)")
        exported = Path(download_info.value.path()).read_text(encoding="utf-8")
        browser.close()

    found = {(r["rater"], r["item"]): (r["label"], r["comment"]) for r in csv.DictReader(io.StringIO(exported))}
    expected = {("rater-1", k): v for k, v in a.answers.items()} | {("rater-2", k): v for k, v in b.answers.items()}
    assert len(exported.strip().splitlines()) == 2 * N_ITEMS + 1
    assert found == expected
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e]
