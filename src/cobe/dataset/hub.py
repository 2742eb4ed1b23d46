"""Read datasets through the Hugging Face `datasets` library: `hf:ORG/NAME[:SPLIT]` on the Hub, a
folder written by `save_to_disk`, or Parquet files. Rows come back as raw records, so every shape
check and every problem report is the one `cobe data validate` gives for a JSON or CSV file.

`datasets` is an optional extra (`cobe[hf]`), imported only when such a source is read.
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cobe.core.extras import require
from cobe.dataset.problems import Problem
from cobe.dataset.rawread import RawFile, RawRecord

HF_PREFIX = "hf:"
#: the container name table sources report (a loaded file's shape reads e.g. `paper-hf`)
CONTAINER = "hf"
# the split an evaluation set is published under when a dataset holds several
PREFERRED_SPLIT = "test"


def is_table_source(source: str | Path) -> bool:
    """Whether `source` is read through `datasets`: `hf:…`, a `.parquet` file, or a `save_to_disk` folder
    (`FOLDER:SPLIT` naming one split of a saved DatasetDict, as `hf:ORG/NAME:SPLIT` does on the Hub)."""
    text = str(source)
    if text.startswith(HF_PREFIX):
        return True
    path = Path(text)
    if path.suffix.lower() == ".parquet":
        return True
    return (path.is_dir() and _saved_to_disk(path)) or saved_split(text) is not None


def saved_split(source: str) -> tuple[Path, str] | None:
    """(folder, split) of `FOLDER:SPLIT`, where FOLDER was written by `save_to_disk` and nothing is named
    FOLDER:SPLIT itself; None for any other source."""
    head, colon, split = source.rpartition(":")
    if not colon or not head or not split or "/" in split or Path(source).exists():
        return None
    folder = Path(head)
    return (folder, split) if folder.is_dir() and _saved_to_disk(folder) else None


def _saved_to_disk(path: Path) -> bool:
    # `Dataset.save_to_disk` writes state.json + dataset_info.json; `DatasetDict.save_to_disk` dataset_dict.json
    return (path / "dataset_dict.json").is_file() or (
        (path / "state.json").is_file() and (path / "dataset_info.json").is_file()
    )


def parse_hub_source(source: str) -> tuple[str, str | None]:
    """(repository id, split or None) of `hf:ORG/NAME[:SPLIT]`."""
    body = source[len(HF_PREFIX) :]
    name, _, split = body.partition(":")
    return name.strip(), (split.strip() or None)


def read_table(source: str | Path) -> RawFile:
    """The rows of a table source as raw records (line = row number); a source that cannot be read is one problem."""
    name = str(source)
    datasets = require("datasets", "hf", f"reading {name}")
    try:
        with quiet(datasets):
            rows = _load(datasets, name)
    except _SourceError as exc:
        return RawFile(name, "unreadable", problems=[Problem(file=name, message=str(exc))])
    except Exception as exc:  # datasets raises many kinds (missing repo, offline Hub, damaged files): one line each
        first = (str(exc).strip().splitlines() or [""])[0]
        reason = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
        return RawFile(name, "unreadable", problems=[Problem(file=name, message=f"cannot be loaded ({reason})")])
    out = RawFile(name, CONTAINER)
    for number, row in enumerate(rows, start=1):
        # a table has every column in every row: an empty cell (None) is a field the record does not give
        out.records.append(RawRecord({key: value for key, value in row.items() if value is not None}, number))
    if not out.records:
        out.problems.append(Problem(file=name, message="holds no records"))
    return out


@contextmanager
def quiet(datasets: Any) -> Iterator[None]:
    """No `datasets` progress bars while cobe reads a source (its own progress is what the user watches)."""
    was_enabled = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        if was_enabled:
            datasets.enable_progress_bars()


class _SourceError(Exception):
    """A table source that is readable but not usable as named (a missing split, an empty name)."""


def _load(datasets: Any, source: str) -> list[dict[str, Any]]:
    if source.startswith(HF_PREFIX):
        repo, split = parse_hub_source(source)
        if not repo:
            raise _SourceError("expected hf:ORG/NAME or hf:ORG/NAME:SPLIT")
        # without a network the hub client retries for half a minute, noisily: offline, only the local
        # cache is asked, and a dataset not in it is one line at once
        offline = _why_offline()
        try:
            with _offline_mode(datasets, offline is not None):
                loaded = datasets.load_dataset(repo, split=split) if split else datasets.load_dataset(repo)
        except ConnectionError:  # what offline mode raises for a dataset it would have to download
            if offline is None:
                raise
            raise _SourceError(f"the Hub cannot be reached ({offline}) and {repo} is not in the local cache") from None
        return _rows(_one_split(loaded, split, source))
    path = Path(source)
    if path.suffix.lower() == ".parquet":
        if not path.is_file():
            raise _SourceError("file not found")
        # a throwaway cache: the Arrow copy of a local file is not worth keeping between commands
        with tempfile.TemporaryDirectory(prefix="cobe-parquet-") as cache:
            table = datasets.load_dataset(
                "parquet", data_files=str(path), split="train", cache_dir=cache, keep_in_memory=True
            )
            return _rows(table)
    named = saved_split(source)
    if named is not None:
        folder, split = named
        loaded = datasets.load_from_disk(str(folder))
        if not hasattr(loaded, "keys"):
            raise _SourceError(f"{folder} holds one dataset, not splits; drop :{split}")
        return _rows(_one_split(loaded, split, source))
    return _rows(_one_split(datasets.load_from_disk(str(path)), None, source))


#: how long the probe of the Hub's address may take before the Hub counts as unreachable
PROBE_TIMEOUT_S = 3.0
_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")


def _why_offline() -> str | None:
    """Why the Hub cannot be asked now (offline mode set, or no route to it), or None when it can."""
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(name, "").strip().upper() in ("1", "ON", "YES", "TRUE"):
            return f"{name} is set"
    if any(os.environ.get(name) for name in _PROXY_VARIABLES):
        return None  # a proxy reaches the Hub on its own terms: the probe below would not tell
    endpoint = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host = endpoint.hostname or "huggingface.co"
    port = endpoint.port or (80 if endpoint.scheme == "http" else 443)
    try:
        socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S).close()
    except OSError as exc:
        return f"no connection to {host}: {exc.strerror or type(exc).__name__}"
    return None


@contextmanager
def _offline_mode(datasets: Any, offline: bool) -> Iterator[None]:
    """The hub client and `datasets` in offline mode (local cache only) while the block runs, when `offline`.

    Both read the mode from a module constant set at import, so the constants are switched, then restored.
    """
    if not offline:
        yield
        return
    from huggingface_hub import constants

    saved = (constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE, datasets.config.HF_DATASETS_OFFLINE)
    constants.HF_HUB_OFFLINE = datasets.config.HF_HUB_OFFLINE = datasets.config.HF_DATASETS_OFFLINE = True
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE, datasets.config.HF_DATASETS_OFFLINE = saved


def _one_split(loaded: Any, split: str | None, source: str) -> Any:
    """The one split to read from a dataset dict: the named one, the only one, or `test`."""
    if not hasattr(loaded, "keys"):  # already a single Dataset
        return loaded
    names = list(loaded.keys())
    if split is not None:
        if split not in names:
            raise _SourceError(f"no split {split!r}; it holds {', '.join(names)}")
        return loaded[split]
    if len(names) == 1:
        return loaded[names[0]]
    if PREFERRED_SPLIT in names:
        return loaded[PREFERRED_SPLIT]
    hint = f"{source}:SPLIT" if source.startswith(HF_PREFIX) else f"{source}/SPLIT"
    raise _SourceError(f"holds several splits ({', '.join(names)}); name one as {hint}")


def _rows(table: Any) -> list[dict[str, Any]]:
    return [dict(row) for row in table.to_list()]
