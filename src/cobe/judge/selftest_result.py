"""The judge self-test's arithmetic and its plain-words verdict: how often a judge gives the verdict a
probe must get, with an exact (Clopper–Pearson) binomial interval.

Three probes bound a judge from both sides (the calls live in `cobe.judge.selftest`):
- `identity`: the story unchanged must fail the change check;
- `illustrative`: the dataset's illustrative rewrite must pass all three checks;
- `swapped`: another core example's illustrative rewrite must fail the preserve check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from cobe.score.binomial import clopper_pearson

Expected = Literal["T", "F"]
#: a probe's share of expected verdicts at or above this behaves as expected; below HOLDS_BARELY it fails
HOLDS = 0.8
HOLDS_BARELY = 0.5
#: a judge that answers T to this share of every probe question passes nearly everything
NEARLY_ALL = 0.9


class ProbeCheck(BaseModel):
    """One expectation of the self-test (a probe × check) and how the judge met it."""

    probe: str
    check: str
    expected: Expected
    asked: int  # scenarios asked
    scored: int  # verdicts that parsed (T or F)
    hits: int  # verdicts equal to `expected`
    says_t: int  # verdicts that were T, whatever was expected
    share: float | None  # hits / scored; None when nothing was scored
    ci_low: float | None
    ci_high: float | None

    @property
    def unscored(self) -> int:
        """Questions without a T/F verdict (an unparseable answer or a failed call)."""
        return self.asked - self.scored


class SelfTest(BaseModel):
    """A judge's self-test: per probe × check, the share of expected verdicts with its interval, and a verdict."""

    judge: str  # the judge's spec, or a panel's name (its strict majority is what was tested)
    judge_prompts: str
    prompt_fingerprint: str = ""
    samples: int = 1  # times each judge was asked each check (the majority of its samples counts)
    data: str
    scenarios: list[str] = Field(default_factory=list)
    seed: int = 0
    level: float = 0.95
    checks: list[ProbeCheck] = Field(default_factory=list)
    verdict: str = ""
    as_expected: bool = False
    calls_made: int = 0
    calls_cached: int = 0
    calls_failed: int = 0  # of calls_made: ended in an error after their retries (their checks are unscored)
    notices: list[str] = Field(default_factory=list)  # what the calls' store said (a judge now at another endpoint)

    @property
    def asked_as(self) -> str:
        """'(prompts paper)', with the samples per check when there were several."""
        samples = f", {self.samples} samples per check" if self.samples > 1 else ""
        return f"(prompts {self.judge_prompts}{samples})"

    @property
    def store_only(self) -> str:
        """What the calls line adds when every call came from the store: how to ask again."""
        if self.calls_made or not self.calls_cached:
            return ""
        return (
            " (every one: to ask again, add --reask-unscored for the verdicts that were neither T nor F, "
            "or give another --run-dir)"
        )

    def lines(self) -> list[str]:
        """The result as plain text lines: one per probe × check, then the verdict."""
        out = [
            f"Judge self-test of {self.judge} {self.asked_as} on {len(self.scenarios)} scenarios of "
            f"{self.data}: share of expected verdicts, {self.level:.0%} exact CI"
        ]
        for row in self.checks:
            out.append(f"  {probe_label(row)}: {share_text(row, self.level)}")
        failed = f", {self.calls_failed} failed" if self.calls_failed else ""
        out.append(
            f"  judge calls: {self.calls_made} made{failed}, {self.calls_cached} from the store{self.store_only}"
        )
        out.extend(f"  {notice}" for notice in self.notices)
        out.append(f"Judge self-test verdict: {self.verdict}")
        return out


def probe_check(
    probe: str, check: str, expected: Expected, verdicts: Sequence[str | None], level: float = 0.95
) -> ProbeCheck:
    """Count one expectation over its verdicts (None = unscored) and attach the exact interval."""
    scored = [v for v in verdicts if v in ("T", "F")]
    hits = sum(1 for v in scored if v == expected)
    low = high = share = None
    if scored:
        share = hits / len(scored)
        low, high = clopper_pearson(hits, len(scored), level)
    return ProbeCheck(
        probe=probe,
        check=check,
        expected=expected,
        asked=len(verdicts),
        scored=len(scored),
        hits=hits,
        says_t=sum(1 for v in scored if v == "T"),
        share=share,
        ci_low=low,
        ci_high=high,
    )


