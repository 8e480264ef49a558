"""Streamable HTTP, spoken by hand (http.client): the DNS-rebinding defence, the loopback bind, sessions,
the 2026-07-28 headers and errors, JSON and SSE answers, and shutdown.

Every server is started on 127.0.0.1 port 0 by the ``http_server`` fixture and stopped by its PID.
"""
from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import HttpServer, minimal_env
from reference_server import seams

PV, CAPS = "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"
ENVELOPE = {PV: "2026-07-28", CAPS: {}}
ACCEPT = "application/json, text/event-stream"
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "pytest", "version": "0"}}


class Answer:
    """One HTTP response: status, headers, body; ``json`` is the body parsed, ``events`` its SSE messages."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = response.headers
        self.body = response.read()

    @property
    def json(self) -> Any:
        assert self.headers.get("Content-Type") == "application/json", (self.status, self.headers, self.body)
        return json.loads(self.body)

    @property
    def events(self) -> list[dict[str, Any]]:
        assert self.headers.get("Content-Type") == "text/event-stream", (self.status, self.headers, self.body)
        return [json.loads(line[len("data: "):]) for line in self.body.decode().splitlines() if line.startswith("data: ")]


def call(server, method: str = "POST", body: Any = None, *, headers: dict[str, str] | None = None,
         path: str = "/mcp", raw: bytes | None = None) -> Answer:
    """One request on a fresh connection; JSON bodies get the Content-Type and Accept a client must send."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        sent = {"Content-Type": "application/json", "Accept": ACCEPT, **(headers or {})}
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        connection.request(method, path, body=data, headers=sent)
        return Answer(connection.getresponse())
    finally:
        connection.close()


def modern(server, method: str, params: dict[str, Any] | None = None, *, headers: dict[str, str] | None = None,
           meta: dict[str, Any] | None = None, request_id: Any = 1) -> Answer:
    """A 2026-07-28 request with its envelope and the headers that mirror it."""
    mirrored = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if method == "tools/call":
        mirrored["Mcp-Name"] = (params or {}).get("name", "")
    body = {"jsonrpc": "2.0", "id": request_id, "method": method,
            "params": {**(params or {}), "_meta": {**ENVELOPE, **(meta or {})}}}
    return call(server, body=body, headers={**mirrored, **(headers or {})})


