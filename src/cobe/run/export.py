"""Exports of a run directory, derivable from the store at any time: results.jsonl, summary.json, report.md."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cobe.core.errors import RunUnmeasured
from cobe.core.files import atomic_open, atomic_write
from cobe.core.results import CHECKS, ResultRow, Status
from cobe.judge.checks import row_status
from cobe.judge.judge_plan import JudgeRef
from cobe.judge.panel_analysis import PANEL, panel_summary
from cobe.judge.published import SOURCE_DECIDES
from cobe.judge.selftest_result import judge_check_markdown
from cobe.judge.shown import ShownVerdicts
from cobe.judge.verdict_source import imported_verdicts
from cobe.prompts.render import UNJUDGED_REASONS, query_text, respondent_messages
from cobe.run.items import Item
from cobe.run.judged_part import shown_part
from cobe.run.resume import shown
from cobe.run.settings_table import settings_markdown
from cobe.score.accuracy import (
    accuracy,
    by_epoch,
    by_phrasing,
    check_failure_rates,
    epoch_spread,
    rows_frame,
    several_epochs,
)
from cobe.score.rule import POOLED_RULE, RULE, overlap_of, rule_sentence
from cobe.store.store import Store


def _query(item: Item) -> str:
    """The request as the respondent read it, from the chat request: a base model's completion prompt wraps it."""
    chat = respondent_messages(item.scenario, item.template)
    return query_text(item.scenario, item.template, chat[-1].content if chat else item.prompt)


def build_rows(store: Store, run_id: str, items: list[Item], judge: JudgeRef | None) -> list[ResultRow]:
    """One ResultRow per item, with the given judge's verdicts (pending where not yet done)."""
    return list(iter_rows(store, run_id, items, judge))


def iter_rows(store: Store, run_id: str, items: list[Item], judge: JudgeRef | None) -> Iterator[ResultRow]:
    """The rows of `build_rows`, one at a time, so a large run is never held whole in memory."""
    verdicts = ShownVerdicts(store, run_id, judge)
    for item in items:
        s, t = item.scenario, item.template
        # one at a time: nothing grows with the run
        response_row = store.response(run_id, *item.response_key, epoch=item.epoch)
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
            "epoch": item.epoch,
            "tier": t.tier,
            "phrasing": t.phrasing,
            "story": s.story,
            "query": _query(item),
            # the prompt as sent and stored (a re-judge plans chat prompts; the store knows the real one)
            "prompt": response_row.prompt if response_row is not None and response_row.prompt else item.prompt,
            "preserve": list(s.preserve),
            "change": list(s.change),
        }
        if response_row is None:
            yield ResultRow(**row, status="pending")
            continue
        row["response"], row["response_error"] = response_row.text, response_row.error
        view = shown(item, response_row)
        if response_row.error is None and view.text is None:
            # cut off or without its marker: unscored with the reason, no verdict was ever asked for
            reason = view.reason or ""
            row |= {"unjudged": view.unjudged, "unscored": dict.fromkeys(CHECKS, reason)}
            row["verdicts"] = dict.fromkeys(CHECKS)
            yield ResultRow(**row, status="unscored")
            continue
        if t.final_marker and response_row.text is not None:
            row["judged_response"] = view.text
            row["no_marker"] = view.no_marker
        got = verdicts.of(response_row.id)
        row |= {"verdicts": got.verdicts, "judge_raw": got.raw, "p_true": got.p_true, "unscored": got.unscored}
        row["member_verdicts"] = got.members
        if response_row.error is None and not got.complete:
            yield ResultRow(**row, status="pending")  # generated, judging not finished
            continue
        if got.published:  # a source's overall verdict: no per-check detail to apply the pass rule to
            status, passed = published_status(got.overall, response_row.error)
        else:
            status, passed = row_status(row["verdicts"], response_row.error)
        yield ResultRow(**row, status=status, passed=passed)


