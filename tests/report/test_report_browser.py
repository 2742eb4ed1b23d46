"""report.html in a real browser: it loads cleanly, filters, and shows injected markup as text."""

from __future__ import annotations

import os

import pytest

from cobe.report import build_report
from support.results import make_rows, write_run

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ATTACK = '<script>window.__xss = 1</script><img src=x onerror="window.__xss=2">'

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian's Chromium is not installed at {CHROMIUM}"),
]


@pytest.fixture
def report_html(tmp_path):
    rows = make_rows("mock/weak", 40, 0.3, run_id="w") + make_rows("mock/strong", 40, 0.8, run_id="s")
    rows[0]["response"] = ATTACK
    rows[0]["judge_raw"] = {"preserve": ATTACK}
    run = write_run(tmp_path / "run", rows)
    build_report([run], formats="html", resamples=100)
    return run / "report.html"


def test_report_in_headless_chromium(report_html, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(report_html.as_uri())
        page.wait_for_selector("#rows article")
        page.screenshot(path=str(tmp_path / "report.png"), full_page=False)
        assert (tmp_path / "report.png").stat().st_size > 0

        leaderboard = page.locator("#leaderboard table").first
        assert leaderboard.locator("tbody tr").count() == 2
        assert leaderboard.locator("tbody tr").first.locator("td.label").inner_text() == "mock/strong"

        figure = page.locator("img.figure[data-figure='phrasing']")
        assert figure.count() == 1
        assert page.evaluate("(img) => img.complete && img.naturalWidth > 0", figure.element_handle())

        count = page.locator("#count")
        assert "of 240 rows" in count.inner_text()
        page.select_option("[data-filter='model']", label="mock/weak")
        page.select_option("[data-filter='status']", "passed")
        narrowed = count.inner_text()
        assert "of 240 rows" not in narrowed and "(240 in all)" in narrowed
        statuses = page.locator("#rows article").evaluate_all("(cards) => cards.map(c => c.dataset.status)")
        assert statuses and set(statuses) == {"passed"}

        page.select_option("[data-filter='status']", "")
        page.fill("[data-filter='search']", "100v1")
        first = page.locator("#rows article").first
        assert ATTACK in first.locator(".response").inner_text()
        assert ATTACK in first.locator(".verdict pre").first.text_content()  # the judge's reply, folded
        assert first.locator(".response script, .response img, .verdict script, .verdict img").count() == 0
        assert page.evaluate("window.__xss") is None
        browser.close()
    assert errors == []


def test_report_names_each_runs_judge_and_prompt_set_in_chromium(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    runs = []
    for name, judge, prompts in (("a", "mock/judge-pass", "paper"), ("b", "openai/gpt-5.4", "contextual")):
        rows = make_rows(f"mock/{name}", 12, 0.5, run_id=name)
        for row in rows:
            row["judge"], row["judge_prompts"] = judge, prompts
        runs.append(write_run(tmp_path / name, rows))
    report = build_report(runs, out=tmp_path / "report", formats="html", resamples=50, across_judges=True)
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto((report.out / "report.html").as_uri())
        listed = page.locator("#runs tbody tr")
        assert listed.count() == 2
        cells = [[c.strip() for c in row.split("\t")] for row in listed.all_inner_texts()]
        assert [(c[0], c[2], c[3]) for c in cells] == [
            ("a", "mock/judge-pass", "paper"),
            ("b", "openai/gpt-5.4", "contextual"),
        ]
        board = page.locator("#leaderboard table").first.locator("tbody tr")
        judged = {
            board.nth(i).locator("td.label").inner_text(): (
                board.nth(i).locator("td.judge code").inner_text(),
                board.nth(i).locator("td.judge .judge-prompts").inner_text().strip("()"),
            )
            for i in range(board.count())
        }
        assert judged == {"mock/a": ("mock/judge-pass", "paper"), "mock/b": ("openai/gpt-5.4", "contextual")}
        note = page.locator("#leaderboard .judge-note").first
        assert note.is_visible() and "judged differently" in note.inner_text()
        browser.close()
    assert errors == []


def test_the_leaderboard_shows_rank_ranges_and_how_they_were_decided_in_chromium(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    rates = {f"mock/m{i}": (0.8, 0.2)[i // 2] - 0.01 * (i % 2) for i in range(4)}
    run = write_run(tmp_path / "run", [row for m, rate in rates.items() for row in make_rows(m, 45, rate)])
    build_report([run], formats="html", resamples=200)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((run / "report.html").as_uri())
        board = page.locator("#leaderboard table").first
        assert board.locator("thead th").first.inner_text() == "rank"
        ranges = board.locator("td.rank-range").all_inner_texts()
        assert ranges[:2] == ["1–2", "1–2"] and ranges[2:] == ["3–4", "3–4"]
        note = page.locator("#leaderboard .rank-note")
        assert note.is_visible() and "200 bootstrap resamples of core examples" in note.inner_text()
        assert "not told apart" in note.inner_text()
        browser.close()
