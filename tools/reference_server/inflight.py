"""What a tool call in flight tells the client: progress while it runs, and nothing once it is cancelled.

Why seams: both are protocol promises a handler cannot keep alone. A progress notification must carry the
caller's own ``progressToken``, unchanged, with a value that only grows (2025-11-25 basic/utilities/progress:
MUST); a call the client cancelled gets no response (basic/utilities/cancellation: SHOULD).
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def progress_notification(token: Any, progress: float, total: float | None = None,
                          message: str | None = None) -> dict[str, Any] | None:
    """The ``notifications/progress`` message for one step of a call that carried ``token``; None sends nothing.

    The token goes back exactly as the client sent it (a string stays a string, an integer an integer), and
    ``progress`` is the amount done so far, which the handler only ever raises."""
    params: dict[str, Any] = {"progressToken": token, "progress": progress}
    if total is not None:
        params["total"] = total
    if message is not None:
        params["message"] = message
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}


def answer_cancelled_call(request_id: Any, result: dict[str, Any]) -> dict[str, Any] | None:
    """The message to send for a call the client cancelled while its handler ran; None sends nothing.

    ``result`` is what the handler returned after it stopped. The client has already given up on the
    request, so the answer is silence: no result and no error."""
    return None