def published_status(overall: str | None, response_error: str | None) -> tuple[Status, bool | None]:
    """A published verdict as a row's status: T passed, F failed, none unscored (an error stays an error)."""
    if response_error is not None:
        return "error", None
    if overall is None:
        return "unscored", None
    return ("passed", True) if overall == "T" else ("failed", False)


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
    for model, spent in store.respondent_usage_by_model(run_id).items():
        usage.setdefault(model, {})["respondent"] = spent._asdict()
    for member in judge.judges if judge else ():  # a panel's usage is its judges' together, every sample
        for model, (i, o, c) in store.judge_usage_by_model(run_id, member.spec, member.fingerprint).items():
            total = usage.setdefault(model, {}).setdefault(
                "judge", {"input_tokens": 0, "output_tokens": 0, "cost_usd": None}
            )
            total["input_tokens"] += i
            total["output_tokens"] += o
            total["cost_usd"] = c if total["cost_usd"] is None else total["cost_usd"] + (c or 0.0)
    return usage


def build_summary(
    store: Store,
    run_id: str,
    rows: list[dict[str, Any]],
    judge: JudgeRef | None,
    extra: dict[str, Any],
    rules: dict[str, str] | None = None,
) -> dict[str, Any]:
    """summary.json from slim row dicts (model, template, status, verdicts): accuracy by each model's rule (`rules`,
    model → rule, decided from the scenarios it was asked: cobe.score.rule), per template, checks, usage."""
    df = rows_frame(rows)
    if rules and not df.empty:  # slim rows hold no scenario ids: the rule comes decided
        df[RULE] = df["model"].map(rules)
    models: dict[str, dict[str, Any]] = {}
    usage = _role_usage(store, run_id, judge)
    if not df.empty:
        for rec in accuracy(df).to_dict("records"):
            models[rec["model"]] = {str(k): _num(v) for k, v in rec.items() if k != "model"}
        for rec in by_phrasing(df).to_dict("records"):
            models[rec["model"]].setdefault("per_template", {})[rec["template"]] = {
                k: _num(rec[k]) for k in ("accuracy", "n", "scored", "passes", "unscored", "errors")
            }
        if several_epochs(df):  # --epochs K: each epoch's accuracy, and their spread
            _epochs(models, df)
        for rec in check_failure_rates(df).to_dict("records"):
            models[rec["model"]].setdefault("check_failure_rates", {})[rec["check"]] = {
                k: _num(rec[k]) for k in ("failure_rate", "failed", "judged", "unscored")
            }
        pending = df["status"].eq("pending").groupby(df["model"]).sum().to_dict()  # no function per model
        unjudged = df.groupby("model")["unjudged"].value_counts().to_dict() if "unjudged" in df.columns else {}
        no_marker = df.groupby("model")["no_marker"].sum().to_dict() if "no_marker" in df.columns else {}
        for model, entry in models.items():
            entry["pending"] = pending.get(model, 0)
            # responses unscored without a judge call, by reason (also inside `unscored`)
            entry["unjudged"] = {code: int(unjudged.get((model, code), 0)) for code in UNJUDGED_REASONS}
            entry["no_marker"] = int(no_marker.get(model, 0))
            entry["usage"] = usage.get(model, {})
    judged = judge.summary_fields() if judge else dict.fromkeys(("judge", "judge_prompts", "judge_fingerprint"))
    source = imported_verdicts(store, run_id, judge.spec) if judge else None
    if source is not None:  # an import's own verdicts: where they came from, not a cobe judge's name alone
        judged |= {"verdicts_from": source["from"], "verdicts_by": source["by"]}
    summary = {"run_id": run_id, **judged, "models": models, **extra}
    part = shown_part(store, run_id, judge)
    if not part.whole and judge is not None:  # its figures are a part's: every report of the run says so
        judged_rows = int((df["status"] != "pending").sum()) if not df.empty else 0
        summary["judged_part"] = {
            "verdict_set": judge.spec,
            "part": part.described(),
            "judged": judged_rows,
            "rows": len(df),
            "note": f"the verdict set {judge.spec} covers a part of this run ({part.described()}): {judged_rows} "
            f"of {len(df)} rows judged, the rest pending under it; its figures are that part's",
        }
    if judge is not None and judge.combined and not df.empty:
        summary["panel"] = panel_summary(df)
    return summary


