"""What every probe shares: the target, the finding and its reason, the handshake, the tool listing,
argument filling and the parameter vocabularies.

A probe is a plain function ``(Target) -> Finding`` registered with :func:`~.registry.probe`. It
returns :func:`passed`, :func:`failed` with a *reason* from its own vocabulary, or
:func:`not_applicable`; anything that stops it early (the server never answers the handshake, the
listing cannot be read) is raised as :class:`ProbeAbort` or :class:`~mcp_handbook.wire.WireTimeout`
and becomes a finding with one of the :data:`GENERIC_REASONS`, which no WRONG block may prove with.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..reasons import GENERIC_REASONS
from ..wire import Message, WireSession, WireTimeout

if TYPE_CHECKING:
    from .http_session import HttpSession

Status = Literal["PASS", "FAIL", "N/A"]


KNOWN_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Revisions with the ``initialize`` handshake, oldest first."""
LATEST_LEGACY = KNOWN_REVISIONS[-1]
MODERN_REVISION = "2026-07-28"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
PROBE_CLIENT = {"name": "mcp-handbook-probe", "version": "1"}
"""How every probe names itself as a client (``clientInfo``)."""


def modern_meta(*, drop: str = "", version: Any = MODERN_REVISION) -> dict[str, Any]:
    """The ``params._meta`` of a 2026-07-28 request: protocol version, client identity, client capabilities;
    ``drop`` leaves one key out (to see it refused)."""
    meta: dict[str, Any] = {PROTOCOL_VERSION: version, CLIENT_INFO: dict(PROBE_CLIENT), CLIENT_CAPABILITIES: {}}
    meta.pop(drop, None)
    return meta

PATH_PARAMS = ("path", "file", "filename", "filepath", "file_path", "relative_path", "repo_path", "dir", "directory", "folder",
               "root", "destination", "target_path", "source_path")
"""Parameter names that take a file-system path."""
PROGRAM_PARAMS = ("program", "command", "cmd", "executable", "binary")
ARGS_PARAMS = ("args", "arguments", "argv")
DELAY_WORDS = ("second", "delay", "sleep", "wait", "duration")
"""Words in a numeric parameter's name that make it a delay: filled at its minimum."""


@dataclass(frozen=True, slots=True)
class Finding:
    """A probe's verdict with the evidence that shows it."""

    status: Status
    """PASS (the rule is kept), FAIL (broken) or N/A (the probe could not apply)."""
    summary: str
    """One sentence a reviewer reads first."""
    evidence: tuple[str, ...] = ()
    """Transcript rows (``>>>`` sent, ``<<<`` stdout, ``err`` stderr) and observations."""
    reason: str = ""
    """For a FAIL: why, as a code from the probe's own vocabulary or one of :data:`GENERIC_REASONS`."""


def passed(summary: str, *evidence: str) -> Finding:
    return Finding("PASS", summary, tuple(evidence))


def failed(reason: str, summary: str, *evidence: str) -> Finding:
    return Finding("FAIL", summary, tuple(evidence), reason)


def not_applicable(summary: str, *evidence: str) -> Finding:
    return Finding("N/A", summary, tuple(evidence))


MAX_LISTED = 40
"""Rows of one kind a finding lists at most (a problem per tool, a problem per call): a count in the summary is
matched by the rows listed, up to this bound, and the rest is said in words (:func:`listed`)."""


def listed(rows: Iterable[str], limit: int = MAX_LISTED) -> list[str]:
    """The rows up to ``limit``, then "… and N more" when some were left out: a summary that counts 13 must not be
    read beside a list that silently stops at 12."""
    rows = list(rows)
    if len(rows) <= limit:
        return rows
    return [*rows[:limit], f"… and {len(rows) - limit} more"]


def no_server_action(method: str) -> str:
    """The N/A summary of a probe that needs ``method``, which ``--no-tool-calls`` does not send."""
    return f"not checked: --no-tool-calls ({method} runs the server's own code, and the audit sends none)"