def open_session(server) -> str:
    answer = call(server, body={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    assert answer.status == 200 and answer.json["result"]["protocolVersion"] == "2025-11-25"
    session = answer.headers["Mcp-Session-Id"]
    assert call(server, body={"jsonrpc": "2.0", "method": "notifications/initialized"},
                headers={"Mcp-Session-Id": session}).status == 202
    return session


def legacy(server, session: str, method: str, params: dict[str, Any] | None = None, request_id: Any = 2) -> Answer:
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, **({"params": params} if params else {})}
    return call(server, body=body, headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the tests that only send requests (each opens its own sessions)."""
    workspace = tmp_path_factory.mktemp("ws")
    (workspace / "hello.txt").write_text("hello world\n")
    started = HttpServer("--test-tools", "--conformance-fixtures", workspace=workspace)
    yield started
    started.stop()


def _listening_addresses(port: int) -> set[str]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                found.add(local.rsplit(":", 1)[0])
    return found


def test_listens_on_loopback_only_and_says_where(server):
    assert server.url == f"http://127.0.0.1:{server.port}/mcp"
    assert _listening_addresses(server.port) == {"0100007F"}  # 127.0.0.1, and nothing else


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1.evil.example",
                                    "https://127.0.0.1:{port}", "http://localhost:1"])
def test_a_foreign_origin_is_forbidden(server, origin):
    answer = call(server, body={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
                  headers={"Origin": origin.format(port=server.port)})
    assert answer.status == 403
    assert answer.json["id"] is None and "Origin" in answer.json["error"]["message"]
    assert "Mcp-Session-Id" not in answer.headers


@pytest.mark.parametrize("origin", [None, "http://127.0.0.1:{port}", "http://localhost:{port}"])
def test_the_servers_own_origin_is_served(server, origin):
    headers = {"Origin": origin.format(port=server.port)} if origin else {}
    assert modern(server, "server/discover", headers=headers).status == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "localhost"])
def test_a_foreign_host_is_refused(server, host):
    answer = modern(server, "server/discover", headers={"Host": host.format(port=server.port)})
    assert answer.status == 421 and answer.json["error"]["message"].startswith("Misdirected Request")


def test_origin_is_checked_before_host(server):
    answer = call(server, body={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
                  headers={"Host": "evil.example", "Origin": "http://evil.example"})
    assert answer.status == 403  # the spec's MUST: a present, invalid Origin gets 403


def test_allow_host_and_allow_origin_extend_the_lists(http_server):
    server = http_server("--allow-host", "mcp.internal:8443", "--allow-origin", "https://App.Example/")
    answer = modern(server, "server/discover", headers={"Host": "mcp.internal:8443", "Origin": "https://app.example"})
    assert answer.status == 200


@pytest.mark.parametrize("address", ["0.0.0.0", "[::]", "192.0.2.10"])
def test_a_non_loopback_bind_is_refused_without_the_flag(tmp_path, address):
    result = subprocess.run([sys.executable, "-m", "reference_server", "--workspace", str(tmp_path),
                             "--http", f"{address}:0"], capture_output=True, text=True, env=minimal_env(), timeout=20)
    assert result.returncode == 2
    assert "not a loopback address" in result.stderr and "--allow-remote-bind" in result.stderr
    assert "listening on" not in result.stderr


def test_the_bind_address_seam():
    bind = seams.DEFAULTS["bind_address"]
    assert bind("localhost", False) == "127.0.0.1"
    assert bind("127.0.0.1", False) == "127.0.0.1" and bind("[::1]", False) == "::1"
    assert bind("0.0.0.0", True) == "0.0.0.0"  # only with --allow-remote-bind
    with pytest.raises(ValueError, match="not a loopback address"):
        bind("0.0.0.0", False)


def test_remote_flags_need_http(tmp_path):
    result = subprocess.run([sys.executable, "-m", "reference_server", "--workspace", str(tmp_path),
                             "--allow-remote-bind"], capture_output=True, text=True, env=minimal_env(), timeout=20)
    assert result.returncode == 2 and "need --http" in result.stderr


def test_session_ids_are_random_and_opaque(server):
    ids = [open_session(server) for _ in range(20)]
    assert len(set(ids)) == 20
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43}", i) for i in ids)  # 256 random bits, URL-safe Base64
    assert len({i[:6] for i in ids}) == 20 and len({i[-6:] for i in ids}) == 20  # no counter, no shared stem
    assert legacy(server, ids[3], "tools/list").status == 200


def test_an_unknown_or_ended_session_gets_404(server):
    session = open_session(server)
    assert legacy(server, session[:-1] + ("A" if session[-1] != "A" else "B"), "ping").status == 404
    assert call(server, "DELETE", headers={"Mcp-Session-Id": session}).status == 204
    ended = legacy(server, session, "ping")
    assert ended.status == 404 and ended.json["error"]["code"] == -32600
    assert call(server, "DELETE", headers={"Mcp-Session-Id": session}).status == 404
    no_session = call(server, body={"jsonrpc": "2.0", "id": 2, "method": "ping"},
                      headers={"MCP-Protocol-Version": "2025-11-25"})
    assert no_session.status == 400


def test_a_legacy_session_serves_the_handshake_era(server):
    session = open_session(server)
    assert legacy(server, session, "ping").json == {"jsonrpc": "2.0", "id": 2, "result": {}}
    listed = legacy(server, session, "tools/list").json["result"]
    assert "resultType" not in listed and "read_file" in [tool["name"] for tool in listed["tools"]]
    unsupported = call(server, body={"jsonrpc": "2.0", "id": 3, "method": "ping"},
                       headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": "1999-01-01"})
    assert unsupported.status == 400


def test_modern_answers_carry_result_type_and_cache_hints(server):
    discovered = modern(server, "server/discover")
    assert discovered.status == 200 and "Mcp-Session-Id" not in discovered.headers
    result = discovered.json["result"]
    assert result["resultType"] == "complete" and result["supportedVersions"] == ["2026-07-28"]
    listed = modern(server, "tools/list").json["result"]
    assert listed["resultType"] == "complete" and listed["ttlMs"] >= 0 and listed["cacheScope"] == "public"
    called = modern(server, "tools/call", {"name": "read_file", "arguments": {"path": "hello.txt"}}).json["result"]
    assert called["resultType"] == "complete" and called["content"][0]["text"].startswith("hello world")


@pytest.mark.parametrize("drop", [PV, CAPS])
def test_a_missing_envelope_field_is_400_invalid_params(server, drop):
    body = {"jsonrpc": "2.0", "id": 4, "method": "tools/list",
            "params": {"_meta": {k: v for k, v in ENVELOPE.items() if k != drop}}}
    answer = call(server, body=body, headers={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
    assert answer.status == 400
    assert answer.json["error"]["code"] == -32602 and drop in answer.json["error"]["message"]


def test_a_request_with_neither_era_is_told_both_ways(server):
    answer = call(server, body={"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
    assert answer.status == 400 and answer.json["error"]["code"] == -32602
    assert "initialize" in answer.json["error"]["message"] and PV in answer.json["error"]["message"]


def test_an_unsupported_version_is_400_with_the_supported_list(server):
    answer = modern(server, "tools/list", meta={PV: "1999-01-01"}, headers={"MCP-Protocol-Version": "1999-01-01"})
    assert answer.status == 400
    error = answer.json["error"]
    assert error["code"] == -32022 and error["data"]["requested"] == "1999-01-01"
    assert "2026-07-28" in error["data"]["supported"]


@pytest.mark.parametrize("headers", [
    {"MCP-Protocol-Version": "2025-11-25"},
    {"Mcp-Method": "tools/list"},
    {"Mcp-Name": "list_directory"},
    {"Mcp-Name": "=?base64?bm90IGJhc2U2NA?="},
    {"Mcp-Name": "=?base64?!!!?="},
])
def test_headers_that_disagree_with_the_body_are_400_header_mismatch(server, headers):
    answer = modern(server, "tools/call", {"name": "read_file", "arguments": {"path": "hello.txt"}}, headers=headers)
    assert answer.status == 400 and answer.json["error"]["code"] == -32020


@pytest.mark.parametrize("missing", ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"])
def test_a_missing_mirrored_header_is_400_header_mismatch(server, missing):
    body = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "hello.txt"}, "_meta": ENVELOPE}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "read_file"}
    del headers[missing]
    answer = call(server, body=body, headers=headers)
    assert answer.status == 400 and answer.json["error"]["code"] == -32020 and missing in answer.json["error"]["message"]


def test_a_base64_mcp_name_is_decoded_before_it_is_compared(server):
    answer = modern(server, "tools/call", {"name": "read_file", "arguments": {"path": "hello.txt"}},
                    headers={"Mcp-Name": "=?base64?cmVhZF9maWxl?="})
    assert answer.status == 200 and answer.json["result"]["resultType"] == "complete"


@pytest.mark.parametrize("method", ["ping", "logging/setLevel", "completion/complete"])
def test_an_unknown_or_removed_method_is_404_method_not_found(server, method):
    answer = modern(server, method)
    assert answer.status == 404 and answer.json["error"]["code"] == -32601


def test_notifications_come_first_on_an_sse_stream(server):
    answer = modern(server, "tools/call", {"name": "test_tool_with_progress", "arguments": {}},
                    meta={"progressToken": 9})
    assert answer.status == 200 and answer.headers["X-Accel-Buffering"] == "no"
    events = answer.events
    assert [e["params"]["progress"] for e in events[:-1]] == [0, 50, 100]
    assert events[-1]["id"] == 1 and events[-1]["result"]["resultType"] == "complete"


def test_a_legacy_session_gets_its_log_messages_on_the_requests_stream(server):
    session = open_session(server)
    assert legacy(server, session, "logging/setLevel", {"level": "info"}).json["result"] == {}
    events = legacy(server, session, "tools/call", {"name": "test_tool_with_logging", "arguments": {}}).events
    assert [e["method"] for e in events[:-1]] == ["notifications/message"] * 3
    assert events[-1]["result"]["content"][0]["text"] == "Tool with logging executed successfully"
    other = open_session(server)  # a level is one session's, never the whole server's
    assert legacy(server, other, "tools/call", {"name": "test_tool_with_logging", "arguments": {}}).json["id"] == 2


@pytest.mark.parametrize("method, headers, raw, status", [
    ("GET", {}, None, 405),
    ("PUT", {}, b"{}", 405),
    ("POST", {"Content-Type": "text/plain"}, b"{}", 415),
    ("POST", {"Accept": "application/json"}, b"{}", 406),
    ("POST", {}, b"{not json", 400),
    ("POST", {}, b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', 400),
    ("POST", {}, b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}', 202),
    ("POST", {}, b'{"jsonrpc": "2.0", "id": 1, "result": {}}', 202),
])
def test_http_level_answers(server, method, headers, raw, status):
    answer = call(server, method, headers=headers, raw=raw)
    assert answer.status == status, answer.body
    if status == 405:
        assert answer.headers["Allow"] == "POST, DELETE"


def test_only_the_endpoint_is_served(server):
    assert call(server, body={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
                path="/other").status == 404


def test_an_oversize_body_is_refused_unread(http_server):
    server = http_server("--max-frame-bytes", "1000")
    answer = call(server, raw=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "x" * 5000}).encode())
    assert answer.status == 413 and answer.json["error"]["code"] == -32600
    assert modern(server, "server/discover").status == 200


def test_many_requests_on_one_connection(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    started = time.monotonic()
    try:
        for request_id in range(50):
            body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": ENVELOPE}})
            connection.request("POST", "/mcp", body=body, headers={
                "Content-Type": "application/json", "Accept": ACCEPT, "MCP-Protocol-Version": "2026-07-28",
                "Mcp-Method": "tools/list"})
            response = connection.getresponse()
            assert json.loads(response.read())["id"] == request_id
    finally:
        connection.close()
    assert time.monotonic() - started < 1.5  # headers and body in one segment: no 40 ms delayed-ACK stall each


def test_expect_100_continue_is_answered_at_once(server):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": ENVELOPE}}).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\n"
            f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nExpect: 100-continue\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=1) as sock:
        sock.sendall(head)
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue")  # else curl waits a second before a large body
        sock.sendall(body)
        received = b""
        while b'"resultType":"complete"' not in received:
            chunk = sock.recv(65536)
            assert chunk, received
            received += chunk


def test_closing_the_stream_cancels_a_modern_call(server):
    body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "slow_echo", "arguments": {"text": "x", "seconds": 10}, "_meta": ENVELOPE}}).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\n"
            f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: slow_echo\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(head + body)
        time.sleep(0.3)
    assert server.wait_for_stderr('"event":"cancelled_call_dropped"', timeout=5)
    assert time.monotonic() - started < 3  # 2026-07-28: a closed stream MUST cancel the request, not run 10 s


def test_sigterm_stops_the_server_promptly(http_server):
    server = http_server()
    assert modern(server, "server/discover").status == 200
    started = time.monotonic()
    assert server.stop() == 0
    assert time.monotonic() - started < 3
    assert '"event":"shutdown"' in server.stderr and _listening_addresses(server.port) == set()


def test_a_legacy_only_server_refuses_the_modern_era(http_server):
    server = http_server("--legacy-only")
    answer = modern(server, "server/discover")
    assert answer.status == 400 and answer.json["error"]["code"] == -32600  # no session: send initialize
    session = open_session(server)
    discover = legacy(server, session, "server/discover")
    assert discover.json["error"]["code"] == -32601


def test_a_session_replays_a_repeated_request_and_2026_requests_are_never_replayed(http_server, workspace):
    server = http_server()
    session = open_session(server)
    note = {"name": "append_note", "arguments": {"title": "once", "text": "x"}}
    first, again = (legacy(server, session, "tools/call", note, request_id=9).json for _ in range(2))
    assert first == again  # the same id in one session: replayed, not applied twice (2025-11-25)
    assert (workspace / "notes.md").read_text().count("## once") == 1
    other = legacy(server, session, "tools/call", {**note, "arguments": {"title": "twice", "text": "y"}}, request_id=9)
    assert other.json["error"]["code"] == -32600
    for _ in range(2):  # 2026-07-28: ids are unique only while in flight, so each request runs
        assert modern(server, "tools/call", note, request_id=9).json["result"]["resultType"] == "complete"
    assert (workspace / "notes.md").read_text().count("## once") == 3


# -- the request reader: bad HTTP gets a clear status and a closed connection, never a hang -----------------
def _raw_exchange(server, data: bytes, *, timeout: float = 5.0) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it (bounded by ``timeout``)."""
    received = b""
    deadline = time.monotonic() + timeout
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as sock:
        sock.sendall(data)
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                return received
            received += chunk
    raise AssertionError(f"the server kept the connection open after {received[:300]!r}")


def _read_response(sock: socket.socket, pending: bytearray) -> tuple[int, dict[str, str], bytes]:
    """One response with a Content-Length body, read off ``sock``; bytes past it stay in ``pending``."""
    while b"\r\n\r\n" not in pending:
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed before a response; got {bytes(pending)!r}"
        pending += chunk
    head, _, _ = bytes(pending).partition(b"\r\n\r\n")
    del pending[:len(head) + 4]
    status_line, *field_lines = head.decode("latin-1").split("\r\n")
    fields = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in field_lines)}
    length = int(fields["content-length"])
    while len(pending) < length:
        chunk = sock.recv(65536)
        assert chunk, "the connection closed inside a response body"
        pending += chunk
    body = bytes(pending[:length])
    del pending[:length]
    return int(status_line.split(" ")[1]), fields, body


