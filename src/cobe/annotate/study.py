"""Rating studies: sample responses from a run, create the study file, issue and rotate private links."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from cobe.annotate.store import Principal, StudyStore, study_file
from cobe.core.errors import InputError
from cobe.core.jsonfile import iter_jsonl
from cobe.core.results import ResultRow
from cobe.web.tokens import new_token

RESULTS_FILE = "results.jsonl"
DEFAULT_BASE_URL = "http://127.0.0.1:8765"


@dataclass
class StudyLinks:
    """A study's location and freshly issued private links (shown once; only hashes are kept)."""

    path: Path
    raters: dict[str, str] = field(default_factory=dict)  # rater name → link
    admin: str | None = None
    n_items: int = 0
    per_model: dict[str, int] = field(default_factory=dict)


def item_key(row: ResultRow) -> str:
    """The stable id of a run row across files: 'scenario_id:template:model'."""
    return f"{row.scenario_id}:{row.template}:{row.model}"


def read_results(run_dir: str | Path) -> list[ResultRow]:
    """The rows of a run's results.jsonl (a directory or the file itself)."""
    path = Path(run_dir)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise InputError(f"{path}: no results file (expected a run directory holding {RESULTS_FILE})")
    rows = []
    for number, data in iter_jsonl(path, f"a {RESULTS_FILE} of result rows"):
        try:
            rows.append(ResultRow.model_validate(data))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "row"
            raise InputError(f"{path}:{number}: field {where}: {first['msg']}") from exc
    return rows


def rateable(rows: list[ResultRow]) -> list[ResultRow]:
    """Rows with a response to rate (errored or empty generations have nothing to judge); of a run with several
    epochs, the first epoch's, so each item is rated once and keeps its key."""
    return [
        row for row in rows if row.response and row.response.strip() and row.response_error is None and row.epoch == 1
    ]


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Proportional allocation of n over strata by largest remainder; ties go to the larger, then the name."""
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    exact = {name: n * size / total for name, size in sizes.items()}
    counts = {name: int(value) for name, value in exact.items()}
    order = sorted(sizes, key=lambda name: (-(exact[name] - counts[name]), -sizes[name], name))
    for name in order[: n - sum(counts.values())]:
        counts[name] += 1
    return counts


#: `models` of `create_study` that samples every model of the run, stratified
ALL_MODELS = "all"


def restrict(
    rows: list[ResultRow], models: Sequence[str] | Literal["all"] = (), tier: int | None = None
) -> list[ResultRow]:
    """The rows of these models and this prompt tier (all when None); InputError when none is left.

    No model named is fine for a run of one model; a run of several needs them named, or `"all"`:
    the paper's study (App. D.4.1) rates one model's responses, so mixing models must be asked for.
    """
    known_models = sorted({row.model for row in rows})
    if models == ALL_MODELS:
        models = ()
    elif not models and len(known_models) > 1:
        raise InputError(
            f"the run holds {len(known_models)} models ({', '.join(known_models)}); the paper's study rates one "
            "model's responses: choose one with --model, or give --models all to sample every model, stratified"
        )
    unknown = sorted(set(models) - set(known_models))
    if unknown:
        raise InputError(
            f"--model {', '.join(unknown)}: not in the run (models in the run: {', '.join(known_models) or 'none'})"
        )
    kept = [row for row in rows if (not models or row.model in models)]
    if tier is not None:
        tiers = sorted({row.tier for row in kept})
        kept = [row for row in kept if row.tier == tier]
        if not kept:
            have = ", ".join(str(t) for t in tiers) or "none"
            raise InputError(
                f"--tier {tier}: the run has no responses of that tier for the chosen models (tiers: {have})"
            )
    return kept


def sample_rows(rows: list[ResultRow], n: int, seed: int) -> list[ResultRow]:
    """A seeded sample of n rateable rows, stratified by model with proportional allocation."""
    if n < 1:
        raise InputError(f"--n {n}: expected at least 1 item")
    strata: dict[str, list[ResultRow]] = defaultdict(list)
    for row in sorted(rateable(rows), key=item_key):  # sorted: the sample never depends on file order
        strata[row.model].append(row)
    if not strata:
        raise InputError("the run has no responses to rate (every row is empty or errored)")
    counts = allocate({model: len(group) for model, group in strata.items()}, n)
    chosen: list[ResultRow] = []
    for model in sorted(strata):
        rng = random.Random(f"cobe-sample:{seed}:{model}")
        chosen.extend(rng.sample(strata[model], counts[model]))
    random.Random(f"cobe-items:{seed}").shuffle(chosen)  # item ids reveal neither model nor order
    return chosen


def rater_order(item_ids: list[int], seed: int, rater_index: int) -> list[int]:
    """The rater's own seeded shuffle of the study's items."""
    order = list(item_ids)
    random.Random(f"cobe-order:{seed}:{rater_index}").shuffle(order)
    return order


def rater_link(base_url: str, token: str) -> str:
    """A rater's private link (the token travels in the path once, then becomes a cookie)."""
    return f"{base_url.rstrip('/')}/r/{token}"


