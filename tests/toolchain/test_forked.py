"""Forked: a pure function computed in a child process, with a fallback that computes it here.

Each check runs in a fresh interpreter: pytest's own process may have threads
running (the site tests serve pages from one), and then Forked rightly
declines to fork.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mcp_handbook.forked import NO_FORK_ENV, Forked


def _square(n: int) -> dict[str, int]:
    return {"value": n * n, "pid": os.getpid()}


def _fails_in_child(parent: int) -> str:
    if os.getpid() != parent:
        raise RuntimeError("only the child fails")
    return "computed in the parent"


def _always_fails() -> None:
    raise ValueError("bad input at content/rules/x.md:3")


def _sleeps() -> None:
    time.sleep(60)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def check_the_value_is_computed_in_a_child_and_the_child_is_reaped() -> None:
    job = Forked(_square, 7)
    pid = job.pid
    assert pid is not None and pid != os.getpid()
    result = job.result()
    assert result == {"value": 49, "pid": pid}
    assert job.pid is None and _gone(pid)


def check_a_failing_child_is_recomputed_here_so_the_answer_or_the_error_is_real() -> None:
    assert Forked(_fails_in_child, os.getpid()).result() == "computed in the parent"
    with pytest.raises(ValueError, match="content/rules/x.md:3"):
        Forked(_always_fails).result()


def check_an_uncollected_child_is_killed_by_its_pid() -> None:
    with Forked(_sleeps) as job:
        pid = job.pid
        assert pid is not None and not _gone(pid)
    assert _gone(pid)
    job.cancel()  # twice is harmless


def check_the_switch_and_a_running_thread_both_keep_the_work_in_this_process() -> None:
    os.environ[NO_FORK_ENV] = "1"
    job = Forked(_square, 3)
    assert job.pid is None and job.result() == {"value": 9, "pid": os.getpid()}
    del os.environ[NO_FORK_ENV]
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert Forked(_square, 3).pid is None
    finally:
        stop.set()
        thread.join()


CHECKS = [name for name in list(globals()) if name.startswith("check_")]


@pytest.mark.parametrize("check", CHECKS)
def test_forked(check: str) -> None:
    here = Path(__file__).parent
    code = f"import sys; sys.path.insert(0, {str(here)!r}); import test_forked; test_forked.{check}()"
    env = {k: v for k, v in os.environ.items() if k != NO_FORK_ENV}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
