"""Calling a seam through the table, with its contract: an exception a seam may raise by contract goes to the
caller; any other is reported as ``[seam-error]`` (a broken snippet, shown to whoever proves it) and re-raised.

Apart from ``seams.py``, which fills the table with the built-in implementations and so imports them: an
implementation that calls another seam imports this module, which imports none of them."""
from __future__ import annotations

from reference_server import logs
from reference_server.errors import ProtocolError
from reference_server.table import SEAMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Exceptions that are part of a seam's contract rather than a sign of a broken snippet.
CONTRACT_EXCEPTIONS: dict[str, tuple[type[BaseException], ...]] = {
    "tool": (OSError,),  # a handler may let a file-system failure propagate: the server reports a failed call
    "resolve_path": (PermissionError,),
    "resolve_resource": (PermissionError,),
    "prompt_arguments": (ProtocolError,),
    "decode_cursor": (ProtocolError,),
    "invalid_arguments_result": (ProtocolError,),
    "check_request_meta": (ProtocolError,),
    "bind_address": (ValueError,),
    "check_url": (OSError,),  # PermissionError: a destination refused; a resolver failure
    "fetch_url": (OSError,),  # PermissionError, TimeoutError, ConnectionError: the fetch was refused or failed
}


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Call seam ``name``; an exception outside its contract is reported as ``[seam-error]`` and re-raised."""
    try:
        return SEAMS[name](*args, **kwargs)
    except CONTRACT_EXCEPTIONS.get(name, ()):
        raise
    except Exception as exc:
        logs.report_seam_error(name, exc)
        raise