def admin_link(base_url: str, token: str) -> str:
    """The admin's private link."""
    return f"{base_url.rstrip('/')}/a/{token}"


# run directory names usually carry model names, and raters must stay blind to the model
DEFAULT_TITLE = "CoBe rating study"


def create_study(
    run_dir: str | Path,
    out_dir: str | Path | None = None,
    *,
    n: int = 250,
    seed: int = 0,
    raters: int = 3,
    base_url: str = DEFAULT_BASE_URL,
    title: str = DEFAULT_TITLE,
    models: Sequence[str] | Literal["all"] = (),
    tier: int | None = None,
) -> StudyLinks:
    """Sample a run's responses into a new study; every rater rates every item in their own order.

    `models` and `tier` restrict what is sampled from; a run of several models needs `models` named,
    or `"all"` for every model, stratified. The paper's study (App. D.4.1) is 250 tier-1 responses
    of one model rated by three raters: `models=[spec], tier=1, n=250, raters=3`.
    """
    if raters < 1:
        raise InputError(f"--raters {raters}: expected at least 1 rater")
    run_dir = Path(run_dir)
    rows = sample_rows(restrict(read_results(run_dir), models, tier), n, seed)
    out = Path(out_dir) if out_dir is not None else (run_dir if run_dir.is_dir() else run_dir.parent) / "study"
    store = StudyStore(out, create=True)
    store.set_meta(
        {
            "run_dir": str(run_dir.resolve()),
            "run_id": rows[0].run_id if rows else "",  # with each item's texts: what `check_study_of_run` matches
            "seed": str(seed),
            "n_requested": str(n),
            "models": ",".join(models) if models != ALL_MODELS else ALL_MODELS,
            "tier": "" if tier is None else str(tier),
            "base_url": base_url,
            "title": title,
        }
    )
    store.secret()
    store.add_items(
        [
            {
                "key": item_key(row),
                "scenario_id": row.scenario_id,
                "template": row.template,
                "model": row.model,
                "story": row.story,
                "query": row.query,
                "response": row.response or "",
                "row_json": row.model_dump_json(),
            }
            for row in rows
        ]
    )
    item_ids = [item.id for item in store.items()]
    links = StudyLinks(path=store.path, n_items=len(item_ids))
    for row in rows:
        links.per_model[row.model] = links.per_model.get(row.model, 0) + 1
    for index in range(1, raters + 1):
        token = new_token()
        store.add_principal(f"rater-{index}", "rater", token, rater_order(item_ids, seed, index))
        links.raters[f"rater-{index}"] = rater_link(base_url, token)
    token = new_token()
    store.add_principal("admin", "admin", token)
    links.admin = admin_link(base_url, token)
    return links


def _people(store: StudyStore, who: list[str] | None) -> list[Principal]:
    """The named raters/admin (everyone when `who` is empty); InputError naming any unknown name."""
    people = store.principals()
    names = {p.name for p in people}
    unknown = sorted(set(who or []) - names)
    if unknown:
        raise InputError(
            f"no such rater or admin in this study: {', '.join(unknown)} (known: {', '.join(sorted(names))})"
        )
    return [p for p in people if not who or p.name in who]


def rotate_links(study: str | Path, *, who: list[str] | None = None, base_url: str | None = None) -> StudyLinks:
    """Issue new tokens (all, or the named raters/admin); old links and their sessions stop working."""
    store = StudyStore(study)
    base = base_url or store.meta("base_url") or DEFAULT_BASE_URL
    links = StudyLinks(path=store.path, n_items=len(store.items()))
    for person in _people(store, who):
        token = store.rotate_link(person.id)
        if person.role == "admin":
            links.admin = admin_link(base, token)
        else:
            links.raters[person.name] = rater_link(base, token)
    return links


def revoke_links(study: str | Path, *, who: list[str] | None = None) -> list[str]:
    """Disable the links of everyone (or the named raters/admin) and end their sessions; returns their names."""
    store = StudyStore(study)
    people = _people(store, who)
    for person in people:
        store.revoke_link(person.id)
    return [p.name for p in people]


def open_study(study: str | Path) -> StudyStore:
    """An existing study, from its directory or file."""
    return StudyStore(study_file(study))
