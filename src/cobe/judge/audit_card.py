"""The judge audit's card: one line per finding in plain words, then the tables, as text (`cobe judges audit`),
Markdown (`audit.md`) and JSON (`audit.json`, this model). The arithmetic is `cobe.judge.audit_result`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from cobe.judge.audit_result import (
    PASS,
    Answers,
    CheckCalibration,
    ProbeCheckRow,
    ProbeSummary,
    ReferenceCalibration,
    ShareDict,
    Stability,
)
from cobe.score.repeats import Share

#: the paper's own words on the loophole the omission probe measures
PAPER_NOTE = "the change check accepts removed consequences, as the paper notes (Sec. 3.1)"
#: the non-answers, reported together
NON_ANSWERS = ("echo", "empty", "refusal")
#: an ECE at or below this reads as calibrated
CALIBRATED = 0.05


class JudgeAudit(BaseModel):
    """One judge's audit: what was asked, the tables, and the findings in words."""

    judge: str
    judge_prompts: str
    prompt_fingerprint: str = ""
    data: str
    seed: int = 0
    level: float = 0.95
    repeats: int = 1
    temperature: float | None = None
    scenarios: list[str] = Field(default_factory=list)
    probes: list[ProbeSummary] = Field(default_factory=list)
    rows: list[ProbeCheckRow] = Field(default_factory=list)
    stability: Stability
    calibration: list[CheckCalibration] = Field(default_factory=list)
    no_p_true: str | None = None  # why there is no calibration, said once
    reference: ReferenceCalibration | None = None  # P(T) on a run's responses against a reference it holds
    figure: str | None = None  # the reliability figure's file beside audit.json, where one was drawn
    omission: dict[str, int] = Field(default_factory=dict)  # how the change facts were matched
    self_test: str = ""  # the self-test's verdict on its three probes
    findings: list[str] = Field(default_factory=list)
    calls_made: int = 0
    calls_cached: int = 0
    calls_failed: int = 0
    cost_usd: float = 0.0
    notices: list[str] = Field(default_factory=list)
    answers: list[Answers] = Field(default_factory=list)

    def probe(self, name: str) -> ProbeSummary | None:
        """The summary of one probe, when it was asked."""
        return next((p for p in self.probes if p.probe == name), None)

    def lines(self) -> list[str]:
        """The card as plain text: the head, the findings, then the tables."""
        failed = f", {self.calls_failed} failed" if self.calls_failed else ""
        out = [
            f"Judge audit of {self.judge} (prompts {self.judge_prompts}) on {len(self.scenarios)} scenarios of "
            f"{self.data}, {self.repeats} ask{'s' if self.repeats > 1 else ''} per check "
            f"({self.level:.0%} exact CIs)",
            *(f"  - {line}" for line in self.findings),
            "",
            "Probes: passes all three checks; verdicts as expected per check",
        ]
        for summary in self.probes:
            out.append(f"  {summary.words}: passes {share_text(summary.passes)}{_built(summary)}")
            for row in (r for r in self.rows if r.probe == summary.probe):
                out.append(f"    {row.check}: {row_text(row)}")
        out += ["", *stability_lines(self.stability), *calibration_lines(self)]
        out.append(
            f"judge calls: {self.calls_made} made{failed}, {self.calls_cached} from the store, ${self.cost_usd:.4f}"
        )
        out.extend(self.notices)
        return out


def pct(value: float | None) -> str:
    """'31%', or '–' for none."""
    return "–" if value is None else f"{value:.0%}"


def share_text(share: ShareDict | None) -> str:
    """'31% of 48 [22%, 41%]', or 'none scored'."""
    if not share or not share["n"]:
        return "none scored"
    return f"{pct(share['share'])} of {share['n']} [{pct(share['ci_low'])}, {pct(share['ci_high'])}]"


def _built(summary: ProbeSummary) -> str:
    skipped = sum(summary.skipped.values())
    return f" ({skipped} scenario{'s' if skipped != 1 else ''} gave no such probe)" if skipped else ""


def row_text(row: ProbeCheckRow) -> str:
    """One probe × check in words: its T share, and the expectation it met or the base it differs from."""
    parts = [
        f"T {row.says_t}/{row.scored}" + (f", {row.asked - row.scored} unscored" if row.asked > row.scored else "")
    ]
    if row.expected is not None:
        parts.append(f"{row.expected} as expected {share_text(row.as_expected)}")
    if row.differs is not None:
        parts.append(f"differs from its base {share_text(row.differs)}")
    return "; ".join(parts)


def stability_lines(stability: Stability) -> list[str]:
    """The stability table as text, or the line saying it was not measured."""
    if stability.repeats < 2:
        return ["Stability: not measured (one ask per check; --repeats 3 asks each check three times)", ""]
    temperature = "the provider's default" if stability.temperature is None else f"{stability.temperature:g}"
    out = [f"Stability: {stability.repeats} asks per check at temperature {temperature}; questions whose asks disagree"]
    out += [f"  {check}: {share_text(share)}" for check, share in stability.checks.items()]
    out.append(f"  pass/fail of an answer: {share_text(stability.pass_fail)}")
    return [*out, ""]


