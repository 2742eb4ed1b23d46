"""The audit form (blind to the criteria), CSRF on it, and one-line CLI errors."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from cobe.curate import audit_summary, create_audit, record_review
from cobe.curate.audit import summary_markdown
from cobe.curate.review import add_reviewer
from cobe.curate.web import create_app
from support.curate_project import add_variation, cobe


def approved_variations(project) -> list[str]:
    """1v1 and 2v1, written from cores 1v0 and 2v0, approved by two reviewers (the cores too)."""
    for name in ("alice", "bob"):
        add_reviewer(project, name)
    ids = [add_variation(project, "1v0"), add_variation(project, "2v0")]
    for item_id in ("1v0", "2v0", *ids):
        record_review(project, item_id, "alice", "approve")
        record_review(project, item_id, "bob", "approve")
    return ids


def expert_client(project, n: int = 5):
    """The audit's expert signed in: (client, expert name, the form page, its CSRF token, the audit)."""
    audit = create_audit(project, n=n, seed=1, experts=1)
    ((name, token),) = audit.tokens.items()
    client = TestClient(create_app(project.root), base_url="http://127.0.0.1")
    landing = client.get(f"/r/{token}")
    assert 'http-equiv="refresh" content="0; url=/audit"' in landing.text and token not in landing.text
    page = client.get("/audit")
    csrf = re.search(r'name="csrf_token" value="([0-9a-f]+)"', page.text).group(1)
    return client, name, page, csrf, audit


def test_expert_rates_the_sample_without_seeing_the_criteria(project) -> None:
    approved_variations(project)
    client, name, page, csrf, audit = expert_client(project)
    assert sorted(audit.item_ids) == ["1v1", "2v1"]  # core examples are never released, so never audited
    assert page.status_code == 200 and "Content-Security-Policy" in page.headers
    scenario = project.item("1v1").scenario
    for criterion in (*scenario.preserve, *scenario.change, scenario.illustrative_answer):
        assert criterion not in page.text  # blind to the criteria
    form = {f"{s}_{i}": "4" for s in ("coherence", "grammar", "validity") for i in audit.item_ids}
    assert client.post("/audit", data=form | {"diversity": "3"}).status_code == 403  # no CSRF token
    done = client.post("/audit", data=form | {"diversity": "3", "feedback": "fine", "csrf_token": csrf})
    assert done.status_code == 200 and "saved" in done.text
    summary = audit_summary(project)
    assert summary["scales"]["grammar"] == {"n": 2, "mean": 4.0, "std": 0.0}
    assert summary["diversity"]["mean"] == 3.0 and summary["feedback"] == {name: "fine"}
    assert summary["unanswered"] == {"coherence": 0, "grammar": 0, "validity": 0}
    assert client.get("/r/not-a-real-token-at-all").status_code == 403


def test_the_form_asks_the_papers_questions_in_our_words_with_nothing_selected(project) -> None:
    approved_variations(project)
    _, _, page, _, _ = expert_client(project)
    text = page.text
    assert "Query validity: is the request a sound what-if for this story?" in text
    assert "counterfactual intervention" not in text  # the paper's wording of the question is not ours
    assert "Coherence:" in text and "Grammar:" in text and "Diversity:" in text
    assert "follow sensibly" not in text
    selects = re.findall(r"<select name=\"([^\"]+)\">(.*?)</select>", text, re.S)
    assert len(selects) == 2 * 3 + 1
    for field, options in selects:
        chosen = re.findall(r'<option value="([^"]*)" selected>', options)
        assert chosen == [""], (field, chosen)  # "not answered" is the only selected option


def test_an_untouched_or_partial_form_saves_missing_answers_never_scores(project) -> None:
    approved_variations(project)
    client, name, page, csrf, audit = expert_client(project)
    blank = {f"{s}_{i}": "" for s in ("coherence", "grammar", "validity") for i in audit.item_ids}
    untouched = client.post("/audit", data=blank | {"diversity": "", "csrf_token": csrf})
    assert untouched.status_code == 200 and "7 of 7 questions are still unanswered" in untouched.text
    summary = audit_summary(project)
    assert summary["scales"]["coherence"] == {"n": 0, "mean": None, "std": None}
    assert summary["diversity"]["n"] == 0 and summary["unanswered"]["grammar"] == 2
    assert project.conn.execute("SELECT COUNT(*) FROM audit_ratings").fetchone()[0] == 0

    partial = blank | {"coherence_1v1": "5", "grammar_1v1": "2"}
    done = client.post("/audit", data=partial | {"diversity": "4", "csrf_token": csrf})
    assert "4 of 7 questions are still unanswered" in done.text
    row = project.conn.execute("SELECT coherence, grammar, validity FROM audit_ratings").fetchone()
    assert tuple(row) == (5, 2, None)  # the unanswered validity is missing, not a 1
    summary = audit_summary(project)
    assert summary["scales"]["validity"]["n"] == 0 and summary["scales"]["coherence"]["mean"] == 5.0
    assert summary["unanswered"] == {"coherence": 1, "grammar": 1, "validity": 2}
    assert "Unanswered (left out of the means): coherence 1, grammar 1, validity 2" in summary_markdown(summary)
    # the form shows what was saved, so saving again keeps it
    again = client.get("/audit").text
    assert '<option value="5" selected>5</option>' in again and '<option value="4" selected>4</option>' in again

    # a value outside 1-5 is refused in one line, and nothing of that submission is stored
    bad = client.post("/audit", data=partial | {"coherence_2v1": "7", "diversity": "1", "csrf_token": csrf})
    assert bad.status_code == 400 and "item 2v1: coherence: expected a whole number from 1 to 5 or nothing" in bad.text
    assert audit_summary(project)["diversity"]["mean"] == 4.0


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
