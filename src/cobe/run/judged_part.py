"""The part of a stored run a re-judge covers: `cobe judge RUN --ids … --ids-file … --sample N --seed S --limit N
--model SPEC`, chosen as `cobe eval` chooses scenarios (the ids named, then N of them drawn with the seed, then
the first N), and of those the responses of the models named.

A verdict set judged on a part records it (`verdict_sets.part`, migration 0011), so `cobe runs RUN
--verdict-sets`, the exports and every report say which part its figures cover; `cobe judges agree` and
`cobe compare` count only the responses both sides judged, and say how many those are.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from cobe.core.errors import InputError
from cobe.dataset.sample import sample_positions
from cobe.judge.judge_plan import JudgeRef
from cobe.run.items import Item
from cobe.store.rows import VerdictSetRow
from cobe.store.store import Store


@dataclass(frozen=True)
class JudgedPart:
    """Which scenarios and models a re-judge covers; every field None covers the whole run."""

    ids: tuple[str, ...] | None = None
    sample: int | None = None
    seed: int = 0
    limit: int | None = None
    models: tuple[str, ...] | None = None

    @property
    def whole(self) -> bool:
        """Whether the part is the whole run."""
        return self.ids is None and self.sample is None and self.limit is None and self.models is None

    def described(self) -> str:
        """The part in the words of the flags that chose it, e.g. `--sample 45 --seed 0, --model gpt`."""
        said = []
        if self.ids is not None:
            shown = ",".join(self.ids[:5]) + (f",… ({len(self.ids)} ids)" if len(self.ids) > 5 else "")
            said.append(f"--ids {shown}")
        if self.sample is not None:
            said.append(f"--sample {self.sample} --seed {self.seed}")
        if self.limit is not None:
            said.append(f"--limit {self.limit}")
        if self.models is not None:
            said.append(" ".join(f"--model {m}" for m in self.models))
        return ", ".join(said) or "the whole run"

    def to_json(self) -> str | None:
        """The part as the store keeps it; None for the whole run."""
        if self.whole:
            return None
        return json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()})

    @classmethod
    def from_json(cls, text: str | None) -> JudgedPart:
        """A part as the store kept it (the whole run for none, or for text it cannot read)."""
        try:
            data = json.loads(text) if text else {}
        except ValueError:
            return cls()
        if not isinstance(data, dict):
            return cls()
        listed = {k: tuple(data[k]) if isinstance(data.get(k), list) else None for k in ("ids", "models")}
        return cls(
            ids=listed["ids"],
            sample=data.get("sample") if isinstance(data.get("sample"), int) else None,
            seed=int(data["seed"]) if isinstance(data.get("seed"), int) else 0,
            limit=data.get("limit") if isinstance(data.get("limit"), int) else None,
            models=listed["models"],
        )

    def select(self, items: Sequence[Item], run_dir: str) -> list[Item]:
        """The items of the part, in the run's order; InputError naming an id or a model the run does not hold."""
        if self.whole:
            return list(items)
        keys: dict[str, tuple[int, int]] = {}
        for item in items:  # each scenario read once: an item reads its scenario from the spool when asked
            if item.scenario_id not in keys:
                scenario = item.scenario
                keys[item.scenario_id] = (scenario.core_id, scenario.variation)
        scenarios = list(keys)
        chosen = scenarios
        if self.ids is not None:
            unknown = [i for i in self.ids if i not in keys]
            if unknown:
                raise InputError(f"--ids: {', '.join(unknown[:5])} not in {run_dir}; it holds {len(keys)} scenarios")
            named = set(self.ids)
            chosen = [s for s in scenarios if s in named]
        if self.sample is not None:
            drawn = sample_positions([keys[s] for s in chosen], self.sample, self.seed)
            chosen = [chosen[p] for p in drawn]
        if self.limit is not None:
            chosen = chosen[: self.limit]
        models = {item.model for item in items}
        if self.models is not None and set(self.models) - models:
            missing = ", ".join(sorted(set(self.models) - models))
            raise InputError(f"--model: {missing} not in {run_dir}; it holds {', '.join(sorted(models))}")
        wanted = set(chosen)
        return [i for i in items if i.scenario_id in wanted and (self.models is None or i.model in self.models)]


def part_of(options: dict[str, object]) -> JudgedPart:
    """Take the part's options (`ids`, `sample`, `seed`, `limit`, `models`) out of a re-judge's options."""
    ids, models = options.pop("ids", None), options.pop("models", None)
    sample, limit = options.pop("sample", None), options.pop("limit", None)
    seed = options.pop("seed", None)
    return JudgedPart(
        ids=tuple(str(i) for i in ids) if isinstance(ids, (list, tuple)) and ids else None,
        sample=sample if isinstance(sample, int) else None,
        seed=seed if isinstance(seed, int) else 0,
        limit=limit if isinstance(limit, int) else None,
        models=tuple(str(m) for m in models) if isinstance(models, (list, tuple)) and models else None,
    )


def shown_part(store: Store, run_id: str, ref: JudgeRef | None) -> JudgedPart:
    """The part of the run the verdict set `ref` was last asked to judge (the whole run where none was recorded)."""
    if ref is None:
        return JudgedPart()
    for row in store.verdict_sets(run_id):
        if (row.judge, row.identity) == (ref.spec, ref.identity):
            return stored_part(row)
    return JudgedPart()


def stored_part(row: VerdictSetRow) -> JudgedPart:
    """The part a `verdict_sets` row records (a store made before the column: the whole run)."""
    return JudgedPart.from_json(row.part)
