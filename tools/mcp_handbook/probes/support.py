"""What every probe shares, in one import: meeting the server, listing its tools, sending requests and reading the
answers, plus (re-exported from the modules that hold them) the target, the finding, the protocol's names, argument
filling and the workspace.

A probe is a plain function ``(Target) -> Finding`` registered with :func:`~.registry.probe`. It
returns :func:`passed`, :func:`failed` with a *reason* from its own vocabulary, or
:func:`not_applicable`; anything that stops it early (the server never answers the handshake, the
listing cannot be read) is raised as :class:`ProbeAbort` or :class:`~mcp_handbook.wire.WireTimeout`
and becomes a finding with one of the :data:`GENERIC_REASONS`, which no WRONG block may prove with.
"""

from __future__ import annotations

import json
from typing import Any

from ..reasons import GENERIC_REASONS
from ..wire import Message, WireSession, WireTimeout
from .arguments import (ARGS_PARAMS, DELAY_WORDS, PATH_PARAMS, PROGRAM_PARAMS, STRING_CANDIDATES, callable_tools,
                        fill_arguments, fill_value, properties, schema_type, string_params)
from .findings import (MAX_LISTED, ROOT_UNKNOWN, Finding, ProbeAbort, Status, failed, listed, no_server_action,
                       not_applicable, passed)
from .http_session import HttpSession
from .protocol import (CLIENT_CAPABILITIES, CLIENT_INFO, KNOWN_REVISIONS, LATEST_LEGACY, MODERN_REVISION, PROBE_CLIENT,
                       PROTOCOL_VERSION, SERVER_INFO, modern_meta)
from .target import Target
from .workspace import SAMPLE_FILE, init_git_repository, planted, planted_fifo, served_root


# -- meeting the server -------------------------------------------------------------------------------------

def meet(session: WireSession, target: Target, *, version: str = LATEST_LEGACY) -> dict[str, Any]:
    """Open the conversation in the target's era and return the answer: ``initialize`` then ``initialized``
    (the handshake era, asking for ``version``), or :func:`discover` for a :attr:`Target.modern` target."""
    if not target.modern:
        return session.initialize(version=version, timeout=target.timeout)
    return discover(session, timeout=target.timeout)


def discover(session: WireSession, *, timeout: float) -> dict[str, Any]:
    """``server/discover``, with the session set to put the 2026-07-28 envelope on every later request. Its result
    is returned in the shape of an ``initialize`` result (``protocolVersion``, ``capabilities``, ``serverInfo``,
    ``instructions``, plus ``supportedVersions``), so a caller reads either era's answer the same way. Raises
    WireTimeout."""
    session.request_meta = modern_meta()
    response = session.request("server/discover", {}, timeout=timeout)
    result = response.get("result")
    if not isinstance(result, dict):
        return response
    meta = result.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    shaped = {"protocolVersion": MODERN_REVISION, "capabilities": result.get("capabilities"),
              "serverInfo": meta.get(SERVER_INFO, result.get("serverInfo")), "instructions": result.get("instructions"),
              "supportedVersions": result.get("supportedVersions")}
    return {**response, "result": {k: v for k, v in shaped.items() if v is not None}}


def handshake(target: Target, *, version: str = LATEST_LEGACY, **start: Any) -> tuple[WireSession, dict[str, Any]]:
    """Start the server and meet it in its era (:func:`meet`); abort with ``no_answer`` when it does not answer."""
    return opened(target.start(**start), target, version=version)


def opened(session: WireSession, target: Target, *, version: str = LATEST_LEGACY) -> tuple[WireSession, dict[str, Any]]:
    """Meet a session already started (:func:`handshake` without the start: a probe that needs two servers starts
    both first, so their start-ups overlap); abort with ``no_answer`` when it does not answer."""
    opening = "server/discover" if target.modern else "initialize"
    try:
        response = meet(session, target, version=version)
    except WireTimeout as exc:
        raise ProbeAbort(failed("no_answer", f"the server did not complete the handshake ({opening}): {exc}",
                                *session.transcript(limit=8))) from None
    result = response.get("result")
    if not isinstance(result, dict):
        raise ProbeAbort(failed("no_answer", f"{opening} was answered with an error: {compact(response.get('error'), 200)}",
                                *session.transcript(limit=8)))
    return session, result


