"""Shared fixtures for the dataset-construction tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.curate_project import CORES


@pytest.fixture
def project(tmp_path: Path):
    """A project with the three core examples imported and promoted."""
    from cobe.curate import import_file, init_project, promote

    proj = init_project(tmp_path / "proj")
    import_file(proj, CORES)
    promote(proj, ["1v0", "2v0", "3v0"])
    yield proj
    proj.close()
