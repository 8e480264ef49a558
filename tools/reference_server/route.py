"""Where one request's answer goes, and under which era's rules it is served.

Why a thread-local: handlers, the ``log`` seam and tool workers keep their fixed
signatures (``handler(message)``, ``log(level, event, **fields)``), yet over HTTP
each request has its own reply channel and log level, and a 2026-07-28 request
carries its own protocol version and log level. The transport sets the route on
the thread that serves a request, a tool worker takes it over, and no route at
all means the stdio session's defaults (the hot path pays one attribute lookup).
"""
from __future__ import annotations

import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

class _Current(threading.local):
    """``CURRENT.route``: the :class:`Route` of the request this thread is serving, if any."""

    route: Route | None = None  # a class default: reading it on a thread that never set it raises nothing (fast)


CURRENT = _Current()


class Session:
    """A handshake-era HTTP session (2025-11-25 basic/transports#session-management): what ``initialize`` settled.

    The id is a lookup key for this state, never a credential: nothing is authorized by knowing it.
    """

    __slots__ = ("id", "protocol_version", "log_rank")

    def __init__(self, session_id: str) -> None:
        self.id = session_id
        self.protocol_version: str | None = None
        self.log_rank: int | None = None  # set by logging/setLevel on this session


class Route:
    """How to answer one request: where messages go, the scope its id is unique in, and which era's rules apply."""

    __slots__ = ("send", "abandon", "scope_id", "modern", "log_rank", "session", "separate_replies")

    def __init__(self, send: Callable[[dict[str, Any]], None], *, scope_id: str, modern: bool = False,
                 session: Session | None = None, separate_replies: bool = False,
                 abandon: Callable[[], None] | None = None) -> None:
        self.send = send
        self.abandon = abandon or _nothing  # the request will get no answer (cancelled): release its reply channel
        self.scope_id = scope_id  # request ids are unique within this scope (request_key's session_id)
        self.modern = modern  # served by 2026-07-28 rules: no de-duplication by id, resultType on results
        self.log_rank: int | None = None  # 2026-07-28: the request's own _meta logLevel
        self.session = session
        self.separate_replies = separate_replies  # each request has its own reply channel (HTTP), not one shared pipe

    def log_threshold(self) -> int | None:
        """The rank at or above which log records go to this request's client; None sends none."""
        return self.session.log_rank if self.session is not None else self.log_rank


def _nothing() -> None:
    return None


def current() -> Route | None:
    return CURRENT.route


class serving:
    """``with serving(route):`` the calling thread serves ``route`` until the block ends."""

    __slots__ = ("route", "_previous")

    def __init__(self, route: Route) -> None:
        self.route = route
        self._previous: Route | None = None

    def __enter__(self) -> Route:
        self._previous = CURRENT.route
        CURRENT.route = self.route
        return self.route

    def __exit__(self, *_exc: object) -> None:
        CURRENT.route = self._previous
