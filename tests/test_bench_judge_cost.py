"""benchmarks/bench_judge_cost.py runs end to end on a small sample and prints its three ratios with their arithmetic."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_judge_cost.py"


def test_the_bench_prints_list_batch_and_batch_plus_cache_as_ratios_to_list(capsys, monkeypatch):
    for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"):  # the bench points these at its fake: restored after
        monkeypatch.setenv(name, "unset")
    spec = importlib.util.spec_from_file_location("bench_judge_cost", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)  # its dataclasses look their module up there
    spec.loader.exec_module(bench)
    bench.main(["--limit", "2"])
    out = capsys.readouterr().out
    ratios = dict(re.findall(r"^(list|batch|batch \+ cache) +\$ *[\d,.]+ = .* ratio (\d\.\d{3})$", out, flags=re.M))
    assert ratios.keys() == {"list", "batch", "batch + cache"} and ratios["list"] == "1.000"
    assert ratios["batch"] == "0.500" and float(ratios["batch + cache"]) <= float(ratios["batch"])
    assert "162,000 judge calls" in out and "18 judge calls per run" in out  # 2 scenarios x 3 phrasings x 3 checks
    assert re.search(r"^target batch \+ cache <= 0\.35 of list: (met|NOT met)$", out, flags=re.M)
    cacheable = re.search(r"were the heads cacheable .* ratio (\d\.\d{3})$", out, flags=re.M)
    assert cacheable and float(cacheable.group(1)) < 0.35  # what caching saves once a head can be cached
