"""The three judge checks and the parsing of their one-letter verdicts."""

from cobe.judge.verdict import Verdict, p_true, parse_verdict
from cobe.run.records import CHECKS

__all__ = ["CHECKS", "Verdict", "p_true", "parse_verdict"]
