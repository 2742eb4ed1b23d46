"""What a command asks for (`EvalConfig`) and what it reports back (`RunSummary`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cobe.calls.executor import parse_executor
from cobe.core.errors import InputError
from cobe.dataset.sample import split_ids
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS
from cobe.judge.specs import split_specs
from cobe.models.base import MaxTokens, ReasoningEffort, Temperature

#: the embedded model used when no model and no judge are given; its scores are for smoke tests only
EMBEDDED_MODEL = "local/gemma-3-270m"
SMOKE_NOTICE = (
    f"{EMBEDDED_MODEL} is a 270M-parameter smoke-test model: its calls are real, its scores mean nothing; "
    "the judge self-test (--judge-check) measures how far its verdicts can be trusted."
)
#: scenarios of the judge self-test that `cobe eval` runs by default when the embedded model judges
EMBEDDED_JUDGE_CHECK = 10


# pacing, timeouts and money: finite (inf and nan parse as floats), and positive where zero means nothing
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class EvalConfig(BaseModel):
    """One evaluation: data, respondents, judge and how to call them. Secrets never live here."""

    model_config = ConfigDict(extra="forbid")

    data: str = "builtin:starter"
    models: list[str] = Field(default_factory=list)
    judge: str | list[str] | None = None  # one judge spec, or a panel's (each check: the judges' strict majority)
    judge_prompts: str = DEFAULT_JUDGE_PROMPTS
    templates: list[str] | None = None
    # every template of these tiers; one tier stays a plain number, so a run made before tiers accumulated resumes
    tier: int | list[int] | None = None
    ids: list[str] | None = None  # only these scenarios (inspect's --sample-id), in dataset order
    limit: int | None = Field(default=None, ge=1)
    sample: int | None = Field(default=None, ge=1)  # draw this many scenarios (the paper's ablation: 500)
    seed: int = 0  # the seed of --sample: the same seed and data give the same scenarios
    run_dir: Path | None = None
    runs_root: Path = Path("runs")
    force_new: bool = False
    concurrency: int | None = Field(default=None, ge=1, le=100_000)
    rpm: Positive | None = None
    tpm: Positive | None = None
    timeout: Positive | None = None
    max_retries: int = Field(default=6, ge=0, le=1000)
    retry_backoff: NonNegative = 1.0  # first backoff in seconds; doubles per retry
    max_retry_wait: NonNegative = 120.0  # the longest Retry-After waited; past it the call is given up
    max_cost: NonNegative | None = None
    prices: Path | None = None
    dry_run: bool = False
    temperature: Temperature | None = 0.0  # respondent; recorded with every call
    # answers per model and item (inspect's --epochs): each epoch a call of its own, judged and stored apart
    epochs: int = Field(default=1, ge=1, le=1000)
    # respondent thinking / reasoning effort; None: App. D.1 per model (thinking on wherever a model has it, at
    # the provider's default or "medium"; its row in cobe.models.capabilities says which); "none": off
    reasoning_effort: ReasoningEffort | None = None
    # respondent token limit; None: 512, or room for thinking plus the answer for a model that thinks
    max_tokens: MaxTokens | None = None
    # per-model arguments, SPEC:FIELD=VALUE (cobe.models.model_args), and capability rows laid over the table
    model_args: list[str] = Field(default_factory=list)
    models_file: Path | None = None
    judge_temperature: Temperature | None = None  # None: the judge prompt set's own (0 by default)
    judge_batch: bool = False  # judge through the provider's batch API (half price, asynchronous)
    batch_poll: Positive = 30.0  # seconds between batch status polls
    judge_samples: int = Field(default=1, ge=1)  # asks per judge and check; the verdict is their majority
    # the samples are repeats (--repeats): asked at the judge's own temperature, 0 included, not moved to 1.0
    judge_repeats: bool = False
    judge_check: int | None = Field(default=None, ge=1)  # scenarios of the judge self-test run first
    preflight: bool = True  # first one minimal call per distinct (API model, settings), before money is spent
    # ask again the stored calls that gave nothing usable (an empty reply, a judge's without T or F), rows kept
    reask_unscored: bool = False
    # where the calls run: local (here), ray (a private Ray instance) or ray:ADDRESS (a cluster); docs/SCALE.md
    executor: str = "local"

    def __init__(self, **data: Any) -> None:
        """Validate; a value outside what providers accept is an InputError naming the option, as the CLI shows it."""
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise InputError(option_problem(exc)) from None

    @field_validator("judge", mode="before")
    @classmethod
    def _judges(cls, value: object) -> object:
        # "a,b", ["a", "b"] and ["a,b"] all name the panel a + b; one judge stays a plain spec
        if value is None or value == [] or value == "":
            return None
        if not isinstance(value, (str, list, tuple)):
            return value  # pydantic names the wrong type
        specs = split_specs([value] if isinstance(value, str) else [str(v) for v in value])
        return specs[0] if len(specs) == 1 else specs

    @property
    def judge_specs(self) -> list[str]:
        """The judge specs: one, several (a panel), or none."""
        if self.judge is None:
            return []
        return [self.judge] if isinstance(self.judge, str) else list(self.judge)

    @field_validator("tier", mode="before")
    @classmethod
    def _tiers(cls, value: object) -> object:
        # 2, [2] and (2,) all name tier 2; several sorted, each once: --tier 1 --tier 2 is Table 7's run
        if not isinstance(value, (list, tuple)):
            return value
        tiers = sorted(dict.fromkeys(value))
        return None if not tiers else tiers[0] if len(tiers) == 1 else tiers

    @property
    def tiers(self) -> list[int]:
        """The tiers whose every template the run adds: none, one or several."""
        if self.tier is None:
            return []
        return [self.tier] if isinstance(self.tier, int) else list(self.tier)

    @field_validator("executor")
    @classmethod
    def _executor(cls, value: str) -> str:
        return str(parse_executor(value))

    @field_validator("models")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    @field_validator("ids", mode="before")
    @classmethod
    def _ids(cls, value: object) -> object:
        # "a,b", ["a", "b"] and ["a,b"] all name the scenarios a and b; none given is no selection
        if value is None or isinstance(value, bool) or not isinstance(value, (str, list, tuple)):
            return value
        ids = split_ids([value] if isinstance(value, str) else [str(v) for v in value])
        if not ids:
            raise ValueError("expected scenario ids separated by commas, e.g. 115v3,317v3")
        return ids

    @field_validator("reasoning_effort", mode="before")
    @classmethod
    def _provider_default(cls, value: object) -> object:
        # "default" (as leaving it out) asks for App. D.1's level per model
        return None if value == "default" else value

    @field_validator("model_args", mode="before")
    @classmethod
    def _model_args(cls, value: object) -> object:
        return [value] if isinstance(value, str) else list(value) if isinstance(value, tuple) else value

    def identity(self) -> dict[str, Any]:
        """The fields whose change changes results: a run dir refuses to resume with different ones.

        --sample and --seed are not listed: the scenarios they draw are, through the data fingerprint; nor are
        the respondent settings, which differ per model: the plan records each model's (`model_settings`).
        """
        return {
            "models": sorted(self.models),
            "templates": self.templates,
            "tier": self.tier,
            "limit": self.limit,
            # fewer epochs would drop the stored later ones from the exports, more would mix two runs' sizes
            "epochs": self.epochs,
        }

    def stored(self) -> dict[str, Any]:
        """The configuration as recorded in the store: JSON-safe, no secret (keys come from the environment)."""
        # where the calls ran is not what they were: a run resumes under either executor
        return self.model_dump(
            mode="json",
            exclude={"run_dir", "runs_root", "force_new", "dry_run", "preflight", "executor", "reask_unscored"},
        )


def option_problem(exc: ValidationError) -> str:
    """The first problem of a ValidationError as one line: `--max-tokens 0: Input should be ...`."""
    first = exc.errors()[0]
    name = "--" + str(first["loc"][0]).replace("_", "-") if first["loc"] else "options"
    given = first.get("input")
    shown = f" {str(given)[:60]}" if isinstance(given, (int, float, str)) and not isinstance(given, bool) else ""
    return f"{name}{shown}: {first['msg']}"


class EvalOptions(TypedDict, total=False):
    """The keyword options of `cobe.run_eval`: every EvalConfig field but models, judge and data."""

    judge_prompts: str
    templates: list[str] | None
    tier: int | list[int] | None
    ids: list[str] | None
    limit: int | None
    sample: int | None
    seed: int
    run_dir: str | Path | None
    runs_root: str | Path
    force_new: bool
    concurrency: int | None
    rpm: float | None
    tpm: float | None
    timeout: float | None
    max_retries: int
    retry_backoff: float
    max_retry_wait: float
    max_cost: float | None
    prices: str | Path | None
    dry_run: bool
    temperature: float | None
    epochs: int
    reasoning_effort: ReasoningEffort | None
    max_tokens: int | None
    model_args: list[str]
    models_file: str | Path | None
    judge_temperature: float | None
    judge_batch: bool
    batch_poll: float
    judge_check: int | None
    judge_samples: int
    judge_repeats: bool
    preflight: bool
    reask_unscored: bool
    executor: str


class DryRunEstimate(BaseModel):
    """Calls a command would make (after what the store already holds) and their estimated cost."""

    respondent_calls: int = 0
    judge_calls: int = 0
    respondent_cached: int = 0
    judge_cached: int = 0
    estimated_cost_usd: float | None = 0.0
    unpriced: list[str] = Field(default_factory=list)  # specs with no known price
    cached_input_tokens: int = 0  # estimated input tokens read from a prompt cache (priced at its rate)


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
    items: int = 0  # model × scenario × template (× epoch) items of the run
    unfinished: int = 0  # items with no response, or a check not judged, in the store (errors included)
    failures: dict[str, int] = Field(default_factory=dict)  # error → failed calls of the run that ended with it
    replaced: str | None = None  # the verdict set the run showed before this command made its own current
