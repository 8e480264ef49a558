"""Resources and prompts over the raw pipe, in both eras: listing and paging, reading text and binary, the
workspace template, URIs that must be refused, the not-found error of each revision, and prompt arguments.

Every test here fails against the tools-only server this replaced (resources/* and prompts/* were -32601).
"""
from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
from test_modern_era import modern

from reference_server import prompts, resources, seams
from reference_server.errors import ProtocolError

BINARY = bytes(range(256)) + b"\x00\xff\xfe"


@pytest.fixture
def server(spawn, workspace: Path):
    (workspace / "pixel.png").write_bytes(BINARY)
    os.symlink(workspace.parent / "ws-evil", workspace / "link_out")
    return spawn("--page-size", "2")


def _all_pages(client, method: str, field: str) -> list[dict]:
    items, cursor = [], None
    for _ in range(20):
        result = client.request(method, {"cursor": cursor} if cursor else {})["result"]
        items += result[field]
        cursor = result.get("nextCursor")
        if not cursor:
            return items
    raise AssertionError("more than 20 pages")


def test_resources_are_listed_in_pages_sorted_by_uri(server):
    listed = _all_pages(server, "resources/list", "resources")
    uris = [entry["uri"] for entry in listed]
    assert uris == ["file:///docs/guide.md", "file:///hello.txt", "file:///pixel.png"]  # link_out is not listed
    assert listed[1] == {"uri": "file:///hello.txt", "name": "hello.txt", "size": 24, "mimeType": "text/plain"}
    first = server.request("resources/list")["result"]
    assert len(first["resources"]) == 2 and first["nextCursor"]
    foreign = server.request("resources/list", {"cursor": "bm9wZTo0"})
    assert foreign["error"]["code"] == -32602


def test_a_tools_list_cursor_is_not_a_resources_list_cursor(spawn):
    client = spawn("--page-size", "2", "--test-tools")
    cursor = client.request("tools/list")["result"]["nextCursor"]
    assert client.request("resources/list", {"cursor": cursor})["error"]["code"] == -32602


def test_text_and_binary_contents(server):
    text = server.request("resources/read", {"uri": "file:///hello.txt"})["result"]["contents"]
    assert text == [{"uri": "file:///hello.txt", "mimeType": "text/plain", "text": "hello world\nsecond line\n"}]
    blob = server.request("resources/read", {"uri": "file:///pixel.png"})["result"]["contents"][0]
    assert blob["mimeType"] == "image/png" and "text" not in blob
    assert base64.b64decode(blob["blob"], validate=True) == BINARY
    encoded = server.request("resources/read", {"uri": "file:///docs%2Fguide.md"})["result"]["contents"][0]
    assert encoded["text"].startswith("# Guide")


def test_the_workspace_template(server):
    templates = server.request("resources/templates/list")["result"]["resourceTemplates"]
    assert templates[0]["uriTemplate"] == "file:///{path}" and templates[0]["name"] and templates[0]["description"]


@pytest.mark.parametrize("uri", [
    "file:///../ws-evil/secret.txt",
    "file:///%2e%2e/ws-evil/secret.txt",
    "file:///..%2Fws-evil%2Fsecret.txt",
    "file:///link_out/secret.txt",
    "file:///../outside.txt",
    "file://evil.example/hello.txt",
    "http://127.0.0.1/hello.txt",
    "hb-unserved:///hello.txt",
    "file:///hello.txt%00.png",
    "file:///hello.txt?x=1",
    "file:///%ff%fe",
])
def test_uris_outside_the_workspace_or_of_other_schemes_are_refused(server, uri):
    answer = server.request("resources/read", {"uri": uri})
    assert answer["error"]["code"] == -32602, answer
    assert answer["error"]["data"] == {"uri": uri}
    assert "SECRET" not in str(answer)


def test_not_found_is_minus_32002_in_the_handshake_era_and_minus_32602_in_2026_07_28(server, workspace):
    (workspace / "a_folder").mkdir()
    for uri in ("file:///missing.txt", "file:///a_folder"):
        legacy = server.request("resources/read", {"uri": uri})["error"]
        assert legacy == {"code": -32002, "message": "Resource not found", "data": {"uri": uri}}
        current = modern(server, "resources/read", {"uri": uri})["error"]
        assert current == {"code": -32602, "message": "Resource not found", "data": {"uri": uri}}


