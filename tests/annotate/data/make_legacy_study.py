"""How legacy_study.sqlite was made: run at commit 0a5cac0, when the study store kept its migrations inline.

    python tests/annotate/data/make_legacy_study.py OUT_DIR

The file it wrote is committed as it was, so tests/annotate/test_study_file.py can check that a study
created by that code opens, keeps its links and answers, and takes new ones with today's store.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from cobe.annotate.store import StudyStore


def main(out: Path) -> None:
    """Write a three-item study with two raters, an admin, two answers, a session and a revoked link."""
    store = StudyStore(out, create=True)
    store.set_meta({"seed": "1", "run_dir": "run", "base_url": "http://127.0.0.1:8765", "title": "Legacy study"})
    store.secret()
    store.add_items(
        [
            {
                "key": f"{i}v1:A:mock/a",
                "scenario_id": f"{i}v1",
                "template": "A",
                "model": "mock/a",
                "story": f"Story {i} happened because of a reason.",
                "query": f"Rewrite it had change {i}.",
                "response": f"Rewrite {i}.",
                "row_json": "{}",
            }
            for i in (1, 2, 3)
        ]
    )
    first = store.add_principal("rater-1", "rater", "legacy-token-rater-1", [2, 1, 3])
    second = store.add_principal("rater-2", "rater", "legacy-token-rater-2", [3, 2, 1])
    store.add_principal("admin", "admin", "legacy-token-admin")
    store.save_rating(first, 2, "Yes", "kept the cause")
    store.save_rating(second, 3, "No", "")
    store.new_session(first)
    store.revoke_link(second)
    db = sqlite3.connect(store.path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the one file that is committed
    db.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