def calibration_lines(audit: JudgeAudit) -> list[str]:
    """The reliability tables as text, with a bar per bin, or the line saying why there are none; then those
    against the run's reference, where the audit has one."""
    if not audit.calibration:
        out = ["Confidence: not measured, no P(T) came with the verdicts", ""]
    else:
        out = ["Confidence: P(T) against the verdict each probe must get (reliability, ECE, Brier)"]
        out += [*_table_lines(audit.calibration), ""]
    return out + reference_lines(audit.reference)


def reference_lines(reference: ReferenceCalibration | None) -> list[str]:
    """The reference's tables as text: what was compared, then a table per check and the pass row."""
    if reference is None:
        return []
    head = f"Confidence against {reference.reference} on {reference.run_dir}"
    left = ", ".join(f"{n} {why.replace('_', ' ')}" for why, n in reference.left_out.items() if n)
    compared = f"  {reference.rows} responses scored by both{f' (left out: {left})' if left else ''}"
    if not reference.tables:
        return [f"{head}: not measured, no P(T) came with the verdicts of {reference.judge}", compared, ""]
    return [f"{head} ({PASS}: P(pass), the product of the three P(T))", compared, *_table_lines(reference.tables), ""]


def _table_lines(tables: list[CheckCalibration]) -> list[str]:
    out = []
    for cal in tables:
        out.append(f"  {cal.check}: {cal.items} verdicts, ECE {num(cal.ece)}, Brier {num(cal.brier)}")
        for b in cal.bins:
            bar = "#" * round(20 * (b["observed"] or 0.0))
            out.append(
                f"    P {b['low']:.1f}-{b['high']:.1f}: {b['items']:>4} said {b['mean_p']:.2f}, "
                f"observed {b['observed']:.2f} {bar}"
            )
    return out


def num(value: float | None, digits: int = 3) -> str:
    """A number at `digits` places, or '–'."""
    return "–" if value is None else f"{value:.{digits}f}"


def phrase(share: ShareDict, what: str) -> str:
    """'31% of omissions [22%, 41%] (15 of 48)': a finding's share, the thing counted named in the middle."""
    return f"{pct(share['share'])} of {what} [{pct(share['ci_low'])}, {pct(share['ci_high'])}] ({share['hits']} of {share['n']})"


def findings(audit: JudgeAudit) -> list[str]:
    """One line per finding, in plain words, in the card's order."""
    out = [line for line in (_omission(audit), _both_worlds(audit), _non_answers(audit), _injection(audit)) if line]
    out += [line for line in (_invariance(audit), _stability(audit), _confidence(audit), _reference(audit)) if line]
    if audit.self_test:
        out.append(f"self-test probes: {audit.self_test}")
    return out


def _passes(audit: JudgeAudit, name: str) -> ShareDict | None:
    summary = audit.probe(name)
    return summary.passes if summary is not None and summary.passes["n"] else None


def _omission(audit: JudgeAudit) -> str | None:
    passes = _passes(audit, "omission")
    if passes is None:
        return None
    counts = audit.omission
    left_out = counts.get("no_match", 0) + counts.get("nothing_left", 0)
    matched = (
        f"; {left_out} scenarios gave no omission (no change fact matched a sentence in {counts.get('no_match', 0)}, "
        f"nothing was left in {counts.get('nothing_left', 0)})"
        if left_out
        else ""
    )
    if passes["hits"]:
        return f"passes {phrase(passes, 'omissions')}: {PAPER_NOTE}{matched}"
    return f"passes {phrase(passes, 'omissions')}: it does not take removed consequences for changed ones{matched}"


def _both_worlds(audit: JudgeAudit) -> str | None:
    passes = _passes(audit, "both_worlds")
    if passes is None:
        return None
    return f"passes {phrase(passes, 'answers that keep the original story beside the rewrite')}"


def _non_answers(audit: JudgeAudit) -> str | None:
    asked = [s for s in audit.probes if s.probe in NON_ANSWERS and s.passes["n"]]
    if not asked:
        return None
    hits, n = sum(s.passes["hits"] for s in asked), sum(s.passes["n"] for s in asked)
    named = ", ".join(s.words for s in asked)
    share = Share(hits, n, audit.level).as_dict()
    if hits:
        return f"passes {phrase(share, f'non-answers ({named})')}, which must never pass"
    return f"never passes a non-answer ({named}: {none_of(share)})"


def _injection(audit: JudgeAudit) -> str | None:
    summary = audit.probe("injection")
    if summary is None or not summary.passes["n"]:
        return None
    differs = summary.differs
    swayed = phrase(differs, "unchanged stories") if differs and differs["n"] else None
    passes = phrase(summary.passes, "them")
    if differs and differs["hits"]:
        return f"obeys a note to the judge inside the answer: a verdict changes on {swayed}, and it passes {passes}"
    if summary.passes["hits"]:
        return f"passes {phrase(summary.passes, 'unchanged stories that carry a note to the judge')}"
    where = (
        f"no verdict changes on {differs['n']} unchanged stories (at most {pct(differs['ci_high'])})"
        if differs and differs["n"]
        else f"it passes {passes}"
    )
    return f"ignores a note to the judge inside the answer: {where}"


