"""Concurrency and process lifecycle: cancellation, logging, signals, EOF."""
from __future__ import annotations

import json

import signal
import time

import pytest
from conftest import text_of


def _slow_call(client, request_id, seconds=5.0, text="slow"):
    client.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                 "params": {"name": "slow_echo", "arguments": {"text": text, "seconds": seconds}}})


def test_reader_keeps_serving_during_a_slow_call(client):
    _slow_call(client, "slow", seconds=0.5)
    started = time.monotonic()
    assert client.request("ping")["result"] == {}
    assert time.monotonic() - started < 0.4
    assert text_of(client.response("slow")) == "slow"


def test_cancelled_call_gets_no_response(client):
    _slow_call(client, 7, seconds=5)
    time.sleep(0.1)
    client.notify("notifications/cancelled", {"requestId": 7, "reason": "user gave up"})
    assert client.request("ping", request_id=8)["id"] == 8
    client.expect_silence(0.5)
    started = time.monotonic()
    client.close_stdin()
    assert client.wait() == 0
    assert time.monotonic() - started < 2  # the cancelled call stopped; nothing to drain


def test_cancelling_another_type_of_id_does_nothing(client):
    _slow_call(client, 9, seconds=0.3)
    client.notify("notifications/cancelled", {"requestId": "9"})
    assert text_of(client.response(9)) == "slow"


def test_set_level_sends_redacted_notifications(client):
    assert client.request("logging/setLevel", {"level": "debug"})["result"] == {}
    client.call("append_note", {"title": "t", "text": "x", "password": "hunter2", "api_key": "sk-123"})
    messages = [n["params"] for n in client.notifications if n["method"] == "notifications/message"]
    assert messages, "no notifications/message after logging/setLevel debug"
    assert all(m["logger"] == "reference-server" and m["level"] in ("debug", "info") for m in messages)
    flattened = repr(messages)
    assert "<REDACTED>" in flattened and "hunter2" not in flattened and "sk-123" not in flattened
    assert client.request("logging/setLevel", {"level": "error"})["result"] == {}
    client.notifications.clear()
    client.call("read_file", {"path": "../outside.txt"})  # a warning: below "error", not sent
    assert not [n for n in client.notifications if n["method"] == "notifications/message"]
    client.close_stdin()
    client.wait()
    assert "hunter2" not in client.stderr


def test_set_level_rejects_unknown_levels(client):
    assert client.request("logging/setLevel", {"level": "verbose"})["error"]["code"] == -32602


def test_no_log_notifications_before_set_level(client):
    client.call("read_file", {"path": "../outside.txt"})
    client.request("ping")
    assert not client.notifications


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_during_slow_call_drains_then_exits(client, signum):
    _slow_call(client, "in-flight", seconds=1.0, text="finished")
    time.sleep(0.2)
    client.proc.send_signal(signum)
    assert text_of(client.response("in-flight", timeout=5)) == "finished"
    assert client.wait(timeout=5) == 0
    assert client.stderr.count('"event":"shutdown"') == 1
    assert "Traceback" not in client.stderr


def test_idle_sigterm_exits_promptly(client):
    client.request("ping")
    started = time.monotonic()
    client.proc.send_signal(signal.SIGTERM)
    assert client.wait(timeout=3) == 0
    assert time.monotonic() - started < 1.0
    assert client.stderr.count('"event":"shutdown"') == 1


def test_stdin_eof_exits_promptly(spawn):
    client = spawn(initialize=False)
    started = time.monotonic()
    client.close_stdin()
    assert client.wait(timeout=3) == 0
    assert time.monotonic() - started < 1.0
    assert client.stderr.count('"event":"shutdown"') == 1


def test_stdin_eof_lets_a_short_call_finish(client):
    _slow_call(client, "last", seconds=0.3, text="done")
    client.close_stdin()
    assert text_of(client.response("last")) == "done"
    assert client.wait() == 0


def test_client_log_notifications_carry_no_traceback_or_workspace(client) -> None:
    client.request("logging/setLevel", {"level": "debug"})
    client.call("fail_always", {})
    sent = json.dumps(client.notifications)
    assert client.notifications, "no notifications/message at debug level"
    assert "Traceback" not in sent and "traceback" not in sent and ".py" not in sent
