"""A request is served the same whether or not its params carry ``_meta``.

``_meta`` is reserved in the params of every request and notification: clients put progress tokens and
tracing keys there. A server that validates params against a closed list, or that treats ``_meta`` as a
parameter of the method, refuses ordinary requests from ordinary clients. The probe sends what
handshake-era clients send (the 2026-07-28 envelope keys are left out, see ``META``).
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import GENERIC_REASONS, compact, failed, Finding, not_applicable, passed, silence_reason, Target, WireTimeout
from ._common import control_silence, init_params

META = {"progressToken": "hb-probe", "com.example.probe/trace": "hb-1", "traceparent": "00-hb-probe-01"}
"""What clients of the handshake era put in _meta: a progress token and tracing keys. The modern
``io.modelcontextprotocol/`` envelope keys are left out: on an initialized session they would ask a
dual-era server to switch eras, which it may rightly refuse."""


def _names(response: dict[str, Any]) -> list[Any]:
    result = response.get("result")
    result = result if isinstance(result, dict) else {}
    return [t.get("name") for t in result.get("tools") or [] if isinstance(t, dict)]


@probe("accept_params_meta", "requests carrying params._meta are served",
       over_http=True, reasons={
           "refused_meta": "a request carrying params._meta was refused",
           "unanswered_meta": "a request carrying params._meta was never answered",
           "meta_changed_listing": "tools/list with params._meta listed different tools from tools/list without it",
       })
def accept_params_meta(target: Target) -> Finding:
    """Put params._meta on initialize, ping and tools/list: each must be served as if it were absent."""
    if target.modern:  # that era puts params._meta on every request; TRN-015's probe judges how it is checked
        return not_applicable("does not apply: in 2026-07-28 every request carries params._meta")
    session = target.start()
    evidence: list[str] = []
    problems: list[tuple[str, str]] = []
    try:
        init = session.request("initialize", init_params(_meta=META), timeout=target.timeout)
        session.notify("notifications/initialized", {"_meta": META})
        evidence.append(f"initialize with _meta -> {compact(init, 160)}")
        if "result" not in init:
            problems.append(("refused_meta", "initialize with params._meta was refused"))
        try:
            plain = session.request("tools/list", {}, timeout=target.timeout)
        except WireTimeout as exc:  # the request without _meta: its silence says nothing about _meta
            problems.append((silence_reason(session), f"tools/list without params._meta got no answer: {exc}"))
            plain = None
        checks: list[tuple[str, dict[str, Any]]] = [("ping", {"_meta": META}), ("tools/list", {"_meta": META}),
                                                    ("ping", {"_meta": {}})]
        for method, params in checks if plain is not None else ():
            response = session.request(method, params, timeout=target.timeout)
            evidence.append(f"{method} {compact(params, 120)} -> {compact(response, 160)}")
            if "result" not in response:
                problems.append(("refused_meta",
                                 f"{method} with params._meta was refused: {compact(response.get('error'), 160)}"))
            elif method == "tools/list" and plain is not None and "result" in plain and _names(response) != _names(plain):
                problems.append(("meta_changed_listing", "tools/list with _meta listed different tools than without it"))
    except WireTimeout as exc:  # the fault of _meta only if a server is answered without it
        problems.append((control_silence(target) or "unanswered_meta", f"a request with params._meta got no answer: {exc}"))
    if problems:
        reason, first = problems[0]
        summary = (f"{len(problems)} request(s) carrying params._meta were not served" if reason not in GENERIC_REASONS
                   else f"the server stopped answering: {first}")
        return failed(reason, summary, *[text for _, text in problems], *evidence)
    return passed("initialize, ping and tools/list are served with params._meta", *evidence)
