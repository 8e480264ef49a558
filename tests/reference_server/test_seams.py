"""The seam contract: loading snippets, the [seam-error] marker, and each default seam in isolation."""
from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
from conftest import minimal_env, text_of
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_server import HANDSHAKE_VERSIONS, seams
from reference_server.errors import ProtocolError
from reference_server.fastcheck import compile_schema
from reference_server.tool_defs import DEFINITIONS


def _snippet(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return path


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reference_server", "--workspace", str(tmp_path), *args],
                          input="", capture_output=True, text=True, env=minimal_env(), timeout=20)


@pytest.mark.parametrize("name, body, error", [
    ("dispatch", "def dispatch(:\n", "SyntaxError"),
    ("dispatch", "import no_such_module_xyz\n", "ModuleNotFoundError"),
    ("dispatch", "def other(message, handlers):\n    return None\n", "AttributeError"),
    ("dispatch", "dispatch = 42\n", "TypeError"),
    ("no_such_seam", "def no_such_seam():\n    pass\n", "LookupError"),
    ("tool", "TOOL = {'name': 'x'}\ndef handle(arguments, ctx):\n    return {}\n", "TypeError"),
    ("log", "raise SystemExit(5)\n", "SystemExit"),
])
def test_seam_load_failures_exit_3(tmp_path, name, body, error):
    path = _snippet(tmp_path, "snippet", body)
    result = _run(tmp_path, "--seam", f"{name}={path}")
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"reference_server: cannot load seam {name} from {path}:")
    assert error in lines[0]
    assert result.stdout == ""


@pytest.mark.parametrize("spec", ["dispatch", "dispatch=", "=x.py", "dispatch=/no/such/file.py"])
def test_bad_seam_specs_exit_3(tmp_path, spec):
    result = _run(tmp_path, "--seam", spec)
    assert result.returncode == 3
    assert result.stderr.startswith("reference_server: cannot load seam ")


def test_replacement_seam_is_used(spawn, tmp_path):
    path = _snippet(tmp_path, "neg", """
        def negotiate_version(requested, supported):
            return "2024-11-05"
    """)
    client = spawn("--seam", f"negotiate_version={path}", initialize=False)
    assert client.initialize()["result"]["protocolVersion"] == "2024-11-05"


def test_broken_dispatch_is_reported(spawn, tmp_path):
    path = _snippet(tmp_path, "bad", """
        def dispatch(message, handlers):
            return undefined_name
    """)
    client = spawn("--seam", f"dispatch={path}", initialize=False)
    response = client.request("ping")
    assert response["error"]["code"] == -32603
    client.close_stdin()
    client.wait()
    assert "[seam-error] dispatch NameError: name 'undefined_name' is not defined" in client.stderr


def test_bad_signature_is_reported_and_fails_closed(spawn, tmp_path, workspace):
    path = _snippet(tmp_path, "val", """
        def validate_arguments(tool):
            return []
    """)
    client = spawn("--seam", f"validate_arguments={path}")
    result = client.call("append_note", {"title": "t", "text": "x"})["result"]
    assert result["isError"] is True and not (workspace / "notes.md").exists()
    client.close_stdin()
    client.wait()
    assert "[seam-error] validate_arguments TypeError:" in client.stderr


def test_broken_resolve_path_seam_becomes_a_tool_error(spawn, tmp_path):
    path = _snippet(tmp_path, "res", """
        def resolve_path(workspace, user_path):
            raise ImportError("simulated")
    """)
    client = spawn("--seam", f"resolve_path={path}")
    assert client.call("read_file", {"path": "hello.txt"})["result"]["isError"] is True
    client.close_stdin()
    client.wait()
    assert "[seam-error] resolve_path ImportError: simulated" in client.stderr


def test_tool_snippet_is_added_and_uses_ctx(spawn, tmp_path):
    path = _snippet(tmp_path, "tool", """
        TOOL = {"name": "read_file", "title": "Shout a file", "description": "Replaces read_file in this test.",
                "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 99}},
                                "required": ["path"], "additionalProperties": False},
                "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                                "openWorldHint": False}}

        def handle(arguments, ctx):
            path = ctx.resolve_path(arguments["path"])
            code, out, err = ctx.run_subprocess(["head", "-n", "1", str(path)], timeout=5)
            ctx.log("info", "shouted", path=str(path))
            return {"content": [{"type": "text", "text": out.upper()}]}
    """)
    client = spawn("--seam", f"tool={path}")
    tools = client.request("tools/list")["result"]["tools"]
    assert [t["title"] for t in tools if t["name"] == "read_file"] == ["Shout a file"]
    assert text_of(client.call("read_file", {"path": "hello.txt"})) == "HELLO WORLD\n"
    assert client.call("read_file", {"path": "../outside.txt"})["result"]["isError"] is True


