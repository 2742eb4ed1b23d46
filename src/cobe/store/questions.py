"""The counts and sums commands ask of a run's store: its judged verdict sets, its failures, its usage by model.

`Store` answers them (it is a `RunQuestions`); each is one query, its SQL here beside the question it answers.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from cobe.store.rows import JudgedSet, Row, Usage, positional

_MAKE_JUDGED_SET = positional(JudgedSet)


class RunQuestions:
    """Questions about a run that no single row answers, asked of the store's connection `db`, and the two reads
    every typed row of the store is made through (`_rows`, `_row`)."""

    db: sqlite3.Connection

    def _rows(
        self, factory: Callable[[sqlite3.Cursor, tuple[Any, ...]], Row], sql: str, params: Any = ()
    ) -> Iterator[Row]:
        """The rows of one query, each made by `factory` (`rows.positional` or `rows.by_name`)."""
        cursor = self.db.cursor()  # what db.execute makes too: no other cost than the row factory's
        cursor.row_factory = factory
        return cursor.execute(sql, params)

    def _row(self, factory: Callable[[sqlite3.Cursor, tuple[Any, ...]], Row], sql: str, params: Any = ()) -> Row | None:
        """The first row of one query, made by `factory`, or None."""
        return next(self._rows(factory, sql, params), None)

    def response_count(self, run_id: str) -> int:
        """How many responses a run has stored (every epoch, failed ones too)."""
        return int(self.db.execute("SELECT count(*) FROM responses WHERE run_id = ?", (run_id,)).fetchone()[0])

    def judged_sets(self, run_id: str) -> list[JudgedSet]:
        """Every (judge, prompt_set, prompt_fingerprint) with first-ask verdicts in a run: the responses it
        judged (every check answered without a failed call; a published set: its one overall verdict) and when
        it last answered."""
        return list(
            self._rows(
                _MAKE_JUDGED_SET,
                "SELECT judge, prompt_set, prompt_fingerprint, count(*) AS responses, max(last) AS last FROM"
                " (SELECT judge, prompt_set, prompt_fingerprint, response_id, max(created) AS last FROM verdicts"
                "  WHERE run_id = ? AND sample = 0 AND error IS NULL"
                "  GROUP BY judge, prompt_set, prompt_fingerprint, response_id"
                "  HAVING count(*) >= 3 OR (count(*) = 1 AND min(check_name) = 'overall'))"
                " GROUP BY judge, prompt_set, prompt_fingerprint ORDER BY last DESC",
                (run_id,),
            )
        )

    def judge_settings(self, run_id: str, judge: str, prompt_fingerprint: str) -> str | None:
        """The settings (JSON) a judge with a prompt set was last asked with in a run, as stored beside its verdicts."""
        row = self.db.execute(
            "SELECT judge_settings FROM verdicts WHERE run_id = ? AND judge = ? AND prompt_fingerprint = ?"
            " ORDER BY created DESC, id DESC LIMIT 1",
            (run_id, judge, prompt_fingerprint),
        ).fetchone()
        return str(row[0]) if row is not None else None

    def respondent_usage_by_model(self, run_id: str) -> dict[str, Usage]:
        """model → the tokens and cost of a run's stored responses."""
        rows = self.db.execute(
            "SELECT model, sum(input_tokens), sum(output_tokens), sum(cost_usd) FROM responses WHERE run_id = ?"
            " GROUP BY model",
            (run_id,),
        )
        return {model: Usage(i, o, c) for model, i, o, c in rows}

    def judge_usage_by_model(self, run_id: str, judge: str, fingerprint: str) -> dict[str, Usage]:
        """model → the tokens and cost of one judge + prompt set's verdicts on that model's responses (every sample)."""
        rows = self.db.execute(
            "SELECT r.model, sum(v.input_tokens), sum(v.output_tokens), sum(v.cost_usd) FROM verdicts v"
            " JOIN responses r ON r.id = v.response_id WHERE v.run_id = ? AND v.judge = ? AND v.prompt_fingerprint = ?"
            " GROUP BY r.model",
            (run_id, judge, fingerprint),
        )
        return {model: Usage(i, o, c) for model, i, o, c in rows}

    def failures(self, run_id: str, judges: Iterable[tuple[str, str]] = ()) -> dict[str, int]:
        """error → how many of a run's responses, and of its verdicts by `judges` (spec, prompt fingerprint),
        ended with it: the run's failed calls, by what they said."""
        pairs = [value for pair in judges for value in pair]
        wanted = ", ".join("(?, ?)" for _ in range(len(pairs) // 2)) or "(NULL, NULL)"
        rows = self.db.execute(
            "SELECT error, count(*) FROM (SELECT error FROM responses WHERE run_id = ? AND error IS NOT NULL"
            " UNION ALL SELECT error FROM verdicts WHERE run_id = ? AND error IS NOT NULL"
            f" AND (judge, prompt_fingerprint) IN (VALUES {wanted})) GROUP BY error",
            (run_id, run_id, *pairs),
        )
        return {str(error): int(count) for error, count in rows}
