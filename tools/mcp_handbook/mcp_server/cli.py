"""``mcp-handbook mcp [--http [--host H] [--port N]] [--allow-audit]``: serve the handbook over MCP."""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Callable

from ..command import EXIT_OK, UsageError, doctrine_root


def _loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    if args.http and not _loopback(args.host) and not args.public:
        raise UsageError(f"--host {args.host}: not a loopback address; the server answers anyone who can reach it. "
                         "Pass --public as well to listen there on purpose")
    if args.public and args.allow_audit:
        raise UsageError("--allow-audit with --public: audit_server starts programs the caller names; never offer it "
                         "beyond this machine")
    from . import runtime

    runtime.close_inherited_descriptors()  # before anything of this process's own is open
    runtime.configure_logging()
    return serve(args, doctrine_root(args)) or EXIT_OK


def serve(args: argparse.Namespace, root) -> int:
    import anyio

    from .. import load_corpus
    from . import runtime
    from .server import build_server

    corpus = load_corpus(root)  # parsed once; every resource, prompt and tool reads this model
    inflight = runtime.InFlight()
    server = build_server(corpus, allow_audit=args.allow_audit, middleware=[inflight.middleware])
    if args.http:
        anyio.run(lambda: runtime.serve_http(server, inflight, host=args.host, port=args.port))
    else:
        anyio.run(runtime.serve_stdio, server, inflight)
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    p = add("mcp", run, "serve the handbook over MCP (stdio, or Streamable HTTP with --http): rules, worksheet, prompts, tools")
    p.add_argument("--http", action="store_true", help="serve Streamable HTTP (endpoint /mcp) instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="with --http: the loopback address to listen on (default %(default)s)")
    p.add_argument("--port", type=int, default=8765, help="with --http: the port (default %(default)s; 0 picks a free one)")
    p.add_argument("--public", action="store_true", help="with --http: allow a --host that is not loopback")
    p.add_argument("--allow-audit", action="store_true",
                   help="list the audit_server tool, which starts and audits a server command the caller names "
                   "(not listed at all without this)")
