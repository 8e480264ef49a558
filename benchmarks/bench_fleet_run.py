"""A fleet shard audited by one worker and by two, side by side in one run: the issue's bar is that two local
workers take at most 60% of the sequential time.

    python benchmarks/bench_fleet_run.py [--sources PATH ...] [--skip NAME ...] [--rounds 1] [-- AUDIT OPTIONS]

Plans ``--sources`` (default: ``benchmarks/fleet/servers``, the real servers written as their registry entries)
into one shard, then runs ``mcp-handbook fleet run`` on it with ``--workers 1`` and ``--workers 2``, alternating
which goes first each round, each into a fresh results folder. Every package is installed once before the first
timed run (an untimed ``fleet run``, whose scorecard then plans the timed runs with ``--timings``, longest audit
first, as a scheduled fleet is planned from its last scorecard), so neither run pays for a download the other
does not; audits run with
``--no-sdk-baseline`` unless other audit options are given, so neither pays for the SDK's baseline audit, which
is cached after its first run. Prints each run's wall time, the ratio, the load average, and each server's state
and seconds, and checks that both runs gave every server the same verdicts (results are reproducible).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BAR = 0.60


def fleet(*args: str, cwd: Path) -> float:
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "mcp_handbook.cli", "--root", str(ROOT), "fleet", *args], cwd=cwd,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"fleet {args[0]} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return time.monotonic() - began


def results(folder: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def verdicts(result: dict) -> tuple:
    return result["state"], tuple((r["id"], r["status"], r["na"]) for r in result["rules"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sources", nargs="+", default=[str(ROOT / "benchmarks" / "fleet" / "servers")])
    ap.add_argument("--skip", nargs="*", default=["mcp-server-sqlite-npx"],
                    help="server names (the part after the last /) left out: sqlite-npx compiles sqlite3 for "
                         "minutes on a machine with no prebuilt binary, which is install time, not audit time")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--keep", metavar="DIR", help="copy the last two-worker run's results here (to merge them)")
    ap.add_argument("audit", nargs="*", help="after --, options for every audit (default --no-sdk-baseline)")
    args = ap.parse_args()
    audit = args.audit or ["--no-sdk-baseline"]
    with tempfile.TemporaryDirectory(prefix="hb-bench-fleet-") as tmp:
        work = Path(tmp)
        sources = work / "sources"
        sources.mkdir()
        for source in args.sources:
            for path in sorted(Path(source).glob("*.json")) if Path(source).is_dir() else [Path(source)]:
                data = json.loads(path.read_text())
                if str(data.get("name", "")).rsplit("/", 1)[-1] not in args.skip:
                    (sources / path.name).write_text(json.dumps(data))
        fleet("plan", str(sources), "--shards", "1", "-o", str(work / "plan.json"), cwd=work)
        count = len(json.loads((work / "plan.json").read_text())["entries"])
        print(f"{count} server entries from {', '.join(args.sources)}; audits: {' '.join(audit)}")
        warm = fleet("run", str(work / "plan.json"), "--shard", "1/1", "--workers", "2", "-o", str(work / "warm"),
                     "--", *audit, cwd=work)
        print(f"untimed warm-up (installs every package): {warm:.1f} s")
        # plan again as a scheduled fleet would, balanced by what each audit took last time: longest first
        fleet("merge", str(work / "warm"), "-o", str(work / "warm-card"), cwd=work)
        fleet("plan", str(sources), "--shards", "1", "-o", str(work / "plan.json"), "--timings",
              str(work / "warm-card" / "scorecard.json"), cwd=work)
        seen: dict[int, dict[str, dict]] = {}
        for n in range(args.rounds):
            times: dict[int, float] = {}
            for workers in ((1, 2) if n % 2 == 0 else (2, 1)):
                out = work / f"r{n}-w{workers}"
                load = os.getloadavg()[0]
                times[workers] = fleet("run", str(work / "plan.json"), "--shard", "1/1", "--workers", str(workers),
                                       "-o", str(out), "--", *audit, cwd=work)
                seen[workers] = results(out)
                print(f"round {n + 1}: {workers} worker(s): {times[workers]:.1f} s (load average {load:.1f} at start)")
            ratio = times[2] / times[1]
            print(f"round {n + 1}: two workers / one = {ratio:.2f} (bar {BAR:.2f}: {'met' if ratio <= BAR else 'NOT met'})")
        if args.keep:
            shutil.copytree(work / f"r{args.rounds - 1}-w2", args.keep, dirs_exist_ok=True)
        print(f"\n{'server':60} {'state':14} {'1 worker':>9} {'2 workers':>9}  same verdicts")
        for key in sorted(seen[1]):
            one, two = seen[1][key], seen[2].get(key)
            same = two is not None and verdicts(one) == verdicts(two)
            print(f"{key[:60]:60} {one['state']:14} {one['seconds']:8.1f}s {two['seconds'] if two else 0:8.1f}s  "
                  f"{'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
