"""``mcp-handbook fleet plan|run|audit-one|merge``: command-line glue only; the work is in this package.

The same four commands run a fleet on a laptop, in a CI matrix (``.github/workflows/fleet.yml``) or under any
batch system: plan once, run each shard anywhere, merge what the shards wrote.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import load_corpus
from ..command import UsageError, doctrine_root
from ..model import Corpus
from . import plan as planning
from .entry import Entry

PREPARE_TIMEOUT = 600.0
"""Seconds an install may take (a first ``npx``/``uvx`` of a package with many dependencies)."""
MARGIN = 60.0


def _corpus(args: argparse.Namespace) -> Corpus:
    return load_corpus(doctrine_root(args), proving=True)


def _write(path: Path, text: str) -> None:
    from ..export.files import atomic_write

    try:
        atomic_write(path, text)
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None


def cmd_plan(args: argparse.Namespace) -> int:
    from .registry import RegistryError, read_entries

    try:
        entries = read_entries([Path(s) for s in args.sources])
        timings = _timings(Path(args.timings)) if args.timings else None
        plan = planning.make_plan(entries, args.shards, timings=timings)
    except (RegistryError, planning.PlanError) as exc:
        raise UsageError(str(exc)) from None
    if args.matrix:
        print(json.dumps([f"{n}/{args.shards}" for n in range(1, args.shards + 1)]))
    if args.output:
        _write(Path(args.output), json.dumps(plan, indent=1) + "\n")
        rows = plan["entries"]
        waiting = [r for r in rows if r.get("needs")]
        print(f"{args.output}: {len(rows)} server(s) in {args.shards} shard(s) "
              f"({', '.join(str(sum(1 for r in rows if r['shard'] == n)) for n in range(1, args.shards + 1))}); "
              f"{len(waiting)} cannot run here and will read 'not audited'", file=sys.stderr if args.matrix else sys.stdout)
    return 0


def _timings(path: Path) -> dict[str, float]:
    """Seconds per server key from a previous scorecard, to balance the shards by what each audit took."""
    from .scorecard import read_scorecard

    card = read_scorecard(path)
    return {row["key"]: float(row.get("seconds") or 0.0) for row in card["rows"]}


def _audit_limit(audit_args: Sequence[str]) -> float:
    """The audit's own ``--timeout`` (as the worker will read it), to bound one server's whole turn."""
    from ..audit.plan import AuditOptions

    timeout = AuditOptions().timeout
    for n, word in enumerate(audit_args):
        if word == "--timeout" and n + 1 < len(audit_args):
            with contextlib.suppress(ValueError):
                timeout = float(audit_args[n + 1])
        elif word.startswith("--timeout="):
            with contextlib.suppress(ValueError):
                timeout = float(word.split("=", 1)[1])
    return timeout


def _worker_flags(args: argparse.Namespace, audit_args: Sequence[str]) -> list[str]:
    """What every worker of this run is told: the audit's options, and whether remotes may be audited."""
    flags = [f"--audit-arg={a}" for a in audit_args]
    return [*flags, "--allow-remote"] if args.allow_remote else flags


def _sandbox(args: argparse.Namespace) -> str:
    from .sandbox import available

    if args.sandbox == "auto":
        return available()
    if args.sandbox == "bubblewrap" and available() != "bubblewrap":
        raise UsageError("--sandbox bubblewrap: bubblewrap is not installed or cannot make a sandbox here "
                         "(install the bubblewrap package, or pass --sandbox none to run servers unisolated)")
    return str(args.sandbox)


def _worker_command(root: Path, *, fleet_args: Sequence[str]) -> list[str]:
    """The command a worker runs (:mod:`.worker`), with this interpreter and this handbook."""
    return [sys.executable, "-m", "mcp_handbook.fleet.worker", "--root", str(root), *fleet_args]


def _run(args: argparse.Namespace, corpus: Corpus, entries: Sequence[Entry], heading: str) -> None:
    from . import run

    try:
        workers = run.worker_limit(getattr(args, "workers", 1))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    folder = Path(args.output)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"-o {folder}: not a folder (results are written one file per server into a folder)")
    audit_args = list(getattr(args, "passthrough", []))
    kind = _sandbox(args)
    argv = _worker_command(doctrine_root(args), fleet_args=_worker_flags(args, audit_args))
    print(f"{heading}: {len(entries)} server(s), {workers} worker(s), sandbox {kind}, results in {folder}/", flush=True)
    run.run_shard(corpus, entries, folder, workers=workers, worker_argv=argv, limit=_audit_limit(audit_args) + MARGIN,
                  sandbox_kind=kind, prepare_timeout=args.prepare_timeout, say=lambda line: print(line, flush=True))


