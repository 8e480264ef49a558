"""One shard audited: a bounded pool of worker processes, one per server at a time, one JSON result per server.

Each server is audited in a process of its own (``fleet audit-one``), so a server that stalls or crashes its
auditor costs that server's result, never the shard's: past its time the worker is asked to stop (SIGTERM, which
stops every server it started), then killed with its process group, and the result says so. A shard's exit code
is 0 once every server has a result, whatever the results say; judging them is the merge's job.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import __version__
from ..model import Corpus
from . import children, prepare, result, sandbox
from .resolve import resolve
from .entry import Entry

STOP_GRACE = 15.0
"""Seconds a worker past its time has to stop its servers after SIGTERM before its process group is killed."""
MAX_WORKERS = 16


def worker_limit(workers: int) -> int:
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"--workers {workers}: give 1 to {MAX_WORKERS} (each worker audits one server at a time)")
    return workers


def done(folder: Path, entry: Entry, corpus: Corpus) -> bool:
    """A result for this entry is already in ``folder``, judged by this doctrine version (``--skip-done``)."""
    try:
        old = result.read(folder / f"{entry.key}.json")
    except result.ResultError:
        return False
    return old["doctrine_version"] == corpus.version and old["state"] != "auditor failed"


def run_shard(corpus: Corpus, entries: Sequence[Entry], folder: Path, *, workers: int, worker_argv: Sequence[str],
              limit: float, sandbox_kind: str = "none", prepare_timeout: float = 600.0,
              say: Callable[[str], None] = print) -> list[Path]:
    """Audit ``entries`` with ``workers`` worker processes at once; ``worker_argv`` is the worker's command without
    its entry and output (the options every server of the fleet shares). Returns the result files."""
    folder.mkdir(parents=True, exist_ok=True)
    lock, written = threading.Lock(), []
    started = time.monotonic()

    def one(entry: Entry) -> None:
        path = audit_in_worker(corpus, entry, folder, worker_argv=worker_argv, limit=limit, sandbox_kind=sandbox_kind,
                               prepare_timeout=prepare_timeout)
        data = result.read(path)
        with lock:
            written.append(path)
            say(f"[{len(written)}/{len(entries)}] {entry.key}: {outcome(data)} "
                f"({data['seconds']:.1f} s; shard {time.monotonic() - started:.0f} s)")

    with ThreadPoolExecutor(max_workers=worker_limit(workers)) as pool:
        list(pool.map(one, entries))
    return written


def outcome(data: dict[str, Any]) -> str:
    """One server's result in a few words, for the progress lines."""
    if data["state"] != "audited":
        return f"{data['state']}: {data['why']}"
    high = [r["id"] for r in data["rules"] if r["status"] == "FAIL" and r["severity"] == "high"]
    checked = sum(1 for r in data["rules"] if not result.not_checked(r))
    return f"audited {checked}/{len(data['rules'])} rules, HIGH FAIL: {', '.join(high) or 'none'}"


def audit_in_worker(corpus: Corpus, entry: Entry, folder: Path, *, worker_argv: Sequence[str], limit: float,
                    sandbox_kind: str = "none", prepare_timeout: float = 600.0) -> Path:
    """Install the entry's package here, with the network on (:mod:`.prepare`); then run the worker, the whole
    audit, inside the sandbox, in a process group of its own, the entry on its stdin. The audit runs inside rather
    than only the server so that the server is still the auditor's own child (a probe reads its descriptors and
    its signals), and a local HTTP server it starts is on the auditor's loopback. A result file exists when this
    returns."""
    path = folder / f"{entry.key}.json"
    path.unlink(missing_ok=True)  # an older run's result must never pass for this one's
    began = time.monotonic()
    how = sandbox.describe(sandbox_kind, network=entry.network)
    missing = [name for name in entry.secrets if name not in os.environ]
    problem = entry.needs or (f"needs the secret {', '.join(missing)} in the worker's environment" if missing else "")
    problem = problem or prepare.prepare(entry, timeout=prepare_timeout, environ=os.environ)
    if problem:
        result.write(folder, result.not_run(entry, corpus, state="not audited", why=problem, tool_version=__version__,
                                            sandbox=how, seconds=time.monotonic() - began))
        return path
    entry = replace(entry, resolved=resolve(entry, environ=os.environ))
    argv, how = sandbox.wrap([*worker_argv, "--sandbox-said", how, "-", "-o", str(folder.resolve())],
                             network=entry.network, kind=sandbox_kind, workdir=folder, readable=[corpus.root])
    ended = children.run(argv, timeout=limit, grace=STOP_GRACE, stdin=json.dumps(entry.to_json()).encode())
    if ended.returncode is None:
        why = f"the audit took longer than {limit:g} s and was stopped"
    else:
        why = "" if ended.returncode == 0 else children.last_line(ended.err) or f"exit code {ended.returncode}"
    if why or not path.exists():
        data = result.not_run(entry, corpus, state="auditor failed", why=why or "the worker wrote no result",
                              tool_version=__version__, sandbox=how, seconds=time.monotonic() - began)
        result.write(folder, data)
    return path
