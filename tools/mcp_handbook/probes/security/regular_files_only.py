"""SEC-015: file tools handle regular files only, so a FIFO (or device, or socket) in the workspace blocks nothing.

Opening a FIFO nobody writes to blocks forever; a server that opens whatever a path names hangs the call
and, when it reads stdin on the same thread, stops answering anything at all. Anyone who can create a
file in the workspace can plant one. The probe puts a FIFO in the workspace, calls every path-taking tool
with it (and once more with ordinary arguments, so the FIFO is merely present in a listing), each with a
two-second deadline, then sends ``ping``; every call and the ping must be answered. A tool that names the kind
of file it opens gets a FIFO named like one (``hb-fifo-….xlsx``): refusing a name for its suffix proves nothing.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..registry import probe
from ..support import (
    PATH_PARAMS, compact, failed, fill_arguments, Finding, not_applicable, passed, planted_fifo, served_root, session_with_tools,
    show, string_params, Target, WireTimeout,
)
from ._common import pipeline
from ._file_kinds import TEXT, kinds_taken

_CALL_DEADLINE = 2.0
_PING_DEADLINE = 1.0


@probe("regular_files_only", "a FIFO in the workspace blocks no call", calls_tools=True, shares_session=True, reasons={
    "blocked_on_fifo": "a call naming (or listing) a FIFO in the workspace was not answered within 2s",
    "stopped_answering": "with a FIFO in the workspace the server stopped answering, even ping",
})
def regular_files_only(target: Target) -> Finding:
    """Put a FIFO in the workspace and hand it to every path-taking tool; each must answer at once, and so must a ping."""
    session, init, tools = session_with_tools(target)
    candidates = [(t, p) for t in tools if target.may_call(t) for p in string_params(t, PATH_PARAMS)][:6]
    if not candidates:
        return not_applicable("no callable tool takes a path argument (path, file, filename, ...)")
    root = served_root(target)  # a FIFO planted where the server never looks would prove nothing
    suffixes = [_suffix(t, p, init.get("instructions")) for t, p in candidates]
    with contextlib.ExitStack() as planted:
        fifos = {suffix: planted.enter_context(planted_fifo(root, suffix)) for suffix in dict.fromkeys(suffixes)}
        calls = [(t["name"], fill_arguments(t, **{p: fifos[suffix]})) for (t, p), suffix in zip(candidates, suffixes)]
        # each tool once more with ordinary arguments: the FIFO merely present (in a listing, a walk)
        calls += [(t["name"], fill_arguments(t)) for t in {id(t): t for t, _ in candidates}.values()]
        answers = pipeline(session, calls, timeout=_CALL_DEADLINE)
        try:
            ping: dict[str, Any] | None = session.request("ping", timeout=_PING_DEADLINE)
        except WireTimeout:
            ping = None
    silence = f"NO ANSWER within {_CALL_DEADLINE:g}s"
    evidence = [f"{name}({compact(args, 90)}) -> {show(resp, target, 140) if resp else silence}"
                for name, args, resp in answers]
    stuck = [row for row in evidence if row.endswith(silence)]
    if ping is None:
        evidence.append(f"ping -> NO ANSWER within {_PING_DEADLINE:g}s")
    if stuck:
        return failed("blocked_on_fifo", f"{len(stuck)} call(s) blocked on a FIFO in the workspace"
                      + ("; the server stopped answering even ping" if ping is None else ""), *evidence)
    if ping is None:
        return failed("stopped_answering", "every call answered, but with a FIFO in the workspace the server stopped "
                      "answering ping", *evidence)
    return passed(f"{len(calls)} call(s) with a FIFO in the workspace answered at once, and so did ping", *evidence)


def _suffix(tool: dict[str, Any], param: str, instructions: Any) -> str:
    """The suffix of the kind of file the tool most likely opens; none for plain text (any name will do)."""
    kind = kinds_taken(tool, param, instructions)[0]
    return "" if kind is TEXT else kind.suffix
