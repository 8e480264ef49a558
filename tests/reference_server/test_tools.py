"""Tool calls: happy paths, SEP-1303 error results, de-duplication, and definition quality."""
from __future__ import annotations

import json
import re

import jsonschema
import pytest
from conftest import text_of


def test_read_file(shared_client):
    response = shared_client.call("read_file", {"path": "hello.txt"})
    assert text_of(response) == "hello world\nsecond line\n"
    assert "isError" not in response["result"]
    truncated = text_of(shared_client.call("read_file", {"path": "hello.txt", "max_bytes": 5}))
    assert truncated.startswith("hello\n[truncated after 5 bytes")


def test_read_file_errors_are_actionable(shared_client):
    missing = shared_client.call("read_file", {"path": "nope.txt"})["result"]
    assert missing["isError"] is True and "Action:" in missing["content"][0]["text"]
    directory = shared_client.call("read_file", {"path": "docs"})["result"]
    assert directory["isError"] is True and "list_directory" in directory["content"][0]["text"]


def test_list_directory_pages_with_cursor(client, workspace):
    for index in range(5):
        (workspace / f"f{index}.txt").write_text("x")
    listed, arguments = [], {"limit": 3}
    for _page in range(5):
        text = text_of(client.call("list_directory", arguments))
        listed += text.splitlines()[1:]
        found = re.search(r"cursor='([^']+)'", text)
        if not found:
            break
        arguments = {"limit": 3, "cursor": found.group(1)}
    assert listed == ["docs/", "f0.txt", "f1.txt", "f2.txt", "f3.txt", "f4.txt", "hello.txt"]
    bad = client.call("list_directory", {"cursor": "bm9wZQ"})["result"]
    assert bad["isError"] is True and "cursor" in bad["content"][0]["text"]


def test_search_files_structured_content_matches_output_schema(shared_client):
    tools = {t["name"]: t for t in shared_client.request("tools/list")["result"]["tools"]}
    result = shared_client.call("search_files", {"query": "TODO"})["result"]
    jsonschema.Draft202012Validator(tools["search_files"]["outputSchema"]).validate(result["structuredContent"])
    assert result["structuredContent"]["matches"] == [{"path": "docs/guide.md", "line": 2, "text": "TODO: write more"}]
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_search_files_does_not_follow_symlinks_out(client, workspace):
    (workspace / "link.txt").symlink_to(workspace.parent / "outside.txt")
    (workspace / "linkdir").symlink_to(workspace.parent / "ws-evil")
    result = client.call("search_files", {"query": "TOP SECRET"})["result"]
    assert result["structuredContent"]["matches"] == []


def test_append_note(client, workspace):
    response = client.call("append_note", {"title": "First", "text": "Body text"})
    assert "Appended" in text_of(response)
    notes = (workspace / "notes.md").read_text()
    assert notes.startswith("## First\n") and "Body text" in notes


def test_run_command_wc(shared_client):
    response = shared_client.call("run_command", {"program": "wc", "args": ["-l", "hello.txt"]})
    assert "exit code 0" in text_of(response) and "2 hello.txt" in text_of(response)


@pytest.mark.parametrize("arguments", [
    {"program": "cat", "args": ["hello.txt"]},
    {"program": "head", "args": ["/etc/passwd"]},
    {"program": "head", "args": ["../outside.txt"]},
    {"program": "grep", "args": ["-r", "--file=/etc/passwd"]},
    {"program": "grep", "args": ["-R", "x"]},
])
def test_run_command_refuses(shared_client, arguments):
    result = shared_client.call("run_command", arguments)["result"]
    assert result["isError"] is True
    assert "SECRET" not in result["content"][0]["text"] and "root:" not in result["content"][0]["text"]


def test_invalid_arguments_are_tool_errors_naming_the_field(shared_client):
    result = shared_client.call("read_file", {"max_bytes": "big", "colour": "red"})["result"]
    text = result["content"][0]["text"]
    assert result["isError"] is True
    assert "/path" in text and "required" in text
    assert "/max_bytes" in text and "integer" in text
    assert "'colour'" in text and "remove" in text
    assert "Action:" in text
    nested = shared_client.call("run_command", {"program": "ls", "args": ["a", 5]})["result"]
    assert "/args/1" in nested["content"][0]["text"]
    enum = shared_client.call("run_command", {"program": "rm"})["result"]
    assert "'ls'" in enum["content"][0]["text"]


def test_unknown_tool_and_bad_params_are_protocol_errors(shared_client):
    unknown = shared_client.call("no_such_tool", {})
    assert unknown["error"]["code"] == -32602 and "no_such_tool" in unknown["error"]["message"]
    missing_name = shared_client.request("tools/call", {"arguments": {}})
    assert missing_name["error"]["code"] == -32602
    numeric_name = shared_client.request("tools/call", {"name": 5})
    assert numeric_name["error"]["code"] == -32602
    bad_arguments = shared_client.request("tools/call", {"name": "read_file", "arguments": [1]})
    assert bad_arguments["error"]["code"] == -32602


