"""The reasons any probe can FAIL with that say nothing about the rule it proves.

Apart from the probes (``probes/support.py`` re-exports it) so that the site can say what a recorded
reason means without importing verification code.
"""

from __future__ import annotations

GENERIC_REASONS: dict[str, str] = {
    "no_answer": "the server did not answer in time",
    "server_exited": "the server exited or could not be started",
    "probe_error": "the probe itself failed",
}
"""A WRONG block whose probe fails only like this is broken, not proved."""
