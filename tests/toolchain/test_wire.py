"""The raw pipe client starts a server the way a host would, whatever the shell that started the tests."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

from mcp_handbook.wire import WireSession

REPORT = ("import json, signal; print(json.dumps({'int': signal.getsignal(signal.SIGINT) is signal.default_int_handler, "
          "'quit': signal.getsignal(signal.SIGQUIT) == signal.SIG_DFL}), flush=True)")


def test_a_server_gets_default_signals_even_from_a_background_job(tmp_path: Path) -> None:
    """A shell runs a background job (``cmd &``, a CI step) with SIGINT and SIGQUIT ignored, and children inherit
    that: the server under test would then ignore Ctrl-C, and a probe of its SIGINT handling would judge the shell."""
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGQUIT)}
    try:
        for s in before:
            signal.signal(s, signal.SIG_IGN)  # as a background job starts
        with WireSession([sys.executable, "-c", REPORT], cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}) as session:
            assert session.wait_stdout_eof(10)
            [line] = session.stdout
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    assert json.loads(line.line.text) == {"int": True, "quit": True}


TWO_LINES = "import sys, time; print('first', flush=True); sys.stdin.readline(); print('second', flush=True); time.sleep(5)"


def test_waiting_for_a_line_wakes_when_it_arrives_and_gives_up_at_its_deadline(tmp_path: Path) -> None:
    import time

    with WireSession([sys.executable, "-c", TWO_LINES], cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}) as session:
        assert session.wait_stdout_lines(0, timeout=10)
        assert [m.line.text for m in session.stdout] == ["first"]
        started = time.monotonic()
        assert not session.wait_stdout_lines(1, timeout=0.3)  # nothing more until it is sent a line
        assert 0.25 <= time.monotonic() - started < 3
        session.send_raw(b"go\n")
        assert session.wait_stdout_lines(1, timeout=10)
        assert [m.line.text for m in session.stdout] == ["first", "second"]
        session.kill_group()
        assert session.wait_stdout_lines(2, timeout=10)  # a closed stdout ends the wait too
        assert session.wait_stdout_eof(0)
