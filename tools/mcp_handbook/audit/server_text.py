"""What the audit's outputs say of the server in its own words, made safe: server text with its control characters
shown as ``\\xNN`` (:func:`clean`), and the worksheet's stamp naming the server as its ``serverInfo`` did.

Apart from ``sheet`` (the worksheet), ``summary`` (the lines printed and the worksheet's preface) and ``sarif``:
each of them shows server text, and the worksheet holds the other two."""

from __future__ import annotations

import re

from ..export.worksheet import Stamp, stamp_for
from ..model import Corpus
from .plan import AuditResult

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean(text: str) -> str:
    """Control characters (a terminal escape, a NUL) shown as ``\\xNN``: safe in md, csv, json and xlsx."""
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else "\ufffd", text)


def audit_stamp(corpus: Corpus, result: AuditResult) -> Stamp:
    """The export stamp, with the server's name and version from its ``serverInfo`` (text the server chose)."""
    info = result.facts.server_info

    def said(key: str) -> str:
        value = info.get(key)
        return clean(value) if isinstance(value, str) else ""

    facts = result.facts
    reached = f"{facts.transport_text()}; probes spoke {facts.era}" if facts.answered else facts.transport_text()
    return stamp_for(corpus, server_name=said("name"), server_version=said("version"), server_transport=clean(reached))
