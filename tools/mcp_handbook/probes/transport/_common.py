"""What several transport probes share: building ``initialize`` params, sending a request without waiting
for it, and telling a server that went quiet because of the probe's request from one that answers nothing."""

from __future__ import annotations

from typing import Any

from ..support import LATEST_LEGACY, PROBE_CLIENT, Target, WireTimeout, silence_reason


def init_params(version: Any = LATEST_LEGACY, **extra: Any) -> dict[str, Any]:
    """The params of an ``initialize`` request asking for ``version`` (plus ``extra`` members such as ``_meta``)."""
    return {"protocolVersion": version, "capabilities": {}, "clientInfo": dict(PROBE_CLIENT), **extra}


def control_silence(target: Target) -> str:
    """Whether silence the probe met was caused by what it sent: start a fresh server and send a plain
    ``initialize``. ``""`` when that is answered (the silence was the server's answer to the probe's
    request), else the generic reason (the server answers nothing, which says nothing about the rule)."""
    session = target.start()
    try:
        session.initialize(timeout=target.timeout)
        return ""
    except WireTimeout:
        return silence_reason(session)
    finally:
        session.close(grace=0.2)