def test_a_fifo_is_not_read_and_does_not_block(server, workspace):
    os.mkfifo(workspace / "pipe")
    answer = server.request("resources/read", {"uri": "file:///pipe"}, timeout=3)
    assert answer["error"]["code"] == -32002
    assert server.request("ping")["result"] == {}


def test_read_needs_a_uri(server):
    assert server.request("resources/read", {})["error"]["code"] == -32602
    assert server.request("resources/read", {"uri": 7})["error"]["code"] == -32602


def test_subscriptions_are_not_offered(server):
    capabilities = server.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                 "clientInfo": {"name": "t", "version": "0"}})["result"]["capabilities"]
    assert capabilities["resources"] == {"listChanged": False}
    assert server.request("resources/subscribe", {"uri": "file:///hello.txt"})["error"]["code"] == -32601


def test_modern_results_carry_cache_hints(server):
    listed = modern(server, "resources/list")["result"]
    assert listed["resultType"] == "complete" and listed["ttlMs"] == 0 and listed["cacheScope"] == "private"
    read = modern(server, "resources/read", {"uri": "file:///hello.txt"})["result"]
    assert read["contents"][0]["text"].startswith("hello") and read["cacheScope"] == "private"
    assert modern(server, "resources/templates/list")["result"]["cacheScope"] == "public"
    assert modern(server, "prompts/list")["result"]["ttlMs"] > 0
    got = modern(server, "prompts/get", {"name": "find_in_workspace", "arguments": {"query": "TODO"}})["result"]
    assert got["resultType"] == "complete" and "ttlMs" not in got


def test_prompts_are_listed_and_rendered(server):
    listed = _all_pages(server, "prompts/list", "prompts")
    assert [p["name"] for p in listed] == ["find_in_workspace", "review_file"]
    review = next(p for p in listed if p["name"] == "review_file")
    assert [(a["name"], a["required"]) for a in review["arguments"]] == [("path", True), ("focus", False)]
    got = server.request("prompts/get", {"name": "review_file",
                                         "arguments": {"path": "hello.txt", "focus": "naming"}})["result"]
    assert "naming" in got["messages"][0]["content"]["text"]
    assert got["messages"][1]["content"] == {"type": "resource", "resource": {
        "uri": "file:///hello.txt", "mimeType": "text/plain", "text": "hello world\nsecond line\n"}}


@pytest.mark.parametrize("arguments, problem", [
    (None, "missing required argument(s) 'path'"),
    ({}, "missing required argument(s) 'path'"),
    ({"focus": "x"}, "missing required argument(s) 'path'"),
    ({"path": 3}, "'path' must be a string"),
    ({"path": "hello.txt", "colour": "red"}, "'colour' is not an argument"),
    ("hello.txt", "params.arguments must be an object"),
])
def test_prompt_arguments_are_checked_before_rendering(server, arguments, problem):
    params = {"name": "review_file"} if arguments is None else {"name": "review_file", "arguments": arguments}
    error = server.request("prompts/get", params)["error"]
    assert error["code"] == -32602 and problem in error["message"], error


def test_prompt_paths_are_contained_and_unknown_prompts_refused(server):
    escape = server.request("prompts/get", {"name": "review_file", "arguments": {"path": "../ws-evil/secret.txt"}})
    assert escape["error"]["code"] == -32602 and "SECRET" not in str(escape)
    missing = server.request("prompts/get", {"name": "review_file", "arguments": {"path": "nope.txt"}})
    assert missing["error"]["code"] == -32602 and "Resource not found" in missing["error"]["message"]
    assert server.request("prompts/get", {"name": "nope"})["error"]["code"] == -32602
    assert server.request("prompts/get", {})["error"]["code"] == -32602


