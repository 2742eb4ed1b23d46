"""`.ci/run` runs the README's test command as a fresh machine would: an empty HOME, TMPDIR and XDG folders
of its own, with only the llama-cpp-python wheel cache kept."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# stands in for `make`: says what environment `make test` would get, and whether its HOME and TMPDIR are empty
FAKE_MAKE = """#!/usr/bin/env python3
import json, os, sys
names = ("HOME", "TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "COBE_WHEEL_CACHE")
seen = {name: os.environ.get(name) for name in names}
seen["args"] = sys.argv[1:]
seen["home_entries"] = sorted(p for p in os.listdir(os.environ["HOME"]) if p != ".cache" and p != ".config"
                              and p != ".local")
seen["tmp_entries"] = os.listdir(os.environ["TMPDIR"])
print("MAKE " + json.dumps(seen))
"""


def test_ci_gives_make_test_an_empty_home_and_tmpdir_and_keeps_only_the_wheel_cache(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    make = bin_dir / "make"
    make.write_text(FAKE_MAKE)
    make.chmod(0o755)
    real_home = tmp_path / "user-home"
    (real_home / ".cache" / "cobe" / "wheels").mkdir(parents=True)
    (real_home / ".cache" / "cobe" / "judge-check").mkdir(parents=True)  # a leftover CI must not see
    outer_tmp = tmp_path / "tmp"
    outer_tmp.mkdir()
    (outer_tmp / "ray").mkdir()  # what an earlier Ray run left in the machine's temp folder
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and k != "COBE_WHEEL_CACHE"}
    env |= {"HOME": str(real_home), "TMPDIR": str(outer_tmp), "PATH": f"{bin_dir}:{os.environ['PATH']}", "CI": "true"}
    result = subprocess.run(["bash", str(ROOT / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stdout.splitlines() if line.startswith("CI as a fresh machine")]
    assert len(said) == 1 and "COBE_WHEEL_CACHE=" in said[0]
    seen = json.loads(next(line for line in result.stdout.splitlines() if line.startswith("MAKE "))[5:])
    assert seen["args"] == ["test"]
    home, tmp = Path(seen["HOME"]), Path(seen["TMPDIR"])
    assert home != real_home and not home.is_relative_to(real_home)
    assert seen["home_entries"] == [] and seen["tmp_entries"] == []  # nothing an earlier run left
    assert tmp != outer_tmp and tmp.is_relative_to(outer_tmp)
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        assert Path(seen[name]).is_relative_to(home)
    assert seen["COBE_WHEEL_CACHE"] == str(real_home / ".cache" / "cobe" / "wheels")
    assert not home.exists()  # removed when CI ends
