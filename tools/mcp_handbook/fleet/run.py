"""One shard audited: a bounded pool of worker processes, one per server at a time, one JSON result per server.

Each server is audited in a process of its own (``fleet audit-one``), so a server that stalls or crashes its
auditor costs that server's result, never the shard's: past its time the worker is asked to stop (SIGTERM, which
stops every server it started), then killed with its process group, and the result says so. A shard's exit code
is 0 once every server has a result, whatever the results say; judging them is the merge's job.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .. import __version__
from ..model import Corpus
from . import result
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
              limit: float, say: Callable[[str], None] = print) -> list[Path]:
    """Audit ``entries`` with ``workers`` worker processes at once; ``worker_argv`` is the ``fleet audit-one``
    command without its entry and output (the options every server of the fleet shares). Returns the result files."""
    folder.mkdir(parents=True, exist_ok=True)
    lock, written = threading.Lock(), []
    started = time.monotonic()

    def one(entry: Entry) -> None:
        path = audit_in_worker(corpus, entry, folder, worker_argv=worker_argv, limit=limit)
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


def audit_in_worker(corpus: Corpus, entry: Entry, folder: Path, *, worker_argv: Sequence[str], limit: float) -> Path:
    """Run ``fleet audit-one`` on one entry in a process group of its own; a result file exists when this returns."""
    path = folder / f"{entry.key}.json"
    path.unlink(missing_ok=True)  # an older run's result must never pass for this one's
    with tempfile.TemporaryDirectory(prefix="hb-fleet-") as tmp:
        entry_file = Path(tmp) / "entry.json"
        entry_file.write_text(json.dumps(entry.to_json()))
        argv = [*worker_argv, str(entry_file), "-o", str(folder)]
        began = time.monotonic()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            _, err = proc.communicate(timeout=limit)
            why = "" if proc.returncode == 0 else _last_line(err) or f"exit code {proc.returncode}"
        except subprocess.TimeoutExpired:
            _stop(proc)
            why = f"the audit took longer than {limit:g} s and was stopped"
        seconds = time.monotonic() - began
    if why or not path.exists():
        data = result.not_run(entry, corpus, state="auditor failed", why=why or "the worker wrote no result",
                              tool_version=__version__, sandbox="", seconds=seconds)
        result.write(folder, data)
    return path


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the audit then stops every server it started), then the worker's whole process group, by its PID."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.communicate(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()


def _last_line(err: bytes) -> str:
    lines = [ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def worker_command(root: Path, *, fleet_args: Sequence[str]) -> list[str]:
    """The ``fleet audit-one`` command a worker runs, with this interpreter and this handbook."""
    return [sys.executable, "-m", "mcp_handbook.cli", "--root", str(root), "fleet", "audit-one", *fleet_args]
