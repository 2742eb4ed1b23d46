"""Reports: tables, figures, Markdown and self-contained HTML, and import of external verdicts."""

from __future__ import annotations

from cobe.report.importer import ImportResult, import_results
from cobe.report.load import RunSet, load_runs
from cobe.report.tables import build_tables
from cobe.report.writer import Report, build_report

__all__ = ["ImportResult", "Report", "RunSet", "build_report", "build_tables", "import_results", "load_runs"]
