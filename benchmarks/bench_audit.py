"""How long an audit of the reference server takes: every automated rule's probe, over real pipes.

    python benchmarks/bench_audit.py [--runs 3] [--jobs N] [--server-too]

Prints the median of ``run_audit`` (preflight, every probe, the worksheet
rows), the number of probes and server processes it started, and the slowest
probes; with ``--server-too`` also one audit of ``mcp-server-time`` (a server
built on the official SDK, when installed). Bar from issue 7: an audit of the
reference server under 10 s.
"""

from __future__ import annotations

import argparse
import os
import importlib.util
import resource
import statistics
import sys
import time
from pathlib import Path

from mcp_handbook import load_corpus
from mcp_handbook.audit import AuditOptions, AuditResult, audit_rows, run_audit

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = [sys.executable, "-m", "reference_server", "--test-tools"]
TIME_SERVER = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]
BAR_SECONDS = 10.0


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def audit_once(command: list[str], options: AuditOptions) -> tuple[float, AuditResult]:
    corpus = load_corpus(ROOT)
    start = time.perf_counter()
    result = run_audit(corpus, command, options=options)
    audit_rows(corpus, result)
    return time.perf_counter() - start, result


def describe(label: str, seconds: list[float], result: AuditResult) -> list[str]:
    counts = {s: sum(1 for f in result.findings if f.finding.status == s) for s in ("PASS", "FAIL", "N/A")}
    slowest = sorted({(f.seconds, f.probe) for f in result.findings}, reverse=True)[:5]
    return [
        f"{label}: median {statistics.median(seconds):.2f} s over {len(seconds)} run(s) "
        f"(min {min(seconds):.2f}, max {max(seconds):.2f}); {len(result.findings)} automated rules, "
        f"{len({f.probe for f in result.findings})} probes; PASS {counts['PASS']}, FAIL {counts['FAIL']}, N/A {counts['N/A']}",
        "  slowest probes: " + ", ".join(f"{name} {secs:.1f} s" for secs, name in slowest),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=0, help="probes at once (default: the auditor's own)")
    ap.add_argument("--server-too", action="store_true", help="also audit mcp-server-time once")
    args = ap.parse_args()
    options = AuditOptions(jobs=args.jobs)
    seconds, result = [], None
    own, servers = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
    for _ in range(args.runs):
        took, result = audit_once(REFERENCE, options)
        seconds.append(took)
    assert result is not None
    own = (cpu_seconds(resource.RUSAGE_SELF) - own) / args.runs
    servers = (cpu_seconds(resource.RUSAGE_CHILDREN) - servers) / args.runs
    for line in describe("reference server", seconds, result):
        print(line)
    print(f"  CPU per audit: auditor {own:.2f} s (corpus parse included), server processes {servers:.2f} s; {os.cpu_count()} core(s), "
          f"load average {os.getloadavg()[0]:.1f}")
    verdict = "under" if statistics.median(seconds) < BAR_SECONDS else "OVER"
    print(f"  bar: {verdict} {BAR_SECONDS:g} s")
    if args.server_too and importlib.util.find_spec("mcp_server_time"):
        took, result = audit_once(TIME_SERVER, options)
        for line in describe("mcp-server-time", [took], result):
            print(line)
        print(f"  server start-up seen by the preflight: {result.facts.startup:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
