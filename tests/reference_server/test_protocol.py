"""JSON-RPC and lifecycle behaviour on the wire (MCP 2025-11-25, basic/ and basic/lifecycle)."""
from __future__ import annotations

import base64
import json
import time

import pytest
from conftest import INIT_PARAMS


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_echoes_supported_versions(spawn, version):
    client = spawn(initialize=False)
    result = client.initialize(version)["result"]
    assert result["protocolVersion"] == version
    assert result["capabilities"] == {"tools": {"listChanged": False}, "logging": {}, "resources": {"listChanged": False},
                                      "prompts": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "reference-server"
    assert result["serverInfo"]["version"] and result["serverInfo"]["title"]
    assert result["instructions"]


@pytest.mark.parametrize("requested", ["1999-01-01", "2026-07-28", None, 42])
def test_initialize_offers_latest_for_unsupported(spawn, requested):
    client = spawn(initialize=False)
    response = client.request("initialize", {**INIT_PARAMS, "protocolVersion": requested})
    assert response["result"]["protocolVersion"] == "2025-11-25"


def test_ping_with_meta(shared_client):
    response = shared_client.request("ping", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25",
                                                 "progressToken": "p"}}, request_id="abc")
    assert response == {"jsonrpc": "2.0", "id": "abc", "result": {}}
    assert shared_client.request("ping")["result"] == {}


def test_legacy_only_server_refuses_server_discover_at_once(spawn):
    client = spawn("--legacy-only", initialize=False)
    started = time.monotonic()
    response = client.request("server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                                             "io.modelcontextprotocol/clientCapabilities": {}}})
    assert time.monotonic() - started < 1.0
    assert response["error"]["code"] == -32601
    assert client.initialize()["result"]["protocolVersion"] == "2025-11-25"


def test_tools_list_pagination_is_deterministic(spawn):
    client = spawn("--test-tools", "--page-size", "2")
    names, cursor, pages = [], None, 0
    while True:
        params = {"cursor": cursor} if cursor else {}
        result = client.request("tools/list", params)["result"]
        names += [tool["name"] for tool in result["tools"]]
        pages += 1
        cursor = result.get("nextCursor")
        if not cursor:
            break
        assert pages < 20
    assert names == sorted(names) and len(names) == len(set(names)) == 7
    assert pages == 4
    again = client.request("tools/list", {"_meta": {}})["result"]
    assert [t["name"] for t in again["tools"]] == names[:2]


@pytest.mark.parametrize("cursor", ["garbage!", "", 17, base64.urlsafe_b64encode(b"deadbeef:2").decode(),
                                    base64.urlsafe_b64encode(b"x").decode()])
def test_tools_list_invalid_cursor(shared_spawn, cursor):
    client = shared_spawn("--page-size", "2")
    response = client.request("tools/list", {"cursor": cursor})
    assert response["error"]["code"] == -32602
    assert "cursor" in response["error"]["message"]


def test_cursor_from_another_instance_is_rejected(spawn):
    first, second = spawn("--page-size", "2"), spawn("--page-size", "2")
    cursor = first.request("tools/list")["result"]["nextCursor"]
    assert second.request("tools/list", {"cursor": cursor})["error"]["code"] == -32602


def test_malformed_json_is_parse_error(shared_client):
    for junk in (b"{not json", b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', b"\xff\xfe", b"NaN"):
        shared_client.send_raw(junk + b"\n")
        response = shared_client.recv()
        assert response["id"] is None and response["error"]["code"] == -32700
    assert shared_client.request("ping")["result"] == {}


@pytest.mark.parametrize("message, echoed", [
    ([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], None),
    ([], None),
    ("just a string", None),
    ({"id": 5, "method": "ping"}, 5),
    ({"jsonrpc": "1.0", "id": "x", "method": "ping"}, "x"),
    ({"jsonrpc": "2.0", "id": 6, "method": 12}, 6),
    ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": 7}, 7),
    ({"jsonrpc": "2.0", "method": 3}, None),
])
def test_invalid_requests(shared_client, message, echoed):
    shared_client.send(message)
    response = shared_client.recv()
    assert response["error"]["code"] == -32600
    assert response["id"] == echoed


def test_params_must_be_an_object(shared_client):
    shared_client.send({"jsonrpc": "2.0", "id": 9, "method": "ping", "params": [1, 2]})
    assert shared_client.recv()["error"]["code"] == -32602


def test_unknown_method_names_it(shared_client):
    response = shared_client.request("completion/complete")
    assert response["error"]["code"] == -32601
    assert "completion/complete" in response["error"]["message"]


def test_notifications_and_client_responses_get_no_reply(client):
    client.notify("notifications/initialized")
    client.notify("notifications/unknown", {"x": 1})
    client.notify("ping")
    client.notify("tools/call", {"name": "append_note", "arguments": {"title": "t", "text": "x"}})
    client.send({"jsonrpc": "2.0", "id": 99, "result": {}})
    client.send({"jsonrpc": "2.0", "id": 98, "error": {"code": 1, "message": "x"}})
    client.expect_silence(0.3)
    assert client.request("ping")["result"] == {}


def test_request_sent_as_notification_is_not_executed(client, workspace):
    client.notify("tools/call", {"name": "append_note", "arguments": {"title": "t", "text": "x"}})
    client.request("ping")
    assert not (workspace / "notes.md").exists()


def test_oversize_frame_then_keeps_serving(spawn):
    client = spawn("--max-frame-bytes", "1000")
    big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * 50_000}}).encode()
    client.send_raw(big + b"\n")
    response = client.recv()
    assert response["id"] is None and response["error"]["code"] == -32600
    assert client.request("ping", request_id=2)["result"] == {}


def test_frame_exactly_at_cap_is_accepted(spawn):
    message = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": ""}}
    size = len(json.dumps(message, separators=(",", ":")))
    message["params"]["pad"] = "x" * (300 - size)
    client = spawn("--max-frame-bytes", "300")
    client.send_raw(json.dumps(message, separators=(",", ":")).encode() + b"\r\n")
    assert client.recv()["result"] == {}


def test_blank_lines_and_crlf(shared_client):
    shared_client.send_raw(b"\n\r\n   \n" + b'{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n')
    assert shared_client.recv()["id"] == "crlf"


def test_final_fragment_at_eof_is_answered(spawn):
    client = spawn(initialize=False)
    client.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    client.close_stdin()
    assert client.recv()["result"] == {}
    assert client.wait() == 0


def test_stdout_carries_only_json_rpc(client):
    client.call("fail_always", {})
    client.call("read_file", {"path": "../outside.txt"})
    client.call("run_command", {"program": "ls"})
    client.request("ping")
    client.close_stdin()
    assert client.wait() == 0
    assert client.stdout
    for message in client.stdout:
        assert message.line.terminated and "\n" not in message.line.text  # one message, one newline-terminated line
        assert json.loads(message.line.text)["jsonrpc"] == "2.0"


def test_each_request_answered_once(shared_client):
    ids = list(range(1, 21))
    for request_id in ids:
        shared_client.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
    seen = [shared_client.recv()["id"] for _ in ids]
    assert seen == ids
    shared_client.expect_silence(0.2)


def test_an_id_that_overflows_a_double_is_answered_as_invalid(spawn) -> None:
    client = spawn()
    client.send_raw(b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n')
    answer = client.recv()
    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert client.request("ping")["result"] == {}


def test_set_level_with_a_non_string_level_is_invalid_params(spawn) -> None:
    client = spawn()
    answer = client.request("logging/setLevel", {"level": ["x"]})
    assert answer["error"]["code"] == -32602
