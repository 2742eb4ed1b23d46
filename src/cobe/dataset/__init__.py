"""Datasets: the Scenario schema, loaders for every official shape, writers, validation,
statistics, sampling and graph analysis."""

from cobe.dataset.graph import check_graph, derive_graph_type
from cobe.dataset.loaders import (
    Dataset,
    LoadResult,
    iter_dataset,
    load_dataset,
    read_file,
    resolve_source,
    spool_dataset,
)
from cobe.dataset.problems import Problem
from cobe.dataset.sample import sample_scenarios
from cobe.dataset.schema import CausalGraph, Edge, Fact, FailureMode, GraphType, Scenario, make_id
from cobe.dataset.spool import ScenarioSpool
from cobe.dataset.stats import dataset_stats
from cobe.dataset.validate import ValidationReport, validate, validate_paths, validate_record
from cobe.dataset.writers import SHAPES, write_dataset

__all__ = [
    "SHAPES",
    "CausalGraph",
    "Dataset",
    "Edge",
    "Fact",
    "FailureMode",
    "GraphType",
    "LoadResult",
    "Problem",
    "Scenario",
    "ScenarioSpool",
    "ValidationReport",
    "check_graph",
    "dataset_stats",
    "derive_graph_type",
    "iter_dataset",
    "load_dataset",
    "make_id",
    "read_file",
    "resolve_source",
    "sample_scenarios",
    "spool_dataset",
    "validate",
    "validate_paths",
    "validate_record",
    "write_dataset",
]
