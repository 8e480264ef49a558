"""Shared fixtures: a raw pipe client for the reference server, and workspaces.

Why a raw client: most of the protocol tests are about bytes on the wire
(malformed JSON, oversize frames, what never gets a reply), which an SDK
client hides. Every process started here is stopped by its PID.
"""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

TOOLS_DIR = Path(__file__).resolve().parents[2] / "tools"
if str(TOOLS_DIR) not in sys.path:
    sys.path.insert(0, str(TOOLS_DIR))

INIT_PARAMS = {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "pytest", "version": "0"}}


def minimal_env(**extra: str) -> dict[str, str]:
    """Only what the interpreter needs, plus ``extra``."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONPATH": str(TOOLS_DIR)}
    env.update(extra)
    return env


class RawClient:
    """Spawn ``python -m reference_server``; send lines; read lines with a timeout."""

    def __init__(self, *args: str, workspace: Path, env: dict[str, str] | None = None,
                 pass_fds: tuple[int, ...] = ()) -> None:
        self.argv = [sys.executable, "-m", "reference_server", "--workspace", str(workspace), *args]
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env or minimal_env(), cwd=workspace,
                                     pass_fds=pass_fds)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.raw_stdout: list[bytes] = []
        self._stderr: list[bytes] = []
        self.notifications: list[dict[str, Any]] = []
        self._next_id = 1000
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        self._stderr_thread = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stderr_thread.start()

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.raw_stdout.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", errors="replace")

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any] | list[Any]) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next line from stdout as JSON (every line must be JSON: stdout is protocol only)."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no message within {timeout}s; stderr:\n{self.stderr}") from None
        if line is None:
            self.lines.put(None)
            raise EOFError(f"server closed stdout; stderr:\n{self.stderr}")
        return json.loads(line)

    def response(self, request_id: Any, timeout: float = 5.0) -> dict[str, Any]:
        """Read until the response to ``request_id``, collecting notifications on the way."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.recv(max(deadline - time.monotonic(), 0.01))
            if "method" in message and "id" not in message:
                self.notifications.append(message)
                continue
            assert message.get("id") == request_id, f"unexpected message {message}"
            return message

    def request(self, method: str, params: dict[str, Any] | None = None, *, request_id: Any = None,
                timeout: float = 5.0) -> dict[str, Any]:
        if request_id is None:
            self._next_id += 1
            request_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.response(request_id, timeout)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def initialize(self, version: str = "2025-11-25") -> dict[str, Any]:
        response = self.request("initialize", {**INIT_PARAMS, "protocolVersion": version})
        self.notify("notifications/initialized")
        return response

    def call(self, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.request("tools/call", params, **kw)

    def expect_silence(self, seconds: float = 0.3) -> None:
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            return
        raise AssertionError(f"expected no message, got {line!r}")

    def close_stdin(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except BrokenPipeError:
            pass

    def wait(self, timeout: float = 5.0) -> int:
        code = self.proc.wait(timeout=timeout)
        self._stderr_thread.join(timeout=2)
        return code

    def stop(self) -> None:
        """Close stdin, then kill by PID if it has not exited."""
        if self.proc.poll() is None:
            self.close_stdin()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=3)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small workspace with files, a subdirectory and a sibling directory sharing its prefix."""
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "hello.txt").write_text("hello world\nsecond line\n")
    (ws / "docs" / "guide.md").write_text("# Guide\nTODO: write more\nnothing here\n")
    (tmp_path / "ws-evil").mkdir()
    (tmp_path / "ws-evil" / "secret.txt").write_text("TOP SECRET sibling\n")
    (tmp_path / "outside.txt").write_text("TOP SECRET outside\n")
    return ws


@pytest.fixture
def spawn(workspace: Path):
    """Factory: ``spawn(*args, env=..., initialize=True)`` returns a started RawClient."""
    clients: list[RawClient] = []

    def _spawn(*args: str, env: dict[str, str] | None = None, initialize: bool = True,
               ws: Path | None = None, pass_fds: tuple[int, ...] = ()) -> RawClient:
        client = RawClient(*args, workspace=ws or workspace, env=env, pass_fds=pass_fds)
        clients.append(client)
        if initialize:
            client.initialize()
        return client

    yield _spawn
    for client in clients:
        client.stop()


@pytest.fixture
def client(spawn):
    """An initialized server with the test tools."""
    return spawn("--test-tools")


def text_of(response: dict[str, Any]) -> str:
    return "\n".join(block.get("text", "") for block in response["result"]["content"])
