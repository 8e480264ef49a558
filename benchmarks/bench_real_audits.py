"""How long an audit of each real third-party server takes, beside that server's own cold start, in one run.

    python benchmarks/bench_real_audits.py [--only NAME ...] [--tree DIR] [--keep DIR] [--starts 3] [--jobs N]

For each real server installed under ``$HB_REAL_SERVERS`` (default ``/work/realservers``; one venv per Python
server, the npm ones under ``npm/node_modules/.bin``; ``bash benchmarks/install_real_servers.sh`` installs them; a
missing one is skipped with a line that says so) it prints:
  cold start  seconds from spawn to the ``initialize`` answer, the median of ``--starts`` starts
  audit       seconds of one ``mcp-handbook audit`` of the same command, run as a separate process
  ratio       audit / cold start: how many cold starts the audit costs, the figure that stays comparable
              when the machine is busy (both are measured in the same minute, under the same load)
``--tree DIR`` runs the auditor of another checkout (its ``tools`` folder), to measure before and after a change
side by side; ``--keep DIR`` keeps each audit's JSON worksheet there (``NAME.json``) to compare verdicts. The
load average is printed with each row: on a shared machine the seconds are noisy, the ratios less so.
Bar from issue 25: every real server audited in under 20 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVERS_DIR = Path(os.environ.get("HB_REAL_SERVERS", "/work/realservers"))
NPM_BIN = SERVERS_DIR / "npm" / "node_modules" / ".bin"
BAR_SECONDS = 20.0
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"


def real_servers(scratch: Path) -> dict[str, list[str]]:
    """Each real server's command, by name; files and folders a server needs are made in ``scratch``."""
    repo = scratch / "repo"
    if not repo.exists():
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=False)
    venv = lambda pkg, *args: [str(SERVERS_DIR / f"venv-{pkg}" / "bin" / pkg), *args]  # noqa: E731
    npm = lambda name, *args: [str(NPM_BIN / name), *args]  # noqa: E731
    return {
        "mcp-server-time": venv("mcp-server-time", "--local-timezone", "UTC"),
        "mcp-server-git": venv("mcp-server-git", "--repository", str(repo)),
        "mcp-server-fetch": venv("mcp-server-fetch"),
        "excel-mcp-server": venv("excel-mcp-server", "stdio"),
        "mcp-server-duckdb": venv("mcp-server-duckdb", "--db-path", str(scratch / "bench.duckdb")),
        "mcp-server-sequential-thinking": npm("mcp-server-sequential-thinking"),
        "mcp-server-everything": npm("mcp-server-everything", "stdio"),
        "mcp-server-filesystem": npm("mcp-server-filesystem", str(scratch)),
        "mcp-server-memory": npm("mcp-server-memory"),
        "mcp-server-sqlite-npx": npm("mcp-server-sqlite-npx", str(scratch / "bench.sqlite")),
        "mcp-server-commands": npm("mcp-server-commands"),
    }


def cold_start(command: list[str], *, cwd: Path, limit: float = 60.0) -> float | None:
    """Seconds from spawn to the first stdout line after ``initialize`` (None when none came within ``limit``)."""
    began = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(INITIALIZE.encode())
        proc.stdin.flush()
        line = _line_within(proc, limit)
        return time.perf_counter() - began if line else None
    finally:
        proc.kill()
        proc.wait()


def _line_within(proc: subprocess.Popen[bytes], limit: float) -> bytes:
    import selectors

    with selectors.DefaultSelector() as sel:
        assert proc.stdout is not None
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(limit):
            return b""
        return proc.stdout.readline()


def audit(command: list[str], *, tree: Path, out: Path, jobs: int) -> tuple[float, int, dict[str, int]]:
    """Seconds of one audit as a separate process, its exit code and its verdict counts."""
    env = {**os.environ, "PYTHONPATH": str(tree / "tools")}
    argv = [sys.executable, "-c", "import sys; from mcp_handbook.cli import main; sys.exit(main())",
            "--root", str(tree), "audit", "-o", str(out), "--jobs", str(jobs), "--", *command]
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=tree, capture_output=True, text=True, check=False)
    took = time.perf_counter() - began
    counts = {"Pass": 0, "Fail": 0, "N/A": 0}
    if out.exists():
        for item in json.loads(out.read_text()).get("items", []):
            if item.get("check") == "automated" and item.get("status") in counts:
                counts[item["status"]] += 1
    elif done.returncode not in (0, 1):
        print(f"  audit failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    return took, done.returncode, counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these servers (names as printed)")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose auditor runs (default: this one)")
    ap.add_argument("--keep", type=Path, help="keep each audit's JSON worksheet in this folder as NAME.json")
    ap.add_argument("--starts", type=int, default=3, help="cold starts per server (the median is printed)")
    ap.add_argument("--jobs", type=int, default=0, help="the audit's --jobs (default: the auditor's own)")
    args = ap.parse_args()
    tree = args.tree.resolve()
    if not (tree / "tools" / "mcp_handbook").is_dir():
        print(f"--tree {tree}: no tools/mcp_handbook there", file=sys.stderr)
        return 2
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hb-bench-real-") as tmp:
        scratch = Path(tmp)
        servers = real_servers(scratch)
        unknown = sorted(set(args.only or ()) - set(servers))
        if unknown:
            print(f"--only {', '.join(unknown)}: not a known server ({', '.join(servers)})", file=sys.stderr)
            return 2
        print(f"auditor: {tree}; {os.cpu_count()} core(s)")
        print(f"{'server':32} {'cold start':>10} {'audit':>8} {'ratio':>6}  verdicts (pass/fail/n-a), exit, load")
        over = []
        for name, command in servers.items():
            if args.only and name not in args.only:
                continue
            if not os.access(command[0], os.X_OK):
                print(f"{name:32} skipped: {command[0]} is not installed")
                continue
            starts = [s for s in (cold_start(command, cwd=scratch) for _ in range(args.starts)) if s is not None]
            if not starts:
                print(f"{name:32} skipped: it did not answer initialize within 60 s")
                continue
            cold = statistics.median(starts)
            out = (args.keep or scratch) / f"{name}.json"
            took, code, counts = audit(command, tree=tree, out=out, jobs=args.jobs)
            if took >= BAR_SECONDS:
                over.append(name)
            print(f"{name:32} {cold:9.2f}s {took:7.1f}s {took / cold:6.1f}  "
                  f"{counts['Pass']}/{counts['Fail']}/{counts['N/A']}, exit {code}, load {os.getloadavg()[0]:.1f}")
        print(f"bar {BAR_SECONDS:g} s: " + (f"OVER for {', '.join(over)}" if over else "every audit under it"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
