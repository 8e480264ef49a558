"""A tool block's smoke call reaches its handler even when the server is slow to start on a loaded machine.

The verifier calls a mounted tool once with ordinary arguments and then asks whether the server ran the block's
code at all. A first attempt whose wait ran out before the handler ran must not turn into "the server never
called the block": that would be a verdict about the machine's load, not the block.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_handbook.probes import Target
from mcp_handbook.proving.verify import _smoke_call, minimal_env

SLOW_FIRST_START = r'''
import json, os, sys, time
marker = os.path.join(os.getcwd(), "started-once")
if not os.path.exists(marker):
    open(marker, "w").close()
    time.sleep(1.5)  # the first start is slower than the probe's wait
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message["method"]
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "0"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        with open(os.environ["HB_SEAM_CALLED"], "a") as out:
            out.write("tool\n")
        result = {"content": [{"type": "text", "text": "ok"}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
'''


def _target(tmp_path: Path, called: Path) -> Target:
    server = tmp_path / "server.py"
    server.write_text(SLOW_FIRST_START)
    env = {**minimal_env(home=tmp_path), "HB_SEAM_CALLED": str(called)}
    return Target(argv=[sys.executable, str(server)], workspace=tmp_path, env=env, canary="c", timeout=0.6)


def test_a_first_attempt_that_times_out_before_the_handler_is_tried_again(tmp_path: Path) -> None:
    called = tmp_path / "called"
    target = _target(tmp_path, called)
    try:
        _smoke_call(target, "t", lambda: called.exists() and "tool" in called.read_text().split())
    finally:
        target.stop_all()
    assert called.read_text().split() == ["tool"]
    assert len(target.sessions) == 2  # the slow first start, then the second try


def test_a_handler_reached_on_the_first_attempt_is_not_called_again(tmp_path: Path) -> None:
    called = tmp_path / "called"
    (tmp_path / "started-once").touch()  # no slow start
    target = _target(tmp_path, called)
    try:
        _smoke_call(target, "t", lambda: called.exists() and "tool" in called.read_text().split())
    finally:
        target.stop_all()
    assert called.read_text().split() == ["tool"] and len(target.sessions) == 1


def test_no_smoke_call_when_the_probe_already_ran_the_handler(tmp_path: Path) -> None:
    called = tmp_path / "called"
    called.write_text("tool\n")  # the probe's own call reached the handler
    target = _target(tmp_path, called)
    try:
        _smoke_call(target, "t", lambda: called.exists() and "tool" in called.read_text().split())
    finally:
        target.stop_all()
    assert target.sessions == [] and called.read_text().split() == ["tool"]
