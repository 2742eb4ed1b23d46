"""A preflight refusal of any kind stops the run (issue 30, item 9).

A 400 whose body names no setting (`{"error": "something went wrong"}`, a proxy's HTML page, an empty body) used
to pass the preflight as "failed for a reason of its own": `--limit 30` then sent 91 requests, every one refused,
and ended with exit 5. Now the run sends the preflight's requests only and exits 2 with one line holding the
status and the body's first line (scrubbed of secrets); a FastAPI 422's `loc` names the parameter, so its line
names the fix as a 400 naming a setting does. `cobe models check` reports such a probe as refused (exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reliability_helpers import KEY, SPEC, cobe_at

from cobe.core.errors import ModelRefused
from support.cli import assert_one_line_error
from support.openai_server import ThreadedServer
from support.run_data import write_dataset

HTML = "<html>\n<head><title>400 Bad Request</title></head>\n<body>nginx</body>\n</html>\n"
FASTAPI_422 = json.dumps(
    {"detail": [{"type": "float_type", "loc": ["body", "temperature"], "msg": "Input should be a valid number"}]}
)
# the respondent and the judge ask with different settings: two probes, and nothing else may be sent
PROBES = 2


def run(fake: ThreadedServer, tmp_path: Path, *more: str):
    data = write_dataset(tmp_path / "data.jsonl", 10)  # 30 items with templates A, B, C
    args = ("eval", "--model", SPEC, "--judge", SPEC, "--data", str(data), "--run-dir", str(tmp_path / "run"))
    return cobe_at(fake, *args, "--limit", "30", "--max-retries", "1", "--no-report", *more)


@pytest.mark.parametrize(
    ("status", "body", "shown"),
    [
        (400, '{"error": "something went wrong"}', 'refused the preflight call: 400 {"error": "something went wrong"}'),
        (400, HTML, "refused the preflight call: 400 <html>;"),
        (400, "", "refused the preflight call: 400 (empty body);"),
        (
            400,
            f"bad request for key {KEY}\nsecond line",
            "refused the preflight call: 400 bad request for key [redacted];",
        ),
        # a 404 names the model, as it did: its line now shows the body where the server gave no message
        (404, "404 page not found", "refused the model name: 404 404 page not found;"),
    ],
    ids=["json-without-setting", "html", "empty", "echoed-key", "plain-404"],
)
def test_a_refusal_naming_no_setting_stops_the_run_at_the_preflight(
    fake: ThreadedServer, tmp_path: Path, status: int, body: str, shown: str
) -> None:
    fake.control(fail_status=status, fail_body=body)
    result = run(fake, tmp_path)
    assert result.returncode == ModelRefused.exit_code == 2, result.stderr
    assert_one_line_error(result, f"{SPEC} (", shown)
    assert "second line" not in result.stderr and KEY not in result.stderr + result.stdout
    assert fake.stats()["requests"] == PROBES  # the probes, not a single item
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["state"] == "incomplete"


def test_a_fastapi_422_names_the_parameter_its_loc_points_at(fake: ThreadedServer, tmp_path: Path) -> None:
    fake.control(fail_status=422, fail_body=FASTAPI_422)
    result = run(fake, tmp_path)
    assert result.returncode == ModelRefused.exit_code
    assert_one_line_error(
        result, f"{SPEC} (", "refused the parameter 'temperature'", "422", "Input should be a valid number", "fix:"
    )
    assert fake.stats()["requests"] == PROBES


def test_without_the_preflight_an_unnamed_refusal_stays_an_error_of_its_call(fake: ThreadedServer, tmp_path: Path):
    # a 400 of one call's own (a prompt too long, say) must not stop a run: only the preflight's tiny fixed
    # probe proves that every call would be refused
    fake.control(fail_status=400, fail_body='{"error": "something went wrong"}')
    result = run(fake, tmp_path, "--no-preflight", "--concurrency", "1")
    assert result.returncode == 5, result.stderr


def test_models_check_reports_such_a_refusal_as_a_refusal(fake: ThreadedServer, tmp_path: Path) -> None:
    fake.control(fail_status=400, fail_body=HTML)
    checked = cobe_at(fake, "models", "check", SPEC, "--run-dir", str(tmp_path / "check"))
    assert checked.returncode == ModelRefused.exit_code, checked.stdout + checked.stderr
    assert f"refused  {SPEC} (respondent) refused the preflight call: 400 <html>" in checked.stdout.splitlines()
    assert_one_line_error(checked, "checks refused", "400 <html>")
