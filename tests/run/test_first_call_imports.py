"""What a run imports before its first call: the engine and the plan, not the exports' pandas or the
self-test's probes, which a run needs only at its end or with --judge-check (issue 42)."""

from __future__ import annotations

import subprocess
import sys

# imported when the run ends (exports, summaries) or only for --judge-check / judging pairs outside a run
LATER = ("pandas", "numpy", "cobe.run.export", "cobe.judge.panel_analysis", "cobe.judge.selftest", "rapidfuzz")


def test_the_engine_and_the_plan_import_nothing_a_first_call_does_not_need() -> None:
    code = (
        "import sys, cobe.run.engine, cobe.run.plan, cobe.run.verdict_sets; "
        f"print(','.join(name for name in {LATER!r} if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""
