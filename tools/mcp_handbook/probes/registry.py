"""The probe registry: ``@probe(...)`` registers a plain function ``(Target) -> Finding`` under its name.

Registration wraps the function once, so every probe behaves the same at its edges: a
:class:`~.support.ProbeAbort` returns its finding, a :class:`~mcp_handbook.wire.WireTimeout` becomes
a FAIL with a generic reason (``no_answer``, or ``server_exited`` when the server is gone), and a
FAIL whose reason the probe did not declare is reported as ``probe_error``, so a reason a WRONG
block is proved with always means what the probe's vocabulary says.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .support import GENERIC_REASONS, Finding, ProbeAbort, Target, WireTimeout, failed, silence_reason

ProbeFn = Callable[[Target], Finding]


@dataclass(frozen=True, slots=True)
class Probe:
    """A named check run over the real pipe."""

    name: str
    run: ProbeFn
    """The registered function, wrapped (see the module docstring)."""
    title: str
    """What it observes, in a phrase, for the site and the worksheet."""
    calls_tools: bool = False
    """True when it calls tools with adversarial arguments (the auditor asks first)."""
    reasons: Mapping[str, str] = field(default_factory=dict)
    """Its own vocabulary of FAIL reasons: code -> what it means. A WRONG block proves one of these."""
    source_file: str = ""
    """The module that defines it (its source is part of every recorded proof's key)."""
    over_http: bool = False
    """True when it judges only what the server answers (no stderr, signals, stdin, environment or files), so it
    runs unchanged against a server reached by URL (its sessions are then :class:`~.http_session.HttpSession`)."""
    shares_session: bool = False
    """True when it only reads (listings, reads, pings: no tool call, signal, closed stdin, planted file left behind
    or start-up it must see itself), so the auditor may run it on one server session shared with other readers
    instead of a fresh server (:mod:`mcp_handbook.audit.share`, which refuses anything else and then gives the probe a
    server of its own)."""
    long: bool = False
    """True when it takes several server start-ups' time at least (it starts several servers, or waits out a stalled
    child or a signal's exit on purpose): an audit starts such probes first, so their start-ups and waits overlap the
    others' work instead of ending the audit."""
    server_options: tuple[str, ...] = ()
    """What its proofs need of the reference server beyond what its rule's conditions give it: options the server is
    started with, such as ``--progress-tool`` (a tool that reports progress step by step). The control run and every
    block's proof get them (:func:`mcp_handbook.proving.server_options.server_args`)."""
    isolated_network: bool = False
    """True when its WRONG blocks listen beyond loopback to fail: its proofs run the reference server in a private
    network namespace (:data:`mcp_handbook.proving.server_options.NETWORK_ISOLATION`), listening at the host a user would type
    (``localhost``), and are never run without one."""


PROBES: dict[str, Probe] = {}
"""Every registered probe by name."""


def _guard(name: str, fn: ProbeFn, reasons: Mapping[str, str]) -> ProbeFn:
    def run(target: Target) -> Finding:
        try:
            finding = fn(target)
        except ProbeAbort as stop:
            finding = stop.finding
        except WireTimeout as exc:
            gone = [silence_reason(s) for s in target.sessions]
            finding = failed("server_exited" if "server_exited" in gone else "no_answer", f"the server stopped answering: {exc}")
        if finding.status == "FAIL" and finding.reason not in reasons and finding.reason not in GENERIC_REASONS:
            return failed("probe_error", f"probe {name} failed with reason {finding.reason!r}, which is not in its vocabulary: "
                          f"{finding.summary}", *finding.evidence)
        return finding

    run.__name__ = fn.__name__
    run.__doc__ = fn.__doc__
    run.__wrapped__ = fn  # type: ignore[attr-defined]
    return run


def probe(name: str, title: str, *, reasons: Mapping[str, str], calls_tools: bool = False,
          over_http: bool = False, shares_session: bool = False, long: bool = False,
          server_options: tuple[str, ...] = (), isolated_network: bool = False) -> Callable[[ProbeFn], ProbeFn]:
    """Register the decorated function as probe ``name``; ``reasons`` is its FAIL vocabulary (code -> meaning);
    ``over_http``: it speaks only JSON-RPC, so an audit by URL runs it too; ``shares_session``: it only reads, so an
    audit may run it on a session shared with other readers; ``long``: it takes several start-ups' time, so an audit
    starts it first; ``server_options``: what its proofs start the reference server with; ``isolated_network``: its
    proofs run in a private network namespace (see :class:`Probe`). Everything a probe needs is declared here: no
    list elsewhere names probes."""
    clash = set(reasons) & set(GENERIC_REASONS)
    if clash or not reasons:
        raise ValueError(f"probe {name}: declare at least one reason of its own, none of {', '.join(GENERIC_REASONS)}")
    if isinstance(server_options, str) or not all(isinstance(o, str) and o.startswith("--") for o in server_options):
        raise ValueError(f"probe {name}: server_options is a tuple of the reference server's options (\"--progress-tool\",), "
                         f"not {server_options!r}")

    def register(fn: ProbeFn) -> ProbeFn:
        if name in PROBES:
            raise ValueError(f"probe {name!r} is registered twice ({PROBES[name].source_file} and {inspect.getsourcefile(fn)})")
        PROBES[name] = Probe(name, _guard(name, fn, reasons), title, calls_tools, dict(reasons), inspect.getsourcefile(fn) or "",
                             over_http, shares_session, long, tuple(server_options), isolated_network)
        return fn

    return register