def unmeasured_models(summary: dict[str, Any]) -> list[str]:
    """The models of a judged run with no scored row: every answer unscored or errored, so nothing was measured
    (a model whose rows wait outside the part a verdict set judged is pending, not unmeasured)."""
    if not summary.get("judge"):
        return []
    models = summary.get("models", {}).items()
    return [model for model, entry in models if not entry.get("scored") and not entry.get("pending")]


def settle_state(summary: dict[str, Any], record: Callable[[str], None]) -> None:
    """A finished run (`complete`) in which a model has no scored row is `unmeasured`, and the other way round
    once every model has one (another verdict set shown): the state says whether every model was measured;
    `record` keeps a changed state where the store keeps it (`cobe runs` reads either)."""
    stated = summary.get("state")
    if stated not in ("complete", RunUnmeasured.state):
        return
    unmeasured = unmeasured_models(summary)
    summary["state"] = RunUnmeasured.state if unmeasured else "complete"
    if unmeasured:
        summary["unmeasured"] = unmeasured
    if summary["state"] != stated:
        record(summary["state"])


def unmeasured_note(models: list[str]) -> str:
    """The line a report opens with for models that have no scored row."""
    named = ", ".join(f"`{model}`" for model in models)
    return (
        f"{named} {'has' if len(models) == 1 else 'have'} no scored row: every answer was unscored or errored "
        "(the top reasons say what came back), so no accuracy was measured and no rank is given"
    )


def _epochs(models: dict[str, dict[str, Any]], df: Any) -> None:
    """summary.json's per-epoch accuracies and their sample std across epochs, per model."""
    for rec in by_epoch(df).to_dict("records"):
        models[rec["model"]].setdefault("per_epoch", {})[str(rec["epoch"])] = {
            k: _num(rec[k]) for k in ("accuracy", "std", "n", "scored", "passes", "unscored", "errors")
        }
    for rec in epoch_spread(df).to_dict("records"):
        models[rec["model"]]["epochs"] = _num(rec["epochs"])
        models[rec["model"]]["epoch_std"] = _num(rec["epoch_std"])


def _std_cell(model: dict[str, Any]) -> str:
    """report.md's ± cell: the std across phrasings, or "(pooled)" where the model has none (cobe.score.rule)."""
    return "(pooled)" if model.get(RULE) == POOLED_RULE else _fmt(model.get("std"))


def _fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _judge_line(summary: dict[str, Any]) -> str:
    """Who gave the shown verdicts: an import's source in words (no cobe judge did), else the judge and prompts."""
    source = summary.get("verdicts_from")
    if source:
        by = f", given by {summary['verdicts_by']}" if summary.get("verdicts_by") else ""
        return f"Verdicts: {source}{by} (verdict set `{summary.get('judge')}`; no cobe judge gave them)"
    return f"Judge: `{summary.get('judge') or 'none yet'}` (prompts: {summary.get('judge_prompts') or '–'})"


def _pass_rule(models: dict[str, dict[str, Any]]) -> str:
    """How a response passes: by the checks' rule, or, where no model has a per-check verdict (a source's one
    verdict per response), as the source's verdict says."""
    scored = [m for m in models.values() if m.get("scored")]
    checked = any(rate.get("judged") for m in scored for rate in (m.get("check_failure_rates") or {}).values())
    if scored and not checked:
        return SOURCE_DECIDES
    return (
        "A response fails as soon as one check is F, even when another is unscored; it is unscored only "
        "when no check is F and a verdict is missing"
    )


