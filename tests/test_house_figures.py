"""scripts/house_figures.py counts right, no function in src/ passes 80 lines, and tests/ mirrors the packages."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "house_figures.py"
spec = importlib.util.spec_from_file_location("house_figures", SCRIPT)
assert spec and spec.loader
house = importlib.util.module_from_spec(spec)
sys.modules["house_figures"] = house  # NamedTuple resolves its annotations through the module
spec.loader.exec_module(house)

SOURCE = '''"""A module."""


@decorated
def three():
    x = 1
    return x


class Holder:
    async def outer(self):
        def inner():
            return 1

        return inner()
'''


def test_lines_per_package_are_every_line_of_its_files(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "a.py").write_text("x = 1\n\n# why\n")
    (tmp_path / "run" / "b.py").write_text("y = 2\n")
    (tmp_path / "__init__.py").write_text('"""top"""\n')
    (tmp_path / "run" / "notes.txt").write_text("not python\n" * 9)
    assert house.package_lines(tmp_path) == {"(top)": 1, "run": 4}


def test_a_function_runs_from_its_def_to_its_last_line_nested_ones_counted_on_their_own(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    lengths = {function.where.rsplit(":", 1)[1]: function.lines for function in house.functions(tmp_path)}
    assert lengths == {"three": 3, "outer": 5, "inner": 2}


def test_no_function_in_src_is_over_the_limit():
    over = [function for function in house.functions() if function.lines > house.MAX_FUNCTION_LINES]
    assert not over, f"split these (over {house.MAX_FUNCTION_LINES} lines): {over}"


def test_the_script_prints_every_figure():
    result = subprocess.run([sys.executable, str(SCRIPT), "--top", "2"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("lines per package: ") and " · run " in lines[0]
    assert lines[2].startswith("functions: ") and "over 80: 0" in lines[2]
    assert len(lines) == 5  # two functions listed


def test_every_package_has_its_folder_of_tests():
    tests = Path(__file__).resolve().parent
    packages = {init.parent.name for init in house.SRC.glob("*/__init__.py")}
    assert packages and not {name for name in packages if not (tests / name).is_dir()}