def cmd_run(args: argparse.Namespace) -> int:
    from . import run

    corpus = _corpus(args)
    try:
        index, count = planning.parse_shard(args.shard)
        entries = planning.shard_entries(planning.read_plan(Path(args.plan)), index, count, where=args.plan)
    except planning.PlanError as exc:
        raise UsageError(str(exc)) from None
    if args.skip_done:
        entries = [e for e in entries if not run.done(Path(args.output), e, corpus)]
    _run(args, corpus, entries, f"shard {index}/{count}")
    return 0


def cmd_audit_one(args: argparse.Namespace) -> int:
    """One server, as a worker of ``fleet run`` audits it: from a source (its server.json, or a plain-command
    list) holding exactly one way to run, or the one ``--key`` names."""
    from .registry import RegistryError, read_entries

    corpus = _corpus(args)
    try:
        found = read_entries([Path(args.source)])
    except RegistryError as exc:
        raise UsageError(str(exc)) from None
    chosen = [e for e in found if e.key == args.key] if args.key else found
    if len(chosen) != 1:
        said = "no entry has that key" if args.key else f"holds {len(found)} ways to run"
        raise UsageError(f"{args.source}: {said}; pass --key, one of: {', '.join(e.key for e in found) or 'none'}")
    _run(args, corpus, chosen, "audit-one")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from .merge import merge_results
    from .result import ResultError
    from .scorecard import read_scorecard, write_scorecard

    try:
        previous = read_scorecard(Path(args.previous)) if args.previous else None
        card = merge_results([Path(p) for p in args.results], corpus=_corpus(args))
    except (ResultError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    for path in write_scorecard(card, Path(args.output), previous=previous):
        print(f"{path}: written")
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    p = add("fleet", lambda args: args.fleet_func(args),
            "audit many servers from MCP Registry server.json entries: plan shards, run one, merge a scorecard")
    sub = p.add_subparsers(dest="fleet_command", required=True)

    def verb(name: str, fn: Callable[[argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=help_text, description=help_text)
        q.set_defaults(fleet_func=fn)
        return q

    q = verb("plan", cmd_plan, "read server.json files, folders, lists or registry exports and split them into shards")
    q.add_argument("sources", nargs="+", metavar="SOURCE", help="a server.json file, a folder of them, a JSON list, "
                   "a registry API export saved to disk, or a JSON list of {\"command\": [...]} plain commands")
    q.add_argument("--shards", type=int, default=1, metavar="N", help="how many shards (parallel jobs); default 1")
    q.add_argument("-o", "--output", metavar="FILE", help="the plan file every shard job reads")
    q.add_argument("--timings", metavar="SCORECARD", help="a previous scorecard.json: balance shards by what each "
                   "server's audit took then")
    q.add_argument("--matrix", action="store_true", help="print the shards as a JSON list (\"1/N\"...) for a CI matrix")
    q = verb("run", cmd_run, "audit one shard of a plan with a bounded pool of workers; one JSON result per server. "
             "After --, options for every audit (-- --no-tool-calls --timeout 120)")
    q.add_argument("plan", metavar="PLAN", help="the plan file `fleet plan` wrote")
    q.add_argument("--shard", required=True, metavar="I/N", help="which shard, counted from 1: 1/4 ... 4/4")
    q.add_argument("-o", "--output", required=True, metavar="DIR", help="the folder results are written to")
    q.add_argument("--workers", type=int, default=2, metavar="K", help="servers audited at once (default 2)")
    q.add_argument("--skip-done", action="store_true",
                   help="skip servers whose result for this doctrine version is already in DIR (a retried job)")
    q = verb("audit-one", cmd_audit_one, "audit one server.json entry as a shard's worker would; write its result. "
             "After --, options for the audit")
    q.add_argument("source", metavar="SOURCE", help="a server.json file (or any source `plan` reads) with one way to run")
    q.add_argument("--key", help="which entry, when the source holds several (the error lists their keys)")
    q.add_argument("-o", "--output", required=True, metavar="DIR", help="the folder the result is written to")
    for q in (sub.choices["run"], sub.choices["audit-one"]):
        q.add_argument("--sandbox", choices=("auto", "bubblewrap", "none"), default="auto",
                       help="isolate each server: bubblewrap, network off unless it needs it (auto: when installed)")
        q.add_argument("--allow-remote", action="store_true",
                       help="audit remotes that are not on this machine (an audit sends hostile requests)")
        q.add_argument("--prepare-timeout", type=float, default=PREPARE_TIMEOUT, metavar="S",
                       help="seconds one package's install may take (default %(default)g)")
    q = verb("merge", cmd_merge, "read every result into a scorecard: index.html, scorecard.json, scorecard.csv")
    q.add_argument("results", nargs="+", metavar="RESULTS", help="result files or folders (every shard's)")
    q.add_argument("-o", "--output", required=True, metavar="DIR", help="the folder the scorecard is written to")
    q.add_argument("--previous", metavar="SCORECARD", help="a previous scorecard.json: also write what changed since")