def trivial_method(target: Target) -> str:
    """A request every server answers with a result in the era the target is met in: ``ping`` in the handshake
    era; ``server/discover`` in 2026-07-28, which removed ``ping``."""
    return "server/discover" if target.modern else "ping"


def list_tools(
    session: WireSession, *, timeout: float, max_pages: int = 50, pages: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Every tool the server lists, following cursors (bounded); each page's result is appended to ``pages`` when given."""
    tools: list[dict[str, Any]] = []
    cursor = None
    for _ in range(max_pages):
        response = session.request("tools/list", {"cursor": cursor} if cursor else {}, timeout=timeout)
        result = response.get("result") or {}
        if pages is not None and isinstance(result, dict):
            pages.append(result)
        tools.extend(t for t in result.get("tools") or [] if isinstance(t, dict))
        cursor = result.get("nextCursor")
        if not cursor:
            break
    return tools


class LazySession:
    """A session whose server starts (and is met, :func:`handshake`) the first time the probe uses it.

    Many probes decide from the listing alone that a rule does not apply (no tool takes a path, none runs a
    program) and never send anything else: on a target whose listing and handshake result are already known,
    such a probe starts no server. Every attribute is the started session's; closing one never started is a no-op."""

    def __init__(self, target: Target, start: dict[str, Any]) -> None:
        self._target, self._start = target, start
        self._session: WireSession | HttpSession | None = None

    def _real(self) -> WireSession | HttpSession:
        if self._session is None:
            self._session, _result = handshake(self._target, **self._start)
        return self._session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real(), name)

    def close(self, *args: Any, **kwargs: Any) -> Any:
        return None if self._session is None else self._session.close(*args, **kwargs)


def real_session(session: Any) -> Any:
    """The session behind a :class:`LazySession` (starting it), or ``session`` itself."""
    return session._real() if isinstance(session, LazySession) else session


def session_with_tools(
    target: Target, *, lazy: bool = True, **start: Any,
) -> tuple[WireSession, dict[str, Any], list[dict[str, Any]]]:
    """Handshake plus every listed tool, on one session; abort with ``no_answer`` when either is not answered.

    When the target already knows both (:attr:`Target.opening`, :attr:`Target.listing`), the session is a
    :class:`LazySession`: the server starts only if the probe goes on to use it. ``lazy=False`` is for a probe
    that compares this session's own listing with a later one."""
    if lazy and target.opening is not None and isinstance(target.listing, list):
        return LazySession(target, start), target.opening, target.listing  # type: ignore[return-value]
    session, init = handshake(target, **start)
    try:
        tools = list_tools(session, timeout=target.timeout)
    except WireTimeout as exc:
        raise ProbeAbort(failed("no_answer", f"tools/list was not answered: {exc}", *session.transcript(limit=8))) from None
    return session, init, tools


def tools_of(target: Target) -> list[dict[str, Any]]:
    """The target's tool listing, read once per target (its own short session) and kept on it.

    A server that could not be listed is not waited on again: the same abort is raised at once."""
    if target.listing is None:
        session = target.start()
        try:
            meet(session, target)
            target.listing = list_tools(session, timeout=target.timeout)
        except WireTimeout as exc:
            target.listing = failed("no_answer", f"tools/list could not be read: {exc}", *session.transcript(limit=8))
        finally:
            session.close(grace=0.5)
    if isinstance(target.listing, Finding):
        raise ProbeAbort(target.listing)
    return target.listing


def send_request(session: WireSession, method: str, params: dict[str, Any] | None = None) -> int:
    """Send a request without waiting for its answer; return its id (wait with ``session.wait_for_id``)."""
    rid = session.new_id()
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    session.send(message)
    return rid