# -- default seams in isolation -------------------------------------------------------------------------

def _frames(data: bytes, cap: int) -> list[bytes | None]:
    return list(seams.DEFAULTS["read_frames"](io.BufferedReader(io.BytesIO(data), 64), cap))


def test_read_frames_basics():
    assert _frames(b"a\nbb\r\n\nccc", 10) == [b"a", b"bb", b"", b"ccc"]
    assert _frames(b"x" * 11 + b"\nok\n", 10) == [None, b"ok"]
    assert _frames(b"x" * 10 + b"\r\n", 10) == [b"x" * 10]
    assert _frames(b"x" * 500, 10) == [None]
    assert _frames(b"", 10) == []


class _CountingStream(io.RawIOBase):
    """An endless line that records the largest single read requested of it."""

    def __init__(self, total: int) -> None:
        self.left, self.largest = total, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        self.largest = max(self.largest, len(buffer))
        size = min(len(buffer), self.left)
        buffer[:size] = b"x" * size
        self.left -= size
        if self.left == 0 and size == 0:
            return 0
        return size


def test_read_frames_drains_without_holding_the_frame():
    stream = _CountingStream(50 * 1024 * 1024)
    assert list(seams.DEFAULTS["read_frames"](io.BufferedReader(stream, 8192), 1024)) == [None]
    assert stream.largest <= 64 * 1024


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b and not b.endswith(b"\r")), max_size=8),
       st.integers(min_value=1, max_value=30))
def test_read_frames_property(frames, cap):
    data = b"".join(f + b"\n" for f in frames)
    assert _frames(data, cap) == [f if len(f) <= cap else None for f in frames]


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                max_size=3), max_leaves=10))
def test_write_message_is_one_line(value):
    out = io.BytesIO()
    seams.DEFAULTS["write_message"](out, {"jsonrpc": "2.0", "id": 1, "result": {"v": value}})
    data = out.getvalue()
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert json.loads(data)["result"]["v"] == value


def test_dispatch_contract():
    dispatch = seams.DEFAULTS["dispatch"]

    def boom(_message):
        raise RuntimeError("secret detail")

    def protocol(_message):
        raise ProtocolError(-32602, "bad", {"field": "x"})

    handlers = {"ok": lambda m: {"echo": m["params"]}, "boom": boom, "protocol": protocol}
    assert dispatch({"jsonrpc": "2.0", "id": 1, "method": "ok", "params": 5}, handlers)["result"] == {"echo": 5}
    assert dispatch({"jsonrpc": "2.0", "method": "ok", "params": 5}, handlers) is None
    missing = dispatch({"jsonrpc": "2.0", "id": 2, "method": "nope"}, handlers)
    assert missing["error"]["code"] == -32601 and "nope" in missing["error"]["message"]
    assert dispatch({"jsonrpc": "2.0", "method": "nope"}, handlers) is None
    internal = dispatch({"jsonrpc": "2.0", "id": 3, "method": "boom"}, handlers)
    assert internal["error"]["code"] == -32603 and "secret" not in internal["error"]["message"]
    assert dispatch({"jsonrpc": "2.0", "method": "boom"}, handlers) is None
    assert dispatch({"jsonrpc": "2.0", "id": 4, "method": "protocol"}, handlers)["error"] == {
        "code": -32602, "message": "bad", "data": {"field": "x"}}
    assert dispatch({"jsonrpc": "2.0", "method": "protocol"}, handlers) is None


def test_small_seams():
    assert seams.DEFAULTS["error_response"](1, -32600, "m") == {"jsonrpc": "2.0", "id": 1,
                                                                "error": {"code": -32600, "message": "m"}}
    assert seams.DEFAULTS["negotiate_version"]("2025-03-26", HANDSHAKE_VERSIONS) == "2025-03-26"
    assert seams.DEFAULTS["negotiate_version"]("2030-01-01", HANDSHAKE_VERSIONS) == "2025-11-25"
    key = seams.DEFAULTS["request_key"]
    assert key("s", 1) != key("s", "1") and key("s", 1) == key("s", 1) and key("s", 1) != key("t", 1)
    hash(key("s", 1.5))


def test_validate_arguments_messages():
    validate = seams.DEFAULTS["validate_arguments"]
    tool = DEFINITIONS["append_note"]
    assert validate(tool, {"title": "t", "text": "x"}) == []
    problems = validate(tool, {"title": "a\nb", "text": "x" * 10001, "password": "hunter2"})
    joined = "\n".join(problems)
    assert "/title" in joined and "/text" in joined and "'password'" in joined
    assert "hunter2" not in joined and "xxxxxxxxxx" not in joined


