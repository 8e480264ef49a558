"""Tool registry entries and the per-call context handed to tool handlers.

Why a context object instead of globals: a handler (built-in or loaded with
``--seam tool=PATH``) reaches the workspace, paths, child processes and
logging only through it, and every one of those goes through the seam table.
"""
from __future__ import annotations

import threading
from pathlib import Path

from reference_server.seam_call import call as call_seam
from reference_server.table import SEAMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class ToolEntry:
    """A served tool: its definition (as in tools/list), handler and scheduling class."""

    __slots__ = ("name", "definition", "handler", "blocking", "non_idempotent")

    def __init__(self, definition: dict[str, Any], handler: Callable[[dict[str, Any], Context], dict[str, Any]],
                 *, blocking: bool = False) -> None:
        self.name: str = definition["name"]
        self.definition = definition
        self.handler = handler
        self.blocking = blocking  # True: runs on a worker thread so the reader keeps reading
        ann = definition.get("annotations") or {}
        # Spec defaults (2025-11-25): readOnlyHint false, idempotentHint false.
        self.non_idempotent = ann.get("idempotentHint", False) is False and ann.get("readOnlyHint", False) is False


class Context:
    """What a tool handler may use. Methods accept the seam signature or a workspace-bound shorthand."""

    __slots__ = ("workspace", "request_id", "progress_token", "_notify", "_cancelled")

    def __init__(self, workspace: Path, request_id: Any = None, progress_token: Any = None,
                 notify: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.workspace = workspace
        self.request_id = request_id
        self.progress_token = progress_token
        self._notify = notify
        self._cancelled: threading.Event | None = None

    @property
    def cancelled(self) -> threading.Event:
        """Set when the client cancels the call or the server gives up on it (created on first use: hot path)."""
        if self._cancelled is None:
            self._cancelled = threading.Event()
        return self._cancelled

    def resolve_path(self, *args: Any) -> Path:
        """``resolve_path(user_path)`` or ``resolve_path(workspace, user_path)``."""
        workspace, user_path = (self.workspace, args[0]) if len(args) == 1 else args
        return call_seam("resolve_path", workspace, user_path)

    def child_env(self, workspace: Path | None = None) -> dict[str, str]:
        return call_seam("child_env", workspace or self.workspace)

    def run_subprocess(self, argv: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
                       timeout: float = 10.0) -> tuple[int, str, str]:
        """Run a child in the workspace with the child environment unless told otherwise."""
        env = self.child_env() if env is None else env
        return call_seam("run_subprocess", argv, cwd=cwd or self.workspace, env=env, timeout=timeout)

    def log(self, level: str, event: str, **fields: Any) -> None:
        try:
            SEAMS["log"](level, event, **fields)
        except Exception as exc:
            from reference_server.logs import report_seam_error

            report_seam_error("log", exc)

    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Send notifications/progress when the request carried ``_meta.progressToken``."""
        if self.progress_token is None or self._notify is None:
            return
        notification = call_seam("progress_notification", self.progress_token, progress, total, message)
        if notification is not None:
            self._notify(notification)


def tool_annotations(*, read_only: bool, destructive: bool, idempotent: bool, open_world: bool,
                     title: str) -> dict[str, Any]:
    """All four hints spelled out, so no tool relies on the (surprising) spec defaults."""
    return {"title": title, "readOnlyHint": read_only, "destructiveHint": destructive,
            "idempotentHint": idempotent, "openWorldHint": open_world}
