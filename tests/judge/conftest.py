"""Fixtures for the judging tests: synthetic datasets in the native shape, a clean working dir."""

from support.workdir import data_file, isolated  # noqa: F401  (fixtures, registered by importing them)
