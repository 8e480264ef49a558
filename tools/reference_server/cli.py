"""Command line: parse options, load seam snippets, set up stdio (or HTTP), serve.

Why the stdio dance: the protocol gets a private duplicate of fd 1, and fd 1
itself is pointed at stderr, so a stray ``print`` (or a C extension writing to
fd 1) can never corrupt the JSON-RPC stream. Over HTTP fd 1 goes to stderr too.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from reference_server import seams
from reference_server.logs import LEVELS, RANK, LogState

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from reference_server.registry import ToolEntry

EXIT_SEAM = 3


class SeamLoadError(Exception):
    """A ``--seam`` snippet could not be installed; the message is the one stderr line."""


USAGE = ("usage: python -m reference_server [--workspace DIR] [--seam NAME=PATH ...] [--max-frame-bytes N] "
         "[--page-size N] [--test-tools] [--progress-tool] [--fetch-tool] [--conformance-fixtures] [--log-level LEVEL] [--legacy-only] "
         "[--http HOST:PORT [--allow-remote-bind] [--allow-host NAME:PORT ...] [--allow-origin ORIGIN ...]]")
HELP = USAGE + """

  --workspace DIR          directory the tools may touch (default: current directory)
  --seam NAME=PATH         replace seam NAME with attribute NAME of file PATH; tool=PATH adds a tool (repeatable)
  --max-frame-bytes N      largest accepted message in bytes (default 1048576)
  --page-size N            tools per tools/list page (default 50)
  --test-tools             add slow_echo and fail_always
  --progress-tool          add count_steps, which reports progress step by step and stops when cancelled
  --fetch-tool             add fetch_url, which fetches public http(s) URLs (set HB_FETCH_ALLOW=HOST:PORT,... to
                           let it reach named internal services)
  --conformance-fixtures   add the tools the official conformance suite calls
  --log-level LEVEL        stderr threshold: """ + ", ".join(LEVELS) + """ (default info)
  --legacy-only            speak only the initialize handshake (2025-11-25 and earlier); server/discover gets -32601
  --http HOST:PORT         serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0: any free port;
                           the address is printed on stderr as "listening on URL")
  --allow-remote-bind      let --http listen on an address other than loopback (put TLS and authentication in front)
  --allow-host NAME:PORT   also answer requests whose Host header is NAME:PORT (repeatable)
  --allow-origin ORIGIN    also answer requests whose Origin header is ORIGIN, e.g. https://app.example (repeatable)
