"""Progress and cancellation of a call in flight: ``count_steps`` (``--progress-tool``) and seams 25 and 26."""
from __future__ import annotations

import textwrap
import time

from reference_server import inflight, seams


def _call_with_token(client, request_id, token, **arguments):
    client.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                 "params": {"name": "count_steps", "arguments": arguments, "_meta": {"progressToken": token}}})


def _progress(client):
    return [n["params"] for n in client.notifications if n.get("method") == "notifications/progress"]


def test_the_progress_tool_is_offered_only_when_asked(spawn):
    plain = spawn("--test-tools")
    names = {t["name"] for t in plain.request("tools/list")["result"]["tools"]}
    assert "count_steps" not in names
    opted = spawn("--progress-tool")
    names = {t["name"] for t in opted.request("tools/list")["result"]["tools"]}
    assert "count_steps" in names


def test_each_step_is_reported_with_the_callers_token_unchanged_before_the_answer(spawn):
    client = spawn("--progress-tool")
    for request_id, token in ((1, 7301), (2, "7301")):  # an integer stays an integer, a string a string
        client.notifications.clear()
        _call_with_token(client, request_id, token, steps=3, step_seconds=0)
        answer = client.response(request_id)
        assert answer["result"]["content"][0]["text"] == "counted 3 steps"
        reports = _progress(client)
        assert [r["progress"] for r in reports] == [1, 2, 3]
        assert all(type(r["progressToken"]) is type(token) and r["progressToken"] == token for r in reports)
        assert reports[-1] == {"progressToken": token, "progress": 3, "total": 3, "message": "step 3 of 3"}
    client.expect_silence(0.2)  # nothing after the answers


def test_a_call_without_a_token_gets_no_progress(spawn):
    client = spawn("--progress-tool")
    answer = client.call("count_steps", {"steps": 3, "step_seconds": 0})
    assert answer["result"]["content"][0]["text"] == "counted 3 steps"
    assert _progress(client) == []


def test_a_cancelled_call_stops_reporting_and_gets_no_answer(spawn):
    client = spawn("--progress-tool")
    _call_with_token(client, 5, "t", steps=20, step_seconds=0.1)
    first = client.recv()
    assert first["method"] == "notifications/progress" and first["params"]["progress"] == 1
    client.notify("notifications/cancelled", {"requestId": 5, "reason": "user gave up"})
    started = time.monotonic()
    assert client.request("ping")["result"] == {}
    client.expect_silence(0.5)  # no further progress and no response for id 5
    client.settle(1.0)
    assert '"event":"cancelled_call_dropped"' in client.stderr
    assert time.monotonic() - started < 2  # 20 steps would take 2 s: it stopped


def test_a_replaced_answer_seam_decides_what_a_cancelled_call_gets(spawn, tmp_path):
    path = tmp_path / "answer.py"
    path.write_text(textwrap.dedent("""
        def answer_cancelled_call(request_id, result):
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32800, "message": "Request cancelled"}}
    """))
    client = spawn("--progress-tool", "--seam", f"answer_cancelled_call={path}")
    _call_with_token(client, 6, 1, steps=20, step_seconds=0.1)
    assert client.recv()["method"] == "notifications/progress"
    client.notify("notifications/cancelled", {"requestId": 6})
    answer = client.response(6)
    assert answer["error"]["code"] == -32800


def test_a_replaced_progress_seam_builds_each_notification(spawn, tmp_path):
    path = tmp_path / "progress.py"
    path.write_text(textwrap.dedent("""
        def progress_notification(token, progress, total=None, message=None):
            if progress == 2:
                return None  # skip a step
            return {"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": progress * 10}}
    """))
    client = spawn("--progress-tool", "--seam", f"progress_notification={path}")
    _call_with_token(client, 7, "p", steps=3, step_seconds=0)
    client.response(7)
    assert _progress(client) == [{"progressToken": "p", "progress": 10}, {"progressToken": "p", "progress": 30}]


def test_a_broken_progress_seam_fails_the_call_not_the_server(spawn, tmp_path):
    path = tmp_path / "progress.py"
    path.write_text("def progress_notification(token, progress, total=None, message=None):\n    return 1 / 0\n")
    client = spawn("--progress-tool", "--seam", f"progress_notification={path}")
    _call_with_token(client, 8, "p", steps=2, step_seconds=0)
    answer = client.response(8)
    assert answer["result"]["isError"] is True
    assert "[seam-error] progress_notification ZeroDivisionError" in client.stderr
    assert client.request("ping")["result"] == {}


def test_default_seams_in_isolation():
    assert seams.DEFAULTS["progress_notification"] is inflight.progress_notification
    assert inflight.progress_notification(3, 1) == {"jsonrpc": "2.0", "method": "notifications/progress",
                                                    "params": {"progressToken": 3, "progress": 1}}
    assert inflight.progress_notification("a", 0.5, 1.0, "half")["params"] == {
        "progressToken": "a", "progress": 0.5, "total": 1.0, "message": "half"}
    assert inflight.answer_cancelled_call(4, {"content": []}) is None
