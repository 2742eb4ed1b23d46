"""How `cobe eval`, `generate` and `judge` end: the run's table in words (cobe.report.run_table), or as JSON."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table

from cobe.judge.published import judge_label

if TYPE_CHECKING:  # the table's module loads pandas: only once a run has ended
    from rich.console import Console

    from cobe.report.run_table import ModelLine, RunTable
    from cobe.run.config import RunSummary


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _accuracy(line: ModelLine) -> str:
    from cobe.score.rule import accuracy_text

    return accuracy_text(line.accuracy, line.std, line.rule, digits=1)


def _ci(line: ModelLine) -> str:
    from cobe.score.bootstrap import interval_text

    low, high = (math.nan if v is None else v for v in (line.ci_low, line.ci_high))
    return interval_text(low, high, line.ci_method, digits=1)


def model_table(table: RunTable) -> Table:
    """Per model: accuracy (± std, or pooled), 95% CI, passed / failed / unscored / errors (and pending), judge."""
    epochs = any(line.epochs > 1 for line in table.models)
    pending = any(line.pending for line in table.models)
    out = Table(box=box.SIMPLE_HEAD)
    # the names are what a reader looks for: they keep their width (up to a point), the numbers never wrap
    longest = max((len(line.model) for line in table.models), default=5)
    out.add_column("model", overflow="fold", min_width=min(longest, 40))
    numbers = ["accuracy %", "95% CI", *(("epochs", "spread") if epochs else ()), "passed", "failed", "unscored"]
    for name in [*numbers, "errors", *(("pending",) if pending else ())]:
        out.add_column(name, justify="right", no_wrap=True)
    judge = "–" if table.judge is None else judge_label(table.judge, table.judge_prompts)
    out.add_column("judge", overflow="fold", min_width=min(len(judge), 40))
    for line in table.models:
        spread = (str(line.epochs), _pct(line.epoch_std)) if epochs else ()
        counts = [line.passed, line.failed, line.unscored, line.errors, *((line.pending,) if pending else ())]
        out.add_row(line.model, _accuracy(line), _ci(line), *spread, *(str(c) for c in counts), judge)
    return out


def footer_lines(table: RunTable) -> list[str]:
    """What follows the models: top reasons, calls, retries and rate-limit waits, cost and time, the report."""
    from cobe.score.bootstrap import EXACT_METHOD, EXACT_NOTE
    from cobe.score.rule import POOLED_NOTE, POOLED_RULE

    lines = []
    if any(line.rule == POOLED_RULE and line.accuracy is not None for line in table.models):
        lines.append(POOLED_NOTE + ".")
    if any(line.ci_method == EXACT_METHOD for line in table.models):
        lines.append(f"95% CI: {EXACT_NOTE}.")
    if table.reasons:
        lines.append("Top reasons for unscored and errored rows:")
        width = max(len(str(r["count"])) for r in table.reasons)
        lines += [f"  {r['count']:>{width}}  {r['status']:<8}  {r['reason']}{_others(r)}" for r in table.reasons]
    calls = "; ".join(
        f"{role} {s['calls_made']} calls ({s['calls_cached']} from store, {s['errors']} failed)"
        for role, s in table.calls.items()
        if role != "judge-batch"
    )
    if "judge-batch" in table.calls:  # answers from a provider batch; the judge pass then reads them from the store
        calls += f"; judge batch {table.calls['judge-batch']['calls_made']} answers"
    waits = f"{table.rate_limited} rate-limited answers" if table.rate_limited else "no rate limit met"
    lines.append(f"Calls: {calls or 'none'}")
    roles = [s for role, s in table.calls.items() if role != "judge-batch"]
    if roles and not sum(s["calls_made"] for s in roles) and sum(s["calls_cached"] for s in roles):
        lines.append(STORE_ONLY)
    lines.append(
        f"Retries: {table.retries} ({waits}; {table.retry_wait_s:.1f} s waited before retrying, summed over calls)"
    )
    lines.append(f"Cost: ${table.cost_usd:.4f}; wall time {table.wall_s:.1f} s")
    if table.report:
        lines.append(f"Report: {table.report}")
    return lines


#: what the end of a command says when every call it needed was answered from the store
STORE_ONLY = (
    "Every call was answered from the store, none sent: a finished call costs nothing again. To ask again, use a "
    "new --run-dir, or add --reask-unscored to ask the calls that gave nothing usable (an empty reply, a judge's "
    "without T or F) once the model or its server is fixed."
)


def _others(reason: dict[str, Any]) -> str:
    """' (3 of them said something else)' after a reason shown by its commonest wording."""
    others = int(reason.get("others") or 0)
    return f" ({others} of them said something else)" if others else ""


def state_line(table: RunTable) -> str:
    """`RUN_DIR: state (N of M items unfinished)`: the line scripts read, never wrapped (a table's title is)."""
    state = table.state + (f" ({table.unfinished} of {table.items} items unfinished)" if table.unfinished else "")
    return f"{table.run_dir}: {state}"


def print_run_end(table: RunTable, console: Console) -> None:
    """The whole end of a run, on `console`."""
    console.print(state_line(table), markup=False, highlight=False, soft_wrap=True)
    console.print(model_table(table))
    for line in footer_lines(table):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def dry_run_line(summary: RunSummary) -> str:
    """What a --dry-run would call and cost: one line."""
    assert summary.dry_run is not None
    d = summary.dry_run
    cost = (
        "unknown (no price for " + ", ".join(d.unpriced) + ")"
        if d.estimated_cost_usd is None
        else f"${d.estimated_cost_usd:.4f}"
    )
    if d.cached_input_tokens:
        cost += f" (about {d.cached_input_tokens} input tokens at the prompt-cache rate)"
    return (
        f"dry run for {summary.run_dir}: {d.respondent_calls} respondent calls ({d.respondent_cached} already stored), "
        f"{d.judge_calls} judge calls ({d.judge_cached} already stored), estimated cost {cost}; nothing was called"
    )
