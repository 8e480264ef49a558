"""Promises of the testing gate: a block of this gate is a test file, so its check writes the block to a file and
runs ``pytest`` on it in a subprocess, bounded in time, against something real: the reference server
(``python -m reference_server``) or a tiny server the check writes, once as it should be and once with the bug
the rule's tests exist to catch. A CORRECT test file passes against the good server and fails against the bad
one; a WRONG one shows its defect: it fails against the good server, or passes against the bad one.

A test that errors (a fixture that cannot start, a test file that does not import) says nothing about the test's
claim: the check raises, and the block is reported broken. A test run that does not end in time counts as
failed: a test with no deadline hanging on a silent server is a failing test.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .registry import Broken, promise

PYTEST_SECONDS = 45.0
"""How long one pytest run of a block may take before it is stopped and counted as failed."""
TOOLS_DIR = str(Path(__file__).resolve().parents[2])
"""The folder holding ``reference_server`` and ``mcp_handbook``: the servers the checks start import from it."""


def block_source(block: ModuleType) -> str:
    """The source of the block the check was handed, as written in its markdown (:mod:`.child` keeps it on the
    module as ``__block_source__``)."""
    return block.__block_source__


@dataclass(frozen=True, slots=True)
class PytestRun:
    """What one pytest run of a test file showed."""

    passed: int
    failed: list[str]
    """Tests that failed (an assertion, or an exception in the test's own body), by name."""
    errors: list[str]
    """Tests that could not run (a fixture failed, the file does not import), by name."""
    output: str
    timed_out: bool = False

    @property
    def green(self) -> bool:
        return not self.timed_out and not self.failed and not self.errors and self.passed > 0

    def failures(self) -> str:
        if self.timed_out:
            return f"the run did not end within {PYTEST_SECONDS:g} s"
        return ", ".join(self.failed) or "no test failed"


def run_pytest(source: str, files: dict[str, str], env: dict[str, str] | None = None) -> PytestRun:
    """Write ``source`` as ``test_block.py`` beside ``files`` (name -> text) in a fresh folder, run pytest there
    in a process group of its own, and read its JUnit report. Plugins are not auto-loaded (the handbook's own
    plugin would collect the wrong things); anyio's is loaded for async tests."""
    folder = Path(tempfile.mkdtemp(prefix="hb-tests-", dir=".")).resolve()
    for name, text in {**files, "test_block.py": source}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    report = folder / "report.xml"
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "anyio.pytest_plugin",
            f"--junitxml={report}", f"--basetemp={folder / 'tmp'}", "test_block.py"]
    environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1",
                   "PYTHONPATH": os.pathsep.join(p for p in (TOOLS_DIR, os.environ.get("PYTHONPATH", "")) if p),
                   **(env or {})}
    process = subprocess.Popen(argv, cwd=folder, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = process.communicate(timeout=PYTEST_SECONDS)
        timed_out = False
    except subprocess.TimeoutExpired:
        out, timed_out = b"", True
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the servers the tests started go with it
    except ProcessLookupError:
        pass
    process.wait()
    output = out.decode("utf-8", "replace")[-3000:]
    if timed_out:
        return PytestRun(0, [], [], output, timed_out=True)
    if not report.exists():
        raise RuntimeError(f"pytest wrote no report (exit {process.returncode}):\n{output}")
    passed, failed, errors = 0, [], []
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        name = case.get("name", "?")
        if case.find("error") is not None:
            errors.append(name)
        elif case.find("failure") is not None:
            failed.append(name)
        elif case.find("skipped") is None:
            passed += 1
    if errors or (process.returncode not in (0, 1)):
        raise RuntimeError(f"the tests could not run (exit {process.returncode}, errors in {errors}):\n{output}")
    return PytestRun(passed, failed, errors, output)


def _judge(good: PytestRun, bad: PytestRun, missed: str, bug: str) -> None:
    """A test file must pass against the good server and fail against the bad one."""
    if not good.green:
        raise Broken("fails_against_correct_server", f"{good.failures()}\n{good.output[-1200:]}")
    if bad.green:
        raise Broken(missed, f"every test passed against {bug}")


def _reference_server_command(extra: str = "") -> str:
    return f"[sys.executable, '-m', 'reference_server', '--test-tools'{extra}]"


# --- TEST-002: contract tests against the reference server ----------------------------------------------------

_CONTRACT_CONFTEST = '''
import json
import os
import queue
import subprocess
import sys
import threading
import time

import pytest

CANARY = "hb-canary-5e1f9a"
COMMAND = {command}


class Server:
    """The server over its real stdio: send() writes one message and returns the response with its id."""

    def __init__(self, workspace):
        env = {{"PATH": os.environ["PATH"], "PYTHONPATH": os.environ["PYTHONPATH"], "HOME": str(workspace),
                "HB_CANARY": CANARY}}
        self.process = subprocess.Popen([*COMMAND, "--workspace", str(workspace)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(x) for x in self.process.stdout], daemon=True).start()

    def send(self, message, timeout=5.0):
        self.process.stdin.write(json.dumps(message).encode() + b"\\n")
        self.process.stdin.flush()
        if "id" not in message:
            return None
        deadline = time.monotonic() + timeout
        while True:
            answer = json.loads(self.lines.get(timeout=max(0.01, deadline - time.monotonic())))
            if answer.get("id") == message["id"] and ("result" in answer or "error" in answer):
                return answer

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture
def canary():
    return CANARY


@pytest.fixture
def server(tmp_path):
    running = Server(tmp_path)
    running.send({{"jsonrpc": "2.0", "id": "hb-init", "method": "initialize",
                  "params": {{"protocolVersion": "2025-11-25", "capabilities": {{}},
                             "clientInfo": {{"name": "contract-tests", "version": "1.0.0"}}}}}})
    running.send({{"jsonrpc": "2.0", "method": "notifications/initialized"}})
    yield running
    running.close()
'''

_OLD_READING = '''
from reference_server.errors import ProtocolError


def invalid_arguments_result(tool, problems):
    raise ProtocolError(-32602, "Invalid params: " + "; ".join(problems))  # the 2025-06-18 reading
'''


@promise("contract_tests_hold",
         "run under pytest against the reference server: they pass; against it with invalid arguments answered "
         "-32602 (the 2025-06-18 reading), they fail",
         reasons={"fails_against_correct_server": "a test fails against a server that keeps the 2025-11-25 contract",
                  "misses_old_reading": "every test passes against a server that answers invalid arguments with -32602"},
         seconds=120)
def contract_tests_hold(block: ModuleType) -> None:
    source = block_source(block)
    good = run_pytest(source, {"conftest.py": _CONTRACT_CONFTEST.format(command=_reference_server_command())})
    seam = str(Path("old_reading.py").resolve())
    Path(seam).write_text(_OLD_READING, encoding="utf-8")
    bad_command = _reference_server_command(f", '--seam', 'invalid_arguments_result={seam}'")
    bad = run_pytest(source, {"conftest.py": _CONTRACT_CONFTEST.format(command=bad_command)})
    _judge(good, bad, "misses_old_reading", "a server that answers invalid arguments with -32602")


# --- TEST-004: a smoke test over the real process -------------------------------------------------------------

_SHIM = '''
import os
import runpy
import sys

{bug}sys.path.insert(0, {tools!r})
runpy.run_module("reference_server", run_name="__main__", alter_sys=True)
'''
_NEEDS_SHELL_VARIABLE = 'TOKEN = os.environ["NOTES_TOKEN"]  # set in the developer\'s shell, never by a host\n'

_SMOKE_CONFTEST = '''
import pytest

SHIM = {shim!r}


@pytest.fixture
def tmp_path(tmp_path_factory):
    """The workspace, holding the server under test as the package my_server (a host runs it from there)."""
    path = tmp_path_factory.mktemp("workspace")
    (path / "my_server").mkdir()
    (path / "my_server" / "__main__.py").write_text(SHIM)
    return path
'''


@promise("smoke_test_holds",
         "run under pytest against the reference server started as my_server (and server.py): it passes; against "
         "a server that starts only with a variable from the developer's shell, it fails",
         reasons={"fails_against_correct_server": "the smoke test fails (or hangs) against a correct server",
                  "misses_host_environment": "the smoke test passes against a server that cannot start in the "
                                             "environment a host gives it"},
         seconds=120)
def smoke_test_holds(block: ModuleType) -> None:
    source = block_source(block)
    runs = []
    for bug in ("", _NEEDS_SHELL_VARIABLE):
        shim = _SHIM.format(bug=bug, tools=TOOLS_DIR)
        runs.append(run_pytest(source, {"conftest.py": _SMOKE_CONFTEST.format(shim=shim), "server.py": shim},
                               env={"NOTES_TOKEN": "dev-token-from-my-shell"}))
    _judge(runs[0], runs[1], "misses_host_environment",
           "a server that reads NOTES_TOKEN, which only the developer's shell sets")


# --- TEST-008: two users, one server that scopes lookups and one that forgets to ------------------------------

_INVOICE_SERVER = '''
"""A tiny invoice server: JSON-RPC tools/list and tools/call over HTTP on 127.0.0.1, one bearer token per user.
With --leaky, get_invoice forgets to check whose invoice it reads (the other tools check)."""
import itertools
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LEAKY = "--leaky" in sys.argv
USERS = {"token-alice": "alice", "token-bob": "bob"}
INVOICES, JOBS, LOCK, NEXT = {}, {}, threading.Lock(), itertools.count(1)
ID = {"type": "string", "maxLength": 64}
TOOLS = [
    {"name": "create_invoice", "inputSchema": {"type": "object", "properties": {"total": {"type": "number"}}}},
    {"name": "get_invoice", "inputSchema": {"type": "object", "properties": {"invoice_id": ID}}},
    {"name": "download_invoice", "inputSchema": {"type": "object", "properties": {"invoice_id": ID}}},
    {"name": "start_export", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "cancel_job", "inputSchema": {"type": "object", "properties": {"job_id": ID}}},
]


def result(text, data=None, error=False):
    out = {"content": [{"type": "text", "text": text}], "isError": error}
    if data is not None:
        out["structuredContent"] = data
    return out


def invoice(user, invoice_id, scoped=True):
    found = INVOICES.get(invoice_id)
    return found if found and (found["owner"] == user or not scoped) else None


def call(user, name, args):
    with LOCK:
        if name == "create_invoice":
            number = f"inv-{next(NEXT)}"
            INVOICES[number] = {"owner": user, "id": number, "total": args["total"]}
            return result(f"created {number}", {"id": number, "total": args["total"]})
        if name in ("get_invoice", "download_invoice"):
            found = invoice(user, args["invoice_id"], scoped=not (LEAKY and name == "get_invoice"))
            if found is None:
                return result("Invoice not found. Action: list your invoices to get a valid id.", error=True)
            data = {"id": found["id"], "total": found["total"]}
            return result(json.dumps(data), data)
        if name == "start_export":
            job = f"job-{next(NEXT)}"
            JOBS[job] = user
            return result(f"export started: {job}", {"job_id": job})
        if name == "cancel_job":
            if JOBS.get(args["job_id"]) != user:
                return result("Job not found. Action: start an export first.", error=True)
            return result("cancelled", {"job_id": args["job_id"]})
    return None


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = USERS.get(self.headers.get("Authorization", "").removeprefix("Bearer "))
        if user is None:
            self.send_response(401)
            self.end_headers()
            return
        params = message.get("params") or {}
        if message["method"] == "tools/list":
            body = {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": TOOLS}}
        else:
            answer = call(user, params.get("name"), params.get("arguments") or {})
            body = ({"jsonrpc": "2.0", "id": message["id"], "result": answer} if answer is not None else
                    {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32602, "message": "Unknown tool"}})
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on {httpd.server_port}", flush=True)
httpd.serve_forever()
'''

_TWO_USER_CONFTEST = '''
import json
import subprocess
import sys
import urllib.request

import pytest

TOKENS = {{"alice": "token-alice", "bob": "token-bob"}}  # what a test issuer would hand each test user


class Client:
    def __init__(self, url, token):
        self.url, self.token, self.ids = url, token, 0

    def request(self, method, params=None):
        self.ids += 1
        body = json.dumps({{"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {{}}}}).encode()
        request = urllib.request.Request(self.url, data=body, headers={{
            "Content-Type": "application/json", "Authorization": f"Bearer {{self.token}}"}})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())["result"]

    def call(self, tool, arguments):
        return self.request("tools/call", {{"name": tool, "arguments": arguments}})


@pytest.fixture(scope="session")
def server_url():
    process = subprocess.Popen([sys.executable, "invoice_server.py", *{flags!r}], stdout=subprocess.PIPE, text=True)
    port = process.stdout.readline().split()[-1]
    yield f"http://127.0.0.1:{{port}}/mcp"
    process.kill()
    process.wait()


@pytest.fixture
def client_for(server_url):
    return lambda user: Client(server_url, TOKENS[user])


@pytest.fixture
def listed_tools(client_for):
    return client_for("alice").request("tools/list")["tools"]
'''


@promise("two_user_test_catches_leak",
         "run under pytest against a tiny invoice server over HTTP: it passes when every lookup is scoped to the "
         "caller, and fails when get_invoice lets bob read alice's invoice",
         reasons={"fails_against_correct_server": "the test fails against a server that scopes every lookup to its caller",
                  "misses_cross_user_read": "the test passes against a server where one user reads another's invoice"},
         seconds=120)
def two_user_test_catches_leak(block: ModuleType) -> None:
    source = block_source(block)
    good, bad = (run_pytest(source, {"invoice_server.py": _INVOICE_SERVER,
                                     "conftest.py": _TWO_USER_CONFTEST.format(flags=flags)})
                 for flags in ([], ["--leaky"]))
    _judge(good, bad, "misses_cross_user_read", "a server whose get_invoice does not check the caller")


# --- TEST-009: a fake upstream that stalls, and a server whose retry policy hammers it --------------------------

_WEATHER_FETCH = '''
"""The upstream client: one GET per attempt, each with a timeout; a timeout is retried (a GET is safe to repeat)."""
import os
import urllib.request

ATTEMPTS, TIMEOUT = {attempts}, {timeout}


def fetch_weather(city):
    url = os.environ["WEATHER_URL"] + "/forecast?city=" + city
    for attempt in range(ATTEMPTS):
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
                return response.read().decode()
        except TimeoutError:
            if attempt == ATTEMPTS - 1:
                raise
'''

_WEATHER_TOOLS = '''
from server import weather


def call_tool(name, arguments):
    try:
        return {"content": [{"type": "text", "text": weather.fetch_weather(arguments["city"])}], "isError": False}
    except (OSError, TimeoutError):
        return {"content": [{"type": "text", "text": "The weather service did not answer in time. Action: try "
                             "again in a minute; do not retry at once."}], "isError": True}
'''

_WEATHER_MAIN = '''
"""The server over stdio: initialize, tools/list, tools/call (get_weather), one JSON-RPC message per line."""
import json
import sys

from server.tools import call_tool

TOOL = {"name": "get_weather", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                                                "required": ["city"]}}
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "weather", "version": "1.0.0"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    else:
        result = call_tool(params["name"], params.get("arguments") or {})
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
'''

_WEATHER_CONFTEST = '''
import json
import os
import subprocess
import sys

import pytest


class Running:
    def __init__(self, env):
        self.process = subprocess.Popen([sys.executable, "-m", "server"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env={"PATH": os.environ["PATH"], **env})
        self.ids = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "tests", "version": "1.0.0"}})

    def request(self, method, params):
        self.ids += 1
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.ids, "method": method,
                                             "params": params}).encode() + b"\\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())["result"]

    def call_tool(self, name, arguments):
        return self.request("tools/call", {"name": name, "arguments": arguments})


@pytest.fixture
def start_server():
    started = []
    yield lambda env: started.append(Running(env)) or started[-1]
    for running in started:
        running.process.kill()
        running.process.wait()


@pytest.fixture
def call_tool():
    from server.tools import call_tool

    return call_tool
'''


@promise("outbound_test_catches_retry_storm",
         "run under pytest against a tiny weather server over stdio: it passes when the server gives a stalled "
         "upstream two attempts of a second each, and fails when it gives it five",
         reasons={"fails_against_correct_server": "the test fails against a server that gives up in time, after two attempts",
                  "misses_retry_storm": "the test passes against a server that sends five attempts to a stalled upstream"},
         seconds=150)
def outbound_test_catches_retry_storm(block: ModuleType) -> None:
    source = block_source(block)
    runs = []
    for attempts, timeout in ((2, 1.0), (5, 0.3)):
        runs.append(run_pytest(source, {
            "conftest.py": _WEATHER_CONFTEST, "server/__init__.py": "", "server/__main__.py": _WEATHER_MAIN,
            "server/tools.py": _WEATHER_TOOLS,
            "server/weather.py": _WEATHER_FETCH.format(attempts=attempts, timeout=timeout)}))
    _judge(runs[0], runs[1], "misses_retry_storm", "a server that tries a stalled upstream five times")
