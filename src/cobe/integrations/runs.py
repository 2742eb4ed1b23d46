"""Responses produced by another harness as a cobe run directory: the writer lives in `cobe.run.imported`."""

from __future__ import annotations

from cobe.run.imported import ExternalResponse, ImportedRun, check_new_dir, write_response_run

__all__ = ["ExternalResponse", "ImportedRun", "check_new_dir", "write_response_run"]
