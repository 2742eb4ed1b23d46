from cobe.report.load import RunSet as RunSet
from cobe.report.load import load_runs as load_runs
from cobe.report.tables import build_tables as build_tables
from cobe.report.writer import Report as Report
from cobe.report.writer import build_report as build_report
