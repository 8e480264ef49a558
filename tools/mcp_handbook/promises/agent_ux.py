"""Promises of the agent-ux gate's examples: what a manual rule's code says it does, checked on the code itself.

* ``one_result_shape`` (UX-006): a search that finds something and one that finds nothing answer in one shape.
* ``submit_then_status`` (UX-009): the call that starts a long job returns at once, and the status call reports
  the finished result.
* ``one_risky_action_per_tool`` (UX-003): each tool of a release names one risky action, a heuristic on its
  description.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from .registry import Broken, promise

SUBMIT_SECONDS = 2.0
"""How long the call that starts a job may take: a handle comes back at once, well inside any client's deadline."""
STATUS_SECONDS = 5.0
"""How long the status call is polled for a terminal state."""
TERMINAL = ("completed", "failed", "cancelled")


def _shape(result: Any) -> tuple[Any, ...]:
    """The shape of a ``CallToolResult``: its keys, the keys of its structured content, its content block types."""
    if not isinstance(result, dict):
        return (type(result).__name__,)
    structured = result.get("structuredContent")
    blocks = result.get("content")
    blocks = blocks if isinstance(blocks, list) else []
    return (sorted(result), sorted(structured) if isinstance(structured, dict) else None,
            [b.get("type") if isinstance(b, dict) else type(b).__name__ for b in blocks])


@promise("one_result_shape", "a search that finds matches and one that finds none answer in one shape",
         reasons={"shape_differs": "the result for no matches has other keys or content blocks than the result for a hit"},
         seconds=20)
def one_result_shape(block: Any) -> None:
    hit = block.search_result(["notes.md:3: deploy on friday"])
    empty = block.search_result([])
    if _shape(hit) != _shape(empty):
        raise Broken("shape_differs", f"a hit gives {_shape(hit)}; no matches gives {_shape(empty)}")


def _call_within(function: Any, arguments: dict[str, Any], seconds: float) -> tuple[bool, Any]:
    """Run ``function(arguments)`` on a daemon thread; (finished in time, its result). A call still running is
    left behind: the block's process ends when the check does."""
    box: dict[str, Any] = {}

    def run() -> None:
        box["result"] = function(arguments)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    return not worker.is_alive(), box.get("result")


@promise("submit_then_status", "starting an export returns a handle at once; the status call then reports the result",
         reasons={"submit_blocks": f"the call that starts the export did not return within {SUBMIT_SECONDS:g} s",
                  "no_result": f"the status call reported no finished result within {STATUS_SECONDS:g} s"},
         seconds=20)
def submit_then_status(block: Any) -> None:
    submit = getattr(block, "start_export", None) or block.export_dataset
    done, answer = _call_within(submit, {"dataset": "orders"}, SUBMIT_SECONDS)
    if not done:
        raise Broken("submit_blocks", f"{submit.__name__}(dataset='orders') was still running after {SUBMIT_SECONDS:g} s")
    status = getattr(block, "get_export_status", None)
    if status is None or not isinstance(answer, dict) or "job_id" not in answer:
        raise Broken("no_result", f"{submit.__name__} returned {answer!r}: no job_id, and no status tool to ask")
    seen: Any = None
    deadline = time.monotonic() + STATUS_SECONDS
    while time.monotonic() < deadline:
        seen = status({"job_id": answer["job_id"]})
        if isinstance(seen, dict) and seen.get("status") in TERMINAL:
            if seen["status"] == "completed" and seen.get("result") is None:
                raise Broken("no_result", f"status completed without a result: {seen!r}")
            return
        time.sleep(0.05)
    raise Broken("no_result", f"status after {STATUS_SECONDS:g} s: {seen!r}")


RISKY_VERBS = frozenset({"tag", "create", "deploy", "run", "apply", "migrate", "email", "send", "notify", "delete",
                         "drop", "pay", "publish", "grant", "revoke"})
"""Verbs of actions that are hard to undo or reach outside the server."""


def _risky_actions(description: str) -> list[str]:
    """The risky verbs that open the clauses of a description's first sentence ("Tag X, deploy Y and email Z")."""
    first = re.split(r"(?<=[.!?])\s", description.strip(), maxsplit=1)[0]
    clauses = re.split(r",\s*(?:and\s+|then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+", first)
    openers = [c.split()[0].lower() for c in clauses if c.split()]
    return [verb for verb in openers if verb in RISKY_VERBS]


@promise("one_risky_action_per_tool", "each tool names one risky action (the verbs that open its description's "
         "clauses: a heuristic)",
         reasons={"steps_bundled": "one tool's description names two or more risky actions"}, seconds=20)
def one_risky_action_per_tool(block: Any) -> None:
    tools = getattr(block, "RELEASE_TOOLS", None) or [block.RELEASE_TOOL]
    for tool in tools:
        verbs = _risky_actions(tool.get("description", ""))
        if len(verbs) > 1:
            raise Broken("steps_bundled", f"{tool['name']} does {len(verbs)} risky things in one call: {', '.join(verbs)}")
