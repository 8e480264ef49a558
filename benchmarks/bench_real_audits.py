"""How long an audit of each real third-party server takes, beside that server's own cold start, in one run.

    python benchmarks/bench_real_audits.py [--only NAME ...] [--tree DIR] [--keep DIR] [--starts 3] [--jobs N]

For each real server of the hand checks (``benchmarks/handchecks/``, audited with the same options) installed
under ``$HB_REAL_SERVERS`` (default ``/work/realservers``; one venv per Python
server, the npm ones under ``npm/node_modules/.bin``; ``bash benchmarks/install_real_servers.sh`` installs them; a
missing one is skipped with a line that says so) it prints:
  cold start  seconds from spawn to the ``initialize`` answer, the median of ``--starts`` starts
  audit       seconds of one ``mcp-handbook audit`` of the same command, run as a separate process (an HTTP
              server is started on loopback first, not counted, and audited by ``--url``)
  ratio       audit / cold start: how many cold starts the audit costs, the figure that stays comparable
              when the machine is busy (both are measured in the same minute, under the same load)
  starts      server processes the audit started, the SDK comparison's included (the audit summary's
              ``servers started`` line; ``-`` from an auditor that does not print it): the same on a busy machine
``--tree DIR`` runs the auditor of another checkout (its ``tools`` folder), to measure before and after a change
side by side; ``--keep DIR`` keeps each audit's JSON worksheet there (``NAME.json``) to compare verdicts. The
load average is printed with each row: on a shared machine the seconds are noisy, the ratios less so.
Bar from issue 25: every real server audited in under 20 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVERS_DIR = Path(os.environ.get("HB_REAL_SERVERS", "/work/realservers"))
NPM_BIN = SERVERS_DIR / "npm" / "node_modules" / ".bin"
BAR_SECONDS = 20.0
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"


@dataclass(frozen=True)
class Server:
    """One real server as the hand checks audited it (``benchmarks/handchecks/``): its command, the audit's options,
    extra environment, and whether it is audited over Streamable HTTP (started with ``PORT`` on loopback, then
    ``--url``)."""

    command: list[str]
    options: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    http: bool = False


def real_servers(scratch: Path) -> dict[str, Server]:
    """Each real server, by name; files and folders a server needs are made in ``scratch``; ``{workspace}`` is the
    auditor's fresh folder per probe."""
    venv = lambda pkg, *args: [str(SERVERS_DIR / f"venv-{pkg}" / "bin" / pkg), *args]  # noqa: E731
    npm = lambda name, *args: [str(NPM_BIN / name), *args]  # noqa: E731
    return {
        "mcp-server-time": Server(venv("mcp-server-time", "--local-timezone", "UTC")),
        "mcp-server-git": Server(venv("mcp-server-git", "--repository", "{workspace}")),
        "mcp-server-fetch": Server(venv("mcp-server-fetch")),
        "excel-mcp-server": Server(venv("excel-mcp-server", "stdio", "--allow-dir", "{workspace}")),
        "mcp-server-duckdb": Server(venv("mcp-server-duckdb", "--db-path", "{workspace}/db.duckdb")),
        "mcp-server-duckdb (query allowed)": Server(venv("mcp-server-duckdb", "--db-path", "{workspace}/db.duckdb"),
                                                    ("--allow-tool-calls", "query")),
        "mcp-server-sequential-thinking": Server(npm("mcp-server-sequential-thinking")),
        "mcp-server-everything": Server(npm("mcp-server-everything", "stdio")),
        "mcp-server-everything (HTTP)": Server(npm("mcp-server-everything", "streamableHttp"), http=True),
        "mcp-server-filesystem": Server(npm("mcp-server-filesystem", "{workspace}")),
        "mcp-server-memory": Server(npm("mcp-server-memory")),
        "mcp-server-sqlite-npx": Server(npm("mcp-server-sqlite-npx", "{workspace}/test.db"),
                                        ("--allow-tool-calls", "read_query", "list_tables", "describe_table")),
        "mcp-server-commands": Server(npm("mcp-server-commands"), ("--no-tool-calls",)),
        "github-mcp-server": Server([str(SERVERS_DIR / "venv-ghgo" / "bin" / "github-mcp-server"), "stdio"], ("--no-tool-calls",),
                                    (("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_fake0000"),)),
    }


def _argv(server: Server, folder: Path) -> list[str]:
    return [arg.replace("{workspace}", str(folder)) for arg in server.command]


def _env(server: Server, **extra: str) -> dict[str, str]:
    return {**os.environ, **dict(server.env), **extra}


