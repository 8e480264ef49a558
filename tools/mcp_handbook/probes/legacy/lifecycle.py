"""Probes of the session lifecycle and of operational behaviour.

Lifecycle: version negotiation, the dual-era ``server/discover`` fallback,
``params._meta``, notifications, capabilities, ``tools/list`` paging and the
``instructions`` budget. Operations: shutdown on a signal and on stdin EOF,
listening sockets, the shape of stderr logs and ``logging/setLevel``.

Every probe is generic: it learns the server's tools from ``tools/list``, only
calls tools the target allows, and says N/A when the server has nothing it can
exercise. Every wait is bounded by ``target.timeout`` or less.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..base import (
    Finding, Probe, Target, WireTimeout, compact, failed, list_tools, not_applicable, passed,
)
from ...wire import WireSession

KNOWN_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Revisions that have the initialize handshake."""
MODERN_REVISION = "2026-07-28"
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
LEVEL_RANK = {name: i for i, name in enumerate(LOG_LEVELS)}
SPEC_CAPABILITIES = frozenset({"experimental", "logging", "completions", "prompts", "resources", "tools", "tasks"})
INSTRUCTIONS_BUDGET = 2000
"""The handbook's ceiling for ``instructions``, in characters (an opinion, see OPS-007)."""
EXIT_PROMPTLY = 1.5
"""Seconds a server may take to exit once stdin is closed and nothing is in flight (at least;
a target with a longer timeout, such as a slow-starting server under audit, gets 30% of it)."""
SLOW_SECONDS = 0.5
"""How long the in-flight call of the shutdown probe runs."""
SHUTDOWN_LINE = re.compile(r"shut\s*down|shutting down", re.I)


def _send(session: WireSession, method: str, params: dict[str, Any] | None = None) -> int:
    """Send a request without waiting; return its id."""
    rid = session.new_id()
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    session.send(message)
    return rid


