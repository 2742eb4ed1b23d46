"""The SQLite store of a run directory: every call, response and verdict, committed as it finishes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

from cobe.core.clock import now  # the run modules stamp through it, imported from here
from cobe.core.errors import InputError
from cobe.core.reserve import DiskReserve, is_disk_full, makes_room, out_of_space
from cobe.core.secrets import scrub
from cobe.core.sqlite import MEMORY, Migration, connect_read_only, migrations_in, open_database, write_transaction
from cobe.dataset.schema import Scenario
from cobe.store.damage import check_schema, json_object, stored_scenario
from cobe.store.questions import RunQuestions
from cobe.store.rows import (
    BatchRow,
    CallRow,
    NewBatch,
    NewCall,
    NewResponse,
    NewVerdict,
    ResponseRow,
    RunRow,
    VerdictRow,
    VerdictSetRow,
    by_name,
    columns,
    positional,
)

STORE_NAME = "cobe.sqlite"
MIGRATIONS = Path(str(files("cobe.store").joinpath("migrations")))
_PUT_CALL = (
    "INSERT OR REPLACE INTO calls (key, role, spec, request, response, finish_reason, input_tokens, output_tokens,"
    " cached_input_tokens, cache_write_tokens, latency_s, error, attempts, first_token_logprobs, cost_usd, created,"
    " sent, reasoning_tokens) VALUES (:key, :role, :spec, :request, :response, :finish_reason, :input_tokens,"
    " :output_tokens, :cached_input_tokens, :cache_write_tokens, :latency_s, :error, :attempts,"
    " :first_token_logprobs, :cost_usd, :created, :sent, :reasoning_tokens)"
)
#: the columns of a call that hold what a provider said, each scrubbed of keys before it is stored
_PROVIDER_TEXTS = ("response", "error", "finish_reason", "first_token_logprobs")
#: each row's columns named in its fields' order, so the cursor makes the row without a lookup by name
_CALL = f"SELECT {columns(CallRow)} FROM calls"
_RESPONSE = f"SELECT {columns(ResponseRow)} FROM responses"
_VERDICT_COLUMNS = columns(VerdictRow).removesuffix(", temperature")  # the table's; response_verdicts adds it
_VERDICT = f"SELECT {_VERDICT_COLUMNS} FROM verdicts"
_BATCH = f"SELECT {columns(BatchRow)} FROM batches"


def _migrations() -> list[Migration]:
    """The numbered SQL files, in order: (number, name, sql)."""
    return migrations_in(MIGRATIONS)


def _checked(db: sqlite3.Connection, path: Path) -> None:
    """The store's tables as its migrations made them (damage.check_schema), or the connection closed and the
    one line that says which is not."""
    try:
        check_schema(db, path, _migrations())
    except BaseException:
        db.close()
        raise


class Store(RunQuestions):
    """One SQLite file; the event-loop thread is its single writer and each write commits alone (finished calls
    inside `calls_by_turn`: together, once per turn of the event loop)."""

    # inside `calls_by_turn`: the loop whose turn ends the transaction finished calls wait in, and whether one is
    # open; class defaults, so ReadOnlyStore has them too
    _turn_loop: asyncio.AbstractEventLoop | None = None
    _turn_thread: int | None = None  # the loop's thread: a write from any other commits alone
    _turn_open = False
    _turn_rows: list[dict[str, Any]] = []  # noqa: RUF012 - read only: a writing store has a list of its own

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            if str(path) != MEMORY:
                self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{self.path.parent}: cannot create the run directory ({exc.strerror})") from exc
        # an empty, unreadable or damaged file raises UnusableDatabase and is left as it is:
        # SQLite would otherwise make a zero-byte file a fresh store and the run would pay again.
        # Autocommit mode: one statement commits on its own, several go in one write_transaction.
        self.db = open_database(self.path, _migrations(), what="cobe store", create=True, check_same_thread=False)
        _checked(self.db, self.path)
        # a command writing a run directory hands the store its reserve: room for the writes that still
        # have to be made once the disk is full (cobe.core.reserve.makes_room on every write below)
        self.reserve: DiskReserve | None = None
        self.out_of_space = False
        self._batch_open = False  # inside `batch`: each write is a savepoint of the batch's one transaction
        self._turn_rows = []  # the calls in the loop turn's transaction (or a refused one's), until it commits

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Every write made while it is open committed together, in one transaction.

        The Ray executor's answers come back in batches, and a batch's calls, responses and verdicts are
        one commit instead of one each. Each write keeps a savepoint of its own, so a write that fails
        leaves the others. On a full disk the transaction may be lost whole: the batch then raises
        DiskFull, and what it held is redone when the command runs again.
        """
        if self._batch_open:  # nested: the outer batch commits
            yield
            return
        self.commit_turn()
        self.db.execute("BEGIN IMMEDIATE")
        self._batch_open = True
        try:
            yield
        finally:
            self._batch_open = False
            self._end_batch()

    def _end_batch(self) -> None:
        if not self.db.in_transaction:  # a full disk rolled the batch back while it was open
            raise out_of_space(self.path.parent)
        try:
            self.db.execute("COMMIT")
        except (sqlite3.Error, OSError) as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            if not is_disk_full(exc):
                raise
            self.out_of_space = True
            if self.reserve is not None:
                self.reserve.release()  # room for the closing state; the batch itself is redone on resume
            raise out_of_space(self.path.parent) from None

    @contextlib.contextmanager
    def calls_by_turn(self) -> Iterator[None]:
        """While open, on the running event loop: the finished calls (`put_call`) of one turn of the loop are
        committed together, at the end of that turn or with the store's next other write (a call's response, its
        verdicts), whichever comes first, instead of one commit each.

        A turn runs without waiting on anything outside the process, so a finished call is never left
        uncommitted across a wait, and what depends on it (its response or verdict rows, the progress a command
        shows after them) is committed with it or after it: a SIGKILL loses nothing counted as done. The calls
        are kept until their commit holds, so a commit a full disk refuses writes them again once room is made.
        """
        self._turn_loop, self._turn_thread = asyncio.get_running_loop(), threading.get_ident()
        try:
            yield
        finally:
            self._turn_loop = self._turn_thread = None
            self.commit_turn()

    def commit_turn(self) -> None:
        """Commit the finished calls waiting for the end of the loop's turn, if any; on a full disk, once more
        after giving up the store's reserve and its log's room (DiskFull when there is none to give)."""
        if self._turn_open or self._turn_rows:
            self._commit_waiting_calls()

    @makes_room
    def _commit_waiting_calls(self) -> None:
        self._commit_calls()

    def _begin_turn(self) -> None:
        # the turn's transaction, with the calls a refused commit left to write again
        self.db.execute("BEGIN IMMEDIATE")
        self._turn_open = True
        if self._turn_rows:
            self.db.executemany(_PUT_CALL, self._turn_rows)

    def _commit_calls(self) -> None:
        # COMMIT the turn's transaction (begun again if a refused commit ended it); its calls are kept until it holds
        try:
            if not self._turn_open:
                self._begin_turn()
            self.db.execute("COMMIT")
        except BaseException:
            self._turn_open = False
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        self._turn_open = False
        self._turn_rows = []

    def _end_turn(self) -> None:
        # scheduled with call_soon, where an error would only reach the loop's handler: the calls a refused commit
        # leaves are kept, and the next commit (the next turn's, another write's, calls_by_turn's end) writes them
        # again and raises what it meets; a full disk has set `out_of_space` meanwhile, so no new call is sent
        with contextlib.suppress(Exception):
            self.commit_turn()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write's transaction: its own, a savepoint inside the open `batch`, or, where finished calls wait for
        the end of the loop's turn, in their transaction, committing them with it."""
        if self._batch_open:
            with self._savepoint():
                yield
            return
        if self._turn_open and not self.db.in_transaction:  # a full disk rolled it back: its calls are written again
            self._turn_open = False
        if not self._turn_open and not self._turn_rows:
            with write_transaction(self.db):
                yield
            return
        if not self._turn_open:
            self._begin_turn()
        with self._savepoint():
            yield
        self._commit_calls()  # a full disk's error reaches makes_room, which makes room and writes again

    def _put_call_row(self, row: dict[str, Any]) -> None:
        """One finished call's row: in the open batch, in the loop turn's transaction, or committed alone."""
        if self._turn_open and not self.db.in_transaction:  # a full disk rolled it back: its calls are written again
            self._turn_open = False
        # once the disk has filled, each call is committed as it comes (with any a refused commit left), and
        # makes_room makes what room it can for each
        alone = self._turn_loop is None or self._turn_thread != threading.get_ident()
        if self._batch_open or alone or self.out_of_space:
            with self._transaction():
                self.db.execute(_PUT_CALL, row)
            return
        if not self._turn_open:
            self._begin_turn()
            assert self._turn_loop is not None  # not alone: inside calls_by_turn
            self._turn_loop.call_soon(self._end_turn)
        self.db.execute(_PUT_CALL, row)  # one statement: SQLite undoes a failed one alone, the others kept
        self._turn_rows.append(row)

    @contextlib.contextmanager
    def _savepoint(self) -> Iterator[None]:
        """A write inside a transaction open for several: one that fails leaves the others."""
        if not self.db.in_transaction:  # the batch was lost to a full disk: nothing more is written in it
            raise out_of_space(self.path.parent)
        self.db.execute("SAVEPOINT write")
        try:
            yield
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK TO write")
                self.db.execute("RELEASE write")
            raise
        self.db.execute("RELEASE write")

    def shrink_log(self) -> bool:
        """Copy the write-ahead log's pages into the database and cut the log to nothing, giving its room back
        on a full disk; whether it held any (never inside a `batch`, whose pages are the log's alone)."""
        log = self.path.with_name(self.path.name + "-wal")
        try:
            before = log.stat().st_size
        except OSError:
            return False
        if not before or self.db.in_transaction:
            return False
        try:
            busy, _, _ = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error:  # no room even for the pages the log adds to the database
            return False
        return not busy

    def close(self) -> None:
        """Commit what waits for the loop's turn, then close the connection (the WAL is checkpointed by SQLite)."""
        try:
            self.commit_turn()
        finally:
            self.db.close()

    # ---- calls: the cache -------------------------------------------------------------
    def get_call(self, key: str) -> CallRow | None:
        """A finished, successful call with this key, or None."""
        return self._row(_MAKE_CALL, f"{_CALL} WHERE key = ? AND error IS NULL", (key,))

    @makes_room
    def put_call(self, row: NewCall) -> None:
        """Record one finished call (success or final error) and commit at once (inside a `batch`: with it); the
        prompt-cache counts (`cached_input_tokens`, `cache_write_tokens`) are 0 where the row does not give them.
        Every text of its reply (the answer, the finish reason, the first token's alternatives as JSON) and its error
        are scrubbed of keys here, the one door to the store, whichever path made the call: a server may echo a key
        in any part of a 200 answer as well as in an error."""
        said: dict[str, Any] = dict(row)
        said |= {field: scrub(said[field]) for field in _PROVIDER_TEXTS if said.get(field)}
        self._put_call_row(
            {"cached_input_tokens": 0, "cache_write_tokens": 0, "sent": None, "reasoning_tokens": 0} | said
        )

    # ---- batches: judge calls sent through a provider's batch API ----------------------
    def put_batch(self, row: NewBatch, requests: list[tuple[str, str]]) -> None:
        """Record a submitted batch and the (key, request) of every call it covers, in one commit."""
        with self._transaction():
            self.db.execute(
                "INSERT INTO batches (id, spec, state, created, updated, request_count, input_file_id)"
                " VALUES (:id, :spec, :state, :created, :created, :request_count, :input_file_id)",
                row,
            )
            self.db.executemany(
                "INSERT OR IGNORE INTO batch_calls (batch_id, key, request) VALUES (?, ?, ?)",
                [(row["id"], key, request) for key, request in requests],
            )

    def adopt_batch(self, pending_id: str, batch_id: str, state: str) -> None:
        """Give a pending submission the provider's batch id, in one commit."""
        with self._transaction():
            row = self._row(_MAKE_BATCH, f"{_BATCH} WHERE id = ?", (pending_id,))
            assert row is not None  # open_batches listed it, and only this command's store drops it
            self.db.execute(
                "INSERT INTO batches (id, spec, state, created, updated, request_count, input_file_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (batch_id, row.spec, state, row.created, now(), row.request_count, row.input_file_id),
            )
            self.db.execute("UPDATE batch_calls SET batch_id = ? WHERE batch_id = ?", (batch_id, pending_id))
            self.db.execute("DELETE FROM batches WHERE id = ?", (pending_id,))

    def drop_batch(self, batch_id: str) -> None:
        """Forget a submission the provider never received, so its calls are asked again."""
        with self._transaction():
            self.db.execute("DELETE FROM batch_calls WHERE batch_id = ?", (batch_id,))
            self.db.execute("DELETE FROM batches WHERE id = ?", (batch_id,))

    def set_batch(
        self, batch_id: str, state: str, output_file_id: str | None = None, error_file_id: str | None = None
    ) -> None:
        """Record a batch's latest provider status (and its result files once it has them)."""
        with self._transaction():
            self.db.execute(
                "UPDATE batches SET state = ?, updated = ?, output_file_id = coalesce(?, output_file_id),"
                " error_file_id = coalesce(?, error_file_id) WHERE id = ?",
                (state, now(), output_file_id, error_file_id, batch_id),
            )

    def open_batches(self, spec: str, terminal: tuple[str, ...]) -> list[BatchRow]:
        """Batches of a spec whose state is not one of `terminal`, oldest first."""
        marks = ", ".join("?" for _ in terminal)
        return list(
            self._rows(
                _MAKE_BATCH,
                f"{_BATCH} WHERE spec = ? AND state NOT IN ({marks}) ORDER BY created, rowid",
                (spec, *terminal),
            )
        )

    def batch_requests(self, batch_id: str) -> dict[str, str]:
        """key → request JSON of every call a batch covers."""
        rows = self.db.execute("SELECT key, request FROM batch_calls WHERE batch_id = ?", (batch_id,))
        return {key: request for key, request in rows}

    # ---- runs -------------------------------------------------------------------------
    def latest_run(self) -> RunRow | None:
        """The run this directory currently shows (the newest)."""
        return self._row(_MAKE_RUN, "SELECT * FROM runs ORDER BY created DESC, rowid DESC LIMIT 1")

    @makes_room
    def create_run(self, run_id: str, config: dict[str, Any], version: str) -> None:
        """Start a run with its (secret-free) configuration."""
        stamp = now()
        with self._transaction():
            self.db.execute(
                "INSERT INTO runs (id, created, updated, config, state, cobe_version) VALUES (?, ?, ?, ?, 'running', ?)",
                (run_id, stamp, stamp, json.dumps(config, sort_keys=True), version),
            )

    @makes_room
    def set_state(self, run_id: str, state: str) -> None:
        """Mark a run running, complete, interrupted or stopped-budget."""
        with self._transaction():
            self.db.execute("UPDATE runs SET state = ?, updated = ? WHERE id = ?", (state, now(), run_id))

    @makes_room
    def set_judge(
        self,
        run_id: str,
        judge: str,
        prompts: str,
        fingerprint: str,
        members: str | None = None,
        part: str | None = None,
        *,
        keep_part: bool = False,
    ) -> None:
        """Remember which judge's verdicts the exports of this run show (`members`: a panel's judges and
        samples as JSON; None for one judge asked once; `part`: the part of the run it was last asked to judge,
        as JSON; None for the whole run; `keep_part`: a set shown again keeps the part it had)."""
        stamp = now()
        with self._transaction():
            self.db.execute(
                "UPDATE runs SET judge = ?, judge_prompts = ?, judge_fingerprint = ?, judge_members = ?, updated = ?"
                " WHERE id = ?",
                (judge, prompts, fingerprint, members, stamp, run_id),
            )
            # the run's list of verdict sets: a later judge never takes this one's name with it
            self.db.execute(
                "INSERT INTO verdict_sets (run_id, judge, judge_prompts, identity, members, shown, part)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, judge, identity) DO UPDATE SET"
                " judge_prompts = excluded.judge_prompts, members = excluded.members, shown = excluded.shown,"
                " part = CASE WHEN ? THEN verdict_sets.part ELSE excluded.part END",
                (run_id, judge, prompts, fingerprint, members, stamp, part, keep_part),
            )

    def verdict_sets(self, run_id: str) -> list[VerdictSetRow]:
        """The verdict sets a run's exports have shown, the latest first."""
        return list(
            self._rows(
                _MAKE_VERDICT_SET,
                "SELECT * FROM verdict_sets WHERE run_id = ? ORDER BY shown DESC, rowid DESC",
                (run_id,),
            )
        )

    # ---- scenarios ----------------------------------------------------------------------
    @makes_room
    def put_scenarios(self, run_id: str, scenarios: Iterable[tuple[str, str]]) -> None:
        """Store (id, json) of every scenario of a run, once (read as it is written: never held whole)."""
        with self._transaction():
            self.db.executemany(
                "INSERT OR IGNORE INTO scenarios (run_id, position, id, data) VALUES (?, ?, ?, ?)",
                ((run_id, i, sid, data) for i, (sid, data) in enumerate(scenarios)),
            )

    def scenarios(self, run_id: str) -> Iterator[tuple[Scenario, str]]:
        """Each scenario of a run and its JSON document, in dataset order, read as they are consumed; a row that
        holds no scenario is one line naming it (DamagedStore)."""
        rows = self.db.execute("SELECT id, data FROM scenarios WHERE run_id = ? ORDER BY position", (run_id,))
        for scenario_id, data in rows:
            yield stored_scenario(self.path, run_id, scenario_id, data), data

    # ---- responses ----------------------------------------------------------------------
    def responses(self, run_id: str, epoch: int = 1) -> dict[tuple[str, str, str], ResponseRow]:
        """Every stored response of a run in one epoch (the first by default) by (model, scenario_id, template)."""
        rows = self._rows(_MAKE_RESPONSE, f"{_RESPONSE} WHERE run_id = ? AND epoch = ?", (run_id, epoch))
        return {(r.model, r.scenario_id, r.template): r for r in rows}

    def response(self, run_id: str, model: str, scenario_id: str, template: str, epoch: int = 1) -> ResponseRow | None:
        """One stored response of a run in one epoch (the UNIQUE index answers it), or None."""
        return self._row(
            _MAKE_RESPONSE,
            f"{_RESPONSE} WHERE run_id = ? AND model = ? AND scenario_id = ? AND template = ? AND epoch = ?",
            (run_id, model, scenario_id, template, epoch),
        )

    @makes_room
    def put_response(self, row: NewResponse) -> int:
        """Insert or replace one response (epoch 1 unless the row says) and commit; returns its id (stable
        across replacement). A response answered by another call than before (asked again: --reask-unscored)
        loses the verdicts that judged the answer it replaces; their calls stay in the store."""
        row = {"epoch": 1, **row}
        with self._transaction():
            before = self.db.execute(
                "SELECT id, call_key FROM responses WHERE run_id = :run_id AND model = :model"
                " AND scenario_id = :scenario_id AND template = :template AND epoch = :epoch",
                row,
            ).fetchone()
            if before is not None and before[1] != row["call_key"]:
                self.db.execute("DELETE FROM verdicts WHERE response_id = ?", (before[0],))
            cur = self.db.execute(
                "INSERT INTO responses (run_id, model, scenario_id, template, epoch, call_key, prompt, text, error,"
                " finish_reason, input_tokens, output_tokens, cost_usd, created) VALUES (:run_id, :model,"
                " :scenario_id, :template, :epoch, :call_key, :prompt, :text, :error, :finish_reason, :input_tokens,"
                " :output_tokens, :cost_usd, :created)"
                " ON CONFLICT (run_id, model, scenario_id, template, epoch) DO UPDATE SET call_key = excluded.call_key,"
                " prompt = excluded.prompt, text = excluded.text, error = excluded.error,"
                " finish_reason = excluded.finish_reason, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,"
                " cost_usd = excluded.cost_usd, created = excluded.created RETURNING id",
                row,
            )
            (response_id,) = cur.fetchall()[0]  # read to the end, so the statement is done before COMMIT
        return int(response_id)

    # ---- verdicts -----------------------------------------------------------------------
    def verdicts(self, run_id: str, judge: str, fingerprint: str) -> dict[tuple[int, str], VerdictRow]:
        """The first-ask verdicts (sample 0) of one judge + prompt set in a run, by (response_id, check)."""
        rows = self._rows(
            _MAKE_VERDICT,
            f"{_VERDICT} WHERE run_id = ? AND judge = ? AND prompt_fingerprint = ? AND sample = 0",
            (run_id, judge, fingerprint),
        )
        return {(r.response_id, r.check_name): r for r in rows}

    def response_verdicts(self, response_id: int, judge: str, fingerprint: str) -> dict[tuple[str, int], VerdictRow]:
        """Every verdict of one judge + prompt set on one response, by (check, sample), each with the
        `temperature` it was asked at (the UNIQUE index on response_id answers it)."""
        rows = self._rows(
            _sampled_verdict,
            f"SELECT {_VERDICT_COLUMNS}, CASE WHEN json_valid(judge_settings) THEN"
            " json_extract(judge_settings, '$.temperature') END AS temperature,"
            " json_valid(judge_settings) AS settings_valid FROM verdicts"
            " WHERE response_id = ? AND judge = ? AND prompt_fingerprint = ?",
            (response_id, judge, fingerprint),
        )
        found = {}
        for row, settings_valid in rows:
            if not settings_valid:  # a field cobe never wrote: the row named, not SQLite's "malformed JSON"
                json_object(self.path, row.judge_settings, f"verdicts.judge_settings of verdict {row.id}")
            found[(row.check_name, row.sample)] = row
        return found

    @makes_room
    def put_verdicts(self, rows: list[NewVerdict]) -> None:
        """Insert or replace verdict rows (sample 0 unless a row says) in one transaction; their calls are
        already committed."""
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO verdicts (run_id, response_id, judge, prompt_set, prompt_fingerprint,"
                " check_name, sample, verdict, raw, p_true, unscored_reason, error, judge_settings, call_key,"
                " input_tokens, output_tokens, cost_usd, created) VALUES (:run_id, :response_id, :judge,"
                " :prompt_set, :prompt_fingerprint, :check_name, :sample, :verdict, :raw, :p_true,"
                " :unscored_reason, :error, :judge_settings, :call_key, :input_tokens, :output_tokens, :cost_usd,"
                " :created)",
                [{"sample": 0, **row} for row in rows],
            )

    # ---- sessions (one per command) ----------------------------------------------------
    @makes_room
    def start_session(self, run_id: str, command: str) -> int:
        """Record that a command started on a run."""
        with self._transaction():
            cur = self.db.execute(
                "INSERT INTO sessions (run_id, command, started) VALUES (?, ?, ?)", (run_id, command, now())
            )
        assert cur.lastrowid is not None  # an INSERT into a rowid table always sets it
        return cur.lastrowid

    @makes_room
    def finish_session(self, session_id: int, state: str, stats: dict[str, Any]) -> None:
        """Record how a command ended and what it spent."""
        with self._transaction():
            self.db.execute(
                "UPDATE sessions SET finished = ?, state = ?, stats = ? WHERE id = ?",
                (now(), state, json.dumps(stats, sort_keys=True), session_id),
            )