def build_report(summary: dict[str, Any], notices: list[str]) -> str:
    """A short Markdown report: leaderboard, counts, notices."""
    lines = [f"# CoBe run {summary['run_id']}", ""]
    unmeasured = summary.get("unmeasured") or []
    notices = ([unmeasured_note(unmeasured)] if unmeasured else []) + list(notices)
    lines += [f"> **Note:** {n}" for n in notices]
    if notices:
        lines.append("")
    lines.append(f"{_judge_line(summary)}; state: {summary.get('state', '?')}.")
    templates = sorted({t for m in summary["models"].values() for t in m.get("per_template", {})})
    lines += [
        "",
        "| model | accuracy % | ± std | errors as failures % | "
        + " | ".join(templates)
        + " | n | scored | unscored | cut off | no marker | errors | pending |",
        "|---|---:|---:|---:|" + "---:|" * len(templates) + "---:|---:|---:|---:|---:|---:|---:|",
    ]
    ranked = sorted(summary["models"].items(), key=lambda kv: -(kv[1].get("accuracy") or -1))
    for model, m in ranked:
        per = [_fmt(m.get("per_template", {}).get(t, {}).get("accuracy")) for t in templates]
        unjudged = m.get("unjudged", {})
        lines.append(
            f"| `{model}` | {_fmt(m.get('accuracy'))} | {_std_cell(m)} | {_fmt(m.get('accuracy_incl_errors'))} | "
            + " | ".join(per)
            + f" | {m.get('n', 0)} | {m.get('scored', 0)} | {m.get('unscored', 0)} | {unjudged.get('truncated', 0)}"
            f" | {m.get('no_marker', 0)} | {m.get('errors', 0)} | {m.get('pending', 0)} |"
        )
    lines += _epochs_markdown(summary["models"])
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
        rule_sentence(m.get(RULE) for m in summary["models"].values() if m.get("accuracy") is not None)
        + ". "
        + _pass_rule(summary["models"])
        + ", and unscored rows are left out of the denominator and counted. Cut off = replies stopped by the token limit: unscored without a judge call. No marker = "
        "reasoning-template replies without their final-story line: judged whole. Errors as failures = the "
        "same accuracy with respondent errors and cut-off replies counted as failed responses.",
    ]
    if summary.get("settings"):
        lines += ["", "## Settings", "", "Each model as it was asked (App. D.1 defaults where none was given):", ""]
        lines += settings_markdown(summary["settings"])
    if summary.get("panel"):
        lines += ["", *panel_markdown(summary["panel"], summary.get("judge_samples", 1))]
    if summary.get("judge_check"):
        lines += ["", "## Judge self-test", "", *judge_check_markdown(summary["judge_check"])]
    return "\n".join(lines) + "\n"


def _epochs_markdown(models: dict[str, dict[str, Any]]) -> list[str]:
    """report.md's accuracy per epoch (--epochs K), with their spread; nothing for a run of one epoch."""
    epochs = sorted({int(e) for m in models.values() for e in m.get("per_epoch", {})})
    if not epochs:
        return []
    lines = [
        "",
        "Accuracy % per epoch (each epoch by the model's rule); the headline accuracy is their mean, and the "
        "spread the sample std across epochs:",
        "",
        "| model | " + " | ".join(f"epoch {e}" for e in epochs) + " | spread |",
        "|---|" + "---:|" * (len(epochs) + 1),
    ]
    for model, m in models.items():
        per = [_fmt(m.get("per_epoch", {}).get(str(e), {}).get("accuracy")) for e in epochs]
        lines.append(f"| `{model}` | " + " | ".join(per) + f" | {_fmt(m.get('epoch_std'))} |")
    return lines


