"""Identical calls in flight are sent once: requests made = distinct call keys.

Every respondent answers the same text and the three scenarios share their criteria, so under the
paper's judge (which sees the rewrite and a criterion, never the story) each check asks one question
for all nine items. The fake server holds the judge's requests until the distinct ones have all arrived,
so every duplicate is asked while its twin is still in flight, then counts requests by body.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading

from reliability_helpers import SPEC, cobe_at, eval_args

from cobe.calls.caller import Caller
from cobe.models.base import GenerateConfig, Message
from cobe.models.registry import get_provider

SAME = "Instead the shop closed early, and the shelves stayed full."
DISTINCT_JUDGE_CALLS = 3  # connectors, preserve and change: once each for the nine items


def test_identical_judge_calls_in_flight_are_sent_once(fake, data_file, tmp_path):
    fake.control(hold_after=0)

    def release_when_all_distinct_calls_wait() -> None:
        fake.wait_for(lambda s: s.held >= DISTINCT_JUDGE_CALLS)
        fake.control(hold_after=None)

    releaser = threading.Thread(target=release_when_all_distinct_calls_wait, daemon=True)
    releaser.start()
    run_dir = tmp_path / "run"
    result = cobe_at(fake, *eval_args(data_file, run_dir, model=f"mock/fixed:{SAME}"))
    releaser.join(timeout=60)
    assert result.returncode == 0, result.stderr
    stats = fake.stats()
    assert stats["requests"] == len(stats["bodies"]) == DISTINCT_JUDGE_CALLS
    assert set(stats["bodies"].values()) == {1}
    db = sqlite3.connect(run_dir / "cobe.sqlite")
    keys = db.execute("SELECT count(*) FROM calls WHERE spec = ?", (SPEC,)).fetchone()[0]
    verdicts = db.execute("SELECT count(*) FROM verdicts WHERE error IS NULL").fetchone()[0]
    db.close()
    assert keys == DISTINCT_JUDGE_CALLS and verdicts == 27  # every check answered, each question asked once
    assert f"judge {DISTINCT_JUDGE_CALLS} calls ({27 - DISTINCT_JUDGE_CALLS} from store" in result.stdout


def test_callers_of_one_key_share_one_request_and_its_error(fake, tmp_path):
    fake.control(hold_after=0)
    provider = get_provider(SPEC)
    caller = Caller.open(tmp_path / "cobe.sqlite", max_retries=0)
    messages = [Message(role="user", content="Answer with exactly one letter: T or F.")]
    settings = GenerateConfig(temperature=0, max_tokens=1)

    async def many() -> list:
        calls = [asyncio.create_task(caller.call(provider, messages, settings, role="judge")) for _ in range(5)]
        await asyncio.to_thread(fake.wait_for, lambda s: s.held == 1)
        fake.control(hold_after=None, fail_status=500)  # the one request fails: all five see its error
        out = await asyncio.gather(*calls)
        await provider.aclose()
        return out

    records = asyncio.run(many())
    caller.store.close()
    assert fake.stats()["requests"] == 1
    assert len({r.key for r in records}) == 1 and all(r.error and "500" in r.error for r in records)
    assert sum(not r.cached for r in records) == 1  # one made it, four shared it
