"""A Streamable HTTP server answers 403 to a request whose ``Origin`` it does not serve.

A browser adds ``Origin`` to every cross-origin POST, including one from a page that reached a local server
through DNS rebinding; refusing a foreign ``Origin`` with 403 is the specification's defence (2025-11-25 and
2026-07-28 Streamable HTTP, security: MUST). The probe sends an ordinary request the server serves, then the
same request with foreign origins: an unrelated site, a look-alike that begins with ``http://localhost``, and
``null`` (what a sandboxed frame or a local file sends).
"""

from __future__ import annotations

from ..http import endpoint, ordinary_request, row, send
from ..registry import probe
from ..support import Finding, Target, failed, passed

FOREIGN_ORIGINS = ("http://attacker.example", "http://localhost.attacker.example", "null")


@probe("http_refuse_foreign_origin", "a request with a foreign Origin gets 403",
       over_http=True, reasons={"foreign_origin_served": "a request with a foreign Origin was served (2xx)",
                "foreign_origin_not_403": "a request with a foreign Origin was answered with a status other than 403"})
def http_refuse_foreign_origin(target: Target) -> Finding:
    point = endpoint(target)
    message, headers, control = ordinary_request(target, point)
    evidence = [row(point, message["method"], headers, control)]
    for origin in FOREIGN_ORIGINS:
        sent = {**headers, "Origin": origin}
        answer = send(target, point, message, sent)
        evidence.append(row(point, message["method"], sent, answer))
        if 200 <= answer.status < 300:
            return failed("foreign_origin_served", f"a request with Origin {origin} was served (HTTP {answer.status}): "
                          "any web page the user opens can drive the server", *evidence)
        if answer.status != 403:
            return failed("foreign_origin_not_403", f"a request with Origin {origin} got HTTP {answer.status}; the "
                          "specification requires 403 Forbidden for an Origin that is present and invalid", *evidence)
    return passed(f"{len(FOREIGN_ORIGINS)} foreign origins got 403; the same request without Origin was served", *evidence)
