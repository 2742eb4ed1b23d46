"""A run's "settings" block (summary.json) as table rows and as Markdown: what each respondent and judge was
asked with, as it was sent. report.md of a run and `cobe report` both show it."""

from __future__ import annotations

from typing import Any

_TOKEN_NAMES = ("max_tokens", "max_completion_tokens", "max_output_tokens")
_SAMPLING = ("temperature", "top_p", "seed", "stop", "logprobs")
#: what an imported run's source did not say about how a model was asked: never a default cobe would have sent
UNKNOWN = "unknown (imported)"


def imported_settings(found: dict[str, Any]) -> dict[str, Any]:
    """An imported respondent's settings block: what its source said (`found`, e.g. a log's temperature and token
    limit), and everything else unknown."""
    return {"imported": True, **{k: v for k, v in found.items() if v is not None}}


def settings_rows(block: dict[str, Any]) -> list[dict[str, str]]:
    """One row per respondent and judge: role, model, API, token limit, thinking, sampling sent, not sent."""
    rows = []
    for role, key in (("respondent", "respondents"), ("judge", "judges")):
        for model, settings in (block.get(key) or {}).items():
            silent = UNKNOWN if settings.get("imported") else None  # what the source left unsaid
            limit = next((f"{settings[n]} ({n})" for n in _TOKEN_NAMES if n in settings), silent or "the provider's")
            sampling = ", ".join(f"{n} {settings[n]}" for n in _SAMPLING if n in settings) or "–"
            rows.append(
                {
                    "role": role,
                    "model": model,
                    "api": str(settings.get("api", silent or "?")),
                    "limit": limit,
                    "thinking": str(settings.get("thinking", silent or "?")),
                    "sampling": sampling,
                    "not_sent": "; ".join(settings.get("not_sent") or []) or "–",
                }
            )
    return rows


def settings_markdown(block: dict[str, Any]) -> list[str]:
    """The settings block as a Markdown table (no lines for an empty block)."""
    rows = settings_rows(block)
    if not rows:
        return []
    lines = [
        "| role | model | API | token limit | thinking | sampling sent | not sent (the model refuses it) |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['role']} | `{r['model']}` | {r['api']} | {r['limit']} | {r['thinking']} | {r['sampling']} | "
        f"{r['not_sent']} |"
        for r in rows
    ]
    return lines
