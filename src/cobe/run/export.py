"""Exports of a run directory, derivable from the store at any time: results.jsonl, summary.json, report.md."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cobe.core.files import atomic_open, atomic_write
from cobe.core.results import ResultRow
from cobe.dataset.schema import Scenario
from cobe.judge.checks import CHECKS, row_status
from cobe.prompts.render import respondent_messages, story_to_judge
from cobe.prompts.templates import Template
from cobe.run.plan import Item, JudgeRef
from cobe.run.store import Store
from cobe.score.accuracy import accuracy, by_phrasing, check_failure_rates, rows_frame
from cobe.score.selftest import judge_check_markdown


def _query(scenario: Scenario, template: Template, prompt: str) -> str:
    """The request as the respondent read it: the dataset's query, or the template's words after the story."""
    if template.tier == 1:
        return scenario.queries[template.phrasing] if template.phrasing < len(scenario.queries) else ""
    # from the chat request, not the prompt sent: a base model's completion prompt wraps it in an example
    chat = respondent_messages(scenario, template)
    request = chat[-1].content if chat else prompt
    return request[len(scenario.story) :].strip() if request.startswith(scenario.story) else request


def build_rows(store: Store, run_id: str, items: list[Item], judge: JudgeRef | None) -> list[ResultRow]:
    """One ResultRow per item, with the given judge's verdicts (pending where not yet done)."""
    return list(iter_rows(store, run_id, items, judge))


def iter_rows(store: Store, run_id: str, items: list[Item], judge: JudgeRef | None) -> Iterator[ResultRow]:
    """The rows of `build_rows`, one at a time, so a large run is never held whole in memory."""
    responses = store.responses(run_id)
    verdicts = store.verdicts(run_id, judge.spec, judge.fingerprint) if judge else {}
    for item in items:
        s, t = item.scenario, item.template
        response_row = responses.get(item.response_key)
        row: dict[str, Any] = {
            "run_id": run_id,
            "model": item.model,
            "judge": judge.spec if judge else None,
            "judge_prompts": judge.prompt_set if judge else None,
            "scenario_id": s.id,
            "core_id": s.core_id,
            "variation": s.variation,
            "domain": s.domain,
            "graph_type": s.graph_type.value if s.graph_type else None,
            "failure_modes": [m.value for m in s.failure_modes],
            "tags": list(s.tags),
            "template": t.name,
            "tier": t.tier,
            "phrasing": t.phrasing,
            "story": s.story,
            "query": _query(s, t, item.prompt),
            # the prompt as sent and stored (a re-judge plans chat prompts; the store knows the real one)
            "prompt": response_row["prompt"] if response_row is not None and response_row["prompt"] else item.prompt,
            "preserve": list(s.preserve),
            "change": list(s.change),
        }
        if response_row is None:
            yield ResultRow(**row, status="pending")
            continue
        row["response"], row["response_error"] = response_row["text"], response_row["error"]
        if t.final_marker and response_row["text"] is not None:
            row["judged_response"] = story_to_judge(t, response_row["text"])
        got = {c: verdicts.get((response_row["id"], c)) for c in CHECKS}
        row["verdicts"] = {c: (v["verdict"] if v else None) for c, v in got.items()}
        row["judge_raw"] = {c: v["raw"] for c, v in got.items() if v}
        row["p_true"] = {c: v["p_true"] for c, v in got.items() if v}
        row["unscored"] = {c: v["unscored_reason"] for c, v in got.items() if v and v["unscored_reason"]}
        if response_row["error"] is None and (judge is None or any(v is None for v in got.values())):
            yield ResultRow(**row, status="pending")  # generated, judging not finished
            continue
        status, passed = row_status(row["verdicts"], response_row["error"])
        yield ResultRow(**row, status=status, passed=passed)


def _num(value: Any) -> Any:
    """NaN → None and numpy scalars → Python, so summary.json is plain JSON."""
    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _role_usage(store: Store, run_id: str, judge: JudgeRef | None) -> dict[str, dict[str, dict[str, Any]]]:
    usage: dict[str, dict[str, dict[str, Any]]] = {}
    q = "SELECT model, sum(input_tokens), sum(output_tokens), sum(cost_usd) FROM responses WHERE run_id = ? GROUP BY model"
    for model, i, o, c in store.db.execute(q, (run_id,)):
        usage.setdefault(model, {})["respondent"] = {"input_tokens": i, "output_tokens": o, "cost_usd": c}
    if judge:
        q = (
            "SELECT r.model, sum(v.input_tokens), sum(v.output_tokens), sum(v.cost_usd) FROM verdicts v"
            " JOIN responses r ON r.id = v.response_id WHERE v.run_id = ? AND v.judge = ? AND v.prompt_fingerprint = ?"
            " GROUP BY r.model"
        )
        for model, i, o, c in store.db.execute(q, (run_id, judge.spec, judge.fingerprint)):
            usage.setdefault(model, {})["judge"] = {"input_tokens": i, "output_tokens": o, "cost_usd": c}
    return usage


