"""``mcp-handbook audit ... -- COMMAND ARGS...``: command-line glue only; the work is in this package."""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from .. import load_corpus, procs
from ..command import UsageError, doctrine_root
from ..fields import PROFILES
from ..model import Corpus
from .engine import ERAS, AuditError, run_audit
from .plan import AuditOptions
from .sheet import formats, write_audit_worksheet
from .summary import summary_lines

EXIT_INTERRUPTED = 130
DEFAULTS = AuditOptions()


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be more than 0 seconds")
    return value


def _corpus(args: argparse.Namespace) -> Corpus:
    corpus = load_corpus(doctrine_root(args), proving=True)
    if corpus.diagnostics:  # as for export: a draft rule elsewhere should not block an audit
        print(f"mcp-handbook: warning: the content has {len(corpus.diagnostics)} problem(s) (run `mcp-handbook check`); "
              "a rule that could not be read is not audited", file=sys.stderr)
    return corpus


def _outputs(args: argparse.Namespace) -> list[tuple[Path, str]]:
    """Every ``-o`` file with its format, checked before the audit runs, so a long audit never ends in "cannot write"."""
    if args.format and len(args.output) > 1:
        raise UsageError("--format names the format of one -o file; with several, each takes its format from its suffix")
    return [_output(Path(name), args.format) for name in args.output]


def _output(out: Path, fmt: str | None) -> tuple[Path, str]:
    if out.is_dir():
        raise UsageError(f"{out}: is a folder; -o names the worksheet file to write")
    fmt = fmt or out.suffix.lstrip(".").lower()
    if fmt not in formats():
        raise UsageError(f"{out}: cannot tell the format from the suffix; pass --format {'|'.join(formats())}")
    folder = next((p for p in (out.absolute().parent, *out.absolute().parents) if p.exists()), None)
    if folder is None or not os.access(folder, os.W_OK):
        raise UsageError(f"{out}: cannot write here ({folder} is not writable)")
    return out, fmt


SAFE_LOCATION = re.compile(r"^[A-Za-z0-9._@+-][A-Za-z0-9._@+/ -]*$")
"""A path a SARIF location can name: relative, forward slashes, no scheme, no query, nothing a URI would escape."""


def _location(args: argparse.Namespace) -> str | None:
    """``--location``: the file SARIF results point at, relative to the repository root (the current folder)."""
    if args.location is None:
        return None
    text = args.location.replace("\\", "/").removeprefix("./")
    parts = text.split("/")
    if not SAFE_LOCATION.match(text) or ".." in parts or "" in parts:
        raise UsageError(f"--location {args.location}: give a path relative to the repository root, such as "
                         "pyproject.toml or src/server/main.py (forward slashes, no '..')")
    if not Path(text).is_file():
        raise UsageError(f"--location {args.location}: no such file in {Path.cwd()} (run the audit from the repository "
                         "root; the path is relative to it)")
    return text


def audit_options(args: argparse.Namespace, corpus: Corpus) -> AuditOptions:
    """The options of one audit from its parsed arguments (the fleet parses each entry's own the same way)."""
    unknown = sorted(set(args.rule or ()) - {r.id for r in corpus.rules if r.check == "automated"})
    if unknown:
        raise UsageError(f"--rule {', '.join(unknown)}: no automated rule with that id")
    allow = None if args.allow_all_tool_calls else frozenset(args.allow_tool_calls or ())
    if args.no_tool_calls and (args.allow_all_tool_calls or args.allow_tool_calls):
        raise UsageError("--no-tool-calls: cannot be combined with --allow-tool-calls or --allow-all-tool-calls")
    for root in args.server_roots or ():
        if os.path.isabs(root) and not os.path.isdir(root):
            raise UsageError(f"--root {root}: no such folder")
    return AuditOptions(
        roots=tuple(args.server_roots or ()), tool_calls=not args.no_tool_calls,
        timeout=args.timeout, probe_timeout=args.probe_timeout, wait=args.wait, jobs=args.jobs,
        allow_tool_calls=allow, rules=frozenset(args.rule) if args.rule else None, gate=args.gate,
        url=_url(args), headers=_headers(args), era=args.era, sdk_baseline=not args.no_sdk_baseline,
    )


HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
"""An HTTP header name (RFC 9110 token)."""


def _url(args: argparse.Namespace) -> str | None:
    """The ``--url`` endpoint, checked: an http(s) URL, and on loopback unless ``--allow-remote``."""
    from ..addresses import is_loopback
    from ..probes.http import parse_url

    if args.url is None:
        if args.header or args.allow_remote:
            raise UsageError("--header and --allow-remote: only with --url")
        return None
    try:
        point = parse_url(args.url)
    except ValueError as exc:
        raise UsageError(f"--url: {exc}") from None
    if not args.allow_remote and not is_loopback(point.host):
        raise UsageError(f"--url {args.url}: {point.host} is not a loopback address. An audit sends hostile requests "
                         "(foreign Origin and Host headers); pass --allow-remote to audit a server on another machine "
                         "you are allowed to test")
    return args.url


