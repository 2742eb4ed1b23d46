"""`cobe curate list [--status S]`: every item with its id and stage, so candidates can be promoted by id."""

from __future__ import annotations

import json
from pathlib import Path

from support.curate_project import CORES, cobe


def test_list_shows_ids_and_stages_and_filters_by_status(tmp_path: Path) -> None:
    proj = str(tmp_path / "proj")
    cobe("curate", "init", proj)
    cobe("curate", "import", proj, str(CORES))
    listed = cobe("curate", "list", proj).stdout
    assert "3 item(s) in" in listed and "origin" in listed
    lines = [line for line in listed.splitlines() if "v0" in line]
    assert [line.split()[1] for line in lines] == ["1v0", "2v0", "3v0"]
    assert all("candidate" in line and "import:cores.jsonl" in line for line in lines)

    # the ids it shows are the ones promote takes
    cobe("curate", "promote", proj, "2v0")
    candidates = json.loads(cobe("curate", "list", proj, "--status", "candidate", "--json").stdout)["items"]
    assert [(item["id"], item["status"]) for item in candidates] == [("1v0", "candidate"), ("3v0", "candidate")]
    both = json.loads(cobe("curate", "list", proj, "--status", "core", "--status", "rejected", "--json").stdout)[
        "items"
    ]
    assert [item["id"] for item in both] == ["2v0"] and both[0]["story"].startswith("The striker")
    assert cobe("curate", "list", proj, "--status", "released").stdout == f"no released items in {proj}\n"

    refused = cobe("curate", "list", proj, "--status", "done", check=False)
    assert refused.returncode == 2 and "'done' is not one of 'candidate', 'core'" in refused.stderr
