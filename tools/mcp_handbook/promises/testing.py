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

from pathlib import Path
from types import ModuleType

from ._pytest_runs import TOOLS_DIR, block_source, judge_runs, reference_server_command, run_pytest
from ._testing_servers import (INVOICE_SERVER, TWO_USER_CONFTEST, WEATHER_CONFTEST, WEATHER_FETCH, WEATHER_MAIN,
                               WEATHER_TOOLS)
from .registry import promise


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
    good = run_pytest(source, {"conftest.py": _CONTRACT_CONFTEST.format(command=reference_server_command())})
    seam = str(Path("old_reading.py").resolve())
    Path(seam).write_text(_OLD_READING, encoding="utf-8")
    bad_command = reference_server_command(f", '--seam', 'invalid_arguments_result={seam}'")
    bad = run_pytest(source, {"conftest.py": _CONTRACT_CONFTEST.format(command=bad_command)})
    judge_runs(good, bad, "misses_old_reading", "a server that answers invalid arguments with -32602")


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
    judge_runs(runs[0], runs[1], "misses_host_environment",
           "a server that reads NOTES_TOKEN, which only the developer's shell sets")


# --- TEST-008: two users, one server that scopes lookups and one that forgets to ------------------------------


@promise("two_user_test_catches_leak",
         "run under pytest against a tiny invoice server over HTTP: it passes when every lookup is scoped to the "
         "caller, and fails when get_invoice lets bob read alice's invoice",
         reasons={"fails_against_correct_server": "the test fails against a server that scopes every lookup to its caller",
                  "misses_cross_user_read": "the test passes against a server where one user reads another's invoice"},
         seconds=120)
def two_user_test_catches_leak(block: ModuleType) -> None:
    source = block_source(block)
    good, bad = (run_pytest(source, {"invoice_server.py": INVOICE_SERVER,
                                     "conftest.py": TWO_USER_CONFTEST.format(flags=flags)})
                 for flags in ([], ["--leaky"]))
    judge_runs(good, bad, "misses_cross_user_read", "a server whose get_invoice does not check the caller")


# --- TEST-009: a fake upstream that stalls, and a server whose retry policy hammers it --------------------------


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
            "conftest.py": WEATHER_CONFTEST, "server/__init__.py": "", "server/__main__.py": WEATHER_MAIN,
            "server/tools.py": WEATHER_TOOLS,
            "server/weather.py": WEATHER_FETCH.format(attempts=attempts, timeout=timeout)}))
    judge_runs(runs[0], runs[1], "misses_retry_storm", "a server that tries a stalled upstream five times")
