"""Where CoBe data comes from, and how a loaded file's shape reads in words (`cobe data sources`,
`cobe data validate`).

Three kinds of data exist: the starter set bundled with cobe, the paper's release (JSON records; on
the Hugging Face Hub once the authors publish it there), and the files the project site publishes:
example rows, and judged results with every model's answers. Each loads as it is published.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from cobe.dataset.loaders import builtin_dir


@dataclass(frozen=True)
class DataSource:
    """One kind of data cobe reads: what it is, the shapes it comes in, and how to point cobe at it."""

    name: str
    what: str
    shapes: str
    use: str

    def to_dict(self) -> dict[str, str]:
        """The source as JSON-ready data."""
        return asdict(self)


def _bundled() -> list[DataSource]:
    return [
        DataSource(
            name=f"builtin:{path.stem}",
            what="bundled with cobe: our own stories, written for this project (see its card, "
            f"{path.with_suffix('.md').name}); easier than CoBe, so a smoke test, never an estimate of CoBe accuracy",
            shapes="native JSON lines",
            use=f"--data builtin:{path.stem} (the default)"
            if path.stem == "starter"
            else f"--data builtin:{path.stem}",
        )
        for path in sorted(builtin_dir().glob("*.jsonl"))
    ]


SOURCES: tuple[DataSource, ...] = (
    DataSource(
        name="the paper's release",
        what="the CoBe benchmark itself (2,000 variations of 106 core examples); on the Hugging Face Hub once "
        "the authors publish it there (no public name yet), or a copy of their JSON file",
        shapes="the paper's JSON records (Core Set ID, Variation ID, Domain, Story, Query: 3 strings, "
        "Illustrative answer (not scored), Evaluation criteria: [preserve, change]), JSON lines, CSV, Parquet "
        "or a save_to_disk folder",
        use="--data hf:ORG/NAME[:SPLIT] (needs cobe[hf]), or --data FILE",
    ),
    DataSource(
        name="the project site's examples",
        what="the scenarios the project site shows, one row per query; most rows name no domain (loaded as "
        "'unknown', one warning per file) and most scenarios have one query, labelled A, B, C by what it says "
        "(query_idx 2, 5, 7 where its words do not tell, else 'other')",
        shapes="site rows (example_id, coreset_id, variation_id, query_idx, original, query, gold_answer, "
        "should_not_change, should_change) as a JSON array, JSON lines, or grouped under by_domain / by_graph",
        use="--data FILE; tiers 2-4 read the change from whichever query a scenario has",
    ),
    DataSource(
        name="the project site's judged results",
        what="the site's result files: each example with every model's answer and the authors' verdict "
        "(correct, wrong or unknown)",
        shapes="category-examples.json (by_domain / by_graph → examples with model_outputs → model → "
        "{response, verdict}; an example under both is read once) or flat rows with model_outputs",
        use="cobe import FILE --from cobe-site --out runs/site, then cobe report runs/site "
        "(unknown verdicts unscored and counted; the site's correct / (correct + wrong) per model is printed); "
        "the same file also loads with --data",
    ),
    DataSource(
        name="your own files",
        what="scenarios you write or convert, e.g. with cobe curate",
        shapes="any shape above, or cobe's native JSON lines (every field of a scenario)",
        use="--data FILE; cobe data validate FILE checks it, cobe data convert FILE OUT --to native converts it",
    ),
)


def data_sources() -> list[DataSource]:
    """Every kind of data cobe reads, the bundled datasets first."""
    return [*_bundled(), *SOURCES]


_RECORDS = {
    "paper": "the paper's records",
    "csv": "the paper's columns, one row per scenario",
    "site": "the project site's rows, one per query",
    "native": "cobe's native records",
}
_LAYOUTS = {
    "json": "in a JSON document",
    "jsonl": "in JSON lines",
    "by-domain": "grouped under by_domain",
    "categories": "grouped under by_domain / by_graph, as the site's category-examples.json",
    "hf": "in a Hugging Face table",
    "rows": "in memory",
}


def describe_shape(shape: str) -> str:
    """A loaded file's shape (e.g. `site-categories`) in words; the name itself when it is not one cobe knows."""
    record, _, layout = shape.partition("-")
    if record not in _RECORDS:
        return shape
    return ", ".join(part for part in (_RECORDS[record], _LAYOUTS.get(layout, layout)) if part)
