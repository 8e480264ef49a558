"""Test-only tools (``--test-tools``): a slow cancellable echo and a tool that always fails.

Why: a harness needs a call that stays in flight (to test cancellation and
SIGTERM draining) and a failure whose exception text carries a canary (to
prove that ``tool_error_result`` never leaks exception text).
"""
from __future__ import annotations

import os

from reference_server.registry import ToolEntry, annotations
from reference_server.results import text_result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from reference_server.registry import Context

SLOW_ECHO = {
    "name": "slow_echo",
    "title": "Echo text after a delay (test tool)",
    "description": "Wait the given number of seconds, then return the text unchanged. For testing cancellation "
                   "and shutdown only; it has no other use. Stops early when the request is cancelled. "
                   "No side effects.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "text": {"type": "string", "maxLength": 1000, "description": "Text to return, e.g. \"hello\"."},
            "seconds": {"type": "number", "minimum": 0, "maximum": 10, "default": 1,
                        "description": "Delay before answering, 0 to 10 seconds, e.g. 0.5."},
        },
        "required": ["text"],
        "additionalProperties": False,
    },
    "annotations": annotations(title="Echo text after a delay (test tool)", read_only=True, destructive=False,
                               idempotent=True, open_world=False),
}

FAIL_ALWAYS = {
    "name": "fail_always",
    "title": "Always fail (test tool)",
    "description": "Always raise an internal error, to test that failures are reported safely. For testing "
                   "only; never useful to call otherwise. No side effects.",
    "inputSchema": {"type": "object", "additionalProperties": False},
    "annotations": annotations(title="Always fail (test tool)", read_only=True, destructive=False,
                               idempotent=True, open_world=False),
}


def slow_echo(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    if ctx.cancelled.wait(args.get("seconds", 1)):
        return text_result("cancelled", is_error=True)  # the server drops this: cancelled calls get no reply
    return text_result(args["text"])


def fail_always(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    raise RuntimeError(f"deliberate failure; canary={os.environ.get('HB_CANARY', '')}; "
                       f"workspace={ctx.workspace}")


def test_tools() -> list[ToolEntry]:
    return [ToolEntry(SLOW_ECHO, slow_echo, blocking=True), ToolEntry(FAIL_ALWAYS, fail_always)]


test_tools.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
