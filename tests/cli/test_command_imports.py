"""What loading a command costs: `cobe eval` pulls in neither the curation package, pyplot nor SciPy."""

from __future__ import annotations

import subprocess
import sys

# modules a run never needs: each cost every `cobe eval` a fixed share of a second (issue 28, item 7)
UNNEEDED = ("cobe.curate", "matplotlib.pyplot", "cobe.integrations.verdict_files", "scipy", "statsmodels")


def test_eval_and_its_report_load_no_curation_and_no_pyplot(tmp_path):
    code = (
        "import sys, cobe.cli.main, cobe.cli.evaluate, cobe.report.writer, cobe.report.figures;"
        f"print([m for m in {UNNEEDED!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.strip() == "[]"


def test_plan_from_a_pilot_loads_no_scipy_and_no_judge(tmp_path):
    """`cobe plan RUN` answers in under 2 s: SciPy's import (a third to a whole second) and the judge package
    (a fifth) were most of it, and the plan needs neither (issue 29, item 10)."""
    code = (
        "import sys, cobe.cli.main, cobe.cli.study, cobe.score.study_size, cobe.score.pilot, cobe.report.load, "
        "cobe.annotate.labels; print([m for m in ('scipy', 'cobe.judge', 'cobe.curate') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.strip() == "[]"
