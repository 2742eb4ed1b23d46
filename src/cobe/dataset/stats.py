"""Dataset statistics: the paper's Table 2 (size and story length), Table 3 (domains)
and Table 4 (graph types).

Words, sentences and clauses are means per scenario. Clauses per sentence is the mean of each
scenario's own ratio, not the ratio of the two means: Table 2's 2.44 is not its 5.43 / 2.35
(= 2.31), so the paper averaged per story, and a long story weighs no more than a short one.

Clauses are counted in one of two ways, and the output names which:

- `spacy`: with spaCy and its `en_core_web_sm` model, a clause is a verb heading a clause in
  the dependency parse: each sentence's ROOT, plus every token whose dependency is `conj`,
  `advcl`, `ccomp`, `xcomp`, `relcl` or `acl` and whose part of speech is VERB or AUX.
- `approx`: without spaCy, each sentence counts one clause, plus one for every subordinating
  word (because, although, though, while, whereas, unless, when, whenever, if, which, who,
  whom, whose, so that), one for every coordinator (and, but, or, so, yet) that follows a
  comma or is followed by a subject pronoun, and one for every semicolon or colon. It
  over-counts lists of nouns after commas and misses clauses joined without a marker.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from cobe.core.errors import InputError
from cobe.dataset.graph import derive_graph_type
from cobe.dataset.schema import UNKNOWN_DOMAIN, Scenario
from cobe.dataset.text import count_words, split_sentences

METHODS = ("auto", "spacy", "approx")
APPROX_NAME = "approx (regex over subordinators, coordinators and punctuation)"
CLAUSE_DEPS = {"conj", "advcl", "ccomp", "xcomp", "relcl", "acl"}
_SUBORDINATORS = r"because|although|though|while|whereas|unless|when|whenever|if|which|who|whom|whose|so that"
_PRONOUNS = r"i|you|he|she|it|we|they|there"
_APPROX = re.compile(
    rf"\b(?:{_SUBORDINATORS})\b"
    rf"|,\s*(?:and|but|or|so|yet)\b"
    rf"|(?<!,)\s(?:and|but|or|so|yet)\s+(?:{_PRONOUNS})\b"
    r"|[;:]",
    re.IGNORECASE,
)

# story → (sentences, clauses)
Counter_ = Callable[[str], tuple[int, int]]


def approx_clauses(text: str) -> tuple[int, int]:
    """(sentences, clauses) of `text` by the regex approximation of the module docstring."""
    sentences = split_sentences(text)
    return len(sentences), sum(1 + len(_APPROX.findall(s)) for s in sentences)


def clauses_in_parse(doc: Any) -> tuple[int, int]:
    """(sentences, clauses) of a dependency-parsed document by the rule of the module docstring."""
    clauses = sum(1 for tok in doc if tok.dep_ == "ROOT" or (tok.dep_ in CLAUSE_DEPS and tok.pos_ in ("VERB", "AUX")))
    return len(list(doc.sents)), clauses


def _spacy_counter() -> tuple[Counter_, str] | None:
    try:
        import spacy  # optional: pip install cobe[nlp] and the en_core_web_sm model
    except ImportError:
        return None
    try:
        nlp = spacy.load("en_core_web_sm")
    except OSError:
        return None

    def count(text: str) -> tuple[int, int]:
        return clauses_in_parse(nlp(text))

    version = nlp.meta.get("version", "?")
    return count, f"spacy (en_core_web_sm {version}, dependency parse)"


def clause_counter(method: str = "auto") -> tuple[Counter_, str]:
    """The clause counter for `method` and its name; `spacy` fails when spaCy or its model is missing."""
    if method not in METHODS:
        raise InputError(f"unknown clause method {method!r}; expected one of {', '.join(METHODS)}")
    if method in ("auto", "spacy"):
        found = _spacy_counter()
        if found:
            return found
        if method == "spacy":
            raise InputError(
                "--method spacy needs spaCy and its English model: pip install 'cobe[nlp]' && python -m spacy download en_core_web_sm"
            )
    return approx_clauses, APPROX_NAME


def graph_type_of(scenario: Scenario) -> str:
    """A scenario's graph type: its label, else the type its graph gives, else 'unlabelled'."""
    if scenario.graph_type is not None:
        return scenario.graph_type.value
    if scenario.graph is not None and (derived := derive_graph_type(scenario.graph)) is not None:
        return derived.value
    return "unlabelled"


def _shares(values: Iterable[str]) -> dict[str, float]:
    counts = Counter(values)
    total = sum(counts.values())
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return {key: round(100 * n / total, 1) for key, n in ordered} if total else {}


def dataset_stats(scenarios: list[Scenario], method: str = "auto") -> dict[str, Any]:
    """Tables 2–4 of the paper for `scenarios`, as JSON-ready data."""
    counter, method_name = clause_counter(method)
    words = sentences = clauses = 0
    ratios: list[float] = []
    for scenario in scenarios:
        n_sentences, n_clauses = counter(scenario.story)
        words += count_words(scenario.story)
        sentences += n_sentences
        clauses += n_clauses
        if n_sentences:
            ratios.append(n_clauses / n_sentences)
    n = len(scenarios)

    def avg(total: float, by: int) -> float:
        return round(total / by, 2) if by else 0.0

    # a scenario whose file names no domain is unlabelled, its own line: never one more domain
    unlabelled = sum(s.domain == UNKNOWN_DOMAIN for s in scenarios)
    all_shares = _shares(s.domain for s in scenarios)
    return {
        "scenarios": n,
        "core_examples": len({s.core_id for s in scenarios}),
        "domains": len({s.domain for s in scenarios} - {UNKNOWN_DOMAIN}),
        "avg_words": avg(words, n),
        "avg_sentences": avg(sentences, n),
        "avg_clauses": avg(clauses, n),
        "clauses_per_sentence": avg(sum(ratios), len(ratios)),  # mean of per-scenario ratios (Table 2)
        "clause_method": method_name,
        "domain_shares": {d: share for d, share in all_shares.items() if d != UNKNOWN_DOMAIN},  # % of all scenarios
        "unlabelled_domain": unlabelled,  # scenarios whose file names no domain
        "unlabelled_domain_share": all_shares.get(UNKNOWN_DOMAIN, 0.0),
        "graph_type_shares": _shares(graph_type_of(s) for s in scenarios),
    }
