"""Judging, in one place: the three checks, verdict parsing, the pass rule, the judge prompt sets
(folders under `cobe/judge/prompts/`: `paper`, the default, and `contextual`), the judge that asks them,
panels of judges and repeated samples with their strict majority, built for every caller by one
constructor (`plan_judges`, then `JudgePanel.from_plan`), batch judging, the verdicts a run shows, the
judge self-test, judging (scenario, response) pairs outside a run, panel analysis, prompt-set diffs,
and `preview`, which shows what a respondent and a judge receive.

    from cobe.judge import CHECKS, row_status, load_judge_prompts
    prompts = load_judge_prompts()  # "paper"
    messages = prompts.messages("preserve", scenario, rewrite)
    judged = judge_responses([(scenario, rewrite)], ["openai/gpt-5.4", "anthropic/claude-opus-4-7"])
"""

from cobe.core.results import CHECKS, Check, Verdict
from cobe.judge.checker import Caller, CheckResult, Judge
from cobe.judge.checks import criterion, majority, row_status
from cobe.judge.judge_plan import JudgePlan, JudgeRef, plan_judges
from cobe.judge.pairs import JudgedItem, JudgedItems, ajudge_responses, judge_responses
from cobe.judge.panel import JudgePanel, provider_family, self_preference
from cobe.judge.parse import p_true, parse_verdict
from cobe.judge.preview import Preview, PromptView, find_scenario, preview
from cobe.judge.prompt_sets import (
    DEFAULT_JUDGE_PROMPTS,
    JudgeConfig,
    JudgePromptSet,
    load_judge_prompts,
    render_judge_text,
)
from cobe.judge.specs import split_specs

__all__ = [
    "CHECKS",
    "DEFAULT_JUDGE_PROMPTS",
    "Preview",
    "PromptView",
    "find_scenario",
    "preview",
    "Caller",
    "Check",
    "CheckResult",
    "Judge",
    "JudgeConfig",
    "JudgePanel",
    "JudgePlan",
    "JudgeRef",
    "JudgedItem",
    "JudgedItems",
    "ajudge_responses",
    "judge_responses",
    "plan_judges",
    "JudgePromptSet",
    "Verdict",
    "criterion",
    "load_judge_prompts",
    "majority",
    "p_true",
    "parse_verdict",
    "provider_family",
    "render_judge_text",
    "row_status",
    "self_preference",
    "split_specs",
]
