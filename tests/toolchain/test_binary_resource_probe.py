"""SEC-018's probe judges the encoding of a binary resource, not the optional ``mimeType``.

The schema makes ``ResourceContents.mimeType`` optional ("The MIME type of this resource, if known."), so a blob
of the exact bytes without one must PASS (the finding says it is missing, as advice), and the probe has no reason
that fails it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mcp_handbook import load_corpus
from mcp_handbook.probes import PROBES
from mcp_handbook.proving.verify import verify

BLOB_WITHOUT_TYPE = '''import base64


def resource_contents(uri, data, mime_type):
    try:
        return {"uri": uri, "mimeType": mime_type or "text/plain", "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"uri": uri, "blob": base64.b64encode(data).decode("ascii")}
'''


def test_the_probe_has_no_reason_for_a_missing_mime_type() -> None:
    assert set(PROBES["binary_resource_blobs"].reasons) == {"binary_as_text", "blob_not_base64", "blob_changed"}


def test_a_blob_of_the_exact_bytes_without_mime_type_passes_with_advice(project_root: Path) -> None:
    rule = next(r for r in load_corpus(project_root).rules if r.probe == "binary_resource_blobs")
    correct = next(s for s in rule.snippets if s.kind == "correct")
    verdict = verify(dataclasses.replace(correct, code=BLOB_WITHOUT_TYPE), rule)
    assert verdict.ok, (verdict.broken, verdict.finding)
    assert verdict.finding is not None and verdict.finding.status == "PASS"
    assert "no mimeType" in verdict.finding.summary, verdict.finding.summary