"""


class Options:
    """Parsed command line (hand-rolled: argparse + gettext + locale cost ~5 ms of start-up)."""

    def __init__(self) -> None:
        self.workspace = "."
        self.seam: list[str] = []
        self.max_frame_bytes = 1048576
        self.page_size = 50
        self.test_tools = False
        self.progress_tool = False
        self.fetch_tool = False
        self.conformance_fixtures = False
        self.log_level = "info"
        self.legacy_only = False
        self.http: tuple[str, int] | None = None
        self.allow_remote_bind = False
        self.allow_host: list[str] = []
        self.allow_origin: list[str] = []


class UsageError(Exception):
    """Bad command line; exit status 2 like argparse."""


def parse_args(argv: list[str]) -> Options:
    options, args = Options(), list(argv)
    flags = {"--test-tools": "test_tools", "--progress-tool": "progress_tool", "--fetch-tool": "fetch_tool",
             "--conformance-fixtures": "conformance_fixtures",
             "--legacy-only": "legacy_only", "--allow-remote-bind": "allow_remote_bind"}
    valued = {"--workspace", "--seam", "--max-frame-bytes", "--page-size", "--log-level", "--http", "--allow-host",
              "--allow-origin"}
    while args:
        arg = args.pop(0)
        name, eq, value = arg.partition("=")
        if arg in flags:
            setattr(options, flags[arg], True)
            continue
        if name not in valued:
            raise UsageError(f"unrecognized argument: {arg}")
        if not eq:
            if not args:
                raise UsageError(f"{name} needs a value")
            value = args.pop(0)
        if name == "--seam":
            options.seam.append(value)
        elif name in ("--allow-host", "--allow-origin"):
            getattr(options, name[2:].replace("-", "_")).append(value)
        elif name == "--http":
            options.http = parse_host_port(value)
        elif name in ("--max-frame-bytes", "--page-size"):
            if not value.isdigit() or int(value) < 1:
                raise UsageError(f"{name} needs a positive integer, got {value!r}")
            setattr(options, name[2:].replace("-", "_"), int(value))
        elif name == "--log-level":
            if value not in RANK:
                raise UsageError(f"--log-level must be one of {', '.join(LEVELS)}")
            options.log_level = value
        else:
            options.workspace = value
    if (options.allow_remote_bind or options.allow_host or options.allow_origin) and options.http is None:
        raise UsageError("--allow-remote-bind, --allow-host and --allow-origin need --http HOST:PORT")
    return options


def parse_host_port(value: str) -> tuple[str, int]:
    """``127.0.0.1:8000``, ``localhost:0`` or ``[::1]:8000`` as (host, port); raises UsageError."""
    host, colon, port = value.rpartition(":")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--http needs HOST:PORT such as 127.0.0.1:8000 (port 0 picks a free one), got {value!r}")
    if host.startswith("[") != host.endswith("]"):
        raise UsageError(f"--http: write an IPv6 address in brackets, such as [::1]:8000, got {value!r}")
    return host.strip("[]"), int(port)


def _load_module(module_name: str, path: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError("not a loadable Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look modules up here
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _tool_from(module: Any) -> ToolEntry:
    from reference_server.registry import ToolEntry

    from reference_server.snippet_guard import guard

    tool, handle = module.TOOL, module.handle
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not isinstance(
            tool.get("inputSchema"), dict):
        raise TypeError("TOOL must be a dict with a string 'name' and a dict 'inputSchema'")
    if not callable(handle):
        raise TypeError("handle is not callable")
    allowed = seams.CONTRACT_EXCEPTIONS.get("tool", ())
    return ToolEntry(tool, guard("tool", handle, module.__file__, allowed), blocking=bool(getattr(module, "BLOCKING", False)))


def load_seams(specs: list[str]) -> list[ToolEntry]:
    """Install every ``NAME=PATH`` snippet, guarded (see ``snippet_guard``); return the extra tools. Raises SeamLoadError."""
    from reference_server.snippet_guard import guard

    extra: list[ToolEntry] = []
    for index, spec in enumerate(specs):
        name, sep, path = spec.partition("=")
        try:
            if not sep or not name or not path:
                raise ValueError("expected NAME=PATH")
            if name != "tool" and name not in seams.SEAMS:
                raise LookupError(f"unknown seam name (known: tool, {', '.join(sorted(seams.SEAMS))})")
            module = _load_module(f"seam_snippet_{name}" + (f"_{index}" if name == "tool" else ""), path)
            if name == "tool":
                extra.append(_tool_from(module))
                continue
            function = getattr(module, name)
            if not callable(function):
                raise TypeError(f"{name} is not callable")
            seams.SEAMS[name] = guard(name, function, path, seams.CONTRACT_EXCEPTIONS.get(name, ()))
        except (Exception, SystemExit) as exc:
            detail = f"{type(exc).__name__}: {exc}".replace("\n", " ")
            raise SeamLoadError(f"reference_server: cannot load seam {name} from {path}: {detail}") from None
    return extra


def _protocol_stdout() -> Any:
    """Keep a private binary handle on the real stdout; point fd 1 and sys.stdout at stderr."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "-h" in argv or "--help" in argv:
        print(HELP, file=sys.stderr)
        return 0
    try:
        args = parse_args(argv)
    except UsageError as exc:
        print(f"{USAGE}\nreference_server: error: {exc}", file=sys.stderr)
        return 2
    LogState.stderr_rank = RANK[args.log_level]
    # Descriptors are closed before any other snippet is imported: a snippet's module code may open files or
    # start a thread that does, and closing those under it lets a later descriptor (the protocol's stdout) take
    # a number the thread will close again.
    closer = [spec for spec in args.seam if spec.partition("=")[0] == "close_inherited_fds"]
    try:
        load_seams(closer)
    except SeamLoadError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_SEAM
    try:
        seams.SEAMS["close_inherited_fds"]()
    except Exception as exc:
        from reference_server.logs import report_seam_error

        report_seam_error("close_inherited_fds", exc)
    try:
        extra = load_seams([spec for spec in args.seam if spec not in closer])
    except SeamLoadError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_SEAM
    workspace = Path(args.workspace).resolve()
    if not workspace.is_dir():
        print(f"reference_server: workspace {args.workspace!r} is not a directory", file=sys.stderr)
        return 2
    from reference_server.server import Server
    from reference_server.tools import default_tools

    if args.http is None:
        server = Server(workspace=workspace, stdin=sys.stdin.buffer, stdout=_protocol_stdout(),
                        page_size=args.page_size, max_frame_bytes=args.max_frame_bytes, modern=not args.legacy_only)
    else:
        sys.stdout.flush()
        os.dup2(2, 1)  # nothing of the protocol goes to stdout over HTTP; a stray print lands on stderr
        sys.stdout = sys.stderr
        server = Server(workspace=workspace, stdin=None, stdout=None, page_size=args.page_size,
                        max_frame_bytes=args.max_frame_bytes, modern=not args.legacy_only)
    entries = default_tools()
    if args.test_tools:
        from reference_server.extra_tools import test_tools

        entries += test_tools()
    if args.progress_tool:
        from reference_server.extra_tools import progress_tools

        entries += progress_tools()
    if args.fetch_tool:
        from reference_server.extra_tools import fetch_tools

        entries += fetch_tools()
    if args.conformance_fixtures:
        from reference_server.fixtures import conformance_tools

        entries += conformance_tools()
    for entry in entries + extra:
        server.add_tool(entry)
    from reference_server.resources_and_prompts import serve_resources_and_prompts

    serve_resources_and_prompts(server, page_size=args.page_size, conformance_fixtures=args.conformance_fixtures)
    if args.http is None:
        return server.serve()
    from reference_server.http_server import serve_http

    return serve_http(server, host=args.http[0], port=args.http[1], allow_remote=args.allow_remote_bind,
                      extra_hosts=args.allow_host, extra_origins=args.allow_origin)
