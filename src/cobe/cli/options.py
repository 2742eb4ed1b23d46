"""The options several commands take, each declared once: its flags, environment variable, type, default and help.

A command applies one as declared (`@CONCURRENCY`) or as it takes it (`@CONCURRENCY.but(env=False,
default=4)`): `but` may drop the environment variable, rename the parameter or change the default or
whether it is required, never the help, so a flag reads the same in every `--help`. Groups
(`RUN_OPTIONS`, `PACING`, …) apply several in the order `--help` lists them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from cobe.cli import json_end
from cobe.cli.once import Once, takes_one
from cobe.cli.types import ALPHA, RESAMPLES
from cobe.cli.types import SEED as BOOTSTRAP_SEED_TYPE
from cobe.models.reasoning import DEFAULT_MAX_TOKENS, EFFORTS, REASONING_MAX_TOKENS

#: cobe.judge.prompt_sets.DEFAULT_JUDGE_PROMPTS, spelled out: importing cobe.judge here loaded every judge module
#: into every command, a second of each `cobe plan` on a busy machine (tests/cli keeps the two equal)
DEFAULT_JUDGE_PROMPTS = "paper"

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

#: cobe.curate.project.STATUSES, written out: importing cobe.curate loads the whole curation package (its
#: checks, audit and release) into every command, `cobe eval` included (tests/cli keeps the two equal)
CURATE_STATUSES = ("candidate", "core", "variation", "approved", "rejected", "released")

DEFAULT_DATA = "builtin:starter"
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765
DEFAULT_BASE_URL = f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"
POSITIVE = click.FloatRange(min=0, min_open=True)


@dataclass(frozen=True)
class SharedOption:
    """One option as every command that takes it declares it."""

    flags: tuple[str, ...]
    dest: str | None  # the parameter's name where it is not the flag's
    env: str | None
    settings: dict[str, Any] = field(default_factory=dict)

    def __call__(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """Apply the option as declared."""
        return self.but()(f)

    def but(self, *, env: bool = True, dest: str | None = None, **changes: Any) -> Decorator:
        """The option as one command takes it: without its environment variable, under another parameter
        name, or with another default, shown default or requirement; its help never changes."""
        if "help" in changes:
            raise TypeError(f"{self.flags[0]}: its help is declared once, in cobe.cli.options")
        envvar = self.env if env else None
        name = dest or self.dest
        settings = self.settings | changes
        if takes_one(settings, self.flags):  # a repeat is refused, never silently the last one
            settings.setdefault("cls", Once)
        return click.option(
            *self.flags,
            *([name] if name else []),
            envvar=envvar,
            show_envvar=envvar is not None,
            **settings,
        )


def option(*names: str, env: str | None = None, **settings: Any) -> SharedOption:
    """Declare an option: flags (and a parameter name), its COBE_* variable, and click's settings; a default
    other than None is shown in --help unless `show_default` says otherwise."""
    flags = tuple(name for name in names if name.startswith("-"))
    dests = [name for name in names if not name.startswith("-")]
    if settings.get("default") is not None:
        settings.setdefault("show_default", True)  # a default worth having is worth showing
    return SharedOption(flags, dests[0] if dests else None, env, dict(settings))


def together(*options: Decorator) -> Decorator:
    """Several options as one decorator, listed by --help in the order given."""

    def apply(f: Callable[..., Any]) -> Callable[..., Any]:
        for each in reversed(options):
            f = each(f)
        return f

    return apply


def _split(ctx: click.Context, param: click.Parameter, value: tuple[str, ...] | None) -> list[str] | None:
    # --templates A,B --templates D is A, B and D: repeats accumulate, each name once
    if not value:
        return None
    names = list(dict.fromkeys(v.strip() for each in value for v in each.split(",") if v.strip()))
    if not names:
        raise click.BadParameter("expected template names separated by commas, e.g. A,B,C")
    return names


# ---- what a run asks, of which scenarios, where it is kept ------------------------------------------
MODEL = option(
    "--model",
    "-m",
    "models",
    env="COBE_MODEL",
    multiple=True,
    metavar="SPEC",
    help="Respondent model spec (repeatable), e.g. openai/gpt-5.4, openai-api/vllm/NAME, local/gemma-3-270m.",
)
DATA = option(
    "--data",
    env="COBE_DATA",
    default=DEFAULT_DATA,
    metavar="SOURCE",
    help="Dataset: a file in any official shape, builtin:NAME or hf:ORG/NAME.",
)
TEMPLATES = option(
    "--templates",
    env="COBE_TEMPLATES",
    callback=_split,
    multiple=True,
    metavar="A,B,C",
    help="Prompt templates to use (default A,B,C); repeats add to each other.",
)
TIER = option(
    "--tier",
    "tier",
    env="COBE_TIER",
    type=click.IntRange(1, 4),
    multiple=True,
    help="Add every template of a prompt tier (1-4); repeat it for several: --tier 1 --tier 2 --tier 3 --tier 4 "
    "is the paper's Table 7 in one run.",
)
LIMIT = option("--limit", env="COBE_LIMIT", type=click.IntRange(min=1), help="Use only the first N scenarios.")
IDS = option(
    "--ids",
    env="COBE_IDS",
    multiple=True,
    metavar="ID,ID",
    help="Only these scenarios, by id, e.g. 115v3,317v3 (inspect: --sample-id); repeats add up; --sample and "
    "--limit then choose among them.",
)
IDS_FILE = option(
    "--ids-file",
    env="COBE_IDS_FILE",
    type=click.Path(path_type=Path, dir_okay=False),
    multiple=True,
    metavar="FILE",
    help="Only the scenarios a file lists, one id per line (# starts a comment); adds to --ids, and repeats add.",
)
EPOCHS = option(
    "--epochs",
    env="COBE_EPOCHS",
    type=click.IntRange(1, 1000),
    default=1,
    metavar="K",
    help="Ask each model K times per item (inspect: --epochs), each answer a call of its own, judged and kept "
    "per epoch; needs each model's temperature above 0 (--temperature, or its -M SPEC:temperature=T). Accuracy is the mean over epochs; reports show each epoch "
    "and their spread.",
)
SAMPLE = option(
    "--sample",
    env="COBE_SAMPLE",
    type=click.IntRange(min=1),
    metavar="N",
    help="Draw N scenarios at random with --seed, reproducibly (the paper's tier ablation: 500).",
)
SEED = option(
    "--seed",
    env="COBE_SEED",
    type=int,
    default=0,
    help="Seed of the command's random draw (--sample's scenarios, a study's items and order, a split): "
    "the same seed and input always draw the same.",
)
RUN_DIR = option(
    "--run-dir",
    env="COBE_RUN_DIR",
    type=click.Path(path_type=Path, file_okay=False),
    help="Run directory (default: runs/<models>__<data>, so repeating a command resumes it).",
)
RUNS_ROOT = option(
    "--runs-root",
    env="COBE_RUNS_ROOT",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("runs"),
    help="Where default run directories go.",
)
FORCE_NEW = option(
    "--force-new",
    env="COBE_FORCE_NEW",
    is_flag=True,
    help="Start a new run in a run directory that holds a different evaluation.",
)

# ---- how calls are paced and paid for -----------------------------------------------------------------
CONCURRENCY = option(
    "--concurrency",
    env="COBE_CONCURRENCY",
    type=click.IntRange(min=1),
    show_default="the provider's own",
    help="Parallel requests per provider at most; a provider answering 429, or whose calls time out queued behind "
    "others, gets fewer until its calls succeed again. A server that says how many calls it serves at once (a "
    "llama.cpp server's slots) starts there, and without this flag never gets more.",
)
RPM = option(
    "--rpm",
    env="COBE_RPM",
    type=POSITIVE,
    help="Requests per minute per provider: a hard cap, whatever the provider answers.",
)
TPM = option("--tpm", env="COBE_TPM", type=POSITIVE, help="Tokens per minute per provider: a hard cap.")
TIMEOUT = option(
    "--timeout",
    env="COBE_TIMEOUT",
    type=POSITIVE,
    help="Seconds per call attempt (an API client's own limit, 120 s, gives way to it); an attempt that runs out "
    "is retried, and lowers the provider's parallel requests as a 429 does.",
)
MAX_RETRIES = option(
    "--max-retries",
    env="COBE_MAX_RETRIES",
    type=click.IntRange(min=0),
    default=6,
    help="Retries of a call on 429, 5xx, timeouts and connection errors.",
)
MAX_RETRY_WAIT = option(
    "--max-retry-wait",
    env="COBE_MAX_RETRY_WAIT",
    type=float,
    default=120.0,
    metavar="SECONDS",
    help="Longest wait a server's Retry-After may ask for; past it the call is recorded as rate-limited "
    "and redone when the command runs again.",
)
MAX_COST = option(
    "--max-cost",
    env="COBE_MAX_COST",
    type=click.FloatRange(min=0),
    metavar="USD",
    help="Stop cleanly before this command would spend more (resumable).",
)
CALL_STORE = option(
    "--run-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep the calls in this run directory's store, so asking again costs nothing [default: a folder of the "
    "command's own under $XDG_CACHE_HOME/cobe].",
)
PRICES = option(
    "--prices",
    env="COBE_PRICES",
    type=click.Path(path_type=Path, dir_okay=False),
    help="YAML of USD per million tokens, laid over the bundled estimates.",
)
EXECUTOR = option(
    "--executor",
    env="COBE_EXECUTOR",
    default="local",
    metavar="local|ray[:ADDRESS]",
    help="Where the model calls run: here, or on Ray (`ray`: a private Ray instance on this machine; "
    "`ray:ADDRESS`: the cluster there, e.g. ray:auto). This process stays the one writer of the run's store; "
    "see docs/SCALE.md.",
)
DRY_RUN = option(
    "--dry-run",
    env="COBE_DRY_RUN",
    is_flag=True,
    help="Count calls and estimate cost (judge prompts' constant heads at the prompt-cache rate); call nothing.",
)
PREFLIGHT = option(
    "--preflight/--no-preflight",
    env="COBE_PREFLIGHT",
    default=True,
    help="First send one minimal call per distinct API model and settings, stored and priced like any call: "
    "a model that refuses a setting stops the run there (exit 2) before any item is sent.",
)
REASK_UNSCORED = option(
    "--reask-unscored",
    env="COBE_REASK_UNSCORED",
    is_flag=True,
    help="Ask again the stored calls that gave nothing usable (an empty reply; a judge's reply without T or F), "
    "the preflight's included, once the model or its server is fixed; the earlier answers stay in the store. "
    "Without it a finished call is answered from the store and costs nothing.",
)
QUIET = option(
    "--quiet",
    "-q",
    env="COBE_QUIET",
    is_flag=True,
    help="No progress and no notes: only the final table (inspect: --display none).",
)
VERBOSE = option(
    "--verbose",
    "-v",
    env="COBE_VERBOSE",
    is_flag=True,
    help="Also print each retry, rate-limit wait and refused call as it happens (inspect: --log-level info).",
)

# ---- the respondent's settings ------------------------------------------------------------------------
TEMPERATURE = option(
    "--temperature",
    env="COBE_TEMPERATURE",
    type=float,
    default=None,
    help="Respondent sampling temperature, 0-2 (default 0; a model whose capability row keeps its provider's "
    "default, Gemini 3, is sent none unless this or --model-arg asks one).",
)
REASONING_EFFORT = option(
    "--reasoning-effort",
    env="COBE_REASONING_EFFORT",
    metavar="|".join([*EFFORTS, "default"]),
    help="Respondent thinking / reasoning effort: OpenAI reasoning_effort, Anthropic extended or adaptive "
    "thinking, Gemini's thinking budget or level, each as the model's row in the capability table says it "
    "takes it (a level it lacks: the nearest it takes, named once). 'default' (or leaving it out) is App. D.1: "
    "thinking on wherever a model has it, at the provider's default or medium where a level must be given. "
    "'none' turns thinking off where the model allows it.",
)
MAX_TOKENS = option(
    "--max-tokens",
    env="COBE_MAX_TOKENS",
    type=click.IntRange(min=1),
    help=f"Respondent output token limit, thinking included [default: {DEFAULT_MAX_TOKENS}, or "
    f"{REASONING_MAX_TOKENS} for a model that thinks]. A reply cut off by it is left unscored.",
)
MODEL_ARG = option(
    "--model-arg",
    "-M",
    "model_args",
    env="COBE_MODEL_ARG",
    multiple=True,
    metavar="SPEC:FIELD=VALUE",
    help="A setting for one model (repeatable), respondent or judge: a generation setting (temperature, "
    "max_tokens, reasoning_effort, thinking_budget, top_p, seed) in place of the command's, or a field of its "
    "capability row (api, token_param, efforts, ...; docs/PROVIDERS.md), e.g. "
    "-M openai/gpt-5.4:reasoning_effort=high or -M openai/gpt-5.4:api=responses.",
)
MODELS_FILE = option(
    "--models-file",
    env="COBE_MODELS_FILE",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="YAML",
    help="Capability rows of your own, laid over the bundled table: what a model accepts "
    "(docs/PROVIDERS.md says how to add one).",
)

# ---- the judge ----------------------------------------------------------------------------------------
JUDGE = option(
    "--judge",
    "-j",
    env="COBE_JUDGE",
    multiple=True,
    metavar="SPEC",
    help="Judge model spec, e.g. openai/gpt-5.4. Repeat it (or give a comma list) for a panel: each check's "
    "verdict is the strict majority of the judges with a parseable verdict, a tie unscored.",
)
JUDGE_PROMPTS = option(
    "--judge-prompts",
    env="COBE_JUDGE_PROMPTS",
    default=DEFAULT_JUDGE_PROMPTS,
    metavar="NAME|DIR",
    help="Judge prompt set: a bundled name (paper: shaped like the paper's judge, the story never shown; "
    "contextual: the judge also sees the story) or a directory of prompts (see `cobe prompts show`).",
)
JUDGE_TEMPERATURE = option(
    "--judge-temperature",
    env="COBE_JUDGE_TEMPERATURE",
    type=click.FloatRange(0.0, 2.0),  # what every provider's range holds; below 0 none takes
    help="Judge temperature, 0-2 (default: the prompt set's, 0).",
)
JUDGE_SAMPLES = option(
    "--judge-samples",
    env="COBE_JUDGE_SAMPLES",
    type=click.IntRange(min=1),
    default=1,
    metavar="K",
    help="Ask each judge every check K times, at a temperature above 0 (1.0 unless a judge temperature is "
    "given); its verdict is the majority of the K, a tie unscored.",
)
REPEATS = option(
    "--repeats",
    type=click.IntRange(min=1),
    metavar="K",
    help="Ask each judge check K times, each ask a call of its own, at the judge's own temperature (the prompt "
    "set's, 0 by default, where --judge-samples moves to 1.0): the audit counts how often the K disagree, a "
    "re-judge shows their majority, a tie unscored.",
)
JUDGE_BATCH = option(
    "--judge-batch",
    env="COBE_JUDGE_BATCH",
    is_flag=True,
    help="Judge through the provider's batch API (openai/, openai-api/ and anthropic/ judges): half price, "
    "asynchronous; a killed run resumes waiting on the same batch.",
)
BATCH_POLL = option(
    "--batch-poll",
    env="COBE_BATCH_POLL",
    type=POSITIVE,
    default=30.0,
    metavar="SECONDS",
    help="With --judge-batch: seconds between batch status checks.",
)
REPORT = option(
    "--report/--no-report",
    env="COBE_REPORT",
    default=True,
    help="Also write report.html, tables and figures (skipped when results are unchanged).",
)

# ---- statistics and output ----------------------------------------------------------------------------
RESAMPLES_OPTION = option(
    "--resamples",
    type=RESAMPLES,
    default=1000,
    help="Bootstrap resamples behind the 95% confidence intervals.",
)
BOOTSTRAP_SEED = option("--seed", type=BOOTSTRAP_SEED_TYPE, default=0, help="Seed of the bootstrap.")
ALPHA_OPTION = option("--alpha", type=ALPHA, default=0.05, help="Significance level.")
STUDY = option(
    "--study",
    type=click.Path(exists=True),
    default=None,
    help="The run's rating study, for human-calibrated pass rates [default: RUN/study/ where it exists].",
)
JSON = option(
    "--json",
    "as_json",
    env="COBE_JSON",
    is_flag=True,
    callback=json_end.record,
    help="Print JSON instead of tables or text; every exit, an error's too, prints one JSON object.",
)
ACROSS_JUDGES = option(
    "--across-judges",
    is_flag=True,
    help="Rank runs judged by different judges or prompt sets all the same (refused without it); every table "
    "then says how each run was judged.",
)
ACROSS_DATA = option(
    "--across-data",
    is_flag=True,
    help="Rank runs on different datasets or scenario sets all the same (refused without it); every table then "
    "says what each run was run on.",
)

# ---- the web apps and their private links -------------------------------------------------------------
BASE_URL = option(
    "--base-url",
    default=DEFAULT_BASE_URL,
    help="Where the web app (`serve`) will be reached: the printed private links start with it.",
)
HOST = option("--host", default=DEFAULT_HOST, help="Interface to bind; only this machine by default.")
PORT = option("--port", type=int, default=DEFAULT_PORT, help="Port to listen on.")
ROTATE = option(
    "--rotate", is_flag=True, help="Issue new links (shown once); the old ones and their sessions stop working at once."
)
REVOKE = option("--revoke", is_flag=True, help="Disable the links and end their sessions; --rotate issues new ones.")
WHO = option(
    "--who",
    multiple=True,
    help="Only these people, by name (a study's rater-1 … and admin, a project's reviewers); repeatable. "
    "Default: everyone.",
)

# ---- dataset projects (`cobe curate`) -----------------------------------------------------------------
ITEM_STATUS = option(
    "--status",
    "statuses",
    multiple=True,
    type=click.Choice(CURATE_STATUSES),
    help="Only items at this stage (repeatable): candidate (imported, not yet promoted), core, variation, "
    "approved, rejected, released.",
)

# ---- groups -------------------------------------------------------------------------------------------
PACING = together(CONCURRENCY, RPM, TPM, TIMEOUT, MAX_RETRIES, MAX_RETRY_WAIT)
BUDGET = together(MAX_COST, PRICES)
#: what `cobe eval` and `cobe generate` share: data, templates, run directory, pacing, budget, respondent
RUN_OPTIONS = together(
    MODEL,
    DATA,
    TEMPLATES,
    TIER,
    IDS,
    IDS_FILE,
    LIMIT,
    SAMPLE,
    SEED,
    RUN_DIR,
    RUNS_ROOT,
    FORCE_NEW,
    PACING,
    BUDGET,
    EXECUTOR,
    DRY_RUN,
    PREFLIGHT,
    REASK_UNSCORED,
    TEMPERATURE,
    EPOCHS,
    REASONING_EFFORT,
    MAX_TOKENS,
    MODEL_ARG,
    MODELS_FILE,
    QUIET,
    VERBOSE,
)
#: how the judge is asked: `cobe eval` and `cobe judge`
JUDGE_OPTIONS = together(JUDGE_PROMPTS, JUDGE_TEMPERATURE, JUDGE_SAMPLES, JUDGE_BATCH, BATCH_POLL)
#: how bootstrap intervals are drawn: `cobe report`, `cobe compare`, `cobe agreement`
BOOTSTRAP = together(RESAMPLES_OPTION, BOOTSTRAP_SEED)
#: rotating and revoking private links: `cobe annotate links` and `cobe curate links`
LINKS = together(ROTATE, REVOKE, WHO)
