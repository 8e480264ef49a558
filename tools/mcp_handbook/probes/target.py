"""The server under test, as a probe sees it: how to start it (or reach it over HTTP), what the probe may do to
it, and what was already learnt about it (its handshake answer, its tool listing) for the next probe."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..wire import Message, WireSession
from .findings import Finding
from .http_session import HttpSession


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
    kept: dict[str, Any] = field(default_factory=dict)
    """What a probe observed and keeps for a companion probe that the auditor runs on this same target after it, so
    the two judge one server's answers instead of starting two servers to ask the same questions
    (:data:`mcp_handbook.audit.schedule.COMPANIONS`); empty for the verifier, whose probes each provoke for themselves."""

    def start(self, *, pass_fds: Iterable[int] = (), extra_env: dict[str, str] | None = None) -> WireSession:
        """A new session: a fresh server process on its pipes, or, once the HTTP endpoint is known, a new client
        of it (:class:`~.http_session.HttpSession`, for a probe registered ``over_http``)."""
        if self.transport == "http" and self.url is not None:
            return self.connect()  # type: ignore[return-value]  # duck-typed: it answers every call an over_http probe makes
        env = {**self.env, **(extra_env or {})}
        session = WireSession(self.argv, cwd=self.workspace, env=env, pass_fds=tuple(pass_fds), marker=self.canary or None)
        self.sessions.append(session)
        return session

    def connect(self, before_send: Callable[[bytes, list[Message]], None] | None = None) -> HttpSession:
        """A new JSON-RPC client of the target's HTTP endpoint, with the target's headers and timeout."""
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
