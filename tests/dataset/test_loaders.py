"""Loading every official shape, merging site rows, and resolving bundled datasets."""

from __future__ import annotations

import pytest
from dataset_helpers import FIXTURES, IDS, paper_record, write_json

from cobe.core.errors import InputError
from cobe.dataset import load_dataset, loaders, read_file

SHAPES = {
    "paper.json": "paper-json",
    "paper_object.json": "paper-json",
    "paper.jsonl": "paper-jsonl",
    "paper_columns.csv": "csv",
    "paper_jsonlist.csv": "csv",
    "site_flat.json": "site-json",
    "site_by_domain.json": "site-by-domain",
    "native.jsonl": "native-jsonl",
}


@pytest.mark.parametrize("name, shape", SHAPES.items())
def test_every_fixture_shape_loads_cleanly(name: str, shape: str) -> None:
    result = read_file(FIXTURES / name)
    assert [str(p) for p in result.problems] == []
    assert result.shape == shape
    assert [s.id for s in result.scenarios] == IDS
    assert all(len(s.queries) == 3 for s in result.scenarios)


def test_shapes_agree_on_the_facts_they_share() -> None:
    reference = {s.id: s for s in read_file(FIXTURES / "paper.json").scenarios}
    for name in SHAPES:
        for s in read_file(FIXTURES / name).scenarios:
            ref = reference[s.id]
            assert (s.domain, s.story, s.queries, s.illustrative_answer) == (
                ref.domain,
                ref.story,
                ref.queries,
                ref.illustrative_answer,
            )
            assert (s.preserve_text, s.change_text) == (ref.preserve_text, ref.change_text)


def test_paper_criteria_are_split_into_sentences() -> None:
    s = read_file(FIXTURES / "paper.json").scenarios[3]
    assert s.preserve == ["Priya went to a concert.", "It rained that night."]
    assert s.change == ["Priya missed the last bus.", "She walked home through the park."]


def test_site_rows_merge_in_query_idx_order_and_keep_criterion_lists() -> None:
    scenarios = read_file(FIXTURES / "site_flat.json").scenarios
    paper = read_file(FIXTURES / "paper.json").scenarios
    assert [s.queries for s in scenarios] == [s.queries for s in paper]
    # should_change held two strings for 3v0: kept as two items, not re-split or joined
    assert scenarios[3].change == ["Priya missed the last bus.", "She walked home through the park."]
    assert scenarios[3].preserve == ["Priya went to a concert. It rained that night."]


def test_site_by_domain_takes_the_domain_from_the_group() -> None:
    assert [s.domain for s in read_file(FIXTURES / "site_by_domain.json").scenarios] == [
        "Daily life",
        "Daily life",
        "Work",
        "Leisure",
    ]


def test_native_keeps_metadata() -> None:
    s = load_dataset(FIXTURES / "native.jsonl").by_id["2v0"]
    assert s.graph_type is not None and s.graph_type.value == "collider"
    assert s.tags == ["latent"] and s.graph is not None and s.graph.intervened == "bakery_hours"


def test_csv_with_string_numbers_and_a_json_encoded_query_list() -> None:
    s = read_file(FIXTURES / "paper_jsonlist.csv").scenarios[0]
    assert (s.core_id, s.variation) == (1, 0)


def test_load_dataset_raises_the_first_error_and_counts_the_rest(tmp_path) -> None:
    bad = [paper_record(1, 0), paper_record(2, 0)]
    del bad[0]["Story"]
    del bad[1]["Query"]
    path = write_json(tmp_path / "bad.json", bad)
    with pytest.raises(InputError) as caught:
        load_dataset(path)
    assert str(caught.value).startswith(f"{path}:2: 1v0: Story: missing required field (and 1 more error;")


def test_dataset_get_names_the_source_on_a_missing_id() -> None:
    data = load_dataset(FIXTURES / "paper.json")
    assert len(data) == 4 and list(data)[0].id == "1v0"
    with pytest.raises(InputError, match="no scenario with id '9v9'"):
        data.get("9v9")


def test_builtin_sources_resolve_in_the_bundled_folder(tmp_path, monkeypatch) -> None:
    (tmp_path / "tiny.jsonl").write_bytes((FIXTURES / "native.jsonl").read_bytes())
    monkeypatch.setattr(loaders, "builtin_dir", lambda: tmp_path)
    data = load_dataset("builtin:tiny")
    assert data.source == "builtin:tiny" and len(data) == 4
    with pytest.raises(InputError, match=r"unknown bundled dataset 'builtin:nope'; available: builtin:tiny"):
        load_dataset("builtin:nope")


def test_a_single_bare_record_object_loads(tmp_path) -> None:
    result = read_file(write_json(tmp_path / "one.json", paper_record()))
    assert [s.id for s in result.scenarios] == ["1v0"] and result.problems == []


def test_object_with_several_lists_is_a_problem(tmp_path) -> None:
    result = read_file(write_json(tmp_path / "two.json", {"a": [paper_record()], "b": []}))
    assert [p.message for p in result.problems] == [
        "object holds several lists ('a', 'b'); expected exactly one list of records"
    ]


@pytest.mark.parametrize("name", SHAPES)
def test_streaming_a_dataset_gives_what_loading_it_gives(name: str) -> None:
    assert list(loaders.iter_dataset(FIXTURES / name)) == load_dataset(FIXTURES / name).scenarios
    spool = loaders.spool_dataset(FIXTURES / name)
    assert list(spool) == load_dataset(FIXTURES / name).scenarios


@pytest.mark.parametrize(
    "lines",
    [
        ["{not json", "{}"],  # a bad line, then a record without its fields
        ["native", "native", "[1, 2]"],  # a duplicate id, then a line that is not an object
        ["native", "caf\udce9"],  # invalid UTF-8 on line 2
        [],  # no records at all
    ],
)
def test_a_streamed_jsonl_file_fails_with_the_loaders_own_line(tmp_path, lines: list[str]) -> None:
    native = (FIXTURES / "native.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / "data.jsonl"
    body = "\n".join(native if line == "native" else line for line in lines)
    path.write_bytes(body.encode("utf-8", "surrogateescape"))
    with pytest.raises(InputError) as loaded:
        load_dataset(path)
    with pytest.raises(InputError) as streamed:
        list(loaders.iter_dataset(path))
    assert str(streamed.value) == str(loaded.value)


def test_a_stream_that_meets_an_error_ends_in_it_not_in_a_partial_dataset(tmp_path) -> None:
    good = (FIXTURES / "native.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join([good[0], "{broken", *good[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"data.jsonl:2: invalid JSON"):
        loaders.spool_dataset(path)


def test_a_loading_error_is_one_line_without_the_reports_placeholders(tmp_path) -> None:
    with pytest.raises(InputError) as missing:
        load_dataset(tmp_path / "nope.jsonl")
    assert str(missing.value) == f"{tmp_path / 'nope.jsonl'}: file not found"
    path = write_json(tmp_path / "d.json", [paper_record(), paper_record()])
    with pytest.raises(InputError, match=r"d.json:\d+: 1v0: id: duplicate id \(earlier in this file\)$"):
        load_dataset(path)
