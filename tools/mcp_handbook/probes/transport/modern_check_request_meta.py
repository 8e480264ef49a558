"""A 2026-07-28 server checks the envelope of every request: both required ``_meta`` fields, and the version.

Without a handshake, ``params._meta`` is the only place the server learns which revision a request
speaks and what the client can do. A request missing either required field is malformed (-32602); a
version the server does not serve gets -32022 with ``data.supported`` and ``data.requested``, so the
client can retry with one both sides speak. The probe sends one request of each kind.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import CLIENT_CAPABILITIES, PROTOCOL_VERSION, Finding, Target, compact, failed, modern_meta, passed
from ._modern import modern_request, modern_session

UNSERVED_VERSION = "1900-01-01"
"""A version no server serves (the specification's own example)."""


def _error(answer: dict[str, Any]) -> dict[str, Any]:
    return answer["error"] if isinstance(answer.get("error"), dict) else {}


def _row(what: str, answer: dict[str, Any]) -> str:
    return f"tools/list, {what} -> {compact(answer.get('error') if 'error' in answer else 'a result', 220)}"


@probe("modern_check_request_meta", "2026-07-28 requests are checked for their _meta fields and version",
       over_http=True, reasons={
           "missing_field_accepted": "a request missing a required _meta field was served instead of refused",
           "missing_field_wrong_code": "a request missing a required _meta field was refused with a code other than -32602",
           "unsupported_version_served": "a request naming a version the server does not serve was served",
           "unsupported_version_unlisted": "an unsupported version was refused without -32022 and data.supported/requested",
           "valid_envelope_refused": "a request with a complete 2026-07-28 envelope was refused",
       }, shares_session=True)
def modern_check_request_meta(target: Target) -> Finding:
    """Send tools/list without the version, without the capabilities, with an unserved version, and whole."""
    session, _discovered = modern_session(target)
    wait = target.timeout
    evidence: list[str] = []
    problems: list[tuple[str, str]] = []
    for key, label in ((PROTOCOL_VERSION, "no protocol version"), (CLIENT_CAPABILITIES, "no client capabilities")):
        answer = modern_request(session, "tools/list", timeout=wait, meta=modern_meta(drop=key))
        evidence.append(_row(f"_meta with {label}", answer))
        if "result" in answer:
            problems.append(("missing_field_accepted", f"a request with {label} in _meta was served"))
        elif _error(answer).get("code") != -32602:
            problems.append(("missing_field_wrong_code",
                             f"a request with {label} in _meta got {_error(answer).get('code')}, not -32602"))
    answer = modern_request(session, "tools/list", timeout=wait, meta=modern_meta(version=UNSERVED_VERSION))
    evidence.append(_row(f"protocol version {UNSERVED_VERSION}", answer))
    data = _error(answer).get("data")
    data = data if isinstance(data, dict) else {}
    supported = data.get("supported")
    if "result" in answer:
        problems.append(("unsupported_version_served", f"a request for protocol version {UNSERVED_VERSION} was served"))
    elif _error(answer).get("code") != -32022:
        problems.append(("unsupported_version_unlisted", f"protocol version {UNSERVED_VERSION} got "
                         f"{_error(answer).get('code')}, not -32022 (UnsupportedProtocolVersion)"))
    elif not (isinstance(supported, list) and supported and all(isinstance(v, str) for v in supported)):
        problems.append(("unsupported_version_unlisted", "-32022 came without data.supported, the versions to retry with"))
    elif data.get("requested") != UNSERVED_VERSION:
        problems.append(("unsupported_version_unlisted", "-32022 came without data.requested naming the version sent"))
    answer = modern_request(session, "tools/list", timeout=wait)
    evidence.append(_row("a complete 2026-07-28 envelope", answer))
    if "result" not in answer:
        problems.append(("valid_envelope_refused", "tools/list with a complete 2026-07-28 envelope was refused"))
    if problems:
        reason, first = problems[0]
        return failed(reason, first, *[text for _, text in problems[1:]], *evidence)
    return passed("missing _meta fields get -32602, an unserved version gets -32022 with the versions to retry with",
                  *evidence)
