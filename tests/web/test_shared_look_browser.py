"""The review app looks like the rating app: both serve cobe.web's one stylesheet on cobe.web's page, in
Chromium their pages compute the same styles, and an empty review queue says what comes next.

Screenshots of both apps go to $COBE_SCREENSHOTS when it is set (else the test's own folder)."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cobe.annotate.app import create_app as rating_app
from cobe.annotate.study import create_study
from cobe.curate import import_file, init_project, open_project, promote
from cobe.curate.review import add_reviewer
from cobe.curate.web import create_app as review_app
from cobe.web.pages import STYLESHEET
from cobe.web.serving import listen
from support.curate_project import CORES
from support.results import make_rows, write_run

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# what the eye takes in first: page, bar at the top, panels, buttons, tables
LOOK = {
    "body": ("font-family", "font-size", "color", "background-color"),
    "header": ("background-color", "border-bottom-color", "padding-top", "display"),
    ".card": ("background-color", "border-top-left-radius", "padding-left", "border-top-color"),
    "main": ("max-width",),
    "button[type=submit]": ("background-color", "color", "border-top-left-radius", "padding-left"),
}
COMPUTED = """(look) => Object.fromEntries(Object.entries(look).map(([selector, names]) => {
  const element = document.querySelector(selector);
  if (element === null) return [selector, null];
  const style = getComputedStyle(element);
  return [selector, Object.fromEntries(names.map(name => [name, style.getPropertyValue(name)]))];
}))"""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian's Chromium is not installed at {CHROMIUM}"),
]


def _serve(app) -> Iterator[str]:
    """`app` on a real uvicorn server on 127.0.0.1, in a thread; yields its base URL."""
    import uvicorn

    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, access_log=False, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def review(tmp_path: Path) -> Iterator[tuple[str, str, Path]]:
    """A project whose three examples are imported, not promoted, with one reviewer: (base, link path, dir)."""
    project = init_project(tmp_path / "proj")
    import_file(project, CORES)
    token = add_reviewer(project, "alice")
    project.close()
    for base in _serve(review_app(tmp_path / "proj")):
        yield base, f"/r/{token}", tmp_path / "proj"


@pytest.fixture
def rating(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A two-rater study over a small run: (base, rater-1's link)."""
    run = write_run(tmp_path / "run", make_rows("mock/a", 4, 0.5))
    links = create_study(run, tmp_path / "study", n=4, seed=1, raters=2, base_url="http://x", models="all")
    for base in _serve(rating_app(links.path)):
        yield base, links.raters["rater-1"].removeprefix("http://x")


def test_the_review_app_wears_the_rating_apps_stylesheet(review, rating, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    shots = Path(os.environ.get("COBE_SCREENSHOTS") or tmp_path)
    review_base, review_link, project_dir = review
    rating_base, rating_link = rating
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        rater = browser.new_page(viewport={"width": 1280, "height": 800})
        rater.goto(rating_base + rating_link)
        rater.wait_for_url(re.compile(r"/rate/1$"))
        rater.screenshot(path=str(shots / "rating-app-item.png"), full_page=True)

        reviewer = browser.new_page(viewport={"width": 1280, "height": 800})
        reviewer.goto(review_base + review_link)
        reviewer.wait_for_url(review_base + "/")
        # imported candidates are not reviewed: the empty queue says what the maintainer does next
        assert reviewer.inner_text("#empty") == "Nothing to review yet."
        step = reviewer.inner_text("#next-step")
        assert "3 imported candidate(s) are not core examples yet" in step
        for command in ("cobe curate list PROJECT --status candidate", "cobe curate promote", "cobe curate augment"):
            assert command in step
        reviewer.screenshot(path=str(shots / "review-app-empty-queue.png"), full_page=True)

        # one stylesheet, cobe.web's, served by both
        sheets = [
            page.request.get(base + "/style.css") for page, base in ((rater, rating_base), (reviewer, review_base))
        ]
        assert [sheet.status for sheet in sheets] == [200, 200]
        assert sheets[0].body() == sheets[1].body() == STYLESHEET.read_bytes()
        assert sheets[0].headers["content-type"].startswith("text/css")

        with open_project(project_dir) as project:
            promote(project, ["1v0", "2v0", "3v0"])
        reviewer.reload()
        assert reviewer.locator("#queue tbody tr").count() == 3
        reviewer.goto(review_base + "/item/1v0")
        reviewer.screenshot(path=str(shots / "review-app-item.png"), full_page=True)
        assert reviewer.evaluate(COMPUTED, LOOK) == rater.evaluate(COMPUTED, LOOK)
        assert "Signed in as alice" in reviewer.inner_text("header")
        browser.close()