def panel_markdown(panel: dict[str, Any], samples: int) -> list[str]:
    """report.md's judge-panel section: each judge's accuracy beside the panel's, agreement, flip rates."""
    judges = [PANEL, *panel["judges"]]
    lines = [
        "## Judges",
        "",
        "Each check's verdict is the strict majority of the judges with a parseable verdict"
        + (f", each judge's verdict the majority of its {samples} samples" if samples > 1 else "")
        + "; a tie is unscored. Accuracy % by each judge alone, beside the panel's:",
        "",
        "| model | " + " | ".join(f"`{j}`" for j in judges) + " |",
        "|---|" + "---:|" * len(judges),
    ]
    for model, by_judge in panel["accuracy"].items():
        cells = [_fmt((by_judge.get(j) or {}).get("accuracy")) for j in judges]
        lines.append(f"| `{model}` | " + " | ".join(cells) + " |")
    if panel.get("agreement"):
        lines += ["", "| agreement among judges | items | Fleiss' κ | Krippendorff's α | unanimous % |"]
        lines.append("|---|---:|---:|---:|---:|")
        for target, a in panel["agreement"].items():
            lines.append(
                f"| {target} | {a['items']} | {_fmt(a['fleiss_kappa'], 3)} | {_fmt(a['krippendorff_alpha'], 3)} "
                f"| {_fmt(a['unanimous'])} |"
            )
    if panel.get("flip_rates"):
        lines += ["", "| verdict flip rate % (samples disagree) | " + " | ".join(CHECKS) + " |"]
        lines.append("|---|" + "---:|" * len(CHECKS))
        for judge, by_check in panel["flip_rates"].items():
            cells = [
                f"{_fmt(by_check[c]['flip_rate'])} ({by_check[c]['flips']}/{by_check[c]['pairs']})"
                if c in by_check
                else "–"
                for c in CHECKS
            ]
            lines.append(f"| `{judge}` | " + " | ".join(cells) + " |")
    return lines


def write_summary(path: Path, summary: dict[str, Any]) -> None:
    """summary.json, written as it is encoded: one string of it whole doubled the memory of a run of 100,000
    models (json's indented encoder keeps every piece until it joins them)."""
    with atomic_open(path) as handle:
        json.dump(summary, handle, indent=2, sort_keys=False, default=str)
        handle.write("\n")


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
    # rows that score alike share one slim dict: the summary needs a row per item, not a copy per item,
    # so what the run holds here stays a pointer per item (the scorers never change a row)
    alike: dict[tuple[Any, ...], dict[str, Any]] = {}
    one_epoch = all(item.epoch == 1 for item in items)  # its rows read as before epochs existed
    # model → tier → phrasing → the scenarios asked: which rule its accuracy is taken by (cobe.score.rule)
    asked: dict[str, dict[int, dict[str, set[str]]]] = {}
    with atomic_open(run_dir / "results.jsonl") as handle:
        for row in iter_rows(store, run_id, items, judge):
            # one judge asked once writes the row exactly as before panels existed, and a reply with its
            # marker (or of a template without one) as before marker-less replies were judged
            exclude = {
                name
                for name, empty in (
                    ("member_verdicts", not row.member_verdicts),
                    ("no_marker", not row.no_marker),
                    ("epoch", one_epoch),
                )
                if empty
            }
            handle.write(row.model_dump_json(exclude=exclude or None))
            handle.write("\n")
            asked.setdefault(row.model, {}).setdefault(row.tier, {}).setdefault(row.template, set()).add(
                row.scenario_id
            )
            verdicts = tuple(row.verdicts.items())
            key = (
                row.model,
                row.template,
                row.epoch,
                row.status,
                verdicts,
                row.unjudged,
                row.no_marker,
                repr(row.member_verdicts),
            )
            shared = alike.get(key)
            if shared is None:
                shared = alike[key] = {
                    "model": row.model,
                    "template": row.template,
                    "epoch": row.epoch,
                    "status": row.status,
                    "verdicts": row.verdicts,
                    "unjudged": row.unjudged,
                    "no_marker": row.no_marker,
                    "member_verdicts": row.member_verdicts,
                }
            slim.append(shared)
    overlaps = {model: overlap_of([list(p.values()) for p in tiers.values()]) for model, tiers in asked.items()}
    rules = {model: rule for model, (_, _, rule) in overlaps.items()}
    summary = build_summary(store, run_id, slim, judge, extra, rules)
    for model, (share, over, _) in overlaps.items():
        if model in summary["models"]:
            summary["models"][model].update(same_scenarios=_num(share), std_over=over)
    settle_state(summary, lambda state: store.set_state(run_id, state))
    write_summary(run_dir / "summary.json", summary)
    atomic_write(run_dir / "report.md", build_report(summary, notices), shared=True)  # made to be shared
    return summary
