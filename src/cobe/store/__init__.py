"""A run's SQLite store: every call, response and verdict, committed as it finishes (`store.py`), its
append-only numbered migrations (`migrations/`), and finding, opening or setting aside the store of a
run directory (`directory.py`).

    from cobe.store import Store, find_store
    store = Store(find_store(run_dir))
"""

from cobe.store.directory import RUN_FILES, find_store, open_run_store, set_aside
from cobe.store.store import STORE_NAME, Store, now

__all__ = ["RUN_FILES", "STORE_NAME", "Store", "find_store", "now", "open_run_store", "set_aside"]
