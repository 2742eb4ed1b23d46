"""An imported run says what its source said of how each model was asked, and nothing more: what the source does
not say reads "unknown (imported)", never a default cobe would have sent (issue 44, item 7). Its judge column
names the published verdict set once (item 8)."""

from __future__ import annotations

from pathlib import Path

from support.cli import run_cobe

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "category-examples.json"
UNKNOWN = "unknown (imported)"


def _imported(tmp_path: Path) -> Path:
    r = run_cobe("import", str(SITE), "--from", "cobe-site", "--out", "site", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return tmp_path / "site"


def test_an_imported_models_settings_are_unknown_where_the_source_is_silent(tmp_path: Path) -> None:
    run = _imported(tmp_path)
    for text in ((run / "report.md").read_text(), _report(tmp_path, run)):
        rows = [line for line in text.splitlines() if line.startswith("| respondent |")]
        assert len(rows) == 3, text
        for row in rows:
            cells = [c.strip() for c in row.strip("|").split("|")]
            assert cells[2:5] == [UNKNOWN] * 3, row  # API, token limit, thinking
            assert "local" not in row and "the provider's" not in row and "no thinking mode" not in row


def test_the_published_verdict_sets_name_carries_one_suffix(tmp_path: Path) -> None:
    run = _imported(tmp_path)
    r = run_cobe("report", str(run), "--out", "rep", "--format", "md", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "cobe-site (published)" in r.stdout and "(published) (published)" not in r.stdout
    r = run_cobe("runs", str(run), "--verdict-sets", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "(published) (published)" not in r.stdout


def _report(tmp_path: Path, run: Path) -> str:
    r = run_cobe("report", str(run), "--out", "rep_md", "--format", "md", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return (tmp_path / "rep_md" / "report.md").read_text()
