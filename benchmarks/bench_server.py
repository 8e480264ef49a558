"""How fast the reference server is, measured side by side with its yardsticks.

Four servers each answer the same requests (`echo_text` returns its text):
  floor      a raw Python line-echo loop (no JSON work at all): the pipe floor
  skeleton   the reference server's own frame reader, JSON decoder and writer
             with nothing between: no envelope checks, no dispatch, no
             validation, no seams. What stdlib JSON framing alone costs, and
             so the least any stdlib-only server can take.
  reference  python -m reference_server, the tool mounted with --seam tool=...
  mcpserver  the official SDK's MCPServer with @server.tool()

For each, the median of several spawns (interleaved, so machine noise hits all
three alike) of: spawn to the initialize reply, to the first tools/list reply,
to the first tools/call result; and N sequential tools/call on one pipe.
The ratios are what matter on a shared, noisy machine.

    python benchmarks/bench_server.py [--runs 7] [--calls 5000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FLOOR = "import sys\nw = sys.stdout.buffer\nfor line in sys.stdin.buffer:\n    w.write(line)\n    w.flush()\n"

SKELETON = """import sys
from reference_server.wire import decode_frame, read_frames, write_message
out = sys.stdout.buffer
for frame in read_frames(sys.stdin.buffer, 1048576):
    m = decode_frame(frame.decode("utf-8"))
    if "id" not in m:
        continue
    if m.get("method") == "tools/call":
        result = {"content": [{"type": "text", "text": m["params"]["arguments"]["text"]}]}
    else:
        result = {}
    write_message(out, {"jsonrpc": "2.0", "id": m["id"], "result": result})
"""

TOOL = '''
TOOL = {
    "name": "echo_text",
    "title": "Echo text",
    "description": "Return the text it is given, unchanged. For benchmarks; no side effects.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 1000,
                    "description": "Text to return, e.g. \\"hello\\"."}},
                    "required": ["text"], "additionalProperties": False},
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
}


def handle(arguments, ctx):
    return {"content": [{"type": "text", "text": arguments["text"]}]}
'''

SDK = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("bench")


@server.tool()
def echo_text(text: str) -> str:
    """Return the text it is given, unchanged."""
    return text


server.run()
'''


def frames(kind: str, call_id: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
                       "params": {"name": "echo_text", "arguments": {"text": "hello"}}}).encode() + b"\n"


INIT = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}).encode() + b"\n"
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'


class Server:
    def __init__(self, argv: list[str], cwd: Path) -> None:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "PYTHONPATH": str(ROOT / "tools"), "LANG": "C.UTF-8"}
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)

    def ask(self, data: bytes) -> bytes:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("server closed stdout")
            if b'"id"' in line:  # skip notifications
                return line

    def tell(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def since_start(self) -> float:
        return time.perf_counter() - self.start

    def stop(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def one_run(argv: list[str], cwd: Path, calls: int) -> dict[str, float]:
    s = Server(argv, cwd)
    out: dict[str, float] = {}
    s.ask(INIT)
    out["initialize"] = s.since_start()
    s.tell(INITIALIZED)
    s.ask(LIST)
    out["tools/list"] = s.since_start()
    s.ask(frames("call", 2))
    out["tools/call"] = s.since_start()
    t0 = time.perf_counter()
    for i in range(calls):
        s.ask(frames("call", 10 + i))
    out["sequential"] = time.perf_counter() - t0
    s.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--calls", type=int, default=5000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hb-bench-") as tmp:
        tmpdir = Path(tmp)
        (tmpdir / "floor.py").write_text(FLOOR)
        (tmpdir / "skeleton.py").write_text(SKELETON)
        (tmpdir / "tool.py").write_text(TOOL)
        (tmpdir / "sdk_server.py").write_text(SDK)
        servers = {
            "floor": [sys.executable, str(tmpdir / "floor.py")],
            "skeleton": [sys.executable, str(tmpdir / "skeleton.py")],
            "reference": [sys.executable, "-m", "reference_server", "--workspace", str(tmpdir),
                          "--seam", f"tool={tmpdir / 'tool.py'}"],
            "mcpserver": [sys.executable, str(tmpdir / "sdk_server.py")],
        }
        results: dict[str, list[dict[str, float]]] = {name: [] for name in servers}
        for argv in servers.values():  # warm-up, not counted: bytecode caches written, as on any installed server
            one_run(argv, tmpdir, 10)
        for _ in range(args.runs):  # interleaved: noise hits all four alike
            for name, argv in servers.items():
                results[name].append(one_run(argv, tmpdir, args.calls))
    med = {name: {k: statistics.median(r[k] for r in runs) for k in runs[0]} for name, runs in results.items()}
    print(f"median of {args.runs} runs; {args.calls} sequential tools/call; times in ms")
    print(f"{'measure':<26}{'floor':>10}{'skeleton':>10}{'reference':>11}{'MCPServer':>11}{'MCPServer/ref':>15}"
          f"{'ref/floor':>11}{'skel/floor':>12}")
    labels = {"initialize": "spawn -> initialize reply", "tools/list": "spawn -> first tools/list",
              "tools/call": "spawn -> first tools/call", "sequential": f"{args.calls} sequential calls"}
    for key, label in labels.items():
        f, k, r, m = (med[name][key] * 1e3 for name in ("floor", "skeleton", "reference", "mcpserver"))
        print(f"{label:<26}{f:>10.1f}{k:>10.1f}{r:>11.1f}{m:>11.1f}{m / r:>14.1f}x{r / f:>10.2f}x{k / f:>11.2f}x")


if __name__ == "__main__":
    main()
