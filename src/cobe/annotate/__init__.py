"""Human rating studies: sampling a run into a study, the rating web app, and its security helpers."""

from typing import TYPE_CHECKING, Any

from cobe.annotate.store import LABELS, StudyStore
from cobe.annotate.study import create_study, item_key, open_study, read_results, rotate_links, sample_rows

if TYPE_CHECKING:
    from cobe.annotate.app import create_app

__all__ = [
    "LABELS",
    "StudyStore",
    "create_app",
    "create_study",
    "item_key",
    "open_study",
    "read_results",
    "rotate_links",
    "sample_rows",
]


def __getattr__(name: str) -> Any:
    # the web app pulls in FastAPI; load it only when asked for, so the CLI stays light
    if name == "create_app":
        from cobe.annotate.app import create_app

        return create_app
    raise AttributeError(name)