class ReadOnlyStore(Store):
    """A store read without writing anything beside it (no migration, no -wal or -shm where none is needed), for
    listings; a store older than a query's table answers it with nothing."""

    def __init__(self, path: str | Path, *, idle: bool) -> None:
        self.path = Path(path)
        self.db = connect_read_only(self.path, idle=idle)
        self.db.row_factory = sqlite3.Row
        self.reserve, self.out_of_space = None, False
        _checked(self.db, self.path)

    def verdict_sets(self, run_id: str) -> list[VerdictSetRow]:
        """As `Store.verdict_sets`; none in a store made before the list existed."""
        try:
            return super().verdict_sets(run_id)
        except sqlite3.OperationalError:  # no such table: migration 0009 is applied by the next writer
            return []


_MAKE_CALL = positional(CallRow)
_MAKE_RESPONSE = positional(ResponseRow)
_MAKE_VERDICT = positional(VerdictRow)
_MAKE_BATCH = positional(BatchRow)
#: runs and verdict_sets gained columns in later migrations: read by name, a listing may read an older store
_MAKE_RUN = by_name(RunRow)
_MAKE_VERDICT_SET = by_name(VerdictSetRow)


def _sampled_verdict(_cursor: sqlite3.Cursor, values: tuple[Any, ...]) -> tuple[VerdictRow, bool]:
    """A verdict with its settings' temperature, and whether those settings are JSON at all."""
    return VerdictRow(*values[:-1]), bool(values[-1])
