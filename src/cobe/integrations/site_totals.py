"""`cobe import FILE --from cobe-site` of the site's published totals (`eval-statistics.json`): kept as
`OUT/published.json`, tidy rows, for `cobe report RUN --published OUT` to set beside a run (cobe.report.published
reads both forms, so the report needs nothing from here)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from cobe.core.errors import InputError
from cobe.core.files import atomic_write, new_directory
from cobe.core.jsonfile import read_json
from cobe.report.published import PUBLISHED_FILE, read_published


def json_document(path: str | Path) -> Any:
    """A .json file's document, read once to tell the site's totals from the paper's figures and the site's
    examples; None for any other file or one that is not one JSON document (the examples' reader says why)."""
    if Path(path).suffix.lower() != ".json":
        return None
    try:
        return read_json(path, "a site file")
    except InputError:
        return None


def import_published(file: str | Path, out: str | Path) -> pd.DataFrame:
    """Keep the site's totals as `OUT/published.json` (tidy rows), for `cobe report RUN --published OUT`."""
    table = read_published(file)
    rows = [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()} for row in
            table.to_dict("records")]  # fmt: skip
    text = json.dumps({"source": str(file), "rows": rows}, indent=1, default=lambda v: v.item())  # numpy scalars
    with new_directory(Path(out), what="a new folder") as staging:
        atomic_write(staging / PUBLISHED_FILE, text + "\n")
    return table
