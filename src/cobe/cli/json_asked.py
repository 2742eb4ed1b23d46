"""Whether a `cobe` command line asks for --json, read from its words and the environment before click parses
anything: a Ctrl-C at start-up or an unknown command ends before any option's callback could say so, and under
--json even those exits print their one JSON object (cobe.cli.json_end). Only the standard library: the `cobe`
script reads it while it starts."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

#: the values click reads as true for a flag given by its variable
TRUE = {"1", "true", "t", "yes", "y", "on"}


def json_asked(words: Sequence[str], environ: Mapping[str, str] = os.environ) -> bool:
    """Whether `cobe WORDS` asks for --json: the flag among its words (before a `--`), COBE_JSON, or the command's
    own variable (COBE_<COMMAND>_JSON, COBE_<GROUP>_<COMMAND>_JSON) set true."""
    words = list(words)
    if "--" in words:
        words = words[: words.index("--")]
    if "--json" in words:
        return True
    path: list[str] = []
    for word in words[:2]:  # a command, or a group and its command, come first
        if word.startswith("-"):
            break
        path.append(word)
    names = ["COBE_JSON"] + ["_".join(["COBE", *path[:n], "JSON"]) for n in range(1, len(path) + 1)]
    names += [name[: -len("JSON")] + "AS_JSON" for name in names[1:]]  # click's own name for the option
    return any(environ.get(name.upper().replace("-", "_"), "").strip().lower() in TRUE for name in names)
