"""Robustness over the real pipe: fuzzed frames, a 64 MiB line, and what never happens.

Every property is checked against one long-lived server per test (bounded
examples, no deadline), so a fault that only shows after many messages shows
here too. After each example a sentinel ping proves the server still serves.
"""

from __future__ import annotations

import pytest

import json
import string
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import RawClient

from mcp_handbook.wire import Message

pytestmark = pytest.mark.slow  # fuzzing the server over its pipe

FUZZ = settings(max_examples=150, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

json_scalars = st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=30)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
methods = st.sampled_from(["initialize", "ping", "tools/list", "tools/call", "logging/setLevel", "server/discover",
                           "notifications/initialized", "notifications/cancelled", "resources/list", "resources/read", "prompts/get", "no/such"]) \
    | st.text(max_size=20)
ids = st.integers(-1000, 10**6) | st.text(string.ascii_letters + string.digits, min_size=1, max_size=8)
params = st.none() | json_values | st.fixed_dictionaries({}, optional={
    "name": st.sampled_from(["read_file", "list_directory", "search_files", "append_note", "run_command", "review_file",
                             "nope"])
    | st.text(max_size=10),
    "arguments": json_values,
    "uri": st.sampled_from(["file:///hello.txt", "file:///../outside.txt", "file:///%2e%2e/x", "test://x"]) | json_values,
    "cursor": json_values,
    "_meta": json_values,
})


@st.composite
def messages(draw: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0"])), "method": draw(methods)}
    if draw(st.booleans()):
        message["id"] = draw(ids)
    p = draw(params)
    if p is not None:
        message["params"] = p
    return message


def is_jsonrpc(message: Message) -> bool:
    value = message.value
    return isinstance(value, dict) and value.get("jsonrpc") == "2.0" and (
        "method" in value or ("id" in value and ("result" in value) != ("error" in value)))


def drain_until(client: RawClient, sentinel: str, timeout: float = 10.0) -> list[dict[str, Any]]:
    """Every message up to and including the response to ``sentinel``."""
    seen, deadline = [], time.monotonic() + timeout
    while True:
        message = client.recv(max(deadline - time.monotonic(), 0.01))
        seen.append(message)
        if message.get("id") == sentinel:
            return seen


def test_fuzzed_json_rpc_messages_get_exactly_one_answer_each(workspace: Path) -> None:
    client = RawClient("--test-tools", workspace=workspace)
    counter = iter(range(10**9))
    try:
        client.initialize()

        @FUZZ
        @given(batch=st.lists(messages(), min_size=1, max_size=4))
        def check(batch: list[dict[str, Any]]) -> None:
            sentinel = f"sentinel-{next(counter)}"
            tagged = []
            for message in batch:  # ids must be unique in a session: make them so
                if "id" in message and message.get("method") != "initialize":
                    message["id"] = f"{sentinel}-{len(tagged)}" if isinstance(message["id"], str) else \
                        next(counter) + 10**7
                    tagged.append(message["id"])
                client.send(message)
            client.send({"jsonrpc": "2.0", "id": sentinel, "method": "ping"})
            seen = drain_until(client, sentinel)
            answered = [m["id"] for m in seen if "id" in m and "method" not in m]
            for rid in tagged:
                assert answered.count(rid) <= 1, f"id {rid!r} answered twice: {seen}"
            assert seen[-1] == {"jsonrpc": "2.0", "id": sentinel, "result": {}}
            # a slow tool (slow_echo, up to 10 s) answers after the sentinel: wait for stragglers
            deadline = time.monotonic() + 12
            while any(rid not in answered for rid in tagged) and time.monotonic() < deadline:
                message = client.recv(max(deadline - time.monotonic(), 0.01))
                if "id" in message and "method" not in message:
                    answered.append(message["id"])
            for rid in tagged:
                assert answered.count(rid) == 1, f"id {rid!r} answered {answered.count(rid)} times: {batch}"

        check()
        assert client.proc.poll() is None, client.stderr
    finally:
        client.stop()
    assert all(is_jsonrpc(m) for m in client.stdout)


def test_fuzzed_raw_bytes_never_break_the_server(workspace: Path) -> None:
    client = RawClient(workspace=workspace)
    counter = iter(range(10**9))
    try:
        client.initialize()

        @FUZZ
        @given(blob=st.binary(max_size=300))
        def check(blob: bytes) -> None:
            sentinel = f"sentinel-{next(counter)}"
            client.send_raw(blob.replace(b"\n", b" ") + b"\n")
            client.send({"jsonrpc": "2.0", "id": sentinel, "method": "ping"})
            seen = drain_until(client, sentinel)
            assert seen[-1]["result"] == {}
            try:  # a blob can happen to be a valid request: its own answer is no fault
                own = json.loads(blob.replace(b"\n", b" ")).get("id")
            except (ValueError, AttributeError, UnicodeDecodeError):
                own = None
            for message in seen[:-1]:
                assert message.get("id") in (None, own) or "method" in message or "error" in message, message

        check()
        assert client.proc.poll() is None, client.stderr
    finally:
        client.stop()
    assert all(is_jsonrpc(m) for m in client.stdout)


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _hwm_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_64_mib_line_is_refused_without_growing_memory(workspace: Path) -> None:
    client = RawClient(workspace=workspace)
    try:
        client.initialize()
        client.request("tools/list")  # warm up every code path before the baseline
        before = _hwm_kib(client.proc.pid)
        chunk = b"x" * (1024 * 1024)
        client.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"')
        for _ in range(64):
            client.send_raw(chunk)
        client.send_raw(b'"}}\n')
        refused = client.recv(timeout=30)
        assert refused["id"] is None and refused["error"]["code"] == -32600
        assert client.request("ping") ["result"] == {}
        grown_kib = _hwm_kib(client.proc.pid) - before
        assert grown_kib < 16 * 1024, f"peak memory grew by {grown_kib} KiB for a 64 MiB line"
        print(f"peak RSS growth for a 64 MiB line: {grown_kib} KiB (RSS now {_rss_kib(client.proc.pid)} KiB)")
    finally:
        client.stop()
