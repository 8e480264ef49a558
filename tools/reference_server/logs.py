"""Structured stderr logging, redaction and seam-error reporting.

Why stderr only: on the stdio transport stdout belongs to JSON-RPC. Every log
record passes through the ``redact`` seam first, and exception text is masked
against the server's own environment values because exception messages are
the usual way secrets (connection strings, tokens) leak into logs.
"""
from __future__ import annotations

import os
import re
import sys
import threading
import time
from functools import lru_cache

from reference_server.route import CURRENT
from reference_server.table import SEAMS
from reference_server.wire import _encode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
RANK = {name: i for i, name in enumerate(LEVELS)}
REDACTED = "<REDACTED>"
_MAX_DEPTH = 32
STDERR_LOCK = threading.RLock()


class LogState:
    """Thresholds shared by the log seam and the server (mutable, process-wide)."""

    stderr_rank: int = RANK["info"]
    client_rank: int | None = None  # set by logging/setLevel on the stdio session; None = send nothing
    sink: Callable[[str, str, dict[str, Any]], None] | None = None


def client_threshold() -> int | None:
    """The rank at or above which records go to the client: the serving request's own (its 2026-07-28
    ``_meta`` logLevel, or its HTTP session's logging/setLevel), else the stdio session's setLevel."""
    route = CURRENT.route
    return LogState.client_rank if route is None else route.log_threshold()


def stderr_line(text: str) -> None:
    with STDERR_LOCK:
        try:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def _timestamp() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def enabled(level: str) -> bool:
    """Cheap pre-check so hot paths skip building fields for records nobody will see."""
    rank = RANK[level]
    if rank >= LogState.stderr_rank:
        return True
    route = CURRENT.route  # client_threshold(), inlined: this runs on every call
    client = LogState.client_rank if route is None else route.log_threshold()
    return client is not None and rank >= client


def log(level: str, event: str, **fields: Any) -> None:
    """Write one JSON line to stderr (if ``level`` passes) and feed the client sink."""
    rank = RANK.get(level, RANK["error"])
    to_stderr = rank >= LogState.stderr_rank
    sink = LogState.sink
    client = client_threshold() if sink is not None else None
    to_client = client is not None and rank >= client
    if not (to_stderr or to_client):
        return
    try:
        safe = SEAMS["redact"](fields)
    except Exception as exc:  # never fall back to the unredacted fields
        report_seam_error("redact", exc)
        safe = {"fields": "<unredactable>"}
    if to_stderr:
        record: dict[str, Any] = {"ts": _timestamp(), "level": level, "event": event}
        for key, value in safe.items():
            record[key if key not in record else f"field_{key}"] = value
        stderr_line(_encode(record))
    if to_client and sink is not None:
        sink(level, event, safe)


_SUBSTRINGS = ("token", "secret", "password", "passwd", "passphrase", "credential",
               "authorization", "cookie", "apikey", "privatekey", "sessionid")
_WORDS = frozenset({"auth", "key", "pwd"})
_COUNTER_WORDS = frozenset({"count", "counts", "used", "max", "min", "total", "limit",
                            "remaining", "budget", "input", "output", "prompt", "completion"})
_WORD_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


@lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    """Decide whether a mapping key names a secret (biased towards redacting)."""
    words = [w.lower() for w in _WORD_RE.findall(key)]
    flat = "".join(words)
    if flat.endswith(("key", "keys")) or _WORDS.intersection(words):
        return True  # key, api_key, X-Api-Key, privateKey ... and, knowingly, "monkey"
    hits = [s for s in _SUBSTRINGS if s in flat]
    if hits == ["token"] and _COUNTER_WORDS.intersection(words):
        return False  # tokens_used, max_tokens, token_count: LLM usage counters, not secrets
    return bool(hits)


def redact(value: Any, _depth: int = 0) -> Any:
    """Return a copy with every value under a secret-looking key replaced by ``<REDACTED>``."""
    if _depth > _MAX_DEPTH:
        return "<MAX_DEPTH>"
    if isinstance(value, dict):
        return {k: (REDACTED if is_secret_key(str(k)) else redact(v, _depth + 1)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v, _depth + 1) for v in value]
    return value


_BENIGN_ENV = frozenset({"PATH", "HOME", "PWD", "OLDPWD", "LANG", "LANGUAGE", "TERM", "SHELL", "USER",
                         "LOGNAME", "SHLVL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "_"})


def mask_environment(text: str) -> str:
    """Replace values of the server's environment variables in ``text`` with ``<env:NAME>``."""
    for name, value in os.environ.items():
        if len(value) >= 6 and name not in _BENIGN_ENV and not name.startswith("LC_") and value in text:
            text = text.replace(value, f"<env:{name}>")
    return text


def format_exception(exc: BaseException) -> str:
    """The full traceback, with environment values masked (see :func:`mask_environment`)."""
    import traceback

    return mask_environment("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))


def report_seam_error(name: str, exc: BaseException) -> None:
    """Emit the ``[seam-error] NAME Type: message`` marker a harness greps for, then the traceback."""
    message = mask_environment(str(exc)).replace("\n", " ")
    stderr_line(f"reference_server: [seam-error] {name} {type(exc).__name__}: {message}")
    stderr_line("  " + format_exception(exc).rstrip().replace("\n", "\n  "))


def new_reference() -> str:
    """A short reference id that ties a client-visible message to a stderr log line."""
    return os.urandom(4).hex()