PROBE_WORDS: dict[str, str] = {
    "identity": "unchanged story",
    "illustrative": "illustrative rewrite",
    "swapped": "another story's rewrite",
}


def probe_label(row: ProbeCheck) -> str:
    """'unchanged story → change F' and the like."""
    return f"{PROBE_WORDS.get(row.probe, row.probe)} → {row.check} {row.expected}"


def share_text(row: ProbeCheck, level: float = 0.95) -> str:
    """'17/20 = 85% [62%, 97%]' (and how many went unscored)."""
    if row.share is None:
        return f"no verdict ({row.asked} unscored)"
    assert row.ci_low is not None and row.ci_high is not None
    text = f"{row.hits}/{row.scored} = {row.share:.0%} [{row.ci_low:.0%}, {row.ci_high:.0%}]"
    return text + (f", {row.unscored} unscored" if row.unscored else "")


def _failing(rows: Sequence[ProbeCheck], limit: float) -> list[ProbeCheck]:
    return [row for row in rows if row.share is not None and row.share < limit]


def self_test_verdict(rows: Sequence[ProbeCheck]) -> tuple[str, bool]:
    """One line in plain words on how the judge met the probes, and whether it met all of them."""
    scored = [row for row in rows if row.share is not None]
    if not scored:
        return "the judge gave no usable verdict on any probe, so nothing can be said about it", False
    must_fail = [row for row in scored if row.expected == "F"]
    must_pass = [row for row in scored if row.expected == "T"]
    says_t = sum(row.says_t for row in scored) / sum(row.scored for row in scored)
    if says_t >= NEARLY_ALL and must_fail and len(_failing(must_fail, HOLDS_BARELY)) == len(must_fail):
        return (
            f"this judge passes nearly everything ({says_t:.0%} of its verdicts are T): it cannot tell an "
            "unchanged story or another story's rewrite from a correct rewrite",
            False,
        )
    if says_t <= 1 - NEARLY_ALL and must_pass and len(_failing(must_pass, HOLDS_BARELY)) == len(must_pass):
        return (
            f"this judge fails nearly everything ({1 - says_t:.0%} of its verdicts are F), correct rewrites included",
            False,
        )
    problems = []
    for row in _failing(scored, HOLDS_BARELY):
        if row.probe == "identity":
            problems.append("this judge cannot tell an unchanged story from a rewrite")
        elif row.probe == "swapped":
            problems.append("this judge does not notice when another story's rewrite drops the facts to keep")
        else:
            problems.append(f"this judge fails correct rewrites on {row.check}")
    unsure = [row for row in _failing(scored, HOLDS) if row not in _failing(scored, HOLDS_BARELY)]
    if unsure:
        named = ", ".join(probe_label(row) for row in unsure)
        problems.append(f"it gives the expected verdict only part of the time on {named}")
    unscored = sum(row.unscored for row in rows)
    if not problems and len(scored) < len(rows):
        problems.append("some probes got no verdict at all")
    if problems:
        return "; ".join(problems), False
    tail = f" ({unscored} questions unscored)" if unscored else ""
    return f"the judge behaves as expected on all three probes{tail}", True


def judge_check_markdown(data: SelfTest | dict) -> list[str]:
    """The self-test as Markdown lines: what was probed, a table per probe × check, the verdict."""
    test = data if isinstance(data, SelfTest) else SelfTest.model_validate(data)
    lines = [
        f"Judge `{test.judge}` {test.asked_as} on {len(test.scenarios)} scenarios of "
        f"`{test.data}` (seed {test.seed}); judge calls only: {test.calls_made} made, {test.calls_cached} "
        "from the store.",
        "",
        f"| probe | check | expected | expected verdicts | share | {test.level:.0%} exact CI | unscored |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for row in test.checks:
        share = "–" if row.share is None else f"{row.share:.0%}"
        interval = "–" if row.ci_low is None or row.ci_high is None else f"[{row.ci_low:.0%}, {row.ci_high:.0%}]"
        lines.append(
            f"| {PROBE_WORDS.get(row.probe, row.probe)} | {row.check} | {row.expected} | {row.hits}/{row.scored} "
            f"| {share} | {interval} | {row.unscored} |"
        )
    lines += ["", f"**Verdict:** {test.verdict}."]
    return lines
