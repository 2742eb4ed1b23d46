"""Datasets: the Scenario schema, loaders for every official shape, writers, validation,
statistics, sampling and graph analysis."""

from cobe.core.lazy import attach

__getattr__, __all__ = attach(__name__, __file__, keep_listed=True)
