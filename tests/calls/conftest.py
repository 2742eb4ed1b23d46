"""Fixtures for the call path tests: synthetic datasets in the native shape, a clean working dir."""

from support.workdir import data_file, isolated  # noqa: F401  (fixtures, registered by importing them)
