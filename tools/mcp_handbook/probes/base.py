"""What every probe shares: the target it runs against and the finding it returns."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..wire import WireSession, WireTimeout

Status = Literal["PASS", "FAIL", "N/A"]


@dataclass(frozen=True, slots=True)
class Finding:
    """A probe's verdict with the evidence that shows it."""

    status: Status
    """PASS (the rule is kept), FAIL (broken) or N/A (the probe could not apply)."""
    summary: str
    """One sentence a reviewer reads first."""
    evidence: tuple[str, ...] = ()
    """Transcript rows (``>>>`` sent, ``<<<`` stdout, ``err`` stderr) and observations."""


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
    sessions: list[WireSession] = field(default_factory=list)

    def start(self, *, pass_fds: Iterable[int] = (), extra_env: dict[str, str] | None = None) -> WireSession:
        env = {**self.env, **(extra_env or {})}
        session = WireSession(self.argv, cwd=self.workspace, env=env, pass_fds=tuple(pass_fds))
        self.sessions.append(session)
        return session

    def may_call(self, tool: dict[str, Any]) -> bool:
        if self.allow_tool_calls is None:
            return True
        annotations = tool.get("annotations")
        read_only = isinstance(annotations, dict) and annotations.get("readOnlyHint") is True
        return read_only or tool.get("name") in self.allow_tool_calls

    def stop_all(self) -> None:
        for s in self.sessions:
            s.close(grace=0.5)

    @property
    def stderr_of_all(self) -> list[str]:
        return [ln.text for s in self.sessions for ln in s.stderr_lines]


ProbeFn = Callable[[Target], Finding]


@dataclass(frozen=True, slots=True)
class Probe:
    """A named check run over the real pipe."""

    name: str
    run: ProbeFn
    title: str
    """What it observes, in a phrase, for the site and the worksheet."""
    calls_tools: bool = False
    """True when it calls tools with adversarial arguments (the auditor asks first)."""


def passed(summary: str, *evidence: str) -> Finding:
    return Finding("PASS", summary, tuple(evidence))


def failed(summary: str, *evidence: str) -> Finding:
    return Finding("FAIL", summary, tuple(evidence))


def not_applicable(summary: str, *evidence: str) -> Finding:
    return Finding("N/A", summary, tuple(evidence))


def compact(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + " …"


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


def call_tool(session: WireSession, name: str, arguments: dict[str, Any], *, timeout: float) -> dict[str, Any]:
    return session.request("tools/call", {"name": name, "arguments": arguments}, timeout=timeout)


def result_text(response: dict[str, Any]) -> str:
    """Everything a tools/call response shows the client, as one string."""
    return json.dumps(response, ensure_ascii=False)


def refused(response: dict[str, Any]) -> bool:
    """A tool call was refused: a JSON-RPC error or a result with isError true."""
    if "error" in response:
        return True
    return bool((response.get("result") or {}).get("isError"))


def string_params(tool: dict[str, Any], names: Iterable[str]) -> list[str]:
    props = ((tool.get("inputSchema") or {}).get("properties")) or {}
    wanted = set(names)
    return [k for k, v in props.items() if k in wanted and isinstance(v, dict) and v.get("type") == "string"]


__all__ = [
    "Finding", "Target", "Probe", "ProbeFn", "passed", "failed", "not_applicable", "compact",
    "list_tools", "call_tool", "result_text", "refused", "string_params", "WireTimeout",
]
