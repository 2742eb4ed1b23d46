"""The audit form (blind to the criteria), CSRF on it, and one-line CLI errors."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from cobe.curate import audit_summary, create_audit, record_review
from cobe.curate.review import add_reviewer
from cobe.curate.web import create_app
from support.curate_project import cobe


def test_expert_rates_the_sample_without_seeing_the_criteria(project) -> None:
    for name in ("alice", "bob"):
        add_reviewer(project, name)
    for item_id in ("1v0", "2v0"):
        record_review(project, item_id, "alice", "approve")
        record_review(project, item_id, "bob", "approve")
    audit = create_audit(project, n=5, seed=1, experts=1)
    assert sorted(audit.item_ids) == ["1v0", "2v0"]
    ((name, token),) = audit.tokens.items()
    client = TestClient(create_app(project.root), base_url="http://127.0.0.1")
    landing = client.get(f"/r/{token}")
    assert 'http-equiv="refresh" content="0; url=/audit"' in landing.text and token not in landing.text
    page = client.get("/audit")
    assert page.status_code == 200 and "Content-Security-Policy" in page.headers
    assert project.item("1v0").scenario.change[0] not in page.text  # blind to the criteria
    csrf = re.search(r'name="csrf_token" value="([0-9a-f]+)"', page.text).group(1)
    form = {f"{s}_{i}": "4" for s in ("coherence", "grammar", "validity") for i in audit.item_ids}
    assert client.post("/audit", data=form | {"diversity": "3"}).status_code == 403  # no CSRF token
    done = client.post("/audit", data=form | {"diversity": "3", "feedback": "fine", "csrf_token": csrf})
    assert done.status_code == 200 and "saved" in done.text
    summary = audit_summary(project)
    assert summary["scales"]["grammar"] == {"n": 2, "mean": 4.0, "std": 0.0}
    assert summary["diversity"]["mean"] == 3.0 and summary["feedback"] == {name: "fine"}
    assert client.get("/r/not-a-real-token-at-all").status_code == 403


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    done = cobe("curate", "import", str(tmp_path / "nope"), "x.json", check=False)
    assert done.returncode == 2 and done.stderr.startswith("error:") and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    cobe("curate", "init", str(tmp_path / "p"))
    bad = tmp_path / "ratings.csv"
    bad.write_text("expert,item_id,coherence\n")
    done = cobe("curate", "audit-import", str(tmp_path / "p"), str(bad), check=False)
    assert "no audit yet" in done.stderr and "Traceback" not in done.stderr
    done = cobe("curate", "review", str(tmp_path / "p"), "1v0", "--reviewer", "zed", "--approve", check=False)
    assert "no reviewer named 'zed'" in done.stderr
