"""report.html's response cards in Chromium: the illustrative answer and each check's P(T) and raw reply (folded,
shown as text whatever markup it holds); a site import's cards show its one published verdict, and the page says
once that it has no per-check verdicts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cobe.report import build_report
from support.card_runs import CHANGE_REPLY, illustrative, scripted_run, site_run

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian's Chromium is not installed at {CHROMIUM}"),
]


def test_a_card_shows_the_illustrative_answer_and_each_checks_p_true_and_raw_reply_as_text(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    run = scripted_run(tmp_path)
    build_report([run], formats="html", resamples=20)
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto((run / "report.html").as_uri())
        page.wait_for_selector("#rows article")
        page.fill("[data-filter='search']", "2v0")
        card = page.locator("#rows article").first
        assert card.locator("header strong").inner_text() == "2v0"

        answer = card.locator("details.illustrative")
        assert answer.count() == 1 and "illustrative answer" in answer.locator("summary").inner_text()
        assert not answer.locator("pre").is_visible()  # folded until asked for
        answer.locator("summary").click()
        assert answer.locator("pre").inner_text() == illustrative(2)

        checks = {box.get_attribute("data-check"): box for box in card.locator(".verdict[data-check]").all()}
        assert set(checks) == {"connectors", "preserve", "change"}
        assert checks["preserve"].locator(".p-true").inner_text().strip() == "P(T) = 1.00"
        assert checks["change"].locator(".p-true").inner_text().strip() == "P(T) = 0.00"
        reply = checks["change"].locator("details.raw")
        assert f"({len(CHANGE_REPLY)} characters)" in reply.locator("summary").inner_text()
        assert not reply.locator("pre").is_visible()
        reply.locator("summary").click()
        assert reply.locator("pre").is_visible()
        assert reply.locator("pre").inner_text() == CHANGE_REPLY  # the markup, as text
        assert checks["connectors"].locator("details.raw summary").inner_text() == "judge's reply (1 character)"
        assert page.locator("#rows article script, #rows article img").count() == 0
        assert page.evaluate("window.__xss") is None
        browser.close()
    assert errors == []


def test_a_site_import_card_shows_the_published_verdict_and_the_page_says_once_there_are_none_per_check(
    tmp_path: Path,
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    report = build_report([site_run(tmp_path)], out=tmp_path / "rep", formats="html", resamples=20)
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto((report.out / "report.html").as_uri())
        page.wait_for_selector("#rows article")
        assert page.locator("img.figure[data-figure='checks']").count() == 0
        note = page.locator(".no-checks-note")
        assert note.count() == 1 and note.is_visible()
        assert "No per-check verdicts for" in note.inner_text() and "cobe-site (published)" in note.inner_text()

        cards = page.locator("#rows article")
        assert page.locator("#rows article .verdict[data-check]").count() == 0
        assert page.locator("#rows article .verdict.overall").count() == cards.count() > 0
        page.select_option("[data-filter='status']", "failed")
        failed = page.locator("#rows article").first.locator(".verdict.overall")
        assert "verdict of cobe-site (published): F" in failed.inner_text()
        assert "unscored" not in failed.inner_text()
        page.select_option("[data-filter='status']", "unscored")
        assert page.locator("#rows article").count() == 3
        unknown = page.locator("#rows article").first.locator(".verdict.overall").inner_text()
        assert "unscored" in unknown and unknown.count("the site's verdict is unknown") == 1
        # the site's gold answer is each card's illustrative answer
        assert page.locator("#rows article details.illustrative").count() == 3
        browser.close()
    assert errors == []
