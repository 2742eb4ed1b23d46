"""Shared pytest fixtures; each lives in tests/support/ and is imported here."""

# pytest finds fixtures by name, so these imports are the registration
from support.http_transport import http_transport  # noqa: F401
from support.openai_server import openai_server, strict_server  # noqa: F401
from support.scenarios import bare_scenario, scenario, scenario_factory  # noqa: F401

# the session's own HOME and XDG folders, and the check that nothing of cobe's reached the real ones; how the
# suite is spread over xdist workers (real inference on one)
pytest_plugins = ["support.home", "support.workers"]