ROOT_UNKNOWN = ("not checked: root unknown (the folder the server serves was not given: audit with --root DIR, or "
                "put {workspace} in the server's command where it takes its folder)")


class ProbeAbort(Exception):
    """Raised anywhere inside a probe to return ``finding`` at once."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.summary)
        self.finding = finding


@dataclass(slots=True)
class Target:
    """How to start the server under test, and what the probe may do to it."""

    argv: list[str]
    """The server command."""
    workspace: Path
    """The server's working directory (its workspace); probes may create files here."""
    env: dict[str, str]
    """The minimal environment the server starts with (includes the canary)."""
    canary: str
    """A secret value placed in the server's environment that must never come back."""
    allow_tool_calls: frozenset[str] | None = None
    """Tools that may be called with adversarial arguments: None means every tool
    (the verifier, against the reference server); a set means read-only tools
    plus these names (the auditor, against someone else's server)."""
    timeout: float = 5.0
    """Seconds any single wait may take."""
    root: Path | None = None
    """The folder the server serves (where it resolves a relative path argument), when the caller knows it: the
    verifier starts the reference server on the workspace; the auditor knows it only when told (``--root``, or
    ``{workspace}`` in the server's command). None: unknown, and a probe that needs it says so (:func:`served_root`)."""
    transport: Literal["stdio", "http"] = "stdio"
    """How the server is spoken to: ``stdio`` (its pipes), or ``http`` (Streamable HTTP: either ``start`` runs a
    server that prints ``listening on URL`` on stderr, as the reference server does with ``--http``, or ``url``
    names one already running)."""
    url: str | None = None
    """The Streamable HTTP endpoint, once known: given (an audit by URL) or read from the started server's
    stderr by :func:`~.http.endpoint`."""
    http_headers: tuple[tuple[str, str], ...] = ()
    """Headers sent with every HTTP request (a bearer token the user supplies to an audit)."""
    modern: bool = False
    """Meet the server in the 2026-07-28 era (``server/discover``, then ``params._meta`` on every request) instead
    of the ``initialize`` handshake: :func:`meet`. The auditor sets it for a server that does not answer
    ``initialize``, or when asked to audit that era (``--era 2026-07-28``)."""
    sessions: list[WireSession | HttpSession] = field(default_factory=list)
    listing: list[dict[str, Any]] | Finding | None = None
    """The tools this target listed (or the finding that says why it could not), kept for the next probe."""
    opening: dict[str, Any] | None = None
    """The handshake's result (``initialize``'s, or ``server/discover``'s in 2026-07-28) a fresh server of this
    target gives, when already known (the auditor's preflight read it): with :attr:`listing` it lets
    :func:`session_with_tools` start the server only when a probe uses its session."""
    http_opened: list[str] = field(default_factory=list)
    """Session ids the server issued to requests sent outside any session object (:func:`~.http.send`): whoever
    ends the target may end them too (an audit by URL does, so a server it leaves running keeps none of them)."""

    def start(self, *, pass_fds: Iterable[int] = (), extra_env: dict[str, str] | None = None) -> WireSession:
        """A new session: a fresh server process on its pipes, or, once the HTTP endpoint is known, a new client
        of it (:class:`~.http_session.HttpSession`, for a probe registered ``over_http``)."""
        if self.transport == "http" and self.url is not None:
            return self.connect()
        env = {**self.env, **(extra_env or {})}
        session = WireSession(self.argv, cwd=self.workspace, env=env, pass_fds=tuple(pass_fds), marker=self.canary or None)
        self.sessions.append(session)
        return session

    def connect(self, before_send: Callable[[bytes, list[Message]], None] | None = None) -> HttpSession:
        """A new JSON-RPC client of the target's HTTP endpoint, with the target's headers and timeout."""
        from .http_session import HttpSession

        assert self.url is not None
        session = HttpSession(self.url, headers=self.http_headers, timeout=self.timeout, before_send=before_send)
        self.sessions.append(session)
        return session

    def may_call(self, tool: dict[str, Any]) -> bool:
        if self.allow_tool_calls is None:
            return True
        annotations = tool.get("annotations")
        read_only = isinstance(annotations, dict) and annotations.get("readOnlyHint") is True
        return read_only or tool.get("name") in self.allow_tool_calls

    def may_request(self, method: str) -> bool:
        """Whether the probe may send a request of ``method`` at all: the auditor under ``--no-tool-calls`` sends
        none that runs the server's own code (``prompts/get``, ``resources/read``, ``completion/complete``...)."""
        return True

    def may_get_prompt(self, prompt: dict[str, Any]) -> bool:
        """Whether the probe may render this listed prompt: the auditor keeps away from one that looks like it runs
        commands or code unless the user named it (:mod:`mcp_handbook.audit.guard`)."""
        return True

    def stop_all(self) -> None:
        for s in self.sessions:
            s.close(grace=0.5)

    @property
    def stderr_of_all(self) -> list[str]:
        return [ln.text for s in self.sessions for ln in s.stderr_lines]


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
    meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
    shaped = {"protocolVersion": MODERN_REVISION, "capabilities": result.get("capabilities"),
              "serverInfo": meta.get(SERVER_INFO, result.get("serverInfo")), "instructions": result.get("instructions"),
              "supportedVersions": result.get("supportedVersions")}
    return {**response, "result": {k: v for k, v in shaped.items() if v is not None}}


