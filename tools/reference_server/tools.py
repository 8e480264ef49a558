"""The default tools: small, bounded, workspace-confined, honestly annotated.

Why these five: together they show every design point the handbook asks for:
read-only vs. side-effecting hints, bounded inputs, opaque pagination,
``outputSchema`` with ``structuredContent``, a non-idempotent tool protected
by de-duplication, and child processes that get nothing the server holds.
"""
from __future__ import annotations

import base64
import json
import os
import stat
import time

from reference_server.errors import ToolError
from reference_server.registry import ToolEntry
from reference_server.results import text_result
from reference_server.tool_defs import DEFINITIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from reference_server.registry import Context

NOTES_FILE = "notes.md"
MAX_NOTES_BYTES = 10 * 1024 * 1024
SEARCH_MAX_FILES = 10_000
SEARCH_MAX_FILE_BYTES = 1024 * 1024


def _resolve(ctx: Context, user_path: str) -> Path:
    try:
        return ctx.resolve_path(user_path)
    except PermissionError as exc:
        raise ToolError(f"{exc}. Action: send a path relative to the workspace root, without '..', "
                        "that does not leave the workspace through a symlink.") from None


def _relative(ctx: Context, path: Path) -> str:
    return str(path.relative_to(ctx.workspace.resolve())) or "."


def open_regular(path: str | Path) -> Any:
    """Open a file for reading only if it is a regular file.

    O_NONBLOCK keeps open() from waiting on a FIFO (which would freeze the
    reader thread until someone writes to it); fstat then refuses anything
    that is not a regular file: FIFOs, sockets, devices.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError if stat.S_ISDIR(os.fstat(fd).st_mode) else _NotRegular()
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class _NotRegular(OSError):
    """The path names a FIFO, socket or device, not a regular file."""


def read_file(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Bounded read: at most max_bytes, so one call cannot flood the model's context."""
    path = _resolve(ctx, args["path"])
    limit = args.get("max_bytes", 65536)
    try:
        with open_regular(path) as handle:
            data = handle.read(limit + 1)
    except IsADirectoryError:
        raise ToolError(f"'{args['path']}' is a directory. Action: call list_directory with this path instead.") from None
    except FileNotFoundError:
        raise ToolError(f"'{args['path']}' does not exist in the workspace. "
                        "Action: call list_directory or search_files to find the right path.") from None
    except _NotRegular:
        raise ToolError(f"'{args['path']}' is not a regular file (a pipe, socket or device) and is never read. "
                        "Action: choose a regular file; list_directory shows each entry's type.") from None
    except OSError as exc:
        raise ToolError(f"'{args['path']}' cannot be read ({exc.strerror or type(exc).__name__}). "
                        "Action: choose another file.") from None
    text = data[:limit].decode("utf-8", errors="replace")
    if len(data) > limit:
        text += f"\n[truncated after {limit} bytes; call read_file with a larger max_bytes to see more]"
    return text_result(text)


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode()


def _decode_cursor(cursor: str) -> int:
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["o"]
        if type(offset) is int and offset >= 0:
            return offset
    except (ValueError, KeyError, TypeError):
        pass
    raise ToolError("cursor is not valid. Action: pass nextCursor from the previous list_directory result "
                    "unchanged, or omit cursor to start from the beginning.")


