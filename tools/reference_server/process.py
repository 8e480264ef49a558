"""Process hygiene: signals and inherited file descriptors.

Why: a server launched by a host may inherit descriptors (sockets, pipes to
other tools) it has no business holding open, and it must turn SIGTERM and
SIGINT into an orderly drain rather than a traceback or a silent death.
"""
from __future__ import annotations

import os
import signal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def install_signal_handlers(request_shutdown: Callable[[int], None]) -> None:
    """Route SIGTERM and SIGINT to ``request_shutdown(signum)`` (which may raise to unblock a read)."""

    def _handler(signum: int, _frame: object) -> None:
        request_shutdown(signum)

    signal.signal(signal.SIGTERM, _handler)
    signal.signal(signal.SIGINT, _handler)


def close_inherited_fds() -> None:
    """Close descriptors above 2 that were open at start (listed from /proc, else a bounded range)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd") if name.isdigit()]
    except OSError:
        os.closerange(3, 1024)
        return
    for fd in fds:
        if fd > 2:
            try:
                os.close(fd)
            except OSError:
                pass  # the descriptor used to list /proc/self/fd is already closed
