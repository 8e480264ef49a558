"""The module-shared server that read-only tests use: one process per arguments, and no test ever reads
what an earlier one left on the pipe."""
from __future__ import annotations


def test_the_shared_server_is_one_process_per_arguments(shared_spawn) -> None:
    first = shared_spawn("--test-tools")
    assert shared_spawn("--test-tools") is first
    assert shared_spawn("--test-tools", "--page-size", "2") is not first


def test_what_a_test_left_unread_is_skipped(shared_spawn) -> None:
    server = shared_spawn("--test-tools")
    server.send({"jsonrpc": "2.0", "id": "left-behind", "method": "ping"})
    server.notifications.append({"jsonrpc": "2.0", "method": "notifications/left-behind"})
    again = shared_spawn("--test-tools")
    assert again.request("ping", request_id="next")["id"] == "next"  # not the answer the last test never read
    assert again.notifications == []


def test_a_server_that_exited_is_started_again(shared_spawn) -> None:
    server = shared_spawn("--test-tools")
    server.close_stdin()
    assert server.wait() == 0
    again = shared_spawn("--test-tools")
    assert again is not server and again.proc.poll() is None
    assert again.request("ping")["result"] == {}


def test_a_server_on_its_way_out_is_started_again(shared_spawn) -> None:
    server = shared_spawn("--test-tools")
    server.close_stdin()  # exiting, perhaps not yet gone when the next test asks
    again = shared_spawn("--test-tools")
    assert again is not server and again.request("ping")["result"] == {}
