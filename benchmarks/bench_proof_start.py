"""What one proof's server start costs, as the verifier starts it and as it did before, side by side.

    python benchmarks/bench_proof_start.py [--rounds 5] [--starts 20]

A proof run starts some 450 reference servers (control runs, the probes' sessions, smoke calls), so the
CPU of one start, spawn to the initialize answer and on to exit at stdin EOF, is most of what
``pytest content`` costs. Each round starts the server ``--starts`` times each way, interleaved:
  site      ``python -m reference_server``: the interpreter's ``site`` module and its ``.pth`` hooks
  no-site   ``python -S -m reference_server`` with the libraries on ``PYTHONPATH``, as ``verify`` does
            (``SERVER_PYTHON_FLAGS``)
and prints the CPU of one start (the children's user and system time) and the ratio, per round and median.
The bytecode is written first in both cases, as ``verify`` does before its first server.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from mcp_handbook.proving.verify import SERVER_PYTHON_FLAGS, minimal_env

INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"


def cpu_per_start(flags: tuple[str, ...], starts: int, workspace: Path) -> float:
    """Milliseconds of CPU per start: spawn, initialize answered, stdin closed, exit."""
    env = minimal_env()  # writes the server's bytecode on first use; PYTHONPATH has the server and the libraries
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(starts):
        proc = subprocess.Popen([sys.executable, *flags, "-m", "reference_server", "--workspace", str(workspace),
                                 "--test-tools"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=env, cwd=workspace)
        try:
            proc.stdin.write(INITIALIZE.encode())
            proc.stdin.flush()
            if not proc.stdout.readline():
                raise SystemExit(f"the server ({' '.join(flags) or 'site'}) did not answer initialize")
            proc.stdin.close()
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return used / starts * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--starts", type=int, default=20)
    args = parser.parse_args()
    ratios = []
    with tempfile.TemporaryDirectory(prefix="hb-bench-start-") as tmp:
        workspace = Path(tmp)
        cpu_per_start(SERVER_PYTHON_FLAGS, 2, workspace)  # warm-up: bytecode written, caches filled
        for n in range(max(1, args.rounds)):
            pair = [("site", ()), ("no-site", SERVER_PYTHON_FLAGS)]
            measured = {name: cpu_per_start(flags, args.starts, workspace)
                        for name, flags in (pair if n % 2 == 0 else pair[::-1])}
            ratios.append(measured["site"] / measured["no-site"])
            print(f"round {n + 1}: site {measured['site']:.0f} ms CPU a start, no-site {measured['no-site']:.0f} ms: "
                  f"{ratios[-1]:.2f}x")
    print(f"median over {len(ratios)} rounds: a start with site costs {statistics.median(ratios):.2f}x one without "
          f"(range {min(ratios):.2f}x to {max(ratios):.2f}x)")


if __name__ == "__main__":
    main()