def build_summary(
    store: Store, run_id: str, rows: list[dict[str, Any]], judge: JudgeRef | None, extra: dict[str, Any]
) -> dict[str, Any]:
    """summary.json from slim row dicts (model, template, status, verdicts): accuracy ± std, per template, checks, usage."""
    df = rows_frame(rows)
    models: dict[str, dict[str, Any]] = {}
    usage = _role_usage(store, run_id, judge)
    if not df.empty:
        for rec in accuracy(df).to_dict("records"):
            models[rec["model"]] = {str(k): _num(v) for k, v in rec.items() if k != "model"}
        for rec in by_phrasing(df).to_dict("records"):
            models[rec["model"]].setdefault("per_template", {})[rec["template"]] = {
                k: _num(rec[k]) for k in ("accuracy", "n", "scored", "passes", "unscored", "errors")
            }
        for rec in check_failure_rates(df).to_dict("records"):
            models[rec["model"]].setdefault("check_failure_rates", {})[rec["check"]] = {
                k: _num(rec[k]) for k in ("failure_rate", "failed", "judged", "unscored")
            }
        pending = df.groupby("model")["status"].apply(lambda s: int((s == "pending").sum())).to_dict()
        for model, entry in models.items():
            entry["pending"] = pending.get(model, 0)
            entry["usage"] = usage.get(model, {})
    return {
        "run_id": run_id,
        "judge": judge.spec if judge else None,
        "judge_prompts": judge.prompt_set if judge else None,
        "judge_fingerprint": judge.fingerprint if judge else None,
        "models": models,
        **extra,
    }


def _fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def build_report(summary: dict[str, Any], notices: list[str]) -> str:
    """A short Markdown report: leaderboard, counts, notices."""
    lines = [f"# CoBe run {summary['run_id']}", ""]
    lines += [f"> **Note:** {n}" for n in notices]
    if notices:
        lines.append("")
    lines.append(
        f"Judge: `{summary.get('judge') or 'none yet'}` (prompts: {summary.get('judge_prompts') or '–'}); "
        f"state: {summary.get('state', '?')}."
    )
    templates = sorted({t for m in summary["models"].values() for t in m.get("per_template", {})})
    lines += [
        "",
        "| model | accuracy % | ± std | " + " | ".join(templates) + " | n | scored | unscored | errors | pending |",
        "|---|---:|---:|" + "---:|" * len(templates) + "---:|---:|---:|---:|---:|",
    ]
    ranked = sorted(summary["models"].items(), key=lambda kv: -(kv[1].get("accuracy") or -1))
    for model, m in ranked:
        per = [_fmt(m.get("per_template", {}).get(t, {}).get("accuracy")) for t in templates]
        lines.append(
            f"| `{model}` | {_fmt(m.get('accuracy'))} | {_fmt(m.get('std'))} | "
            + " | ".join(per)
            + f" | {m.get('n', 0)} | {m.get('scored', 0)} | {m.get('unscored', 0)} | {m.get('errors', 0)} | {m.get('pending', 0)} |"
        )
    cmd = summary.get("command", {})
    if cmd:
        lines += ["", f"Last command `{cmd.get('name')}`: {cmd.get('wall_s', 0):.1f} s."]
        for role in ("respondent", "judge"):
            s = cmd.get("calls", {}).get(role)
            if s:
                lines.append(
                    f"- {role}: {s['calls_made']} calls made, {s['calls_cached']} from the store, "
                    f"{s['errors']} failed, {s['input_tokens']}+{s['output_tokens']} tokens, ${s['cost_usd']:.4f}"
                )
    lines += [
        "",
        "Accuracy = mean over phrasings of passes / scored; ± = sample std across phrasings. "
        "Unscored verdicts are left out of the denominator and counted.",
    ]
    if summary.get("judge_check"):
        lines += ["", "## Judge self-test", "", *judge_check_markdown(summary["judge_check"])]
    return "\n".join(lines) + "\n"


def write_exports(
    run_dir: Path,
    store: Store,
    run_id: str,
    items: list[Item],
    judge: JudgeRef | None,
    extra: dict[str, Any],
    notices: list[str],
) -> dict[str, Any]:
    """Rewrite results.jsonl, summary.json and report.md from the store; returns the summary."""
    slim = []
    with atomic_open(run_dir / "results.jsonl") as handle:
        for row in iter_rows(store, run_id, items, judge):
            handle.write(row.model_dump_json())
            handle.write("\n")
            slim.append({"model": row.model, "template": row.template, "status": row.status, "verdicts": row.verdicts})
    summary = build_summary(store, run_id, slim, judge, extra)
    atomic_write(run_dir / "summary.json", json.dumps(summary, indent=2, sort_keys=False, default=str) + "\n")
    atomic_write(run_dir / "report.md", build_report(summary, notices))
    return summary
