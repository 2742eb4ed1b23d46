"""The HTML report: self-contained, with every piece of data escaped."""

from __future__ import annotations

import json
import re
from importlib.resources import files

from cobe.report import build_report
from cobe.report.html import breakable, script_json, word_diff
from support.results import make_rows, write_run

ATTACK = "<script>window.__xss = 1</script></script><!--<script>"


def test_word_diff_marks_insertions_and_deletions():
    runs = word_diff("Maya took the bus to work.", "Maya took the early train to work.")
    assert ["-", "bus "] in runs and ["+", "early train "] in runs
    assert "".join(t for op, t in runs if op != "-") == "Maya took the early train to work."
    assert "".join(t for op, t in runs if op != "+") == "Maya took the bus to work."


def test_script_json_cannot_end_or_hijack_its_script_block():
    text = script_json({"x": ATTACK, "y": "a & b > c"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"x": ATTACK, "y": "a & b > c"}


def test_report_html_is_self_contained_and_escapes_untrusted_text(tmp_path):
    rows = make_rows("evil<b>model</b>", 6, 0.5)
    rows[0]["response"] = ATTACK
    rows[1]["story"] = ATTACK
    rows[2]["judge_raw"] = {"preserve": ATTACK}
    rows[3]["domain"] = "<img src=x onerror=alert(1)>"
    run = write_run(tmp_path / "r", rows)
    build_report([run], formats="html", resamples=20)
    html = (run / "report.html").read_text()
    assert "window.__xss" in html  # the text is there …
    assert "<script>window.__xss" not in html and "<img src=x" not in html  # … but never as markup
    # (a model name may break after its slashes: <wbr> is the one tag a label gains)
    assert "evil<b>" not in html and "evil&lt;b&gt;model&lt;/b&gt;" in html.replace("<wbr>", "")
    assert html.count("<script") == 2  # the data block and the browser code, nothing else
    # no network: nothing is fetched from anywhere
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert 'src="data:image/svg+xml;base64,' in html


def test_a_label_breaks_after_its_slashes_hyphens_and_underscores_and_stays_escaped():
    assert str(breakable("openai-api/local2/my_model")) == "openai-<wbr>api/<wbr>local2/<wbr>my_<wbr>model"
    assert str(breakable("<b>x</b>")) == "&lt;b&gt;x&lt;/<wbr>b&gt;"
    assert str(breakable("plain")) == "plain"


def test_the_streamed_response_data_is_the_payload_a_reader_parses(tmp_path):
    # report.html's data is written a row at a time; the page must still hold exactly the browser payload,
    # even where a story holds the marker the page is rendered around
    from cobe.report.html import browser_payload
    from cobe.report.load import load_runs

    rows = make_rows("mock/model", 9, 0.5, unscored_rate=0.2, error_rate=0.1)
    rows[0]["story"] = "<!--cobe:report-data--> " + rows[0]["story"]
    rows[4]["response"] = rows[3]["response"] = "The same answer twice."  # a repeated diff comes from the cache
    run = write_run(tmp_path / "r", rows)
    build_report([run], formats="html", resamples=0)
    html = (run / "report.html").read_text()
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert found is not None and html.count('id="report-data"') == 1
    frame = load_runs([run]).frame
    expected = browser_payload(frame, list(dict.fromkeys(frame["label"])))
    assert json.loads(found.group(1)) == json.loads(json.dumps(expected))
    assert len(expected["rows"]) == len(rows)


def test_payload_rows_name_their_epoch_only_where_the_run_has_several(tmp_path):
    # --epochs K: a phrasing's K answers were separate rows no card or scenario view told apart
    from cobe.report.html import browser_payload
    from cobe.report.load import load_runs

    once = make_rows("mock/model", 3, 0.5)
    twice = [row | {"epoch": epoch} for row in once for epoch in (1, 2)]
    payloads = {}
    for name, rows in (("once", once), ("twice", twice)):
        frame = load_runs([write_run(tmp_path / name, rows)]).frame
        payloads[name] = browser_payload(frame, list(dict.fromkeys(frame["label"])))
    assert all("ep" not in row for row in payloads["once"]["rows"])  # one epoch: the payload stays as small
    named = [(row["s"], row["t"], row["ep"]) for row in payloads["twice"]["rows"]]
    assert sorted(named) == sorted((r["scenario_id"], r["template"], r["epoch"]) for r in twice)
    assert len(set(named)) == len(twice)
    for script in ("report.js", "scenarios.js"):  # both views label such a row by its epoch
        source = (files("cobe.report") / "templates" / script).read_text(encoding="utf-8")
        assert '"epoch " + row.ep' in source, script