def _post_bytes(server, body: dict[str, Any], *, extra: str = "") -> bytes:
    """A 2026-07-28 POST written by hand, ``extra`` header lines added."""
    data = json.dumps(body).encode()
    return (f"POST /mcp HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\n"
            f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {body['method']}\r\n{extra}"
            f"Content-Length: {len(data)}\r\n\r\n").encode() + data


def _discover(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "server/discover", "params": {"_meta": ENVELOPE}}


def _status_and_error(response: bytes) -> tuple[int, str]:
    head, _, body = response.partition(b"\r\n\r\n")
    assert b"\r\nconnection: close\r\n" in head.lower() + b"\r\n", head  # the server says it closes
    return int(head.split(b" ")[1]), json.loads(body)["error"]["message"]


def test_an_oversized_header_line_is_431_and_the_connection_closes(server):
    status, message = _status_and_error(_raw_exchange(server, _post_bytes(
        server, _discover(1), extra=f"X-Padding: {'a' * 10_000}\r\n")))
    assert status == 431 and "X-Padding" in message and "8192" in message


def test_too_many_header_fields_is_431(server):
    extra = "".join(f"X-Field-{n}: {n}\r\n" for n in range(120))
    status, message = _status_and_error(_raw_exchange(server, _post_bytes(server, _discover(1), extra=extra)))
    assert status == 431 and "header fields" in message


