"""A child process of the fleet (an installer, an audit's worker): run in a process group of its own, with its
output read and kept, and stopped with that group when it outlives its time, found by the PID it was started with.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MAX_ERR = 200_000
"""Bytes of a child's stderr kept: the end, where its reason is."""


@dataclass(frozen=True)
class Ended:
    returncode: int | None
    """None when the child outlived its time and was stopped."""
    err: bytes


def run(argv: Sequence[str], *, timeout: float, grace: float, stdin: bytes | None = None,
        env: Mapping[str, str] | None = None) -> Ended:
    """Run ``argv`` to its end or for ``timeout`` seconds. Past its time, its group gets SIGTERM (so the child may
    stop what it started), then SIGKILL after ``grace`` seconds. Raises OSError when it cannot start."""
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=None if env is None else dict(env), start_new_session=True)
    try:
        _, err = proc.communicate(stdin, timeout=timeout)
        return Ended(proc.returncode, err[-MAX_ERR:])
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
    return Ended(None, err[-MAX_ERR:])


def last_line(err: bytes, *, noise: Sequence[str] = ()) -> str:
    """The last line of ``err`` that says something: not blank, and none of the ``noise`` phrases (lower case)."""
    lines = [ln.strip() for ln in err.decode("utf-8", "replace").splitlines()
             if ln.strip() and not any(n in ln.lower() for n in noise)]
    return lines[-1][:300] if lines else ""