def _headers(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """``--header 'Name: value'`` pairs, each checked."""
    pairs = []
    for text in args.header or ():
        name, colon, value = text.partition(":")
        if not colon or not HEADER_NAME.match(name.strip()) or any(c in value for c in "\r\n"):
            raise UsageError(f"--header {text!r}: write it as 'Name: value' (one line)")
        pairs.append((name.strip(), value.strip()))
    return tuple(pairs)


def run(args: argparse.Namespace) -> int:
    corpus = _corpus(args)
    outputs = _outputs(args)
    location = _location(args)
    options = audit_options(args, corpus)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if main_thread else None  # a cancelled CI job: stop the servers too
    if main_thread and getattr(args, "whole_process", False):
        # the process is the audit's alone: an orphan of a server is re-parented here, where the audit kills it (in a
        # process other code shares, a child it did not start could be that code's, so only marked ones are killed)
        procs.become_subreaper()
    try:
        result = run_audit(corpus, command, options=options)
    except AuditError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        print("mcp-handbook: audit interrupted; every server process it started was stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    for out, fmt in outputs:
        try:
            write_audit_worksheet(corpus, result, fmt=fmt, path=out, location=location)
        except OSError as exc:
            raise UsageError(f"{out}: cannot write the worksheet: {exc.strerror or exc}") from None
    manual = sum(1 for r in corpus.rules if r.check == "manual")
    for line in summary_lines(result, outputs=outputs, manual=manual, corpus=corpus):
        print(line)
    return result.exit_code


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    p = add(
        "audit", run,
        "run the doctrine's probes against a stdio MCP server, or a running Streamable HTTP one (--url), and write the "
        "worksheet; exit 1 if any HIGH rule fails, 3 if none failed but some were not checked under --no-tool-calls",
    )
    p.add_argument("--url", metavar="URL", help="audit the Streamable HTTP server running at URL (its MCP endpoint, "
                   "http://127.0.0.1:PORT/mcp) instead of starting a command; only the probes that work over HTTP run")
    p.add_argument("--header", action="append", metavar="'NAME: VALUE'",
                   help="with --url: send this header with every request (repeatable), such as a bearer token")
    p.add_argument("--allow-remote", action="store_true",
                   help="with --url: allow a URL that is not on loopback (the audit sends hostile requests there)")
    p.add_argument("--era", choices=ERAS, default=DEFAULTS.era,
                   help="the protocol era the probes speak: auto (the initialize handshake when the server answers it, "
                        "else 2026-07-28), handshake, or 2026-07-28; run once per era to audit a dual-era server in both")
    p.add_argument("--format", choices=formats(), help="worksheet format (default: from the -o suffix); sarif writes the "
                   "failures as SARIF 2.1.0 for code scanning")
    p.add_argument("-o", "--output", required=True, action="append", metavar="FILE",
                   help="the worksheet file to write; repeat it to write several formats from one audit (-o audit.sarif -o audit.md)")
    p.add_argument("--location", metavar="PATH", help="for SARIF: the file each finding points at, the server's manifest or "
                   "entry file relative to the repository root (default: the repository root)")
    p.add_argument("--timeout", type=_positive, default=DEFAULTS.timeout, metavar="S", help="seconds for the whole audit (default %(default)g)")
    p.add_argument("--probe-timeout", type=_positive, default=DEFAULTS.probe_timeout, metavar="S",
                   help="seconds one probe may take (default %(default)g)")
    p.add_argument("--wait", type=_positive, default=DEFAULTS.wait, metavar="S", help="seconds to wait for one answer (default %(default)g)")
    p.add_argument("--jobs", type=int, default=0, metavar="N", help="probes run at once (default: two per core, at most 8)")
    p.add_argument(
        "--allow-tool-calls", nargs="+", action="extend", metavar="NAME",
        help="tools that are not annotated readOnlyHint: true but may be called with adversarial arguments",
    )
    p.add_argument("--allow-all-tool-calls", action="store_true", help="call any tool (only for a server you own, in a sandbox)")
    p.add_argument("--no-tool-calls", action="store_true",
                   help="call no tool at all, not even read-only ones (tool annotations are the server's own claims); the audit "
                        "then exits 3, not 0, when no HIGH rule failed but some could not be checked")
    p.add_argument(
        "--root", dest="server_roots", action="append", metavar="DIR",
        help="a folder the server serves (repeatable; a relative DIR is inside the fresh folder each probe starts the "
             "server in). Or write {workspace} in the server's command where it takes its folder. Without either, "
             "probes that need the root are N/A, not checked. Probes create and remove test files inside it",
    )
    p.add_argument("--no-sdk-baseline", action="store_true",
                   help="do not audit a minimal server on the same official SDK to tell the SDK's default FAILs from the "
                        "author's (its verdicts are cached per SDK, version and doctrine version)")
    p.add_argument("--rule", action="append", metavar="ID", help="check only this automated rule (repeatable)")
    p.add_argument("--gate", choices=PROFILES, default=DEFAULTS.gate,
                   help="exit 1 only when a HIGH rule of this profile fails: spec, baseline (spec plus security; default) or full")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- then the server command and its arguments")