def test_a_post_without_content_length_is_411(server):
    head = (f"POST /mcp HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\n"
            f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n\r\n").encode()
    status, message = _status_and_error(_raw_exchange(server, head))
    assert status == 411 and "Content-Length" in message


def test_a_chunked_body_is_501_and_the_connection_closes(server):
    data = json.dumps(_discover(1)).encode()
    request = (f"POST /mcp HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\n"
               f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nTransfer-Encoding: chunked\r\n\r\n"
               f"{len(data):x}\r\n").encode() + data + b"\r\n0\r\n\r\n"
    status, message = _status_and_error(_raw_exchange(server, request))
    assert status == 501 and "Transfer-Encoding" in message and "Content-Length" in message


@pytest.mark.parametrize("request_bytes, status", [
    (b"HELLO\r\n\r\n", 400),
    (b"GET /mcp\r\n\r\n", 400),
    (b"GET /mcp HTTP/1.1 extra\r\n\r\n", 400),
    (b"GET  /mcp HTTP/1.1\r\n\r\n", 400),
    (b"GET /mcp HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400),  # a TLS ClientHello: refused at once, no wait
    (b"GET /mcp HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n", 400),  # space before the colon (RFC 9112 section 5.1)
    (b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n folded\r\n\r\n", 400),
    (b"GET /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
    (b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400),
    (b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
    (b"GET /mcp HTTP/1.1\r\nHost: a\r\nX: a\x00b\r\n\r\n", 400),
    (b"GET /mcp HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", 417),
])
def test_a_malformed_request_gets_a_clear_status_and_no_traceback(server, request_bytes, status):
    got, message = _status_and_error(_raw_exchange(server, request_bytes, timeout=3))
    assert got == status and message.split(":")[0] in ("Bad Request", "HTTP Version Not Supported",
                                                       "Expectation Failed")
    assert "Traceback" not in server.stderr


def test_three_requests_on_one_keep_alive_connection(server):
    pending = bytearray()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(_post_bytes(server, _discover(1)))
        status, fields, body = _read_response(sock, pending)
        assert status == 200 and json.loads(body)["id"] == 1 and fields.get("connection") != "close"
        sock.sendall(_post_bytes(server, _discover(2)) + _post_bytes(server, _discover(3)))  # pipelined
        answers = [_read_response(sock, pending) for _ in range(2)]
        assert [json.loads(body)["id"] for _, _, body in answers] == [2, 3]
        assert all(status == 200 for status, _, _ in answers) and not pending


def test_a_slow_client_does_not_block_another_connection(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as slow:
        request = _post_bytes(server, _discover(7))
        slow.sendall(request[:40])  # half a head, then silence
        started = time.monotonic()
        answer = modern(server, "server/discover")  # another client, meanwhile
        assert answer.status == 200 and time.monotonic() - started < 2
        slow.sendall(request[40:])  # the slow client finishes and is served too
        status, _, body = _read_response(slow, bytearray())
        assert status == 200 and json.loads(body)["id"] == 7


def test_head_and_unknown_methods(server):
    assert call(server, "HEAD").status == 405
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        connection.request("BREW", "/mcp", headers={"Host": server.host})
        response = connection.getresponse()
        assert response.status == 501 and "BREW" in json.loads(response.read())["error"]["message"]
    finally:
        connection.close()


def _within(seconds: float, action):
    """What ``action()`` returns or raises, run on a daemon thread; fails the test if it takes longer than ``seconds``."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(("returned", action()))
        except Exception as exc:
            outcome.append(("raised", exc))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"still waiting after {seconds} s: the reader has no deadline"
    return outcome[0]


def test_a_stalled_head_is_408_and_an_idle_connection_is_let_go(monkeypatch):
    """The reader's deadlines, shortened: a head that stops coming is refused, an idle connection ends."""
    from reference_server import http_reader

    monkeypatch.setattr(http_reader, "WAIT_SECONDS", 0.05)
    monkeypatch.setattr(http_reader, "HEAD_SECONDS", 0.3)
    monkeypatch.setattr(http_reader, "IDLE_SECONDS", 0.3)
    client, served = socket.socketpair()
    with client, served:
        client.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1")  # and then nothing
        started = time.monotonic()
        kind, refused = _within(3, http_reader.RequestReader(served).read_head)
        assert kind == "raised" and refused.status == 408 and time.monotonic() - started > 0.25
        started = time.monotonic()
        assert _within(3, http_reader.RequestReader(served).read_head) == ("returned", None)  # let go quietly
        assert time.monotonic() - started > 0.25