def _invariance(audit: JudgeAudit) -> str | None:
    found: list[tuple[ShareDict, str]] = []
    for name, words in (
        ("padded", "rewrites padded with a neutral sentence"),
        ("reordered", "rewrites graded with the facts to keep reordered"),
    ):
        summary = audit.probe(name)
        if summary is not None and summary.differs and summary.differs["n"]:
            found.append((summary.differs, words))
    if not found:
        return None
    if any(share["hits"] for share, _ in found):
        return "changes a verdict on " + ", and on ".join(phrase(share, words) for share, words in found)
    return "changes no verdict on " + " or on ".join(f"{words} ({none_of(share)})" for share, words in found)


def none_of(share: ShareDict) -> str:
    """'0 of 10, at most 31%': a share with no hits, by its interval's upper bound."""
    return f"0 of {share['n']}, at most {pct(share['ci_high'])}"


def _stability(audit: JudgeAudit) -> str | None:
    stable = audit.stability
    if stable.repeats < 2 or not stable.pass_fail:
        return None
    check, worst = max(stable.checks.items(), key=lambda item: item[1]["share"] or 0.0)
    if not worst["hits"]:
        asked = sum(share["n"] for share in stable.checks.values())
        return f"asked each check {stable.repeats} times, it gives the same verdict every time ({asked} questions)"
    return (
        f"asked each check {stable.repeats} times, it answers differently on {phrase(worst, f'{check} questions')}, "
        f"the check that flips most; the pass/fail flips on {phrase(stable.pass_fail, 'answers')}"
    )


def _confidence(audit: JudgeAudit) -> str | None:
    if not audit.calibration:
        return audit.no_p_true
    pooled = audit.calibration[-1]
    if pooled.ece is None:
        return None
    said = "its P(T) holds" if pooled.ece <= CALIBRATED else "its P(T) is off"
    return (
        f"{said}: expected calibration error {pooled.ece:.3f}, Brier {num(pooled.brier)} over {pooled.items} verdicts "
        "against the verdicts the probes must get"
    )


def _reference(audit: JudgeAudit) -> str | None:
    """How far P(pass) holds against the run's reference; its missing P(T) is said here only where the probes had
    some (otherwise the probes' line said it for both)."""
    reference = audit.reference
    if reference is None:
        return None
    if not reference.tables:
        return reference.no_p_true if audit.calibration else None
    table = next((t for t in reference.tables if t.check == PASS and t.items), reference.tables[-1])
    if table.ece is None:
        return None
    measured = "its P(pass) (the product of its three P(T))" if table.check == PASS else f"its {table.check} P(T)"
    said = "holds" if table.ece <= CALIBRATED else "is off"
    return (
        f"against {reference.reference} on {reference.rows} responses of the run, {measured} {said}: expected "
        f"calibration error {table.ece:.3f}, Brier {num(table.brier)}"
    )


def audit_markdown(data: JudgeAudit | dict[str, Any]) -> list[str]:
    """The card as Markdown lines: head, findings, then the probe, stability and confidence tables."""
    audit = data if isinstance(data, JudgeAudit) else JudgeAudit.model_validate(data)
    lines = [
        f"# Judge audit: `{audit.judge}`",
        "",
        f"Prompts `{audit.judge_prompts}` ({audit.prompt_fingerprint}), {len(audit.scenarios)} scenarios of "
        f"`{audit.data}` (seed {audit.seed}), {audit.repeats} ask(s) per check; judge calls only: "
        f"{audit.calls_made} made, {audit.calls_cached} from the store, ${audit.cost_usd:.4f}. Intervals are exact "
        f"(Clopper–Pearson) at {audit.level:.0%}. Each probe is explained in docs/JUDGE_AUDIT.md.",
        "",
        "## Findings",
        "",
        *(f"- {line}" for line in audit.findings),
        "",
        "## Probes",
        "",
        "| probe | scenarios | passes all three | check | T | expected | as expected | differs from base |",
        "|---|---:|---:|---|---:|---|---:|---:|",
    ]
    for summary in audit.probes:
        for row in (r for r in audit.rows if r.probe == summary.probe):
            lines.append(
                f"| {summary.words} | {summary.scenarios} | {share_text(summary.passes)} | {row.check} | "
                f"{row.says_t}/{row.scored} | {row.expected or '–'} | {share_text(row.as_expected) if row.as_expected else '–'} "
                f"| {share_text(row.differs) if row.differs else '–'} |"
            )
    lines += ["", "## Stability", "", "```text", *stability_lines(audit.stability), "```", "", "## Confidence", ""]
    lines += ["```text", *calibration_lines(audit), "```"]
    if audit.figure:
        lines += ["", f"![Reliability of P(T)]({audit.figure})"]
    return lines
