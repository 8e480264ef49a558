"""Shared fixtures: a raw pipe client for the reference server, the server over HTTP, and workspaces.

Why a raw client: most of the protocol tests are about bytes on the wire
(malformed JSON, oversize frames, what never gets a reply), which an SDK
client hides. Every process started here is stopped by its PID.
"""
from __future__ import annotations

import os
import re
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

from mcp_handbook.proving.verify import SERVER_PYTHON_FLAGS, minimal_env  # noqa: E402  (one environment, one start for every server under test)
from mcp_handbook.wire import Message, WireSession  # noqa: E402  (one raw pipe client)

INIT_PARAMS = {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "pytest", "version": "0"}}


class RawClient(WireSession):
    """``python -m reference_server`` on a :class:`WireSession`, read in order: every stdout line, one at a time.

    The probes' client, with the reading a protocol test wants: ``recv`` returns the next line (failing on
    one that is not JSON: stdout is protocol only), ``response`` the next answer, collecting notifications."""

    def __init__(self, *args: str, workspace: Path, env: dict[str, str] | None = None,
                 pass_fds: tuple[int, ...] = ()) -> None:
        argv = [sys.executable, *SERVER_PYTHON_FLAGS, "-m", "reference_server", "--workspace", str(workspace), *args]
        super().__init__(argv, cwd=workspace, env=env or minimal_env(), pass_fds=pass_fds)
        self.notifications: list[dict[str, Any]] = []
        self._read = 0
        self._test_ids = 1000

    @property
    def stderr(self) -> str:
        return "\n".join(line.text for line in self.stderr_lines)

    def _next(self, timeout: float) -> Message | None:
        deadline = time.monotonic() + timeout
        while True:
            seen = self.stdout
            if len(seen) > self._read:
                self._read += 1
                return seen[self._read - 1]
            if self.wait_stdout_eof(0) and len(self.stdout) == self._read:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no message within {timeout}s; stderr:\n{self.stderr}")
            self.wait_stdout_lines(self._read, timeout=left)

    def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next line from stdout as JSON (every line must be JSON: stdout is protocol only)."""
        message = self._next(timeout)
        if message is None:
            raise EOFError(f"server closed stdout; stderr:\n{self.stderr}")
        assert message.value is not None, f"stdout line is not JSON: {message.line.text[:200]!r}"
        return message.value

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

    def request(self, method: str, params: dict[str, Any] | None = None, *, request_id: Any = None,  # type: ignore[override]
                timeout: float = 5.0) -> dict[str, Any]:
        if request_id is None:
            self._test_ids += 1
            request_id = self._test_ids
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.response(request_id, timeout)

    def initialize(self, version: str = "2025-11-25") -> dict[str, Any]:  # type: ignore[override]
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
            message = self._next(seconds)
        except TimeoutError:
            return
        if message is not None:
            raise AssertionError(f"expected no message, got {message.line.text!r}")

    def close_stdin(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    def wait(self, timeout: float = 5.0) -> int:
        code = self.proc.wait(timeout=timeout)
        self.wait_stdout_eof(2)
        self.wait_eof(2, "stderr")  # its last log line may still be in the pipe when it exits (seen under load)
        return code

    def stop(self) -> None:
        """Close stdin, then SIGTERM and SIGKILL the process group if it has not exited (by its PID)."""
        self.close(grace=3)

    def skip_unread(self, timeout: float = 5.0) -> bool:
        """Skip what an earlier test left unread: send a ping and every line up to its answer (the server reads
        in order and answers a ping at once), then forget the notifications collected so far. False when the
        server closed stdout before answering (it is exiting)."""
        self._test_ids += 1
        marker = f"skip-{self._test_ids}"
        self.send({"jsonrpc": "2.0", "id": marker, "method": "ping"})
        deadline = time.monotonic() + timeout
        answered = False
        while not answered and (message := self._next(max(deadline - time.monotonic(), 0.01))) is not None:
            answered = isinstance(message.value, dict) and message.value.get("id") == marker
        self.notifications.clear()
        return answered


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small workspace with files, a subdirectory and a sibling directory sharing its prefix."""
    return _fill_workspace(tmp_path)


def _fill_workspace(tmp_path: Path) -> Path:
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


@pytest.fixture(scope="module")
def shared_spawn(tmp_path_factory: pytest.TempPathFactory):
    """Factory for read-only tests: ``shared_spawn(*args, initialize=True)`` returns one server per module and
    arguments, started on first use and handed to every later test of the module that asks for the same.

    A test that takes it must leave nothing the next one can see: it only sends requests and checks their
    answers; it calls no tool that writes, sets no log level, never closes stdin and reads no stderr. Before a
    test gets the server, what the last one left unread is skipped; a server that has exited is started again."""
    workspace = _fill_workspace(tmp_path_factory.mktemp("shared"))
    servers: dict[tuple[tuple[str, ...], bool], RawClient] = {}

    def _shared(*args: str, initialize: bool = True) -> RawClient:
        key = (args, initialize)
        server = servers.get(key)
        if server is not None and server.proc.poll() is None and server.skip_unread():
            return server
        if server is not None:
            server.stop()
        server = servers[key] = RawClient(*args, workspace=workspace)
        if initialize:
            server.initialize()
        return server

    yield _shared
    for server in servers.values():
        server.stop()


@pytest.fixture
def shared_client(shared_spawn):
    """The module's initialized server with the test tools, for read-only tests (see ``shared_spawn``)."""
    return shared_spawn("--test-tools")


class HttpServer:
    """``python -m reference_server --http 127.0.0.1:0``: started, its URL read from its one "listening on" line."""

    def __init__(self, *args: str, workspace: Path) -> None:
        argv = [sys.executable, "-m", "reference_server", "--workspace", str(workspace), "--http", "127.0.0.1:0", *args]
        self.proc = subprocess.Popen(argv, cwd=workspace, env=minimal_env(), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self._listening = threading.Event()
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        if not self._listening.wait(15):
            self.stop()
            raise AssertionError(f"no 'listening on' line within 15 s; stderr:\n{self.stderr}")
        match = re.search(r"listening on (http://127\.0\.0\.1:(\d+)/mcp)$", self.stderr, re.M)
        assert match, self.stderr
        self.url, self.port = match.group(1), int(match.group(2))
        self.host = f"127.0.0.1:{self.port}"

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))
            if "listening on " in line:
                self._listening.set()
        self._listening.set()  # exited before listening: the constructor reports it

    @property
    def stderr(self) -> str:
        return "\n".join(self.lines)

    def wait_for_stderr(self, needle: str, timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.stderr:
                return True
            time.sleep(0.05)
        return False

    def stop(self) -> int:
        """SIGTERM by PID, then SIGKILL if it has not exited within 5 s; returns the exit status."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        self._reader.join(timeout=5)
        return self.proc.returncode


@pytest.fixture
def http_server(workspace: Path):
    """Factory: ``http_server(*args)`` starts the server over HTTP on a free loopback port; all are stopped after."""
    servers: list[HttpServer] = []

    def _start(*args: str) -> HttpServer:
        server = HttpServer(*args, workspace=workspace)
        servers.append(server)
        return server

    yield _start
    for server in servers:
        server.stop()


def text_of(response: dict[str, Any]) -> str:
    return "\n".join(block.get("text", "") for block in response["result"]["content"])
