"""A repeated option either accumulates or is refused: `--tier 1 --tier 2 --tier 3 --tier 4` is the paper's
Table 7 in one run (on a file shaped like the site's), and a repeat of a one-value option is one usage line,
never the last value silently."""

from __future__ import annotations

import json
from pathlib import Path

import click

from cobe.cli.once import Once
from support.cli import run_cobe
from support.commands import every_command

# the site's result rows: no domain, one query per scenario, query_idx the phrasing's position (2, 5, 7)
QUERIES = [
    (2, "Rewrite the original text, based on what would have happened instead had the {x}."),
    (5, "Based on the preceding text, rewrite the scenario to reflect what would have happened if the {x}."),
    (7, "Rewrite the above passage to illustrate what would have occurred had the {x}."),
]
CHANGES = ["market been cancelled", "ferry been late", "power failed at noon"]


def site_file(path: Path) -> Path:
    """Three site-shaped rows, one query each (phrasings A, B and C)."""
    rows = []
    for i, ((idx, query), change) in enumerate(zip(QUERIES, CHANGES, strict=True), start=1):
        rows.append(
            {
                "example_id": f"{200 + i}v1",
                "coreset_id": 200 + i,
                "variation_id": 1,
                "query_idx": idx,
                "original": f"Trader {i} opened the stall early because buyers came at dawn. The stall sold out by nine.",
                "query": query.format(x=change),
                "gold_answer": f"Had the {change}, the stall would not have sold out.",
                "should_not_change": [f"Trader {i} opened the stall early."],
                "should_change": ["The stall sold out by nine."],
            }
        )
    path.write_text(json.dumps(rows, indent=1))
    return path


def _templates(run_dir: Path) -> set[str]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return {row["template"] for row in rows}


def test_tiers_accumulate_into_one_table_7_run(tmp_path: Path) -> None:
    data = site_file(tmp_path / "site.json")
    tiers = ["--tier", "1", "--tier", "2", "--tier", "3", "--tier", "4"]
    base = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--no-report", "-q"]
    r = run_cobe(*base, *tiers, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_dir = tmp_path / "runs" / "mock_echo__site__tier-1-2-3-4"
    assert _templates(run_dir) == {"A", "B", "C", "D", "E", "F", "G", "H1", "H2"}
    # tiers 2-4 alone: seven templates, not H2's alone
    r = run_cobe(*base, "--tier", "2", "--tier", "3", "--tier", "4", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _templates(tmp_path / "runs" / "mock_echo__site__tier-2-3-4") == {"D", "E", "F", "G", "H1", "H2"}


def test_templates_and_ids_accumulate_too(tmp_path: Path) -> None:
    data = site_file(tmp_path / "site.json")
    (tmp_path / "one.txt").write_text("201v1\n")
    (tmp_path / "two.txt").write_text("202v1\n")
    r = run_cobe(
        *["eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "--no-report", "-q"],
        *["--templates", "D", "--templates", "E,F", "--ids-file", "one.txt", "--ids-file", "two.txt"],
        *["--run-dir", "run"],
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert {row["template"] for row in rows} == {"D", "E", "F"}
    assert {row["scenario_id"] for row in rows} == {"201v1", "202v1"}
    r = run_cobe(*["eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "--no-report", "-q"],
                 *["--ids", "201v1", "--ids", "203v1", "--run-dir", "run2"], cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in (tmp_path / "run2" / "results.jsonl").read_text().splitlines()]
    assert {row["scenario_id"] for row in rows} == {"201v1", "203v1"}


def test_a_one_value_option_given_twice_is_refused_in_one_line(tmp_path: Path) -> None:
    data = site_file(tmp_path / "site.json")
    r = run_cobe("eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "--limit", "1",
                 "--limit", "2", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 2 and not (tmp_path / "runs").exists()
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
    assert errors == ["Error: --limit given 2 times (1, 2): it takes one value; give it once"]
    # the environment's value and one flag are not a repeat: the flag wins, as everywhere
    r = run_cobe(*["eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "--limit", "1"],
                 *["--no-report", "-q", "--run-dir", "r"], env={"COBE_LIMIT": "2"}, cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr


def _options() -> list[tuple[str, click.Option]]:
    return [(path, p) for path, command in every_command() for p in command.params if isinstance(p, click.Option)]


def test_every_option_that_says_add_or_repeat_accumulates_and_shared_ones_refuse_a_repeat() -> None:
    for path, param in _options():
        words = (param.help or "").lower()
        if "repeat" in words.replace("repeating a command", "") or " add" in f" {words}".replace("how to add", ""):
            assert param.multiple, f"cobe {path} {param.opts[0]}: its help says it adds up; repeats must accumulate"
    shared = {param.opts[0]: param for _, param in _options() if param.opts[0] in ("--data", "--limit", "--seed")}
    assert all(isinstance(param, Once) for param in shared.values())
