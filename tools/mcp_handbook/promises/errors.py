"""Promises of the errors gate's manual rules: where a failure's detail goes (ERR-013).

The errors gate's automated rules are proved by their probes against the reference server; what is left here is
the routing a manual rule's example promises, checked by calling its function in this process with stderr
recorded.
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr
from types import ModuleType

from .registry import Broken, promise

SECRET = "hb-s3cret-7c1d"
FAILURE = f"connect to db://admin:{SECRET}@10.0.0.5/notes failed in /srv/app/notes/store.py"
REFERENCE = re.compile(r"\breference\s+([A-Za-z0-9-]{6,})", re.I)


@promise("error_routed", "the client gets a safe sentence with a reference; the operator's stderr gets the same "
         "reference and the traceback, masked: no secret",
         reasons={
             "exception_text_to_client": "the client-visible result carries the exception's text, type or a path",
             "no_reference": "the client-visible result cites no reference the operator could search for",
             "reference_not_logged": "stderr never mentions the reference the client was given",
             "traceback_not_logged": "stderr carries no traceback of the failure: the operator cannot find where it "
                                     "failed",
             "secret_on_stderr": "the operator's stderr line carries the secret from the exception",
         }, seconds=10)
def error_routed(block: ModuleType) -> None:
    """``failure(tool, exc)``, called while the exception is being handled (so it has a traceback), returns the
    client-visible tool result and writes the operator's record to stderr: the reference and the traceback, with
    the secret masked."""
    stderr = io.StringIO()
    try:
        raise RuntimeError(FAILURE)
    except RuntimeError as exc:
        with redirect_stderr(stderr):
            result = block.failure("sync_notes", exc)
    text = " ".join(str(c.get("text", "")) for c in (result.get("content") or []) if isinstance(c, dict))
    for leaked in (SECRET, "RuntimeError", "/srv/app", "db://"):
        if leaked in text:
            raise Broken("exception_text_to_client", f"the result shows {leaked!r}: {text[:200]}")
    ref = REFERENCE.search(text)
    if ref is None:
        raise Broken("no_reference", f"the result cites no reference: {text[:200]}")
    logged = stderr.getvalue()
    if ref.group(1) not in logged:
        raise Broken("reference_not_logged", f"reference {ref.group(1)} is not on stderr: {logged[:200]!r}")
    if SECRET in logged:
        raise Broken("secret_on_stderr", f"stderr: {logged[:200]!r}")
    if "Traceback (most recent call last)" not in logged or "RuntimeError" not in logged:
        raise Broken("traceback_not_logged", f"stderr: {logged[:200]!r}")
