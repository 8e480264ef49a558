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

Then over Streamable HTTP, three servers with the same tool:
  floor      the standard library's ThreadingHTTPServer answering each POST
             with the echo (no MCP at all): what http.server and the
             http.client on the other end cost, the least any server built on
             http.server can take. The reference server reads HTTP itself
             (http_reader.py), so it can come in under this floor.
  reference  python -m reference_server --http 127.0.0.1:PORT
  mcpserver  the SDK's MCPServer run("streamable-http", json_response=True),
             its fastest reply format (stateful: the handshake era needs sessions)
For each era, the median of: spawn to the first successful tools/call answer
(2026-07-28: the call alone; 2025-11-25: initialize, initialized and the call
on one session), then N sequential tools/call on the same keep-alive
connection. The port is picked free before the spawn, and the clock runs from
the spawn until the answer, connection attempts included.
The ratios are what matter on a shared, noisy machine.

    python benchmarks/bench_server.py [--runs 7] [--calls 5000]
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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

SDK_HTTP = SDK.replace("server.run()", '''import sys

server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]), json_response=True)''')


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


PV, CAPS = "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"
ACCEPT = "application/json, text/event-stream"

HTTP_FLOOR = """import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):
        m = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "id" not in m:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        result = {}
        if m["method"] == "tools/call":
            result = {"content": [{"type": "text", "text": m["params"]["arguments"]["text"]}]}
        body = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Echo).serve_forever()
"""
ERAS = ("2026-07-28", "2025-11-25")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class HttpSession:
    """One keep-alive connection to ``/mcp``, speaking one era; ``call()`` checks every answer."""

    def __init__(self, port: int, era: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.era = era
        self.session_id: str | None = None

    def connect(self, deadline: float, server: subprocess.Popen) -> None:
        """Retry the TCP connect until the server listens (bounded by ``deadline``)."""
        while True:
            try:
                self.connection.connect()
                return
            except ConnectionRefusedError:
                if server.poll() is not None:
                    raise RuntimeError(f"the server exited with {server.returncode} before listening") from None
                if time.perf_counter() > deadline:
                    raise RuntimeError("the server did not listen within 60 s") from None
                time.sleep(0.002)

    def post(self, message: dict, headers: dict[str, str]) -> dict | None:
        sent = {"Content-Type": "application/json", "Accept": ACCEPT, **headers}
        if self.session_id:
            sent["Mcp-Session-Id"] = self.session_id
        self.connection.request("POST", "/mcp", body=json.dumps(message).encode(), headers=sent)
        response = self.connection.getresponse()
        body = response.read()
        if response.status not in (200, 202):
            raise RuntimeError(f"HTTP {response.status} for {message.get('method')}: {body[:200]!r}")
        self.session_id = response.headers.get("Mcp-Session-Id") or self.session_id
        if not body:
            return None
        if response.headers.get("Content-Type", "").startswith("text/event-stream"):
            body = [line[5:] for line in body.split(b"\n") if line.startswith(b"data:")][-1]
        return json.loads(body)

    def handshake(self) -> None:
        answer = self.post(json.loads(INIT), {})
        if "result" not in answer:
            raise RuntimeError(f"initialize failed: {answer}")
        self.post(json.loads(INITIALIZED), {"MCP-Protocol-Version": self.era})

    def call(self, call_id: int) -> None:
        params: dict = {"name": "echo_text", "arguments": {"text": "hello"}}
        headers = {"MCP-Protocol-Version": self.era}
        if self.era == "2026-07-28":
            params["_meta"] = {PV: self.era, CAPS: {}}
            headers.update({"Mcp-Method": "tools/call", "Mcp-Name": "echo_text"})
        answer = self.post({"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": params}, headers)
        content = (answer or {}).get("result", {}).get("content") or [{}]
        if content[0].get("text") != "hello":
            raise RuntimeError(f"tools/call {call_id} did not echo: {answer}")


def one_http_run(command: Callable[[int], list[str]], cwd: Path, era: str, calls: int) -> dict[str, float]:
    """Spawn the server on a free port, time the first call (after the handshake in the legacy era), then
    ``calls`` more on the same connection; the server is stopped by its PID."""
    port = free_port()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "PYTHONPATH": str(ROOT / "tools"), "LANG": "C.UTF-8"}
    start = time.perf_counter()
    proc = subprocess.Popen(command(port), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    session = HttpSession(port, era)
    try:
        session.connect(start + 60, proc)
        if era != "2026-07-28":
            session.handshake()
        session.call(1)
        out = {"first call": time.perf_counter() - start}
        t0 = time.perf_counter()
        for i in range(calls):
            session.call(10 + i)
        out["sequential"] = time.perf_counter() - t0
        return out
    finally:
        session.connection.close()
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bench_http(tmpdir: Path, runs: int, calls: int) -> None:
    (tmpdir / "sdk_http_server.py").write_text(SDK_HTTP)
    (tmpdir / "http_floor.py").write_text(HTTP_FLOOR)
    servers: dict[str, Callable[[int], list[str]]] = {  # each: the command line for a port
        "floor": lambda port: [sys.executable, str(tmpdir / "http_floor.py"), str(port)],
        "reference": lambda port: [sys.executable, "-m", "reference_server", "--workspace", str(tmpdir),
                                   "--seam", f"tool={tmpdir / 'tool.py'}", "--http", f"127.0.0.1:{port}"],
        "mcpserver": lambda port: [sys.executable, str(tmpdir / "sdk_http_server.py"), str(port)],
    }
    results: dict[tuple[str, str], list[dict[str, float]]] = {(name, era): [] for name in servers for era in ERAS}
    for command in servers.values():  # warm-up, not counted
        for era in ERAS:
            one_http_run(command, tmpdir, era, 10)
    for _ in range(runs):  # interleaved: noise hits every server and both eras alike
        for era in ERAS:
            for name, command in servers.items():
                results[(name, era)].append(one_http_run(command, tmpdir, era, calls))
    med = {key: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for key, rs in results.items()}
    print()
    print(f"Streamable HTTP: median of {runs} runs; {calls} sequential tools/call on one connection; times in ms")
    print(f"{'measure':<56}{'floor':>9}{'reference':>11}{'MCPServer':>11}{'MCPServer/ref':>15}{'ref/floor':>11}")
    for era in ERAS:
        first = "spawn -> first tools/call" if era == "2026-07-28" else "spawn -> initialize+initialized+tools/call"
        for key, label in (("first call", first), ("sequential", f"{calls} sequential calls")):
            f, r, m = (med[(name, era)][key] * 1e3 for name in ("floor", "reference", "mcpserver"))
            print(f"{era + ' ' + label:<56}{f:>9.1f}{r:>11.1f}{m:>11.1f}{m / r:>14.1f}x{r / f:>10.2f}x")


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
        bench_http(tmpdir, args.runs, args.calls)


if __name__ == "__main__":
    main()
