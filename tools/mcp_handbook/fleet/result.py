"""One server's fleet result: a small JSON document a worker writes and the merge reads.

It keeps verdicts, not transcripts: per rule its status, which N/A, whether the FAIL is the SDK's default, and the
probe's one-line summary. Two results of the same server and version are compared on verdicts alone, so timings
and evidence that vary run to run never read as a change. Every result names the doctrine, the tool and the package
version it judged. Secrets never reach it: an entry names the variables it needs, never their values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import bounded_json
from ..audit.plan import NOT_CHECKED
from ..audit.server_text import clean
from .entry import Entry

if TYPE_CHECKING:
    from ..audit.plan import AuditResult
    from ..model import Corpus

FORMAT, FORMAT_VERSION = "mcp-handbook-fleet-result", 1
STATES = ("audited", "no answer", "not audited", "auditor failed")
"""What became of a server: audited; started but never completed the handshake (or its audit was stopped);
not started because something it needs is missing here; the auditor itself failed or ran out of time."""
MAX_SUMMARY = 300
MAX_RESULT_BYTES = 2_000_000
"""A result file larger than this was not written by a worker: the merge refuses it, naming it."""


class ResultError(ValueError):
    """A result file the merge cannot read, with the file named in the message."""


def _base(entry: Entry, corpus: Corpus, tool_version: str, sandbox: str) -> dict[str, Any]:
    from ..export.worksheet import git_commit

    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "key": entry.key, "entry": entry.to_json(),
        "doctrine_version": corpus.version, "tool_version": tool_version, "commit": git_commit(corpus.root),
        "sandbox": sandbox,
    }


def from_audit(entry: Entry, corpus: Corpus, audit: AuditResult, *, tool_version: str, sandbox: str) -> dict[str, Any]:
    """The result of an audit that ran (whether or not the server answered)."""
    facts = audit.facts
    info = facts.server_info

    def said(key: str) -> str:
        value = info.get(key)
        return clean(value)[:200] if isinstance(value, str) else ""

    data = _base(entry, corpus, tool_version, sandbox)
    data.update({
        "state": "audited" if facts.answered and not audit.stopped else "no answer",
        "why": "" if facts.answered and not audit.stopped else clean(audit.stopped or facts.describe())[:MAX_SUMMARY],
        "server_name": said("name"), "server_version": said("version"), "sdk": audit.sdk,
        "exit_code": audit.exit_code, "seconds": round(audit.seconds, 1),
        "killed": [clean(k)[:MAX_SUMMARY] for k in audit.killed],
        "rules": [{
            "id": f.rule.id, "gate": f.rule.gate, "severity": f.rule.severity, "basis": f.rule.basis,
            "status": f.finding.status, "na": f.na,
            "inherited": f.finding.status == "FAIL" and audit.inherited_from(f.rule.id) is not None,
            "summary": clean(f.finding.summary)[:MAX_SUMMARY],
        } for f in audit.findings],
    })
    return data


def not_run(entry: Entry, corpus: Corpus, *, state: str, why: str, tool_version: str, sandbox: str,
            seconds: float = 0.0) -> dict[str, Any]:
    """The result of a server that was not audited (``not audited``: it needs something this machine lacks) or
    whose audit failed (``auditor failed``), with the reason in one sentence."""
    assert state in STATES and state != "audited"
    data = _base(entry, corpus, tool_version, sandbox)
    data.update({"state": state, "why": clean(why)[:MAX_SUMMARY], "server_name": "", "server_version": "", "sdk": "",
                 "exit_code": None, "seconds": round(seconds, 1), "killed": [], "rules": []})
    return data


def not_checked(rule: dict[str, Any]) -> bool:
    return rule.get("status") == "N/A" and rule.get("na") == NOT_CHECKED


def write(folder: Path, result: dict[str, Any]) -> Path:
    """Write one result as ``<key>.json`` in ``folder``, atomically (a worker killed mid-write leaves no half file)."""
    from ..export.files import atomic_write

    path = folder / f"{result['key']}.json"
    atomic_write(path, json.dumps(result, indent=1, sort_keys=True) + "\n")
    return path


def read_document(path: Path, *, fmt: str, version: int, max_bytes: int, max_depth: int, what: str,
                  error: type[ValueError]) -> dict[str, Any]:
    """A JSON document of the fleet's (a result, a scorecard), bounded in size and depth, with its ``format`` and
    ``format_version`` checked; ``error`` (naming the file) for anything else."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise error(f"{path}: {size} bytes, larger than any {what} this tool writes ({max_bytes})")
        data = bounded_json.loads(path.read_bytes(), max_depth=max_depth)
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        if isinstance(exc, error):
            raise
        raise error(f"{path}: not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise error(f"{path}: not a {what} (no \"format\": \"{fmt}\")")
    if data.get("format_version") != version:
        raise error(f"{path}: format_version {data.get('format_version')!r}; this tool reads {version}")
    return data


def read(path: Path) -> dict[str, Any]:
    """One result file, checked enough that the merge can trust its shape; a clear :class:`ResultError` naming the
    file otherwise (a results folder can hold anything an artifact download put there)."""
    data = read_document(path, fmt=FORMAT, version=FORMAT_VERSION, max_bytes=MAX_RESULT_BYTES, max_depth=16,
                         what="fleet result", error=ResultError)
    problems = [k for k, kind in (("key", str), ("state", str), ("entry", dict), ("rules", list),
                                  ("doctrine_version", str), ("tool_version", str)) if not isinstance(data.get(k), kind)]
    if problems or data["state"] not in STATES:
        raise ResultError(f"{path}: malformed result ({', '.join(problems) or 'state ' + repr(data['state'])})")
    for n, rule in enumerate(data["rules"]):
        if not (isinstance(rule, dict) and isinstance(rule.get("id"), str) and rule.get("status") in ("PASS", "FAIL", "N/A")):
            raise ResultError(f"{path}: rules[{n}] is not a rule verdict (id and status PASS, FAIL or N/A)")
    return data
