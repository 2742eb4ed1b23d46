"""Real runs for the tests of report.html's response cards: one made by `evaluate` with a scripted judge whose
raw reply to the change check carries markup, and the site's published file imported (one verdict per response)."""

from __future__ import annotations

import json
from pathlib import Path

from cobe.integrations.site_results import import_site_results
from cobe.run import EvalConfig, evaluate
from support.run_data import scenario, write_dataset

#: markup a judge's raw reply may carry: it must reach the page as text
ATTACK = '<script>window.__xss = 1</script><img src=x onerror="window.__xss=2">'
#: the judge's whole reply to every change check: a verdict line, then an explanation holding the markup
CHANGE_REPLY = "F\nThe shelves were still empty. " + ATTACK
SITE_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "category-examples.json"


def scripted_run(tmp_path: Path, scenarios: int = 3) -> Path:
    """A run of `mock/echo` judged by a scripted judge (T to connectors and preserve, CHANGE_REPLY to change),
    asked with logprobs, so each check has a P(T); its store keeps the dataset's illustrative answers."""
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "config.yaml").write_text("name: card-tf\nmax_tokens: 50\n")
    (prompts / "connectors.txt").write_text("CHECK=connectors RESPONSE={response}\n")
    (prompts / "preserve.txt").write_text("CHECK=preserve RESPONSE={response}\nCRITERION={criterion}\n")
    (prompts / "change.txt").write_text("CHECK=change RESPONSE={response}\nCRITERION={criterion}\n")
    script = tmp_path / "judge.json"
    script.write_text(json.dumps({"CHECK=change": CHANGE_REPLY, "default": "T"}))
    data = write_dataset(tmp_path / "data.jsonl", scenarios)
    config = EvalConfig(
        data=str(data),
        models=["mock/echo"],
        judge=f"mock/file:{script}",
        judge_prompts=str(prompts),
        run_dir=tmp_path / "run",
    )
    return evaluate(config).run_dir


def illustrative(index: int) -> str:
    """The illustrative answer of scenario `<index>v0` of `scripted_run`'s dataset."""
    return str(scenario(index)["illustrative_answer"])


def site_run(tmp_path: Path) -> Path:
    """The site's category-examples.json (our fixture of its shape) imported: three models, one published
    verdict per response (`cobe-site (published)`), three of them unknown."""
    return import_site_results(SITE_FILE, tmp_path / "site").out
