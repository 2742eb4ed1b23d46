"""`cobe plan` arguments at the edges of its documented ranges: each once ran for minutes, grew to gigabytes or
ended in a traceback (issue 23, item 1). tests/reliability/test_plan_ranges.py checks what each answers;
benchmarks/bench_plan.py times them against the 2 s every plan must answer in."""

from __future__ import annotations

#: outside a range: one line naming the flag and the range, exit 2 (the arguments, and what the line holds)
OUTSIDE: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    (("--phrasings", "1000000000", "--icc", "0", "--pass-rate", "0.5"), ("--phrasings 1000000000", "1 to 100")),
    (("--half-width", "0.01"), ("--half-width 0.01", "expected 0.1 to 50 points")),
    (("--phrasings", "1000000", "--icc", "0"), ("--phrasings 1000000", "1 to 100 phrasings")),
    (("--half-width", "1e-9"), ("--half-width 1e-09", "expected 0.1 to 50 points")),
    (("--alpha", "0.9", "--power", "0.2"), ("--alpha 0.9", "expected 1e-06 to 0.2")),
    (("--power", "0.2"), ("--power 0.2", "expected 0.5 to 0.999")),
    (("--label-half-width", "0"), ("--label-half-width 0", "0.1 to 50 points")),
    (("--items", "0"), ("--items 0", "1 to 1,000,000,000")),
    (("--variations", "5000"), ("--variations 5000", "1 to 1,000 scenarios per core example")),
    (("--pass-rate", "nan"), ("--pass-rate nan", "a share from 0 to 1")),
]

#: a tenth of a point: a closed form, however many scenarios it asks for
TENTH_OF_A_POINT = ("--half-width", "0.1", "--pass-rate", "0.5")

#: inside the ranges, at their extremes: an answer, exit 0
EXTREMES: list[tuple[str, ...]] = [
    # the most scenarios: the narrowest interval, the most phrasings and variations, all correlated
    ("--half-width", "0.1", "--phrasings", "100", "--icc", "1", "--variations", "1000", "--core-icc", "1"),
    # the largest exact power search: the most paired items it takes, at every extreme of α and power
    ("--items", "20000", "--discordance", "0.5", "--alpha", "1e-6", "--power", "0.999"),
    ("--items", "20000", "--discordance", "1", "--alpha", "0.2", "--power", "0.5"),
    ("--items", "20000", "--discordance", "0.001", "--alpha", "0.05", "--power", "0.8"),
    ("--items", "1000000000", "--discordance", "0.5"),
    ("--half-width", "50", "--label-half-width", "0.1", "--items", "1", "--pass-rate", "0.001"),
    # the inverse question at its extremes: the exact search for the fewest pairs, or past it
    ("--detect", "0.1", "--alpha", "1e-6", "--power", "0.999"),
    ("--detect", "3", "--discordance", "0.03", "--alpha", "1e-6", "--power", "0.999"),
    ("--detect", "3", "--discordance", "0.06", "--judge-sensitivity", "0.99", "--judge-specificity", "0.99"),
    ("--detect", "100", "--discordance", "1", "--alpha", "0.2", "--power", "0.5"),
]
