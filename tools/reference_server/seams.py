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
from reference_server.seam_call import CONTRACT_EXCEPTIONS, call  # noqa: F401 - seams.call: how the server calls one
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
