"""`cobe annotate links` and `cobe curate links`: one way to rotate and revoke private links in both apps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from annotate.synthetic import make_row, write_run
from cobe.annotate.app import create_app as rating_app
from cobe.annotate.study import create_study
from cobe.cli.main import main
from cobe.curate import import_file, init_project, promote
from cobe.curate.web import create_app as review_app
from support.curate_project import CORES


def cobe(capsys, *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out = capsys.readouterr()
    return int(exit_info.value.code or 0), out.out, out.err


def path_of(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def test_rating_study_links_rotate_and_revoke(tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "run", [make_row(i, "mock/a") for i in range(3)])
    links = create_study(run, tmp_path / "study", n=3, seed=0, raters=2, base_url="http://testserver")
    app = rating_app(links.path)
    rater = TestClient(app)
    assert rater.get(path_of(links.raters["rater-1"])).status_code == 200

    code, out, _ = cobe(capsys, "annotate", "links", str(links.path), "--revoke", "--who", "rater-1")
    assert code == 0 and "Revoked 1 link(s): rater-1" in out
    assert rater.get("/rate").status_code == 401  # the session ended with the link
    assert TestClient(app).get(path_of(links.raters["rater-1"])).status_code == 403
    code, out, _ = cobe(capsys, "annotate", "links", str(links.path))
    assert re.search(r"rater-1 .*revoked 20\d\d-", out) and re.search(r"rater-2 .*active", out)

    code, out, _ = cobe(capsys, "annotate", "links", str(links.path), "--rotate", "--who", "rater-1")
    new = re.search(r"rater-1: (http://testserver/r/\S+)", out).group(1)
    assert code == 0 and TestClient(app).get(path_of(new)).status_code == 200
    code, _, err = cobe(capsys, "annotate", "links", str(links.path), "--revoke", "--who", "rater-9")
    assert code == 2 and err.startswith("error: no such rater or admin in this study: rater-9")


def test_review_project_links_rotate_and_revoke(tmp_path: Path, capsys) -> None:
    root = tmp_path / "proj"
    with init_project(root) as project:
        import_file(project, CORES)
        promote(project, ["1v0"])
    code, out, _ = cobe(capsys, "curate", "reviewers", str(root), "--add", "alice", "--admin", "boss")
    first = dict(re.findall(r"^(\w+) \(\w+\): (\S+)$", out, re.M))
    app = review_app(root)
    alice = TestClient(app)
    assert alice.get(path_of(first["alice"])).status_code == 200 and alice.get("/").status_code == 200

    code, out, _ = cobe(capsys, "curate", "links", str(root), "--rotate", "--who", "alice", "--base-url", "http://h:1")
    assert code == 0 and re.search(r"^alice \(reviewer\): http://h:1/r/\S{43}$", out, re.M) and "boss" not in out
    assert alice.get("/").status_code == 401 and TestClient(app).get(path_of(first["alice"])).status_code == 403

    code, out, _ = cobe(capsys, "curate", "links", str(root), "--revoke")
    assert code == 0 and "revoked 2 link(s): alice, boss" in out
    code, out, _ = cobe(capsys, "curate", "links", str(root))
    assert re.search(r"^alice \(reviewer\): revoked 20\d\d-", out, re.M) and "boss (admin): revoked" in out
    assert TestClient(app).get(path_of(first["boss"])).status_code == 403

    code, _, err = cobe(capsys, "curate", "links", str(root), "--rotate", "--revoke")
    assert code == 2 and "give --rotate or --revoke, not both" in err
    code, _, err = cobe(capsys, "curate", "links", str(root), "--rotate", "--who", "zed")
    assert code == 2 and err.startswith("error:") and "no one named zed (known: alice, boss)" in err


@pytest.mark.parametrize("app", ["annotate", "curate"])
@pytest.mark.parametrize("port", ["0", "65536", "99999"])
def test_serve_refuses_a_port_out_of_range_in_one_line(tmp_path: Path, capsys, app: str, port: str) -> None:
    if app == "annotate":
        run = write_run(tmp_path / "run", [make_row(0, "mock/a")])
        target = str(create_study(run, tmp_path / "study", n=1, seed=0, raters=1).path)
    else:
        init_project(tmp_path / "proj").close()
        target = str(tmp_path / "proj")
    code, _, err = cobe(capsys, app, "serve", target, "--port", port)
    assert code == 2 and err == f"error: --port {port}: expected a port from 1 to 65535\n"
