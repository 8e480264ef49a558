"""The seam table: one plain function per concern, looked up by name at call time.

Why a table: the server never calls a concern directly, always
``SEAMS[name](...)``, so a harness can replace exactly one concern with a
snippet (``--seam NAME=PATH``) and observe what breaks. Names and signatures
are a contract; see README.md. The last six are the 2026-07-28 era's checks
and the HTTP transport's decisions.
"""
from __future__ import annotations

from reference_server import fetching, http_policy, inflight, jsonrpc, logs, modern, process, results, safety, wire
from reference_server import prompts, resources
from reference_server.errors import ProtocolError
from reference_server.table import SEAMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SEAMS.update({
    "read_frames": wire.read_frames,
    "write_message": wire.write_message,
    "log": logs.log,
    "redact": logs.redact,
    "error_response": jsonrpc.error_response,
    "tool_error_result": results.tool_error_result,
    "validate_arguments": results.validate_arguments,
    "child_env": safety.child_env,
    "run_subprocess": safety.run_subprocess,
    "resolve_path": safety.resolve_path,
    "resolve_resource": resources.resolve_resource,
    "resource_contents": resources.resource_contents,
    "resource_not_found": resources.resource_not_found,
    "list_resource_files": resources.list_resource_files,
    "prompt_arguments": prompts.prompt_arguments,
    "install_signal_handlers": process.install_signal_handlers,
    "close_inherited_fds": process.close_inherited_fds,
    "request_key": jsonrpc.request_key,
    "dispatch": jsonrpc.dispatch,
    "negotiate_version": jsonrpc.negotiate_version,
    "invalid_arguments_result": results.invalid_arguments_result,
    "decode_cursor": jsonrpc.decode_cursor,
    "server_capabilities": jsonrpc.server_capabilities,
    "check_request_meta": modern.check_request_meta,
    "cache_hints": modern.cache_hints,
    "complete_result": modern.complete,
    "bind_address": http_policy.bind_address,
    "host_allowed": http_policy.host_allowed,
    "origin_allowed": http_policy.origin_allowed,
    "new_session_id": http_policy.new_session_id,
    "progress_notification": inflight.progress_notification,
    "answer_cancelled_call": inflight.answer_cancelled_call,
    "check_url": fetching.check_url,
    "fetch_url": fetching.fetch_url,
})
DEFAULTS: dict[str, Callable[..., Any]] = dict(SEAMS)
"""The built-in implementations, kept so tests can restore the table."""

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