def handshake(target: Target, *, version: str = LATEST_LEGACY, **start: Any) -> tuple[WireSession, dict[str, Any]]:
    """Start the server and meet it in its era (:func:`meet`); abort with ``no_answer`` when it does not answer."""
    session = target.start(**start)
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
        self._target, self._start, self._session = target, start, None

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


def silence_reason(session: WireSession) -> str:
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


# -- building arguments from a tool's own schema -----------------------------------------------------------

def properties(tool: dict[str, Any]) -> dict[str, dict[str, Any]]:
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return {k: v for k, v in props.items() if isinstance(v, dict)} if isinstance(props, dict) else {}


def schema_type(schema: dict[str, Any]) -> Any:
    """The schema's type; for a list such as ``["null", "string"]``, the first that is not null."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return kind


def fill_value(schema: dict[str, Any]) -> Any:
    """A harmless valid value for one property schema: its default, enum or const, else the smallest allowed."""
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema_type(schema)
    if kind in ("integer", "number"):
        if "minimum" in schema and isinstance(schema["minimum"], (int, float)):
            return math.ceil(schema["minimum"]) if kind == "integer" else schema["minimum"]
        low = schema.get("exclusiveMinimum")
        return math.floor(low) + 1 if isinstance(low, (int, float)) else 1
    if kind == "string":
        return _fill_string(schema)
    if kind == "array":
        return [fill_value(schema.get("items") or {}) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "object":
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        return {name: fill_value(props.get(name) or {}) for name in schema.get("required") or () if isinstance(name, str)}
    return {"boolean": False, "null": None}.get(kind, "x")


STRING_CANDIDATES = ("x", "a", "1", "1.0.0", "2026-01-01", "example", "A", "a-1", "x.txt")
"""Ordinary strings tried, in order, against a ``pattern`` (the first that matches and fits the length wins)."""


def _fill_string(schema: dict[str, Any]) -> str:
    low, high = int(schema.get("minLength", 1) or 0), schema.get("maxLength")
    pattern = schema.get("pattern")
    for candidate in STRING_CANDIDATES:
        text = candidate * max(1, -(-low // len(candidate)))
        if isinstance(high, int) and len(text) > high:
            continue
        try:
            if not isinstance(pattern, str) or re.search(pattern, text):
                return text
        except re.error:
            return text
    return "x" * max(1, low)


def fill_arguments(tool: dict[str, Any], *, skip: str | None = None, **overrides: Any) -> dict[str, Any]:
    """Arguments for an ordinary call: required fields filled, delays at their minimum, then ``overrides``."""
    schema = tool.get("inputSchema") or {}
    props = properties(tool)
    required = [n for n in schema.get("required") or () if isinstance(n, str)]
    args = {name: fill_value(props.get(name) or {}) for name in required if name not in overrides and name != skip}
    for name, prop in props.items():
        if name not in overrides and name != skip and schema_type(prop) in ("integer", "number") and any(
                w in name.lower() for w in DELAY_WORDS):
            args[name] = prop.get("minimum", 0)
    args.update(overrides)
    return args


def string_params(tool: dict[str, Any], names: Iterable[str]) -> list[str]:
    """The tool's string parameters whose names are in ``names``."""
    wanted = set(names)
    return [k for k, v in properties(tool).items() if k in wanted and schema_type(v) == "string"]