def _init_params(version: Any = "2025-11-25", **extra: Any) -> dict[str, Any]:
    return {"protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "mcp-handbook-probe", "version": "1"}, **extra}


def _handshake(target: Target, session: WireSession) -> dict[str, Any] | Finding:
    """Initialize; the result, or a FAIL finding when the handshake does not complete."""
    try:
        response = session.initialize(timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"the server did not answer initialize: {exc}", *session.transcript(limit=8))
    result = response.get("result")
    if not isinstance(result, dict):
        return failed("initialize was refused", f"<<< {compact(response)}")
    return result


def _error_code(response: dict[str, Any]) -> Any:
    return (response.get("error") or {}).get("code") if isinstance(response.get("error"), dict) else None


def _callable_tools(target: Target, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tools the probe may call, read-only ones first."""
    allowed = [t for t in tools if target.may_call(t) and isinstance(t.get("name"), str)]
    return sorted(allowed, key=lambda t: (not (t.get("annotations") or {}).get("readOnlyHint"), t["name"]))


# -- transport: version negotiation, discovery, _meta, notifications --------------------------------

def _ask_versions(target: Target, versions: tuple[str, ...], offered: dict[str, str],
                  problems: list[str], evidence: list[str]) -> None:
    """One server per question (a session negotiates once), started together; record each answer."""
    sessions = {v: target.start() for v in versions}
    rids = {v: _send(s, "initialize", _init_params(v)) for v, s in sessions.items()}
    deadline = time.monotonic() + 2 * target.timeout  # the servers start at once and compete for the CPU
    for version, session in sessions.items():
        try:
            response = session.wait_for_id(rids[version], timeout=max(0.2, deadline - time.monotonic()))
        except WireTimeout as exc:
            problems.append(f"initialize({version!r}): no answer ({exc})")
            continue
        finally:
            session.close(grace=0.2)
        result = response.get("result")
        got = result.get("protocolVersion") if isinstance(result, dict) else None
        evidence.append(f"initialize({version}) -> {got if got else compact(response, 140)}")
        if not isinstance(result, dict):
            problems.append(f"initialize({version!r}) was refused instead of answered with a version the server supports")
        elif not isinstance(got, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", got):
            problems.append(f"initialize({version!r}) answered protocolVersion {got!r}, not a revision string")
        else:
            offered[version] = got


def version_negotiation(target: Target) -> Finding:
    """Initialize with unsupported and with known revisions: supported ones are echoed, others never are."""
    bogus = ("1999-01-01", MODERN_REVISION)  # older than any revision; newer than any with a handshake
    offered: dict[str, str] = {}
    problems: list[str] = []
    evidence: list[str] = []
    _ask_versions(target, bogus, offered, problems, evidence)
    for version in bogus:
        if offered.get(version) == version:
            problems.append(f"the unsupported version {version!r} was echoed: the client now believes the server speaks it")
    if problems:  # decided already: spare the known-revision round
        return failed(f"{len(problems)} negotiation problem(s)", *problems, *evidence)
    _ask_versions(target, KNOWN_REVISIONS, offered, problems, evidence)
    supported = {v for v in offered.values() if v not in bogus}
    for version in KNOWN_REVISIONS:
        if version in supported and offered.get(version, version) != version:
            problems.append(f"{version} is supported (the server offered it) but initialize({version!r}) "
                            f"was answered with {offered[version]!r}")
    fallbacks = {offered[v] for v in bogus if v in offered}
    if supported and fallbacks and min(fallbacks) < max(supported):
        problems.append(f"an unsupported version was answered with {min(fallbacks)}, not the latest the server "
                        f"supports ({max(supported)})")
    if problems:
        return failed(f"{len(problems)} negotiation problem(s)", *problems[:6], *evidence)
    return passed(f"unsupported versions answered with {', '.join(sorted(fallbacks))}; "
                  f"supported ones ({', '.join(sorted(supported))}) echoed", *evidence)


def discover_fallback(target: Target) -> Finding:
    """Send server/discover first, as a dual-era client does: it must be answered at once, and initialize must still work."""
    session = target.start()
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
            "io.modelcontextprotocol/clientInfo": {"name": "mcp-handbook-probe", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    started = time.monotonic()
    discover_id = _send(session, "server/discover", {"_meta": meta})
    ping_id = _send(session, "ping", {"_meta": meta})
    pinged = True
    try:
        session.wait_for_id(ping_id, timeout=target.timeout)
    except WireTimeout:
        pinged = False
    try:
        answer = session.wait_for_id(discover_id, timeout=0.5 if pinged else 0.1)
    except WireTimeout:
        why = ("a ping sent after it was answered" if pinged else f"nothing came back within {target.timeout:.0f} s")
        return failed(f"server/discover got no answer ({why}): a dual-era client waits out its discovery timeout "
                      "(10 s in the Python SDK) before it falls back to initialize", *session.transcript(limit=8))
    elapsed = time.monotonic() - started
    evidence = [f"<<< {compact(answer)}", f"answered {elapsed * 1000:.0f} ms after it was sent (server start-up included)"]
    if "result" in answer:
        result = answer["result"] if isinstance(answer["result"], dict) else {}
        versions = result.get("supportedVersions")
        if not (isinstance(versions, list) and versions and all(isinstance(v, str) for v in versions)
                and isinstance(result.get("capabilities"), dict)):
            return failed("server/discover returned a result that is not a DiscoverResult "
                          "(supportedVersions and capabilities)", *evidence)
        return passed(f"the server answers server/discover as a modern server (supports {', '.join(versions)})", *evidence)
    error = answer.get("error") if isinstance(answer.get("error"), dict) else {}
    if error.get("code") == -32022:
        supported = (error.get("data") or {}).get("supported") if isinstance(error.get("data"), dict) else None
        if isinstance(supported, list) and not any(v in KNOWN_REVISIONS for v in supported):
            return failed("server/discover was refused with -32022 listing no handshake revision: "
                          "a dual-era client stops instead of falling back to initialize", *evidence)
    try:
        init = session.request("initialize", _init_params(), timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"after refusing server/discover the server did not answer initialize: {exc}", *evidence)
    evidence.append(f"<<< {compact(init, 200)}")
    if "result" not in init:
        return failed("after refusing server/discover the server refused initialize too: no era works", *evidence)
    return passed(f"server/discover refused at once with {error.get('code')}; initialize then succeeded", *evidence)


META = {"progressToken": "hb-probe", "com.example.probe/trace": "hb-1", "traceparent": "00-hb-probe-01"}
"""What clients of the handshake era put in _meta: a progress token and tracing keys. The modern
``io.modelcontextprotocol/`` envelope keys are left out: on an initialized session they would ask a
dual-era server to switch eras, which it may rightly refuse."""


def meta_accepted(target: Target) -> Finding:
    """Put params._meta on initialize, ping and tools/list: each must be served as if it were absent."""
    session = target.start()
    evidence: list[str] = []
    problems: list[str] = []
    try:
        init = session.request("initialize", _init_params(_meta=META), timeout=target.timeout)
        session.notify("notifications/initialized", {"_meta": META})
        evidence.append(f"initialize with _meta -> {compact(init, 160)}")
        if "result" not in init:
            problems.append("initialize with params._meta was refused")
        plain = session.request("tools/list", {}, timeout=target.timeout)
        checks = [("ping", {"_meta": META}), ("tools/list", {"_meta": META}), ("ping", {"_meta": {}})]
        for method, params in checks:
            response = session.request(method, params, timeout=target.timeout)
            evidence.append(f"{method} {compact(params, 120)} -> {compact(response, 160)}")
            if "result" not in response:
                problems.append(f"{method} with params._meta was refused: {compact(response.get('error'), 160)}")
            elif method == "tools/list" and "result" in plain:
                names = [t.get("name") for t in response["result"].get("tools") or [] if isinstance(t, dict)]
                expected = [t.get("name") for t in plain["result"].get("tools") or [] if isinstance(t, dict)]
                if names != expected:
                    problems.append("tools/list with _meta listed different tools than without it")
    except WireTimeout as exc:
        problems.append(f"a request with params._meta got no answer: {exc}")
    if problems:
        return failed(f"{len(problems)} request(s) carrying params._meta were not served", *problems, *evidence)
    return passed("initialize, ping and tools/list are served with params._meta", *evidence)


def notifications_unanswered(target: Target) -> Finding:
    """Send known, unknown and odd notifications: none may get a response of any kind."""
    session = target.start()
    init = _handshake(target, session)
    if isinstance(init, Finding):
        return init
    sent = [
        ("notifications/cancelled", {"requestId": 987654, "reason": "probe: no such request"}),
        ("notifications/hb_probe/unknown", {"x": 1}),
        ("notifications/roots/list_changed", None),
        ("notifications/progress", {"progressToken": "hb-nobody", "progress": 1}),
        ("hb_probe/unknown_method_sent_as_notification", {}),
    ]
    for method, params in sent:
        session.notify(method, params)
    try:
        session.request("ping", timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"the server stopped answering after notifications: {exc}", *session.transcript(limit=12))
    session.wait_for(lambda _v: False, timeout=0.15)  # let a late stray answer arrive
    ours = set(range(1, session.new_id()))  # ids are issued 1, 2, 3, ...: these are every request sent
    strays = [m for m in session.stdout if isinstance(m.value, dict) and "method" not in m.value
              and ("result" in m.value or "error" in m.value) and m.value.get("id") not in ours]
    evidence = [f">>> {method}" for method, _ in sent]
    if strays:
        return failed(f"{len(strays)} response(s) to notifications: a notification must never be answered",
                      *evidence, *[f"<<< {m.line.text[:200]}" for m in strays[:5]])
    return passed(f"{len(sent)} notifications sent, none answered; the next request was served", *evidence)


# -- operations: sockets, shutdown, EOF ----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Listener:
    pid: int
    kind: str
    address: str

    def __str__(self) -> str:
        return f"pid {self.pid} listens on {self.kind} {self.address}"


def _session_pids(sid: int) -> list[int]:
    """The server and every process it started (they share its session: it was started with a new one)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 3 and fields[3] == str(sid):  # state, ppid, pgrp, session
            pids.append(int(name))
    return sorted(pids)


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return inodes
    for fd in names:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    return inodes


def _ip_port(hexaddr: str) -> str:
    host, _, port = hexaddr.partition(":")
    if len(host) == 8:
        ip = ".".join(str(b) for b in reversed(bytes.fromhex(host)))
    else:
        words = [bytes.fromhex(host[i:i + 8])[::-1].hex() for i in range(0, 32, 8)]
        ip = "[" + ":".join(w[j:j + 4] for w in words for j in (0, 4)) + "]"
    return f"{ip}:{int(port, 16)}"


def _listening(pids: list[int]) -> list[_Listener]:
    """Listening TCP sockets, bound unconnected UDP sockets and listening Unix sockets held by ``pids``."""
    found: list[_Listener] = []
    for pid in pids:
        inodes = _socket_inodes(pid)
        if not inodes:
            continue
        for table in ("tcp", "tcp6", "udp", "udp6", "unix"):
            try:
                with open(f"/proc/{pid}/net/{table}") as f:
                    rows = f.read().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                cols = row.split()
                if table == "unix":
                    if len(cols) >= 7 and cols[6] in inodes and int(cols[3], 16) & 0x10000:  # __SO_ACCEPTCON
                        found.append(_Listener(pid, "unix", cols[7] if len(cols) > 7 else "(unnamed)"))
                elif len(cols) >= 10 and cols[9] in inodes:
                    listening = (cols[3] == "0A" if table.startswith("tcp")
                                 else cols[2].endswith(":0000") and not cols[1].endswith(":0000"))
                    if listening:
                        found.append(_Listener(pid, table, _ip_port(cols[1])))
    return found


def no_listening_sockets(target: Target) -> Finding:
    """After the handshake, no process of the server's session may hold a listening socket."""
    if not os.path.isdir("/proc/self/fd"):
        return not_applicable("this platform has no /proc: listening sockets cannot be inspected")
    session = target.start()
    init = _handshake(target, session)
    if isinstance(init, Finding):
        return init
    try:
        list_tools(session, timeout=target.timeout)
        session.request("ping", timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"the server stopped answering: {exc}")
    pids = _session_pids(session.pid)
    listeners = _listening(pids)
    if listeners:
        return failed(f"the server listens on {len(listeners)} socket(s): a stdio server needs none",
                      *[str(x) for x in listeners[:6]], *session.transcript(limit=6))
    return passed(f"no listening TCP, UDP or Unix socket in {len(pids)} process(es) of the server's session",
                  f"processes inspected: {', '.join(map(str, pids))}")


def _slow_tool(target: Target, tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """A callable tool that can be kept in flight for SLOW_SECONDS, with its arguments."""
    for tool in _callable_tools(target, tools):
        props = (tool.get("inputSchema") or {}).get("properties") or {}
        kinds = {k: v.get("type") for k, v in props.items() if isinstance(v, dict)} if isinstance(props, dict) else {}
        delay = next((k for k in ("seconds", "delay", "delay_seconds", "duration") if kinds.get(k) == "number"), None)
        if tool["name"] != "slow_echo" and not (delay and (tool.get("annotations") or {}).get("readOnlyHint")):
            continue
        args: dict[str, Any] = {delay or "seconds": SLOW_SECONDS}
        for name in (tool.get("inputSchema") or {}).get("required") or ():
            if name not in args:
                if kinds.get(name) != "string":
                    break
                args[name] = "hb-inflight"
        else:
            return tool["name"], args
    return None


def _stderr_after(session: WireSession, at: float) -> list[str]:
    return [ln.text for ln in session.stderr_lines if ln.at >= at]


def _judge_exit(name: str, session: WireSession, code: int | None, since: float) -> list[str]:
    problems = []
    after = _stderr_after(session, since)
    if code is None:
        problems.append(f"{name}: the server was still running {time.monotonic() - session.started:.1f} s after it started")
    elif code != 0:
        problems.append(f"{name}: the server exited with status {code}" + (" (ended by the signal, not by an orderly exit)" if code < 0 else ""))
    if any("Traceback" in ln for ln in after):
        problems.append(f"{name}: a traceback on stderr instead of an orderly stop")
    if code is not None and not any(SHUTDOWN_LINE.search(ln) for ln in after):
        problems.append(f"{name}: no shutdown line on stderr")
    return problems


def graceful_signal_shutdown(target: Target) -> Finding:
    """SIGTERM with a call in flight (when a slow tool exists) and SIGINT when idle: finish, log, exit 0."""
    term, intr = target.start(), target.start()
    for s in (term, intr):
        init = _handshake(target, s)
        if isinstance(init, Finding):
            return init
    evidence: list[str] = []
    problems: list[str] = []
    try:
        slow = _slow_tool(target, list_tools(term, timeout=target.timeout))
        intr.request("ping", timeout=target.timeout)
        slow_id = None
        if slow is not None:
            slow_id = _send(term, "tools/call", {"name": slow[0], "arguments": slow[1]})
            term.request("ping", timeout=target.timeout)  # the slow call has been read and started
            evidence.append(f">>> tools/call {slow[0]} {compact(slow[1])} (in flight), then SIGTERM")
        else:
            evidence.append("no slow tool to keep a call in flight: SIGTERM while idle")
    except WireTimeout as exc:
        return failed(f"the server stopped answering before the signals: {exc}")
    marks = {}
    for name, s, signum in (("SIGTERM", term, signal.SIGTERM), ("SIGINT", intr, signal.SIGINT)):
        marks[name] = time.monotonic() - s.started
        s.signal(signum)
    if slow_id is not None:
        try:
            answer = term.wait_for_id(slow_id, timeout=SLOW_SECONDS + target.timeout)
            evidence.append(f"<<< {compact(answer, 200)}")
            if "result" not in answer or (answer.get("result") or {}).get("isError"):
                problems.append(f"SIGTERM: the in-flight {slow[0]} call was answered with an error instead of finishing")
        except WireTimeout as exc:
            problems.append(f"SIGTERM: the in-flight {slow[0]} call was dropped ({exc})")
    for name, s in (("SIGTERM", term), ("SIGINT", intr)):
        code = s.wait_exit(target.timeout + (SLOW_SECONDS if name == "SIGTERM" else 0))
        s.wait_stdout_eof(0.5)
        evidence.append(f"{name}: exit status {code}; stderr after the signal: "
                        f"{compact(' | '.join(_stderr_after(s, marks[name])), 200) or '(nothing)'}")
        problems += _judge_exit(name, s, code, marks[name])
    if problems:
        return failed(f"{len(problems)} shutdown problem(s)", *problems, *evidence)
    what = "the in-flight call finished" if slow_id is not None else "idle"
    return passed(f"SIGTERM ({what}) and SIGINT each led to a logged, orderly exit with status 0", *evidence)


def exit_on_stdin_eof(target: Target) -> Finding:
    """Close stdin after an ordinary exchange: the server must exit promptly, with status 0."""
    session = target.start()
    init = _handshake(target, session)
    if isinstance(init, Finding):
        return init
    try:
        session.request("ping", timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"the server stopped answering: {exc}")
    closed_at = time.monotonic()
    try:
        assert session.proc.stdin is not None
        session.proc.stdin.close()
    except OSError:
        pass
    limit = max(EXIT_PROMPTLY, 0.3 * target.timeout)
    code = session.wait_exit(limit)
    waited = time.monotonic() - closed_at
    evidence = [">>> (stdin closed)", f"exit status {code} after {waited:.2f} s"]
    if code is None:
        return failed(f"the server was still running {limit:.1f} s after stdin was closed: the client "
                      "must now escalate to SIGTERM and SIGKILL", *evidence, *session.transcript(limit=6))
    if code != 0:
        return failed(f"the server exited with status {code} on stdin EOF; a host reports that as a crash", *evidence)
    return passed(f"exited with status 0 in {waited:.2f} s after stdin EOF", *evidence)


# -- operations: what the server tells its clients ------------------------------------------------------

def capabilities_match(target: Target) -> Finding:
    """Advertised capabilities are objects and work; what the server serves is advertised."""
    session = target.start()
    init = _handshake(target, session)
    if isinstance(init, Finding):
        return init
    caps = init.get("capabilities")
    if not isinstance(caps, dict):
        return failed("the initialize result has no capabilities object", f"<<< {compact(init)}")
    evidence = [f"capabilities: {compact(caps, 240)}"]
    problems = [f"capability {k!r} is {compact(v, 80)}, not an object" for k, v in caps.items() if not isinstance(v, dict)]
    unknown = sorted(set(caps) - SPEC_CAPABILITIES)
    if unknown:
        evidence.append(f"not defined by 2025-11-25 (non-standard features belong under experimental): {', '.join(unknown)}")
    exercises = {"tools": ("tools/list", {}, "tools"), "prompts": ("prompts/list", {}, "prompts"),
                 "resources": ("resources/list", {}, "resources"), "logging": ("logging/setLevel", {"level": "warning"}, None),
                 "completions": ("completion/complete", {"ref": {"type": "ref/prompt", "name": "hb-probe"},
                                                         "argument": {"name": "x", "value": ""}}, "completion")}
    try:
        for key, (method, params, field) in exercises.items():
            advertised = key in caps
            response = session.request(method, params, timeout=target.timeout)
            evidence.append(f"{'advertised' if advertised else 'not advertised'} {key}: {method} -> {compact(response, 140)}")
            result = response.get("result")
            if advertised:
                if _error_code(response) == -32601 or (key != "completions" and not isinstance(result, dict)):
                    problems.append(f"{key} is advertised but {method} fails: {compact(response.get('error'), 120)}")
                elif field and key != "completions" and not isinstance(result.get(field), list):
                    problems.append(f"{key} is advertised but {method} returned no {field} list")
            elif key == "tools" and isinstance(result, dict) and result.get("tools"):
                problems.append(f"the server serves {len(result['tools'])} tool(s) but does not advertise the tools capability")
            elif key in ("prompts", "resources") and isinstance(result, dict) and result.get(field):
                problems.append(f"the server serves {key} but does not advertise the {key} capability")
    except WireTimeout as exc:
        problems.append(f"no answer while exercising capabilities: {exc}")
    logs = [m for m in session.stdout if isinstance(m.value, dict) and m.value.get("method") == "notifications/message"]
    if logs and "logging" not in caps:
        problems.append("the server sends notifications/message without advertising the logging capability")
    if problems:
        return failed(f"{len(problems)} capability problem(s)", *problems, *evidence)
    return passed(f"{len(caps)} capability(ies) advertised, each an object that works; nothing served unadvertised", *evidence)


def tools_list_paging(target: Target) -> Finding:
    """tools/list twice gives the same order; an invalid cursor is -32602, never a silent restart."""
    session = target.start()
    init = _handshake(target, session)
    if isinstance(init, Finding):
        return init
    problems: list[str] = []
    evidence: list[str] = []

    def listing() -> tuple[list[str], list[str]]:
        names: list[str] = []
        cursors: list[str] = []
        cursor = None
        for _ in range(50):
            response = session.request("tools/list", {"cursor": cursor} if cursor else {}, timeout=target.timeout)
            result = response.get("result")
            if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
                raise ValueError(f"tools/list failed: {compact(response, 160)}")
            names += [t.get("name") for t in result["tools"] if isinstance(t, dict)]
            cursor = result.get("nextCursor")
            if not cursor:
                break
            if not isinstance(cursor, str):
                raise ValueError(f"nextCursor is {compact(cursor, 60)}, not a string")
            cursors.append(cursor)
        return names, cursors

    try:
        first, cursors = listing()
        second, _ = listing()
    except (WireTimeout, ValueError) as exc:
        return failed(f"tools/list could not be read: {exc}", *session.transcript(limit=8))
    evidence.append(f"{len(first)} tool(s) in {len(cursors) + 1} page(s): {compact(first, 200)}")
    duplicates = sorted({n for n in first if first.count(n) > 1})
    if duplicates:
        problems.append(f"tool name(s) listed more than once across pages: {', '.join(map(str, duplicates))}")
    if first != second:
        problems.append(f"two listings differ in order or content: {compact(second, 200)}")
    bogus = ["hb-probe-not-a-cursor"]
    if cursors:
        real = cursors[0]
        bogus.append(real[:-1] + ("A" if real[-1] != "A" else "B"))
    else:
        bogus.append("1")  # the server issued no cursor at all, so every cursor is one it never issued
    for cursor in bogus:
        try:
            response = session.request("tools/list", {"cursor": cursor}, timeout=target.timeout)
        except WireTimeout as exc:
            problems.append(f"tools/list(cursor={cursor!r}): no answer ({exc})")
            continue
        evidence.append(f"tools/list(cursor={cursor!r}) -> {compact(response, 160)}")
        if "result" in response:
            got = [t.get("name") for t in (response["result"] or {}).get("tools") or [] if isinstance(t, dict)]
            problems.append(f"the invalid cursor {cursor!r} was accepted and {len(got)} tool(s) served "
                            "(a paging client restarts or skips silently)")
        elif _error_code(response) != -32602:
            problems.append(f"the invalid cursor {cursor!r} got error {_error_code(response)}, not -32602 (Invalid params)")
    if problems:
        return failed(f"{len(problems)} tools/list problem(s)", *problems, *evidence)
    return passed("tools/list is stable across calls and invalid cursors are refused with -32602", *evidence)


def instructions_budget(target: Target) -> Finding:
    """The initialize result's instructions, if any, are a string within the handbook's budget."""
    session = target.start()
    init = _handshake(target, session)
    if isinstance(init, Finding):
        return init
    text = init.get("instructions")
    if text is None:
        return passed("the server sends no instructions (nothing to budget)")
    if not isinstance(text, str):
        return failed(f"instructions is {type(text).__name__}, not a string", f"<<< {compact(text)}")
    shown = f"instructions ({len(text)} characters): {compact(text, 240)}"
    if len(text) > INSTRUCTIONS_BUDGET:
        return failed(f"instructions are {len(text):,} characters, over the {INSTRUCTIONS_BUDGET:,}-character budget: "
                      "clients and gateways may truncate or drop them, and every session pays for them", shown)
    return passed(f"instructions are {len(text)} characters (budget {INSTRUCTIONS_BUDGET})", shown)


# -- operations: logs ---------------------------------------------------------------------------------

def _log_line_problem(text: str) -> str | None:
    try:
        record = json.loads(text)
    except ValueError:
        return "not JSON"
    if not isinstance(record, dict):
        return "JSON but not an object"
    missing = [k for k in ("ts", "level", "event") if not isinstance(record.get(k), str) or not record.get(k)]
    if missing:
        return f"no {', '.join(missing)}"
    try:
        when = datetime.fromisoformat(record["ts"].replace("Z", "+00:00"))
    except ValueError:
        return f"ts {record['ts']!r} is not ISO 8601"
    if when.tzinfo is None:
        return f"ts {record['ts']!r} has no time zone"
    if record["level"].lower() not in LEVEL_RANK:
        return f"level {record['level']!r} is not a syslog level name"
    return None


def structured_stderr(target: Target) -> Finding:
    """An ordinary session, then EOF: every stderr line is one JSON object with ts, level and event."""
    session = target.start()
    init = _handshake(target, session)
    if isinstance(init, Finding):
        return init
    try:
        list_tools(session, timeout=target.timeout)
        session.request("hb_probe/no_such_method", {}, timeout=target.timeout)
        session.request("tools/call", {"name": "hb_probe_no_such_tool", "arguments": {}}, timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"the server stopped answering: {exc}")
    session.close(grace=1.0)
    lines = [ln.text for ln in session.stderr_lines if ln.text.strip()]
    if not lines:
        return not_applicable("the server wrote nothing to stderr during a whole session")
    bad = [(text, problem) for text in lines if (problem := _log_line_problem(text))]
    if bad:
        return failed(f"{len(bad)} of {len(lines)} stderr line(s) are not one-line JSON events with ts, level and event",
                      *[f"err {t[:160]}  <- {p}" for t, p in bad[:6]])
    return passed(f"all {len(lines)} stderr lines are JSON events with ts, level and event",
                  *[f"err {t[:160]}" for t in lines[:4]])


def _log_notes(session: WireSession, after: int) -> list[dict[str, Any]]:
    return [m.value["params"] for m in session.stdout[after:]
            if isinstance(m.value, dict) and m.value.get("method") == "notifications/message"
            and isinstance(m.value.get("params"), dict)]


def log_level_honoured(target: Target) -> Finding:
    """logging/setLevel debug, then error: after error, no notifications/message below error arrive."""
    session = target.start()
    init = _handshake(target, session)
    if isinstance(init, Finding):
        return init
    if "logging" not in (init.get("capabilities") or {}):
        return not_applicable("the server does not declare the logging capability")
    try:
        tools = _callable_tools(target, list_tools(session, timeout=target.timeout))
    except WireTimeout as exc:
        return failed(f"tools/list got no answer: {exc}")
    # Activity servers usually log: a cancellation of an unknown request, read-only tools that need no
    # arguments called with none (failing that, calls with an unknown argument, refused by validation).
    bare = [(t["name"], {}) for t in tools if not (t.get("inputSchema") or {}).get("required")]
    calls = bare[:2] or [(t["name"], {"hb_probe_unknown_argument": True}) for t in tools[:2]]
    evidence: list[str] = ["activity at each level: notifications/cancelled for an unknown request, "
                           f"{', '.join(f'{n}({compact(a)})' for n, a in calls) or '(no callable tool)'}, "
                           "a call to a tool that does not exist"]

    def activity(level: str) -> list[dict[str, Any]]:
        mark = len(session.stdout)
        response = session.request("logging/setLevel", {"level": level}, timeout=target.timeout)
        evidence.append(f"logging/setLevel {level} -> {compact(response, 120)}")
        if "result" not in response:
            raise ValueError(f"logging/setLevel {level!r} was refused: {compact(response.get('error'), 160)}")
        session.notify("notifications/cancelled", {"requestId": "hb-probe-no-such-request", "reason": "probe"})
        for tool, arguments in calls:
            session.request("tools/call", {"name": tool, "arguments": arguments}, timeout=target.timeout)
        session.request("tools/call", {"name": "hb_probe_no_such_tool", "arguments": {}}, timeout=target.timeout)
        session.request("ping", timeout=target.timeout)
        session.wait_for(lambda _v: False, timeout=0.1)
        return _log_notes(session, mark)

    try:
        loud = activity("debug")
        if not loud:
            return not_applicable("no notifications/message arrived at level debug: nothing to filter", *evidence)
        evidence.append(f"at debug: {len(loud)} notification(s), levels {sorted({str(n.get('level')) for n in loud})}")
        quiet = activity("error")
        evidence.append(f"at error: {len(quiet)} notification(s), levels {sorted({str(n.get('level')) for n in quiet})}")
        bad_level = session.request("logging/setLevel", {"level": "verbose"}, timeout=target.timeout)
    except (WireTimeout, ValueError) as exc:
        return failed(str(exc), *evidence)
    evidence.append(f"logging/setLevel verbose -> {compact(bad_level, 140)}")
    problems = [f"a notification with level {n.get('level')!r} is not a syslog level" for n in loud + quiet
                if n.get("level") not in LEVEL_RANK][:3]
    below = [n for n in quiet if LEVEL_RANK.get(str(n.get("level")), 99) < LEVEL_RANK["error"]]
    if below:
        problems.append(f"{len(below)} notification(s) below error arrived after logging/setLevel error: "
                        f"{compact(below[0], 200)}")
    if "result" in bad_level:
        problems.append("logging/setLevel accepted the unknown level 'verbose' (expected -32602)")
    if problems:
        return failed(f"{len(problems)} logging/setLevel problem(s)", *problems, *evidence)
    return passed("notifications/message follow the level set by logging/setLevel", *evidence)


PROBES = (
    Probe("version_negotiation", version_negotiation, "supported versions are echoed, unsupported ones answered with a supported one"),
    Probe("discover_fallback", discover_fallback, "server/discover is answered at once, and initialize still works"),
    Probe("meta_accepted", meta_accepted, "requests carrying params._meta are served"),
    Probe("notifications_unanswered", notifications_unanswered, "no notification ever gets a response"),
    Probe("no_listening_sockets", no_listening_sockets, "the stdio server holds no listening socket"),
    Probe("graceful_signal_shutdown", graceful_signal_shutdown, "SIGTERM and SIGINT finish in-flight calls, log and exit 0"),
    Probe("exit_on_stdin_eof", exit_on_stdin_eof, "the server exits promptly with status 0 when stdin closes"),
    Probe("capabilities_match", capabilities_match, "advertised capabilities work and used features are advertised"),
    Probe("tools_list_paging", tools_list_paging, "tools/list is deterministic and refuses invalid cursors with -32602"),
    Probe("instructions_budget", instructions_budget, "instructions stay within the handbook's size budget"),
    Probe("structured_stderr", structured_stderr, "every stderr line is a one-line JSON event with ts, level, event"),
    Probe("log_level_honoured", log_level_honoured, "notifications/message respect logging/setLevel", calls_tools=True),
)
