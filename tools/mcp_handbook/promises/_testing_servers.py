"""The small servers, and the conftests that start them, which the TEST-008 and TEST-009 checks write beside a
block: an invoice server for two users that scopes its lookups (and, with ``--leaky``, forgets to), and a weather
server whose upstream stalls, with a retry policy that waits or one that hammers it."""

from __future__ import annotations

INVOICE_SERVER = '''
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


TWO_USER_CONFTEST = '''
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


WEATHER_FETCH = '''
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


WEATHER_TOOLS = '''
from server import weather


def call_tool(name, arguments):
    try:
        return {"content": [{"type": "text", "text": weather.fetch_weather(arguments["city"])}], "isError": False}
    except (OSError, TimeoutError):
        return {"content": [{"type": "text", "text": "The weather service did not answer in time. Action: try "
                             "again in a minute; do not retry at once."}], "isError": True}
'''


WEATHER_MAIN = '''
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


WEATHER_CONFTEST = '''
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
