"""What the progress and cancellation probes share: finding a tool call that reports progress, and reading what
one such call sent, in the order it arrived.

A server need not report progress at all (2025-11-25 basic/utilities/progress: MAY), so both probes first look
for a tool that does: they call a few callable tools with a ``progressToken`` and arguments that keep a call
going for a moment, and judge the first that sends any ``notifications/progress``. None does: *not checked*.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from ...wire import Message, WireSession, WireTimeout
from ..support import DELAY_WORDS, Target, compact, fill_arguments, properties, schema_type
from ._common import read_only_first

PROGRESS_TOKEN = 7301
"""The token of the first call: an integer, so a server that sends back the string "7301" is seen."""
MAX_TRIED = 4
"""Tools called at most while looking for one that reports progress."""
STEP_PARAMS = ("steps", "step_count", "count", "iterations")
"""Integer parameters that set how many steps a call takes."""
STEPS_WANTED = 6
STEP_SECONDS = 0.1
"""A delay parameter that names a step or an interval is set near this; any other delay near 1 s."""
LATE_WAIT = 0.3
"""How long the probe keeps listening after a response, for progress that arrives too late."""


@dataclass(slots=True)
class ProgressCall:
    """One ``tools/call`` sent with a progress token, and what came back."""

    tool: str
    arguments: dict[str, Any]
    request_id: int
    token: Any
    sent_at: float
    """Seconds since the session started, when the call was sent."""
    mark: int
    """How many stdout messages the session had seen before the call was sent."""
    messages: list[Message]
    """Every stdout message from the call until a moment after its response (or the wait's end)."""
    response: dict[str, Any] | None = None
    answered_at: float | None = None

    @property
    def progress(self) -> list[tuple[int, Message]]:
        """Each ``notifications/progress`` with its position in :attr:`messages`."""
        return [(i, m) for i, m in enumerate(self.messages) if is_progress(m.value)]

    @property
    def response_index(self) -> int | None:
        return next((i for i, m in enumerate(self.messages) if _answers(m.value, self.request_id)), None)

    @property
    def duration(self) -> float:
        return (self.answered_at or self.sent_at) - self.sent_at

    def shown(self) -> str:
        return f"tools/call {self.tool} {compact(self.arguments, 120)} with progressToken {self.token!r}"


def is_progress(value: Any) -> bool:
    return (isinstance(value, dict) and value.get("method") == "notifications/progress"
            and isinstance(value.get("params"), dict))


def _answers(value: Any, request_id: Any) -> bool:
    return isinstance(value, dict) and value.get("id") == request_id and ("result" in value or "error" in value)


def _clamp(want: float, schema: dict[str, Any], kind: Any) -> float:
    low = schema.get("minimum")
    high = schema.get("maximum")
    value = want
    if isinstance(high, (int, float)) and not isinstance(high, bool):
        value = min(value, high)
    if isinstance(low, (int, float)) and not isinstance(low, bool):
        value = max(value, low)
    return math.ceil(value) if kind == "integer" else value


def long_call_arguments(tool: dict[str, Any]) -> dict[str, Any]:
    """Schema-valid arguments that keep a call going for a moment: step counts near 6, a pause per step near
    0.1 s (any other delay near 1 s), each kept inside its bounds; the rest filled as for an ordinary call."""
    overrides: dict[str, Any] = {}
    for name, schema in properties(tool).items():
        kind, lower = schema_type(schema), name.lower()
        if kind in ("integer", "number") and any(word in lower for word in DELAY_WORDS):
            per_step = "step" in lower or "interval" in lower
            overrides[name] = _clamp(STEP_SECONDS if per_step else 1.0, schema, kind)
        elif kind == "integer" and lower in STEP_PARAMS:
            overrides[name] = _clamp(STEPS_WANTED, schema, kind)
    return fill_arguments(tool, **overrides)


def send_call(session: WireSession, tool: str, arguments: dict[str, Any], token: Any) -> ProgressCall:
    """Send one ``tools/call`` with ``token`` as its ``progressToken``; collect with :func:`collect`."""
    request_id = session.new_id()
    mark = len(session.stdout)
    session.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                  "params": {"name": tool, "arguments": arguments, "_meta": {"progressToken": token}}})
    return ProgressCall(tool, arguments, request_id, token, time.monotonic() - session.started, mark, [])


def collect(session: WireSession, call: ProgressCall, *, wait: float) -> ProgressCall:
    """Wait up to ``wait`` seconds for the call's response, listen :data:`LATE_WAIT` more, and record what came."""
    try:
        call.response = session.wait_for_id(call.request_id, timeout=wait)
        call.answered_at = time.monotonic() - session.started
        session.wait_for(lambda _v: False, timeout=LATE_WAIT)
    except WireTimeout:
        call.response = None
    call.messages = session.stdout[call.mark:]
    return call


def find_progress_call(target: Target, session: WireSession, tools: list[dict[str, Any]],
                       evidence: list[str]) -> ProgressCall | None:
    """The first of a few callable tools (those that mention progress first) whose call, sent with
    :data:`PROGRESS_TOKEN`, brings any ``notifications/progress``; None when none does. Each try goes in
    ``evidence``."""
    candidates = read_only_first(target, tools)
    candidates.sort(key=lambda t: "progress" not in str(t.get("description", "")).lower())  # stable: keeps the order
    for tool in candidates[:MAX_TRIED]:
        call = collect(session, send_call(session, tool["name"], long_call_arguments(tool), PROGRESS_TOKEN),
                       wait=target.timeout)
        seen = len(call.progress)
        evidence.append(f">>> {call.shown()}: {seen} progress notification(s), "
                        + ("answered" if call.response is not None else f"no answer within {target.timeout:g} s"))
        if seen:
            return call
        if call.response is None:
            evidence.append("not checked further: a call that is not answered may hold the others behind it")
            return None
    return None
