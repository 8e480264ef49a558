"""The 2026-07-28 era over stdio: discovery, the per-request envelope and its errors, resultType, cache hints,
what the revision removed, and the handshake era still served by the same process.

Each test would fail against a handshake-only server, which answers server/discover with -32601 and
ignores the envelope.
"""
from __future__ import annotations

import pytest
from conftest import text_of

PV, CAPS, LOG = ("io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities",
                 "io.modelcontextprotocol/logLevel")
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
ENVELOPE = {PV: "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "0"}, CAPS: {}}


def modern(client, method, params=None, *, meta=None, drop=(), request_id=None):
    """Send ``method`` with the 2026-07-28 envelope (``meta`` merged in, ``drop`` keys left out); return the answer."""
    envelope = {key: value for key, value in {**ENVELOPE, **(meta or {})}.items() if key not in drop}
    return client.request(method, {**(params or {}), "_meta": envelope}, request_id=request_id)


@pytest.fixture
def server(spawn):
    """A server nobody has sent initialize: every request below stands on its own envelope."""
    return spawn("--test-tools", "--conformance-fixtures", initialize=False)


@pytest.fixture
def shared_server(shared_spawn):
    """The same, one per module, for tests that only read answers (``shared_spawn`` says what they may not do)."""
    return shared_spawn("--test-tools", "--conformance-fixtures", initialize=False)


def test_discover_describes_the_server(shared_server):
    result = modern(shared_server, "server/discover")["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"] == ["2026-07-28"]
    assert result["capabilities"] == {"tools": {"listChanged": False}, "logging": {}, "resources": {"listChanged": False},
                                      "prompts": {"listChanged": False}}
    assert result["instructions"]
    assert isinstance(result["ttlMs"], int) and result["ttlMs"] >= 0
    assert result["cacheScope"] == "public"
    identity = result["_meta"][SERVER_INFO]
    assert identity["name"] == "reference-server" and identity["version"]


def test_every_result_says_what_it_is(server):
    answers = [
        modern(server, "server/discover"),
        modern(server, "tools/list"),
        modern(server, "tools/call", {"name": "read_file", "arguments": {"path": "hello.txt"}}),
        modern(server, "tools/call", {"name": "read_file", "arguments": {"path": 3}}),  # an isError result
        modern(server, "tools/call", {"name": "fail_always", "arguments": {}}),
        modern(server, "tools/call", {"name": "slow_echo", "arguments": {"text": "w", "seconds": 0}}),  # a worker
    ]
    for answer in answers:
        assert answer["result"]["resultType"] == "complete", answer
        assert answer["result"]["_meta"][SERVER_INFO]["name"] == "reference-server"
    assert answers[3]["result"]["isError"] is True and "/path" in text_of(answers[3])
    unknown = modern(server, "tools/call", {"name": "nope"})
    assert "result" not in unknown and unknown["error"]["code"] == -32602


def test_tools_list_carries_cache_hints_in_a_stable_order(spawn):
    client = spawn("--test-tools", "--page-size", "3", initialize=False)
    names, pages, cursor = [], [], None
    while len(pages) < 10:
        result = modern(client, "tools/list", {"cursor": cursor} if cursor else {})["result"]
        pages.append(result)
        names += [tool["name"] for tool in result["tools"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert names == sorted(names) and len(names) == 7 and len(pages) == 3
    assert all(page["ttlMs"] == pages[0]["ttlMs"] >= 0 and page["cacheScope"] == "public" for page in pages)
    assert modern(client, "tools/list")["result"]["tools"] == pages[0]["tools"]


@pytest.mark.parametrize("drop, missing", [((PV,), PV), ((CAPS,), CAPS)])
def test_a_missing_envelope_field_is_invalid_params(shared_server, drop, missing):
    error = modern(shared_server, "tools/list", drop=drop)["error"]
    assert error["code"] == -32602 and missing in error["message"]


def test_server_discover_without_the_envelope_is_invalid_params(shared_server):
    error = shared_server.request("server/discover")["error"]
    assert error["code"] == -32602 and PV in error["message"] and "initialize" in error["message"]


@pytest.mark.parametrize("version", ["1999-01-01", "2027-01-01", "draft"])
def test_an_unsupported_version_names_what_is_supported(shared_server, version):
    error = modern(shared_server, "tools/list", meta={PV: version})["error"]
    assert error["code"] == -32022
    assert error["data"]["requested"] == version
    assert error["data"]["supported"][0] == "2026-07-28" and "2025-11-25" in error["data"]["supported"]


@pytest.mark.parametrize("meta", [{PV: 20260728}, {CAPS: None}, {CAPS: []}, {LOG: "verbose"}])
def test_malformed_envelope_values_are_invalid_params(shared_server, meta):
    assert modern(shared_server, "tools/list", meta=meta)["error"]["code"] == -32602


@pytest.mark.parametrize("method", ["ping", "logging/setLevel"])
def test_removed_methods_are_not_found_in_the_modern_era_only(server, method):
    error = modern(server, method, {"level": "debug"} if method == "logging/setLevel" else None)["error"]
    assert error["code"] == -32601 and "removed in 2026-07-28" in error["message"]
    legacy = server.request(method, {"level": "debug"} if method == "logging/setLevel" else None)
    assert legacy["result"] == {}  # the same process still serves the handshake era


def test_both_eras_on_one_process(server):
    handshake = server.request("initialize", {"protocolVersion": "2026-07-28", "capabilities": {},
                                              "clientInfo": {"name": "pytest", "version": "0"}, "_meta": ENVELOPE})
    assert handshake["result"]["protocolVersion"] == "2025-11-25"  # initialize is the handshake, envelope or not
    server.notify("notifications/initialized")
    legacy = server.request("tools/list")["result"]
    assert "resultType" not in legacy and "ttlMs" not in legacy  # 2025-11-25 results keep their own shape
    current = modern(server, "tools/list")["result"]
    assert current["tools"] == legacy["tools"] and current["resultType"] == "complete"
    # a version key naming a handshake revision is served by that revision's rules
    assert server.request("ping", {"_meta": {PV: "2025-11-25"}})["result"] == {}


def _log_messages(client):
    found = [n for n in client.notifications if n["method"] == "notifications/message"]
    client.notifications.clear()
    return found


def test_log_messages_go_only_to_requests_that_ask(server):
    call = {"name": "test_tool_with_logging", "arguments": {}}
    assert "result" in modern(server, "tools/call", call)
    assert _log_messages(server) == []  # 2026-07-28 logging: MUST NOT without logLevel in _meta
    assert "result" in modern(server, "tools/call", call, meta={LOG: "info"})
    messages = _log_messages(server)
    assert [m["params"]["data"]["event"] for m in messages] == [
        "Tool execution started", "Tool processing data", "Tool execution completed"]
    assert "result" in modern(server, "tools/call", call, meta={LOG: "error"})
    assert _log_messages(server) == []  # info is below error
    assert "result" in modern(server, "tools/call", call)
    assert _log_messages(server) == []  # the level was this request's, not the process's


def test_progress_is_reported_in_the_modern_era(server):
    answer = modern(server, "tools/call", {"name": "test_tool_with_progress", "arguments": {}},
                    meta={"progressToken": "p7"})
    assert answer["result"]["resultType"] == "complete"
    progress = [n["params"] for n in server.notifications if n["method"] == "notifications/progress"]
    assert [(p["progressToken"], p["progress"]) for p in progress] == [("p7", 0), ("p7", 50), ("p7", 100)]


def test_modern_ids_may_be_reused_once_answered(server, workspace):
    first = modern(server, "tools/call", {"name": "append_note", "arguments": {"title": "one", "text": "a"}},
                   request_id=5)
    second = modern(server, "tools/call", {"name": "append_note", "arguments": {"title": "two", "text": "b"}},
                    request_id=5)
    assert not first["result"].get("isError") and not second["result"].get("isError")
    notes = (workspace / "notes.md").read_text()
    assert "## one" in notes and "## two" in notes  # 2026-07-28 basic: ids are unique only while in flight


def test_a_modern_call_on_a_worker_is_answered_in_its_era_unless_cancelled(server):
    for request_id, seconds in ((6, 0.3), (7, 5)):
        server.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
            "name": "slow_echo", "arguments": {"text": f"call {request_id}", "seconds": seconds}, "_meta": ENVELOPE}})
    server.notify("notifications/cancelled", {"requestId": 7})
    answer = server.response(6)
    assert text_of(answer) == "call 6" and answer["result"]["resultType"] == "complete"
    server.expect_silence(0.5)  # the cancelled call never answers
