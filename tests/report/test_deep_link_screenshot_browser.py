"""`report.html#scenario=ID` opened by headless Chromium's own `--screenshot` (no Playwright): the scenario view is
drawn, not a blank page. That mode draws a page scrolled at load as blank, so the linked scenario comes first on
the page and shows without any scroll (issue 44, item 10)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cobe.integrations.site_results import import_site_results
from cobe.report import build_report

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "category-examples.json"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian's Chromium is not installed at {CHROMIUM}"),
]


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # a profile of its own in tmp_path: never the user's, never HOME's
    profile = f"--user-data-dir={tmp_path / 'profile'}"
    return subprocess.run([CHROMIUM, *ARGS, profile, *args], capture_output=True, text=True, timeout=120, check=True)


def test_the_deep_link_renders_in_chromiums_own_screenshot_mode(tmp_path: Path) -> None:
    from PIL import Image  # matplotlib's own dependency

    run = import_site_results(SITE, tmp_path / "site").out
    build_report([run], out=tmp_path / "rep", formats="html", resamples=0)
    url = (tmp_path / "rep" / "report.html").as_uri() + "#scenario=101v2"
    shot = tmp_path / "deep.png"
    _chromium(tmp_path, "--window-size=1200,900", f"--screenshot={shot}", url)
    grey = Image.open(shot).convert("L").histogram()  # pixels per grey level, 0 black … 255 white
    inked = sum(grey[:200]) / sum(grey)
    assert inked > 0.01, f"{inked:.4f} of the screenshot is drawn: a blank page"
    dom = _chromium(tmp_path, "--dump-dom", url).stdout
    # the linked scenario first on the page, its view filled in
    assert dom.index('id="scenarios"') < dom.index("<header>")
    view = dom[dom.index('id="scenario-view"') : dom.index('id="scenario-count"')]
    assert "101v2" in view and "gpt-5.4-pro" in view
