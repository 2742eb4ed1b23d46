"""Dataset construction: project DB, contributions, augmentation, checks, review, audit, release."""

from cobe.curate.audit import audit_summary, create_audit, import_ratings
from cobe.curate.augment import augment, augment_async, reject_counts
from cobe.curate.checks import CheckFailure, run_checks
from cobe.curate.contributions import import_file, promote, submit_contribution
from cobe.curate.project import STATUSES, Item, Project, init_project, open_project
from cobe.curate.release import ReleaseResult, release
from cobe.curate.review import add_reviewer, disagreements, record_review, resolve
from cobe.dataset.validate import validate_record

__all__ = [
    "STATUSES",
    "CheckFailure",
    "Item",
    "Project",
    "ReleaseResult",
    "add_reviewer",
    "audit_summary",
    "augment",
    "augment_async",
    "create_audit",
    "disagreements",
    "import_file",
    "import_ratings",
    "init_project",
    "open_project",
    "promote",
    "record_review",
    "reject_counts",
    "release",
    "resolve",
    "run_checks",
    "submit_contribution",
    "validate_record",
]
