"""SEC-018: a binary resource is sent as a base64 ``blob`` of its exact bytes, never as text.

The specification gives binary contents one shape (``blob``: base64) and requires binary data to be properly
encoded. A server that decodes bytes as text (replacing what is not UTF-8) hands the client a corrupted file. The
schema makes ``mimeType`` optional ("if known"), so a blob without one is not a failure: the finding only says
that the client has to guess the type. The probe plants a small PNG-named file holding bytes that are not UTF-8
(NUL, 0xFF), finds the server's URI for it, reads it, and decodes what comes back.
"""

from __future__ import annotations

import base64
import binascii
import secrets

from ..registry import probe
from ..support import Finding, Target, WireTimeout, compact, failed, not_applicable, passed, served_root
from ._resources import contents_of, find_base, read, resources_session

PAYLOAD = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) + b"hb-binary\x00\xff\xfe"
"""A PNG signature, every byte value, and a tail that is not UTF-8."""


@probe("binary_resource_blobs", "binary resource contents are a base64 blob of the file's exact bytes", reasons={
    "binary_as_text": "a binary file came back as text (decoded, bytes replaced or lost) instead of a blob",
    "blob_not_base64": "the blob is not valid base64",
    "blob_changed": "the blob decodes to bytes other than the file's",
}, shares_session=True)
def binary_resource_blobs(target: Target) -> Finding:
    """Plant a binary file, read it as a resource, and check the blob and its bytes; report the MIME type."""
    session = resources_session(target)
    root = served_root(target)
    own = root == target.workspace
    name = "hb-binary.png" if own else f"hb-audit-{secrets.token_hex(4)}-binary.png"
    planted = root / name
    planted.write_bytes(PAYLOAD)
    try:
        base, evidence = find_base(session, target, root, name, b"\x89PNG")
        if base is None:
            return not_applicable("not checked: the server serves no file: resource the probe could plant (the "
                                  "planted file is not listed and no file: template reaches it)", *evidence)
        uri = base + name
        try:
            answer = read(session, uri, timeout=target.timeout)
        except WireTimeout as exc:
            return failed("no_answer", f"resources/read {uri} got no answer: {exc}", *session.transcript(limit=6))
        shown = f"resources/read {uri} -> {compact(answer, 200)}"
        contents = contents_of(answer)
        if not contents:
            return not_applicable(f"not checked: the server did not serve the planted binary file {name}", shown)
        entry = contents[0]
        if "blob" not in entry:
            return failed("binary_as_text", f"{name} ({len(PAYLOAD)} bytes, not UTF-8) came back as text, "
                          "not as a base64 blob", shown)
        try:
            data = base64.b64decode(str(entry["blob"]), validate=True)
        except (binascii.Error, ValueError) as exc:
            return failed("blob_not_base64", f"the blob of {name} is not base64: {exc}", shown)
        if data != PAYLOAD:
            return failed("blob_changed", f"the blob decodes to {len(data)} bytes that differ from the file's "
                          f"{len(PAYLOAD)}", shown)
        mime = entry.get("mimeType")
        if not (isinstance(mime, str) and mime.strip()):  # optional in the schema ("if known"): advice, not a FAIL
            return passed(f"{name} came back as a base64 blob of the same {len(PAYLOAD)} bytes; it has no mimeType "
                          "(optional in the schema; naming one, application/octet-stream at least, spares the client "
                          "a guess)", shown)
        return passed(f"{name} came back as a base64 blob of the same {len(PAYLOAD)} bytes, mimeType {mime}", shown)
    finally:
        try:
            planted.unlink()
        except OSError:
            pass