def silence_reason(session: WireSession | HttpSession) -> str:
    """The generic reason for a request the server did not answer: it exited, or it is still there, silent (a
    server reached by URL has no process the probe can see exit)."""
    session = real_session(session)
    if not isinstance(session, WireSession):
        return "no_answer"
    if session.wait_stdout_eof(0):  # stdout is closed: the process is gone or going, let it be reaped
        session.wait_exit(0.5)
    return "server_exited" if session.proc.poll() is not None else "no_answer"


def call_tool(session: WireSession, name: str, arguments: Any, *, timeout: float) -> dict[str, Any]:
    return session.request("tools/call", {"name": name, "arguments": arguments}, timeout=timeout)


def ask(session: WireSession, rid: Any, method: str, params: dict[str, Any] | None = None, *, timeout: float) -> dict[str, Any]:
    """Send one request with a chosen id and wait for the response carrying it."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    session.send(message)
    return session.wait_for_id(rid, timeout=timeout)


# -- reading answers ----------------------------------------------------------------------------------------

def compact(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + " …"


def is_jsonrpc_message(value: Any) -> bool:
    """A JSON-RPC 2.0 request, notification or response object (one per line)."""
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return False
    if "method" in value:
        return isinstance(value["method"], str)
    return "id" in value and (("result" in value) != ("error" in value))


def mask(text: str, target: Target) -> str:
    """``text`` with the target's canary replaced by ``<CANARY>``: evidence never shows the secret itself."""
    return text.replace(target.canary, "<CANARY>") if target.canary else text


def show(value: Any, target: Target, limit: int = 300) -> str:
    """``compact`` with the canary masked first, so a cut never shows part of it."""
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return compact(mask(text, target).replace("\r", "\\r").replace("\n", "\\n"), limit)


def error_code(response: dict[str, Any]) -> Any:
    error = response.get("error")
    return error.get("code") if isinstance(error, dict) else None


def result_text(response: dict[str, Any]) -> str:
    """Everything a tools/call response shows the client, as one string."""
    return json.dumps(response, ensure_ascii=False)


def text_blocks(response: dict[str, Any]) -> str:
    """The text blocks of a tools/call result, joined."""
    content = (response.get("result") or {}).get("content") or []
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))


def is_error_result(response: dict[str, Any]) -> bool:
    return isinstance(response.get("result"), dict) and response["result"].get("isError") is True


def refused(response: dict[str, Any]) -> bool:
    """A tool call was refused: a JSON-RPC error or a result with isError true."""
    return "error" in response or is_error_result(response)


def responses(messages: list[Message]) -> list[dict[str, Any]]:
    """The JSON-RPC responses among ``messages`` (results and errors, not requests or notifications)."""
    return [m.value for m in messages
            if isinstance(m.value, dict) and "method" not in m.value and ("result" in m.value or "error" in m.value)]


def tool_name(tool: dict[str, Any]) -> str:
    name = tool.get("name")
    return name if isinstance(name, str) else f"<tool without a string name: {compact(name, 40)}>"


__all__ = [
    "ARGS_PARAMS", "CLIENT_CAPABILITIES", "CLIENT_INFO", "DELAY_WORDS", "Finding", "GENERIC_REASONS", "HttpSession",
    "KNOWN_REVISIONS", "LATEST_LEGACY", "LazySession", "MAX_LISTED", "Message", "MODERN_REVISION", "PATH_PARAMS",
    "PROBE_CLIENT", "ProbeAbort", "PROGRAM_PARAMS", "PROTOCOL_VERSION", "ROOT_UNKNOWN", "SAMPLE_FILE", "SERVER_INFO",
    "Status", "STRING_CANDIDATES", "Target", "WireSession", "WireTimeout", "ask", "call_tool", "callable_tools",
    "compact", "discover", "error_code", "failed", "fill_arguments", "fill_value", "handshake",
    "init_git_repository", "is_error_result", "is_jsonrpc_message", "list_tools", "listed", "mask", "meet",
    "modern_meta", "no_server_action", "not_applicable", "passed", "planted", "planted_fifo", "properties", "real_session",
    "refused", "responses", "result_text", "schema_type", "send_request", "served_root", "session_with_tools",
    "show", "silence_reason", "string_params", "text_blocks", "tool_name", "tools_of", "trivial_method",
]