def list_directory(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """One sorted page; symlinks are shown, never followed (they may point out of the workspace)."""
    path = _resolve(ctx, args.get("path", "."))
    limit = args.get("limit", 100)
    offset = _decode_cursor(args["cursor"]) if "cursor" in args else 0
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except FileNotFoundError:
        raise ToolError(f"'{args.get('path', '.')}' does not exist. Action: list '.' to see what exists.") from None
    except NotADirectoryError:
        raise ToolError(f"'{args.get('path')}' is a file. Action: call read_file with this path instead.") from None
    page = entries[offset:offset + limit]
    lines = [e.name + ("/" if e.is_dir(follow_symlinks=False) else " -> (symlink)" if e.is_symlink() else "")
             for e in page]
    header = f"{_relative(ctx, path)}: entries {offset + 1}-{offset + len(page)} of {len(entries)}"
    if offset + limit < len(entries):
        header += f" (more: call list_directory again with cursor={_encode_cursor(offset + limit)!r})"
    return text_result("\n".join([header, *lines]))


def search_files(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Literal search with hard caps (files, sizes, results) and cooperative cancellation."""
    root = _resolve(ctx, args.get("path", "."))
    ws_root = ctx.workspace.resolve()
    query, cap = args["query"], args.get("max_results", 50)
    matches: list[dict[str, Any]] = []
    scanned, truncated = 0, False
    for folder, dirs, files in os.walk(root):  # followlinks=False: never leaves through a dir symlink
        dirs.sort()
        for name in sorted(files):
            if ctx.cancelled.is_set() or scanned >= SEARCH_MAX_FILES or len(matches) >= cap:
                truncated = True
                break
            full = os.path.join(folder, name)
            try:
                if os.path.islink(full) or os.path.getsize(full) > SEARCH_MAX_FILE_BYTES:
                    continue  # symlinked files may point outside the workspace
                with open_regular(full) as handle:  # a FIFO in the tree must not freeze the search
                    raw = handle.read(SEARCH_MAX_FILE_BYTES + 1)
            except OSError:
                continue  # unreadable: skip rather than fail the whole search
            scanned += 1
            if b"\x00" in raw[:1024]:
                continue  # binary
            for number, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
                if query in line:
                    matches.append({"path": os.path.relpath(full, ws_root),
                                    "line": number, "text": line.strip()[:200]})
                    if len(matches) >= cap:
                        break
        else:
            continue
        break
    structured = {"matches": matches, "truncated": truncated, "files_scanned": scanned}
    return text_result(json.dumps(structured, ensure_ascii=False), structuredContent=structured)


def append_note(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Append only (O_APPEND, O_NOFOLLOW): earlier notes are never rewritten."""
    path = _resolve(ctx, NOTES_FILE)
    if path.exists() and path.stat().st_size > MAX_NOTES_BYTES:
        raise ToolError(f"{NOTES_FILE} is over {MAX_NOTES_BYTES} bytes. Action: ask the user to archive it.")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    entry = f"## {args['title']}\n\n_{stamp}_\n\n{args['text'].rstrip()}\n\n".encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, entry)
    finally:
        os.close(fd)
    return text_result(f"Appended note '{args['title']}' to {NOTES_FILE} ({len(entry)} bytes).")


def _check_command_arg(ctx: Context, program: str, arg: str) -> None:
    if arg.startswith("-"):
        if "/" in arg or (program == "grep" and arg in ("-R", "--dereference-recursive")):
            raise ToolError(f"option {arg!r} is not allowed (it names a path or follows symlinks). "
                            "Action: pass paths as separate workspace-relative arguments.")
    else:
        _resolve(ctx, arg)  # a non-option argument must not name anything outside the workspace


def run_command(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Allow-listed program, checked arguments, child_env, timeout: the model picks words, not a shell."""
    program, argv = args["program"], list(args.get("args", []))
    for arg in argv:
        _check_command_arg(ctx, program, arg)
    code, out, err = ctx.run_subprocess([program, *argv], timeout=args.get("timeout_seconds", 10))
    failed = code != 0 and not (program == "grep" and code == 1)  # grep exits 1 for "no match"
    text = f"exit code {code}\n--- stdout ---\n{out}"
    if err:
        text += f"\n--- stderr ---\n{err}"
    return text_result(text, is_error=failed)


def default_tools() -> list[ToolEntry]:
    """The five default tools, in definition order (tools/list sorts by name)."""
    handlers = {"read_file": (read_file, False), "list_directory": (list_directory, False),
                "search_files": (search_files, True), "append_note": (append_note, False),
                "run_command": (run_command, True)}
    return [ToolEntry(DEFINITIONS[name], fn, blocking=blocking) for name, (fn, blocking) in handlers.items()]