_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-5, 2_000_000) | st.floats(allow_nan=False)
                       | st.text(max_size=12) | st.sampled_from(["ls", "wc", "-R", "a\nb", "", "x" * 300]),
                       lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                           st.sampled_from(["path", "max_bytes", "limit", "cursor", "query", "title", "text",
                                            "program", "args", "timeout_seconds", "other"]), inner, max_size=4),
                       max_leaves=12)


@pytest.mark.slow  # property tests over generated schemas
@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(DEFINITIONS)), _VALUES)
def test_fast_accept_is_sound(name, instance):
    schema = DEFINITIONS[name]["inputSchema"]
    predicate = compile_schema(schema)
    assert predicate is not None
    if predicate(instance):
        assert jsonschema.Draft202012Validator(schema).is_valid(instance)


_KEYS = ["path", "max_bytes", "limit", "query", "text", "other"]
_LEAF_SCHEMAS = st.one_of(
    st.builds(lambda t: {"type": t}, st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null"])),
    st.builds(lambda n: {"type": "string", "maxLength": n}, st.integers(0, 20)),
    st.builds(lambda n: {"minLength": n}, st.integers(0, 5)),
    st.builds(lambda lo, hi: {"type": "integer", "minimum": lo, "maximum": hi}, st.integers(-5, 5), st.integers(0, 2_000_000)),
    st.builds(lambda hi: {"maximum": hi}, st.floats(-10, 10, allow_nan=False)),
    st.builds(lambda e: {"enum": e}, st.lists(st.sampled_from(["ls", "wc", "", "a\nb"]), min_size=1, max_size=3)),
    st.just({"pattern": "^[a-z]+$"}), st.just({}), st.just({"description": "annotation only"}),
)
_SCHEMAS = st.recursive(
    _LEAF_SCHEMAS,
    lambda inner: st.builds(
        lambda props, required, closed, typed: {
            **({"type": "object"} if typed else {}), "properties": props,
            "required": sorted(set(required) & set(props)), "additionalProperties": closed},
        st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4), st.lists(st.sampled_from(_KEYS), max_size=3),
        st.booleans(), st.booleans())
    | st.builds(lambda item, n: {"type": "array", "items": item, "maxItems": n}, inner, st.integers(0, 4)),
    max_leaves=8)


@pytest.mark.slow  # property tests over generated schemas
@settings(max_examples=600, deadline=None)
@given(_SCHEMAS, _VALUES)
def test_fast_accept_is_sound_for_any_schema_it_compiles(schema, instance):
    predicate = compile_schema(schema)
    assert predicate is not None, schema  # every keyword drawn here is one it supports
    if predicate(instance):
        assert jsonschema.Draft202012Validator(schema).is_valid(instance), predicate.source


@pytest.mark.slow  # property tests over generated schemas
@settings(max_examples=300, deadline=None)
@given(_SCHEMAS, _VALUES)
def test_fast_accept_accepts_what_is_valid_for_these_keywords(schema, instance):
    """Not required for soundness, but the fast path is only fast if it says yes to valid input."""
    if jsonschema.Draft202012Validator(schema).is_valid(instance):
        assert compile_schema(schema)(instance), compile_schema(schema).source


@pytest.mark.parametrize("schema, at_bound, past_bound", [
    ({"type": "string", "maxLength": 3}, "abc", "abcd"),
    ({"type": "string", "minLength": 2}, "ab", "a"),
    ({"type": "array", "maxItems": 1}, [1], [1, 2]),
    ({"type": "array", "minItems": 2}, [1, 2], [1]),
    ({"type": "integer", "maximum": 5}, 5, 6),
    ({"type": "number", "minimum": 0.5}, 0.5, 0.25),
    ({"type": "integer"}, 3.0, 3.5),
    ({"type": "object", "required": ["a"], "additionalProperties": False, "properties": {"a": {}}}, {"a": 1}, {"a": 1, "b": 2}),
])
def test_fast_accept_bounds_are_inclusive_like_json_schema(schema, at_bound, past_bound):
    predicate = compile_schema(schema)
    assert predicate(at_bound) and not predicate(past_bound), predicate.source


def test_fast_accept_declines_unknown_keywords():
    assert compile_schema({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}}) is None
    assert compile_schema({"type": ["string", "null"]}) is None
    assert compile_schema({"anyOf": [{"type": "string"}]}) is None