def callable_tools(target: Target, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools the target allows the probe to call with arguments of its choosing."""
    return [t for t in tools if isinstance(t.get("name"), str) and target.may_call(t)]


# -- the workspace -------------------------------------------------------------------------------------------

def served_root(target: Target) -> Path:
    """The folder the server serves; a probe that cannot judge without it is N/A, not checked (never a guess)."""
    if target.root is None:
        raise ProbeAbort(not_applicable(ROOT_UNKNOWN))
    return target.root


SAMPLE_FILE = "hb-probe-notes.txt"
"""A plain file the probes plant in a folder they prepare, for parameters that take a file."""
_GIT_SETUP = (["init", "-q"], ["add", SAMPLE_FILE], ["commit", "-q", "-m", "hb probe: first commit"])


def init_git_repository(folder: Path, path: str) -> bool:
    """Make ``folder`` a git repository with one commit (of :data:`SAMPLE_FILE`), with the ``git`` found on
    ``path``, when it is not one already: a git server refuses a folder that is not a repository, at start or
    before it runs anything. The commands get an environment of their own (no secret of the audit's), under a
    deadline. False when ``git`` is missing or a step failed."""
    git = shutil.which("git", path=path)
    if git is None:
        return False
    if (folder / ".git").exists():
        return True
    (folder / SAMPLE_FILE).write_text("notes the audit planted\n")
    env = {"PATH": path, "HOME": str(folder), "LANG": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "hb", "GIT_AUTHOR_EMAIL": "hb@example.invalid",
           "GIT_COMMITTER_NAME": "hb", "GIT_COMMITTER_EMAIL": "hb@example.invalid"}
    for step in _GIT_SETUP:
        try:
            done = subprocess.run([git, "-c", "init.defaultBranch=main", *step], cwd=folder, env=env, timeout=10,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return False
        if done.returncode != 0:
            return False
    return True


@contextlib.contextmanager
def planted_fifo(workspace: Path, suffix: str = "") -> Iterator[str]:
    """A FIFO in the workspace for the duration of the block, yielding its name (ending in ``suffix``, so a tool that
    opens only ``.xlsx`` files does not refuse it for its name); afterwards any reader still blocked on it is
    released (a non-blocking open for writing) and it is removed, so nothing outlives the probe."""
    name = f"hb-fifo-{secrets.token_hex(5)}{suffix}"
    fifo = workspace / name
    os.mkfifo(fifo)
    try:
        yield name
    finally:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        try:
            fifo.unlink()
        except OSError:
            pass


__all__ = [
    "ARGS_PARAMS", "DELAY_WORDS", "Finding", "GENERIC_REASONS", "KNOWN_REVISIONS", "LATEST_LEGACY", "MODERN_REVISION",
    "Message", "PATH_PARAMS", "PROGRAM_PARAMS", "ProbeAbort", "ROOT_UNKNOWN", "Status", "Target", "WireSession", "WireTimeout", "ask",
    "call_tool", "callable_tools", "compact", "discover", "error_code", "failed", "fill_arguments", "fill_value", "handshake",
    "is_error_result", "is_jsonrpc_message", "mask", "meet", "send_request", "show", "silence_reason", "list_tools", "not_applicable", "passed", "planted_fifo", "properties", "refused",
    "responses", "result_text", "schema_type", "served_root", "session_with_tools", "string_params", "text_blocks", "tool_name",
    "tools_of", "trivial_method",
]
