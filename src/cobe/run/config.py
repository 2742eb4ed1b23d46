"""What a command asks for (`EvalConfig`) and what it reports back (`RunSummary`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: the embedded model used when no model and no judge are given; its scores are for smoke tests only
EMBEDDED_MODEL = "local/gemma-3-270m"
SMOKE_NOTICE = (
    f"{EMBEDDED_MODEL} is a 270M-parameter smoke-test model: its calls are real, its scores mean nothing; "
    "the judge self-test (--judge-check) measures how far its verdicts can be trusted."
)
#: scenarios of the judge self-test that `cobe eval` runs by default when the embedded model judges
EMBEDDED_JUDGE_CHECK = 10


class EvalConfig(BaseModel):
    """One evaluation: data, respondents, judge and how to call them. Secrets never live here."""

    model_config = ConfigDict(extra="forbid")

    data: str = "builtin:starter"
    models: list[str] = Field(default_factory=list)
    judge: str | None = None
    judge_prompts: str = "default"
    templates: list[str] | None = None
    tier: int | None = None
    limit: int | None = Field(default=None, ge=1)
    run_dir: Path | None = None
    runs_root: Path = Path("runs")
    force_new: bool = False
    concurrency: int | None = Field(default=None, ge=1)
    rpm: float | None = Field(default=None, gt=0)
    tpm: float | None = Field(default=None, gt=0)
    timeout: float | None = Field(default=None, gt=0)
    max_retries: int = Field(default=6, ge=0)
    retry_backoff: float = Field(default=1.0, ge=0)  # first backoff in seconds; doubles per retry
    max_cost: float | None = Field(default=None, ge=0)
    prices: Path | None = None
    dry_run: bool = False
    temperature: float | None = 0.0  # respondent; recorded with every call
    max_tokens: int = Field(default=512, ge=1)  # respondent
    judge_temperature: float | None = None  # None: the judge prompt set's own (0 by default)
    judge_batch: bool = False  # judge through the provider's batch API (half price, asynchronous)
    batch_poll: float = Field(default=30.0, gt=0)  # seconds between batch status polls
    judge_check: int | None = Field(default=None, ge=1)  # scenarios of the judge self-test run first

    @field_validator("models")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    def identity(self) -> dict[str, Any]:
        """The fields whose change changes results: a run dir refuses to resume with different ones."""
        return {
            "models": sorted(self.models),
            "templates": self.templates,
            "tier": self.tier,
            "limit": self.limit,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def stored(self) -> dict[str, Any]:
        """The configuration as recorded in the store: JSON-safe, no secret (keys come from the environment)."""
        return self.model_dump(mode="json", exclude={"run_dir", "runs_root", "force_new", "dry_run"})


class EvalOptions(TypedDict, total=False):
    """The keyword options of `cobe.run_eval`: every EvalConfig field but models, judge and data."""

    judge_prompts: str
    templates: list[str] | None
    tier: int | None
    limit: int | None
    run_dir: str | Path | None
    runs_root: str | Path
    force_new: bool
    concurrency: int | None
    rpm: float | None
    tpm: float | None
    timeout: float | None
    max_retries: int
    retry_backoff: float
    max_cost: float | None
    prices: str | Path | None
    dry_run: bool
    temperature: float | None
    max_tokens: int
    judge_temperature: float | None
    judge_batch: bool
    batch_poll: float
    judge_check: int | None


class DryRunEstimate(BaseModel):
    """Calls a command would make (after what the store already holds) and their estimated cost."""

    respondent_calls: int = 0
    judge_calls: int = 0
    respondent_cached: int = 0
    judge_cached: int = 0
    estimated_cost_usd: float | None = 0.0
    unpriced: list[str] = Field(default_factory=list)  # specs with no known price


class RunSummary(BaseModel):
    """The outcome of a command: where its run lives, its state and the per-model summary."""

    run_dir: Path
    run_id: str | None = None
    state: str
    models: list[str] = Field(default_factory=list)
    judge: str | None = None
    judge_prompts: str | None = None
    summary: dict[str, Any] = Field(default_factory=dict)  # as written to summary.json
    stats: dict[str, Any] = Field(default_factory=dict)  # this command's calls, tokens, cost
    wall_s: float = 0.0
    notices: list[str] = Field(default_factory=list)
    dry_run: DryRunEstimate | None = None
