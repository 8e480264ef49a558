"""A Streamable HTTP server refuses a request whose ``Host`` is not a name it is served under.

A page that reached a local server through DNS rebinding sends the attacker's name in ``Host``, with or
without ``Origin`` (a same-origin request from the rebound page carries none). The specification does not
name this check; the official Python SDK makes it (421). The probe sends an ordinary request the server
serves, then the same request with a foreign ``Host`` and with a look-alike that begins with ``localhost``,
both without ``Origin``: each must be refused with a 4xx status.
"""

from __future__ import annotations

from ..http import endpoint, ordinary_request, row, send
from ..registry import probe
from ..support import Finding, Target, failed, passed

FOREIGN_NAMES = ("attacker.example", "localhost.attacker.example")


@probe("http_refuse_foreign_host", "a request with a foreign Host is refused",
       over_http=True, reasons={"foreign_host_served": "a request whose Host names another site was not refused with a 4xx status"})
def http_refuse_foreign_host(target: Target) -> Finding:
    point = endpoint(target)
    message, headers, control = ordinary_request(target, point)
    evidence = [row(point, message["method"], headers, control)]
    for name in FOREIGN_NAMES:
        sent = {**headers, "Host": f"{name}:{point.port}"}
        answer = send(target, point, message, sent)
        evidence.append(row(point, message["method"], sent, answer))
        if not 400 <= answer.status < 500:
            return failed("foreign_host_served", f"a request with Host {name}:PORT got HTTP {answer.status}, not a "
                          "refusal: a DNS-rebound page can drive the server", *evidence)
    return passed(f"{len(FOREIGN_NAMES)} foreign Host names were refused; the same request with the real Host was served",
                  *evidence)