def cold_start(server: Server, *, cwd: Path, limit: float = 60.0) -> float | None:
    """Seconds from spawn to the ``initialize`` answer (None when none came within ``limit``): its first stdout line,
    or over HTTP its first answer to a POST of ``initialize``."""
    began = time.perf_counter()
    if server.http:
        port = _free_port()
        proc = _spawn(server, cwd, port)
        try:
            return time.perf_counter() - began if _http_initialize(port, limit) else None
        finally:
            _stop(proc)
    proc = subprocess.Popen(_argv(server, cwd), cwd=cwd, env=_env(server), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(INITIALIZE.encode())
        proc.stdin.flush()
        line = _line_within(proc, limit)
        return time.perf_counter() - began if line else None
    finally:
        _stop(proc)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _spawn(server: Server, cwd: Path, port: int) -> subprocess.Popen[bytes]:
    """An HTTP server on loopback ``port`` (``PORT``; the servers here bind only what they are told, on loopback)."""
    return subprocess.Popen(_argv(server, cwd), cwd=cwd, env=_env(server, PORT=str(port), HOST="127.0.0.1"),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _http_initialize(port: int, limit: float) -> bool:
    """POST ``initialize`` until the server answers it (bounded by ``limit``)."""
    import urllib.request

    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=INITIALIZE.encode(), method="POST",
                                         headers={"Content-Type": "application/json",
                                                  "Accept": "application/json, text/event-stream"})
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                if b'"result"' in answer.read(65536):
                    return True
        except OSError:
            time.sleep(0.05)
    return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the server's whole session (its process group) by the PID this script started."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _line_within(proc: subprocess.Popen[bytes], limit: float) -> bytes:
    import selectors

    with selectors.DefaultSelector() as sel:
        assert proc.stdout is not None
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(limit):
            return b""
        return proc.stdout.readline()


STARTED = re.compile(r"servers started: (\d+)")


def audit(server: Server, *, tree: Path, out: Path, jobs: int, scratch: Path) -> tuple[float, int, dict[str, int], str]:
    """Seconds of one audit as a separate process, its exit code, its verdict counts and the server processes it
    started (``-`` when its summary does not say); an HTTP server is started first (not counted) and audited by URL."""
    env = {**_env(server), "PYTHONPATH": str(tree / "tools")}
    argv = [sys.executable, "-c", "import sys; from mcp_handbook.cli import main; sys.exit(main())",
            "--root", str(tree), "audit", "-o", str(out), "--jobs", str(jobs), *server.options]
    proc = None
    if server.http:
        port = _free_port()
        proc = _spawn(server, scratch, port)
        if not _http_initialize(port, 60):
            _stop(proc)
            return 0.0, -1, {"Pass": 0, "Fail": 0, "N/A": 0}, "-"
        argv += ["--url", f"http://127.0.0.1:{port}/mcp"]
    else:  # the auditor starts a server with a minimal environment: what it needs is put in its command
        argv += ["--", *(["env", *(f"{k}={v}" for k, v in server.env)] if server.env else []), *server.command]
    try:
        began = time.perf_counter()
        done = subprocess.run(argv, env=env, cwd=tree, capture_output=True, text=True, check=False)
        took = time.perf_counter() - began
    finally:
        if proc is not None:
            _stop(proc)
    counts = {"Pass": 0, "Fail": 0, "N/A": 0}
    if out.exists():
        for item in json.loads(out.read_text()).get("items", []):
            if item.get("check") == "automated" and item.get("status") in counts:
                counts[item["status"]] += 1
    elif done.returncode not in (0, 1, 3):
        print(f"  audit failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    started = STARTED.search(done.stdout + done.stderr)
    return took, done.returncode, counts, started.group(1) if started else "-"


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
        subprocess.run(["git", "init", "-q", str(scratch)], check=False)  # a cold start of mcp-server-git needs one
        servers = real_servers(scratch)
        unknown = sorted(set(args.only or ()) - set(servers))
        if unknown:
            print(f"--only {', '.join(unknown)}: not a known server ({', '.join(servers)})", file=sys.stderr)
            return 2
        print(f"auditor: {tree}; {os.cpu_count()} core(s)")
        print(f"{'server':32} {'cold start':>10} {'audit':>8} {'ratio':>6} {'starts':>6}  verdicts (pass/fail/n-a), exit, load")
        over = []
        for name, server in servers.items():
            if args.only and name not in args.only:
                continue
            if not os.access(server.command[0], os.X_OK):
                print(f"{name:32} skipped: {server.command[0]} is not installed")
                continue
            starts = [s for s in (cold_start(server, cwd=scratch) for _ in range(args.starts)) if s is not None]
            if not starts:
                print(f"{name:32} skipped: it did not answer initialize within 60 s")
                continue
            cold = statistics.median(starts)
            out = (args.keep or scratch) / f"{name.replace(' ', '_').replace('(', '').replace(')', '')}.json"
            took, code, counts, started = audit(server, tree=tree, out=out, jobs=args.jobs, scratch=scratch)
            if took >= BAR_SECONDS:
                over.append(name)
            print(f"{name:32} {cold:9.2f}s {took:7.1f}s {took / cold:6.1f} {started:>6}  "
                  f"{counts['Pass']}/{counts['Fail']}/{counts['N/A']}, exit {code}, load {os.getloadavg()[0]:.1f}")
        print(f"bar {BAR_SECONDS:g} s: " + (f"OVER for {', '.join(over)}" if over else "every audit under it"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
