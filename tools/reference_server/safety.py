"""Containment: workspace paths, child environments and child processes.

Why each rule: paths are compared after symlink resolution with
``Path.is_relative_to`` (a string prefix check lets ``/srv/ws-evil`` pass for
``/srv/ws``); children get a fixed, minimal environment (secrets in the
server's environment must not reach a program the model chose); children run
without a shell, in their own session, so a timeout can kill the whole group.
"""
from __future__ import annotations

import os
import signal
from pathlib import Path

from reference_server.table import SEAMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_PATH_CHARS = 4096
MAX_OUTPUT_BYTES = 256 * 1024
ALLOWED_ENV: tuple[str, ...] = ()
"""Names of server environment variables copied into every child (empty by default)."""


def _refuse(user_path: Any, reason: str) -> PermissionError:
    shown = user_path if not isinstance(user_path, str) or len(user_path) <= 200 else user_path[:200] + "..."
    SEAMS["log"]("warning", "path_refused", path=user_path, reason=reason)
    return PermissionError(f"path {shown!r} refused: {reason}")


def resolve_path(workspace: Path, user_path: str) -> Path:
    """Resolve ``user_path`` inside ``workspace`` or raise ``PermissionError`` naming it."""
    if not isinstance(user_path, str):
        raise _refuse(user_path, "not a string")
    if "\x00" in user_path:
        raise _refuse(user_path, "contains a NUL byte")
    if len(user_path) > MAX_PATH_CHARS:
        raise _refuse(user_path, f"longer than {MAX_PATH_CHARS} characters")
    try:
        root = _resolved_root(str(workspace))
        # realpath == Path.resolve(strict=False) minus the object churn; an absolute user_path replaces root
        target = Path(os.path.realpath(os.path.join(root, user_path)))
    except (OSError, RuntimeError, ValueError) as exc:  # symlink loops, unreadable components
        raise _refuse(user_path, f"cannot be resolved ({type(exc).__name__})") from None
    if not target.is_relative_to(root):  # path-aware, unlike str.startswith
        raise _refuse(user_path, "outside the workspace")
    return target


_ROOTS: dict[str, Path] = {}


def _resolved_root(workspace: str) -> Path:
    """The canonical workspace (cached: it is resolved once at start-up and does not move)."""
    root = _ROOTS.get(workspace)
    if root is None:
        root = _ROOTS[workspace] = Path(workspace).resolve(strict=True)
    return root


def child_env(workspace: Path) -> dict[str, str]:
    """A fresh environment: fixed PATH/HOME/LANG plus only ``ALLOWED_ENV`` names."""
    env = {name: os.environ[name] for name in ALLOWED_ENV if name in os.environ}
    env.update(PATH="/usr/bin:/bin", HOME=str(workspace), LANG="C.UTF-8")
    return env


def _kill_group(proc: Any) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_subprocess(argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float) -> tuple[int, str, str]:
    """Run ``argv`` without a shell; return (code, stdout, stderr); 124 on timeout (group killed)."""
    import selectors
    import subprocess
    import time

    try:
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env=env, shell=False, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
        )
    except (FileNotFoundError, PermissionError) as exc:  # report like a shell would: 127/126
        return (127 if isinstance(exc, FileNotFoundError) else 126), "", f"cannot execute {argv[0]!r}"
    buffers = {"out": bytearray(), "err": bytearray()}
    truncated = False
    timed_out = False
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, "out")  # type: ignore[arg-type]
        selector.register(proc.stderr, selectors.EVENT_READ, "err")  # type: ignore[arg-type]
        try:
            while selector.get_map():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                for key, _ in selector.select(remaining):
                    data = os.read(key.fd, 65536)
                    if not data:
                        selector.unregister(key.fileobj)
                        continue
                    buf = buffers[key.data]
                    room = MAX_OUTPUT_BYTES - len(buf)
                    truncated |= len(data) > room
                    buf += data[: max(room, 0)]
            if not timed_out:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            if timed_out or proc.poll() is None:
                _kill_group(proc)
            proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
            proc.stderr.close()  # type: ignore[union-attr]
    out = buffers["out"].decode("utf-8", errors="replace")
    err = buffers["err"].decode("utf-8", errors="replace")
    if truncated:
        err += f"\n[output truncated at {MAX_OUTPUT_BYTES} bytes per stream]"
    if timed_out:
        return 124, out, err + f"\n[timed out after {timeout:g}s; the process group was killed]"
    return proc.returncode, out, err
