"""Speaking Streamable HTTP to a target: find its endpoint, send one raw request, read the answer.

A target served over HTTP is either already running (``target.url``, an audit by URL) or started by
``target.start()`` and found by the one stderr line it prints once it listens: ``listening on URL``
(the reference server with ``--http``). Requests are raw ``http.client`` calls with a bounded timeout,
so a probe can send exactly the headers a hostile page would (a foreign ``Host`` or ``Origin``).
Evidence never shows the port, which changes on every run: it reads ``PORT``.
"""

from __future__ import annotations

import http.client
import json
import re
import time
from dataclasses import dataclass
from typing import Any

from .findings import ProbeAbort, failed, not_applicable
from .http_body import READ_CHUNK, Endpoint, parse_url, read_body, reply_messages
from .protocol import LATEST_LEGACY, MODERN_REVISION, PROBE_CLIENT, modern_meta
from .target import Target

LISTENING = re.compile(r"listening on (?P<url>https?://\S+)")
"""The line a server started for an HTTP proof prints on stderr once it accepts connections."""
NOT_HTTP = "does not apply: the server is not audited over Streamable HTTP"
POLL_SECONDS = 0.02


def endpoint(target: Target) -> Endpoint:
    """The target's HTTP endpoint: ``target.url``, or the URL the server it starts prints (bounded wait)."""
    if target.transport != "http":
        raise ProbeAbort(not_applicable(NOT_HTTP))
    if target.url is None:
        session = target.start()
        deadline = time.monotonic() + target.timeout
        while target.url is None:
            found = next((m for ln in session.stderr_lines if (m := LISTENING.search(ln.text))), None)
            if found:
                target.url = found.group("url")
            elif session.proc.poll() is not None:
                raise ProbeAbort(failed("server_exited", f"the server exited (code {session.proc.returncode}) before it "
                                        "printed the URL it listens on", *session.transcript(limit=8)))
            elif time.monotonic() > deadline:
                raise ProbeAbort(failed("no_answer", f"the server printed no `listening on URL` line within "
                                        f"{target.timeout:g} s", *session.transcript(limit=8)))
            else:
                time.sleep(POLL_SECONDS)
    return parse_url(target.url)


@dataclass(frozen=True, slots=True)
class Answer:
    """One HTTP response: status, headers (names lower-cased) and the start of the body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def message(self) -> dict[str, Any] | None:
        """The JSON-RPC message in the body: a JSON object, or the first ``data:`` of an event stream."""
        return next((m for m in reply_messages(self.headers.get("content-type", ""), self.body) if isinstance(m, dict)),
                    None)


def send(target: Target, point: Endpoint, message: dict[str, Any] | None, headers: dict[str, str] | None = None,
         *, method: str = "POST") -> Answer:
    """One request to ``point`` with ``message`` as its JSON body; ``headers`` override the usual ones (a ``Host``
    given here is sent instead of the real one). A connection that cannot be made or times out aborts the probe."""
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            **dict(target.http_headers), **(headers or {})}
    body = json.dumps(message).encode() if message is not None else None
    connection_type = http.client.HTTPSConnection if point.scheme == "https" else http.client.HTTPConnection
    connection = connection_type(point.host, point.port, timeout=target.timeout)
    try:
        connection.request(method, point.path, body=body, headers=sent)
        response = connection.getresponse()
        data, _stopped = read_body(response, seconds=target.timeout)  # a stream still open: what came is the answer
        answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        if answer.headers.get("mcp-session-id"):
            target.http_opened.append(answer.headers["mcp-session-id"])
        return answer
    except (OSError, http.client.HTTPException) as exc:
        raise ProbeAbort(failed("no_answer", f"{method} {point.path} got no HTTP answer: {type(exc).__name__}: {exc}")) from None
    finally:
        connection.close()


def end_sessions(target: Target, *, seconds: float = 2.0) -> int:
    """DELETE every session :func:`send` opened on the target's endpoint (:attr:`~.target.Target.http_opened`), as a
    client ends a session it no longer needs; a server that does not answer holds this no longer than ``seconds`` in
    all. Returns how many the server acknowledged (2xx)."""
    ids, target.http_opened[:] = list(target.http_opened), []
    if not ids or target.url is None:
        return 0
    point = parse_url(target.url)
    kind = http.client.HTTPSConnection if point.scheme == "https" else http.client.HTTPConnection
    deadline = time.monotonic() + seconds
    ended = 0
    for session_id in ids:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        connection = kind(point.host, point.port, timeout=left)
        try:
            connection.request("DELETE", point.path, headers={**dict(target.http_headers), "Mcp-Session-Id": session_id})
            response = connection.getresponse()
            read_body(response, seconds=left, limit=READ_CHUNK)
            ended += 200 <= response.status < 300
        except (OSError, http.client.HTTPException):
            pass
        finally:
            connection.close()
    return ended


def initialize_message(rid: int = 1) -> dict[str, Any]:
    """A handshake-era ``initialize`` request (2025-11-25)."""
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize",
            "params": {"protocolVersion": LATEST_LEGACY, "capabilities": {},
                       "clientInfo": dict(PROBE_CLIENT)}}


def discover_message(rid: int = 1) -> dict[str, Any]:
    """A 2026-07-28 ``server/discover`` request with the ``_meta`` that revision requires."""
    return {"jsonrpc": "2.0", "id": rid, "method": "server/discover",
            "params": {"_meta": modern_meta()}}


DISCOVER_HEADERS = {"MCP-Protocol-Version": MODERN_REVISION, "Mcp-Method": "server/discover"}


def ordinary_request(target: Target, point: Endpoint) -> tuple[dict[str, Any], dict[str, str], Answer]:
    """A request the server serves (2xx) when nothing about it is hostile: ``initialize``, else a 2026-07-28
    ``server/discover``. Returns the message, its extra headers and the answer; N/A, not checked, when neither
    is served, since then a refusal of a hostile request would say nothing."""
    tried = []
    for message, headers in ((initialize_message(), {}), (discover_message(), DISCOVER_HEADERS)):
        answer = send(target, point, message, headers)
        if 200 <= answer.status < 300:
            return message, headers, answer
        tried.append(f"{message['method']}: HTTP {answer.status}")
    raise ProbeAbort(not_applicable("not checked: the server served neither initialize nor server/discover with "
                                    f"ordinary headers ({'; '.join(tried)}), so a refusal would prove nothing"))


def row(point: Endpoint, method: str, headers: dict[str, str], answer: Answer) -> str:
    """One evidence line: what was sent and the status it got, the port written ``PORT``."""
    shown = ", ".join(f"{k}: {v}" for k, v in headers.items()) or "ordinary headers"
    text = f"POST {point.path} {method} ({shown}) -> HTTP {answer.status}"
    return text.replace(f":{point.port}", ":PORT")