def test_conformance_fixtures(spawn):
    client = spawn("--conformance-fixtures")
    uris = {entry["uri"] for entry in _all_pages(client, "resources/list", "resources")}
    assert {"test://static-text", "test://static-binary"} <= uris
    static = client.request("resources/read", {"uri": "test://static-binary"})["result"]["contents"][0]
    assert static["mimeType"] == "image/png" and base64.b64decode(static["blob"]).startswith(b"\x89PNG")
    data = client.request("resources/read", {"uri": "test://template/123/data"})["result"]["contents"][0]
    assert data["mimeType"] == "application/json" and '"id":"123"' in data["text"]
    assert client.request("resources/read", {"uri": "test://nothing"})["error"]["code"] == -32602
    got = client.request("prompts/get", {"name": "test_prompt_with_arguments",
                                         "arguments": {"arg1": "hello", "arg2": "world"}})["result"]
    assert got["messages"][0]["content"]["text"] == "Prompt with arguments: arg1='hello', arg2='world'"


# -- the seams on their own ------------------------------------------------------------------------------------

def test_resolve_resource_in_isolation(workspace):
    root = workspace.resolve()
    assert seams.DEFAULTS["resolve_resource"]("file:///docs/guide.md", root) == root / "docs" / "guide.md"
    assert seams.DEFAULTS["resolve_resource"]("file://localhost/hello.txt", root) == root / "hello.txt"
    for uri in ("file:///../ws-evil", "ftp:///hello.txt", 5, "file:///a%00b"):
        with pytest.raises(PermissionError):
            seams.DEFAULTS["resolve_resource"](uri, root)


def test_resource_contents_in_isolation():
    text = resources.resource_contents("u", b"caf\xc3\xa9", None)
    assert text == {"uri": "u", "mimeType": "text/plain", "text": "café"}
    assert resources.resource_contents("u", b"\xff", "text/plain")["blob"] == "/w=="
    assert resources.resource_contents("u", b"a\x00b", None)["mimeType"] == "application/octet-stream"
    assert resources.resource_contents("u", b"{}", "application/json")["text"] == "{}"


def test_prompt_arguments_in_isolation():
    prompt = {"name": "p", "arguments": [{"name": "a", "required": True}, {"name": "b"}]}
    assert prompts.prompt_arguments(prompt, {"a": "x"}) == {"a": "x"}
    with pytest.raises(ProtocolError) as caught:
        prompts.prompt_arguments(prompt, {"b": 1, "c": "x"})
    assert caught.value.code == -32602
    for part in ("'b' must be a string", "'c' is not an argument", "missing required argument(s) 'a'"):
        assert part in caught.value.message


# -- over Streamable HTTP ----------------------------------------------------------------------------------------

def test_over_http_a_2026_07_28_read_mirrors_the_uri_in_mcp_name(http_server):
    from test_http import legacy, modern as modern_http, open_session

    server = http_server()
    read = modern_http(server, "resources/read", {"uri": "file:///hello.txt"}, headers={"Mcp-Name": "file:///hello.txt"})
    assert read.status == 200 and read.json["result"]["contents"][0]["text"].startswith("hello world")
    unmirrored = modern_http(server, "resources/read", {"uri": "file:///hello.txt"})
    assert unmirrored.status == 400 and unmirrored.json["error"]["code"] == -32020
    missing = modern_http(server, "resources/read", {"uri": "file:///nope.txt"}, headers={"Mcp-Name": "file:///nope.txt"})
    assert missing.status == 400 and missing.json["error"]["code"] == -32602
    session = open_session(server)
    in_session = legacy(server, session, "resources/read", {"uri": "file:///nope.txt"})
    assert in_session.status == 200 and in_session.json["error"]["code"] == -32002
    got = modern_http(server, "prompts/get", {"name": "review_file", "arguments": {"path": "hello.txt"}},
                      headers={"Mcp-Name": "review_file"})
    assert got.status == 200 and got.json["result"]["messages"][1]["content"]["resource"]["uri"] == "file:///hello.txt"


def test_list_resource_files_in_isolation(workspace):
    root = workspace.resolve()
    os.symlink(root.parent / "ws-evil", root / "link_out")
    os.symlink(root / "hello.txt", root / "hello_link.txt")
    os.mkfifo(root / "pipe")
    sizes = [(name, (root / name).stat().st_size) for name in ("docs/guide.md", "hello.txt")]
    assert seams.DEFAULTS["list_resource_files"](root) == sizes  # no link, no FIFO
