"""Promises of the outbound-call rules: a deadline on a call the server makes to an upstream holds against an
upstream that answers slowly on purpose.

The checks start a small HTTP server of their own on 127.0.0.1 (one thread per connection, every loop bounded)
and stop it, and every thread it started, before they return.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from types import ModuleType
from typing import Any

from .registry import Broken, promise

DRIP_SECONDS = 0.5
"""The slow paths send one byte this often: never long enough for a per-read timeout to trip."""
DEADLINE_SECONDS = 2.0
GRACE_SECONDS = 0.5
"""A call may end this long after its deadline (a thread switch, a close) and still count as in time."""

_FAST_BODY = json.dumps({"temp": 7}).encode()
_ANSWER = (b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(_FAST_BODY)
           + _FAST_BODY)


def _serve_one(conn: socket.socket, stop: threading.Event) -> None:
    """Reads one request's head, then answers by its path: ``/fast`` at once, ``/slow-headers`` a byte at a time
    from the status line on, ``/slow-body`` headers at once (Content-Length: 100000) and the body a byte at a time.
    A drip ends when ``stop`` is set; the connection is closed either way."""
    try:
        conn.settimeout(5)
        head = b""
        for _ in range(64):  # bounded: a request head of at most 64 reads
            if b"\r\n\r\n" in head:
                break
            chunk = conn.recv(4096)
            if not chunk:
                return
            head += chunk
        parts = head.split(b" ", 2)
        path = parts[1].decode("latin-1") if len(parts) > 1 else "/"
        if path.startswith("/slow-headers"):
            for byte in _ANSWER:  # about 80 bytes: 40 s at most, cut short by stop
                if stop.wait(DRIP_SECONDS):
                    return
                conn.sendall(bytes([byte]))
        elif path.startswith("/slow-body"):
            conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
            for _ in range(100_000):  # ended by stop long before the count runs out
                if stop.wait(DRIP_SECONDS):
                    return
                conn.sendall(b" ")
        else:
            conn.sendall(_ANSWER)
    except OSError:
        pass
    finally:
        conn.close()


@contextmanager
def _slow_upstream() -> Iterator[str]:
    """An upstream on 127.0.0.1 with a fast path and two dripping ones; yields its base URL. On exit the drips
    stop, the connections close (so a client still waiting on one gets an end of stream), and every thread ends."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.05)
    stop = threading.Event()
    workers: list[threading.Thread] = []

    def accept_loop() -> None:
        while not stop.is_set():  # bounded by stop, checked every 0.05 s
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            worker = threading.Thread(target=_serve_one, args=(conn, stop), daemon=True)
            workers.append(worker)
            worker.start()

    acceptor = threading.Thread(target=accept_loop, daemon=True)
    acceptor.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        acceptor.join(5)
        listener.close()
        for worker in workers:
            worker.join(5)


def _call(fn: Callable[[], Any], wait: float) -> tuple[bool, Any, BaseException | None]:
    """Runs ``fn`` on a daemon thread for at most ``wait`` seconds: (ended, value, exception)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - what the call raised is the verdict
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(max(wait, 0.0))
    return not thread.is_alive(), box.get("value"), box.get("error")


@promise("deadline_held",
         "against a local upstream: a quick answer is returned; status line and headers sent a byte every 0.5 s, "
         "and a body sent a byte every 0.5 s, each end in an OSError such as TimeoutError within 0.5 s of a 2 s "
         "deadline",
         reasons={"deadline_missed": "the call was still waiting on an upstream that sends a byte every 0.5 s, "
                                     "0.5 s after its deadline",
                  "slow_answer_accepted": "the call returned a value from an upstream that had not finished "
                                          "its answer by the deadline",
                  "not_an_os_error": "the call ended in time but not with TimeoutError or another OSError, so the "
                                     "tool cannot tell a slow upstream from a bug"},
         seconds=40)
def deadline_held(block: ModuleType) -> None:
    """Calls ``get_json(url, deadline)`` three times against :func:`_slow_upstream`; for ``fetch_weather`` (if
    the block has one) checks that the deadline it is given is passed on to ``get_json``."""
    with _slow_upstream() as base:
        ended, value, error = _call(lambda: block.get_json(f"{base}/fast", time.monotonic() + 10), 10)
        if error is not None:
            raise AssertionError(f"get_json() failed on a quick upstream: {type(error).__name__}: {error}")
        if not ended or value != {"temp": 7}:
            raise AssertionError(f"get_json() on a quick upstream gave {value!r}, not {{'temp': 7}}")
    for path, what in (("/slow-headers", "status line and headers"), ("/slow-body", "a 100000-byte body")):
        with _slow_upstream() as base:
            began = time.monotonic()
            deadline = began + DEADLINE_SECONDS
            ended, value, error = _call(partial(block.get_json, f"{base}{path}", deadline),
                                        deadline + GRACE_SECONDS - time.monotonic())
            took = time.monotonic() - began
            if not ended:
                raise Broken("deadline_missed", f"{what} sent a byte every {DRIP_SECONDS:g} s: get_json() with a "
                             f"{DEADLINE_SECONDS:g} s deadline was still waiting after {took:.2f} s")
        # the upstream is stopped here, so a call still waiting ends and its thread with it
        if error is None:
            raise Broken("slow_answer_accepted", f"{what} sent a byte every {DRIP_SECONDS:g} s: get_json() "
                         f"returned {value!r} after {took:.2f} s")
        if not isinstance(error, OSError):
            raise Broken("not_an_os_error", f"{what} sent a byte every {DRIP_SECONDS:g} s: get_json() raised "
                         f"{type(error).__name__}: {error} after {took:.2f} s")
    fetch_weather = getattr(block, "fetch_weather", None)
    if callable(fetch_weather):
        seen: list[tuple[str, float]] = []
        real = block.get_json

        def fake(url: str, deadline: float) -> dict[str, Any]:
            seen.append((url, deadline))
            return {"temp": 7}

        vars(block)["get_json"] = fake
        try:
            deadline = time.monotonic() + 5
            fetch_weather("Oslo", deadline)
        finally:
            vars(block)["get_json"] = real
        if len(seen) != 1 or seen[0][1] != deadline or "Oslo" not in seen[0][0]:
            raise AssertionError(f"fetch_weather('Oslo', deadline) called get_json with {seen!r}")