def test_failure_is_safe_and_referenced(spawn, workspace):
    client = spawn("--test-tools", env=None)
    result = client.call("fail_always", {})["result"]
    text = result["content"][0]["text"]
    assert result["isError"] is True
    assert "Action:" in text and "deliberate" not in text and "Traceback" not in text
    assert str(workspace) not in text and "/" not in text
    reference = re.search(r"reference ([0-9a-f]{8})", text).group(1)
    client.close_stdin()
    client.wait()
    assert reference in client.stderr and "Traceback" in client.stderr


def test_repeated_request_id_is_not_applied_twice(client, workspace):
    arguments = {"title": "Once", "text": "only once"}
    first = client.call("append_note", arguments, request_id=42)
    second = client.call("append_note", arguments, request_id=42)
    assert first["result"] == second["result"]
    assert (workspace / "notes.md").read_text().count("## Once") == 1
    client.call("append_note", arguments, request_id="42")  # a string id is a different request
    assert (workspace / "notes.md").read_text().count("## Once") == 2
    reused = client.call("append_note", {"title": "Other", "text": "x"}, request_id=42)
    assert reused["error"]["code"] == -32600


def test_idempotent_tools_are_not_cached(client, workspace):
    client.call("read_file", {"path": "hello.txt"}, request_id=7)
    (workspace / "hello.txt").write_text("changed\n")
    assert text_of(client.call("read_file", {"path": "hello.txt"}, request_id=7)) == "changed\n"


def _walk_properties(schema):
    for name, prop in schema.get("properties", {}).items():
        yield name, prop
        if prop.get("type") == "object":
            yield from _walk_properties(prop)


def test_tool_definitions_follow_the_handbook(spawn):
    client = spawn("--test-tools", "--conformance-fixtures")
    tools = client.request("tools/list")["result"]["tools"]
    for tool in tools:
        name = tool["name"]
        assert re.fullmatch(r"[a-z][a-z0-9_]{0,63}", name), name
        assert tool["title"] and len(tool["description"]) > 40, name
        schema = tool["inputSchema"]
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False, name
        annotations = tool["annotations"]
        for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
            assert isinstance(annotations[hint], bool), (name, hint)
        if name.startswith("test_") or name == "json_schema_2020_12_tool":
            continue
        assert set(schema.get("required", [])) <= set(schema["properties"]) if schema.get("properties") else True
        for prop_name, prop in _walk_properties(schema):
            assert prop.get("description"), (name, prop_name)
            if prop.get("type") == "string" and "enum" not in prop:
                assert "maxLength" in prop, (name, prop_name)
            if prop.get("type") in ("integer", "number"):
                assert "minimum" in prop and "maximum" in prop, (name, prop_name)
            if prop.get("type") == "array":
                assert "maxItems" in prop and "maxLength" in prop["items"], (name, prop_name)
    by_name = {t["name"]: t for t in tools}
    note = by_name["append_note"]["annotations"]
    assert (note["readOnlyHint"], note["destructiveHint"], note["idempotentHint"], note["openWorldHint"]) == (
        False, False, False, False)
    assert by_name["run_command"]["annotations"]["readOnlyHint"] is True
    assert "outputSchema" in by_name["search_files"]


def test_conformance_fixtures(spawn):
    client = spawn("--conformance-fixtures")
    assert text_of(client.call("test_simple_text")) == "This is a simple text response for testing."
    image = client.call("test_image_content", {})["result"]["content"][0]
    assert image["type"] == "image" and image["mimeType"] == "image/png" and image["data"]
    audio = client.call("test_audio_content", {})["result"]["content"][0]
    assert audio["mimeType"] == "audio/wav"
    kinds = [c["type"] for c in client.call("test_multiple_content_types", {})["result"]["content"]]
    assert kinds == ["text", "image", "resource"]
    assert client.call("test_error_handling", {})["result"]["isError"] is True
    client.request("logging/setLevel", {"level": "debug"})
    client.call("test_tool_with_logging", {})
    logged = [n["params"]["data"]["event"] for n in client.notifications if n["method"] == "notifications/message"]
    assert {"Tool execution started", "Tool processing data", "Tool execution completed"} <= set(logged)
    client.request("tools/call", {"name": "test_tool_with_progress", "arguments": {},
                                  "_meta": {"progressToken": "tok"}})
    progress = [n["params"] for n in client.notifications if n["method"] == "notifications/progress"]
    assert [p["progress"] for p in progress] == [0, 50, 100]
    assert all(p["progressToken"] == "tok" and p["total"] == 100 for p in progress)
    schema = {t["name"]: t for t in client.request("tools/list")["result"]["tools"]}["json_schema_2020_12_tool"]
    assert schema["inputSchema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "address" in schema["inputSchema"]["$defs"]


def test_a_fifo_in_the_workspace_never_freezes_the_server(spawn, workspace) -> None:
    import os

    os.mkfifo(workspace / "pipe")
    client = spawn()
    answer = client.call("read_file", {"path": "pipe"}, timeout=3)
    assert answer["result"]["isError"] is True and "not a regular file" in text_of(answer)
    found = client.call("search_files", {"query": "hello"}, timeout=3)
    assert "hello.txt" in text_of(found)
    assert client.request("ping", timeout=3)["result"] == {}
