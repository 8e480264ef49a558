"""SEC-020 to SEC-023: a tool that fetches a URL it is given reaches only public http(s) destinations, checks
every redirect, and stops at a size and a deadline (server-side request forgery, CWE-918).

The probes find the callable tools that take a URL (a string parameter named like one, or declared
``format: uri``) and call them with URLs that lead only to the probe's own HTTP listener on 127.0.0.1 (a
thread, a random port, stopped when the probe ends) or to a file the probe planted in the workspace. Nothing
the probes send can leave the machine. What they can see:

* internal addresses: the listener receives the request (by address, by the name ``localhost``, by the
  hexadecimal, decimal, short and IPv6-mapped spellings of 127.0.0.1);
* schemes: a ``file:`` URL's contents come back;
* redirects, size and time: only once a tool fetches from the listener at all. A server refuses loopback,
  as it should, so the probes name their listener in ``HB_FETCH_ALLOW`` (the reference server's operator
  allow-list of internal destinations). A server without such a setting refuses the listener, and these
  two rules are N/A, not checked: offline there is no public address to serve from.

Over HTTP (an audit by URL) the server was started by someone else, so nothing can be put in its environment:
SEC-020 and SEC-022 run only when the URL names a loopback address (the server then shares this machine's
127.0.0.1, where the listeners are). A fetch of the listener, or a followed redirect, is seen as over stdio; a
refusal of the first URL proves less there, since a server in another network namespace (a container behind a
port forward) could not have reached the listener anyway: SEC-020 is then N/A, not checked, rather than a PASS.

What they cannot see: DNS rebinding (a name that resolves to a public address, then to an internal one),
the cloud metadata address itself (the probe sends nothing beyond loopback), a public host that redirects.
"""

from __future__ import annotations

import ipaddress
import secrets
import time
from typing import Any
from urllib.parse import urlsplit

from ..calls import ToolCalls
from ..registry import probe
from ..support import (
    DELAY_WORDS, Finding, Target, WireTimeout, callable_tools, compact, failed, fill_arguments, handshake,
    not_applicable, passed, properties, refused, schema_type, send_request, show, tool_name, tools_of,
)
from ._common import how_to_allow, shown_text
from ._fetch_listener import REACHED, SIZE_LIMIT, Listener, listening

URL_PARAMS = ("url", "uri", "link", "href", "endpoint")
"""Parameter names that take a URL; names ending in ``_url``, ``_uri`` or ``_link`` count too."""
URL_FORMATS = ("uri", "uri-reference", "iri", "iri-reference", "url")
MAX_TOOLS = 3
"""URL-taking tools exercised at most, so a server with many costs a bounded time."""
FILE_MARKER = "hb-ssrf-file-contents"
ALLOW_ENV = "HB_FETCH_ALLOW"


def url_param(tool: dict[str, Any]) -> str | None:
    """The tool's first string parameter that takes a URL, by name or by ``format``."""
    for name, prop in properties(tool).items():
        if schema_type(prop) != "string":
            continue
        lowered = name.lower()
        if (lowered in URL_PARAMS or lowered.endswith(("_url", "_uri", "_link", "url"))
                or prop.get("format") in URL_FORMATS):
            return name
    return None


def url_tools(target: Target) -> list[tuple[dict[str, Any], str]]:
    """(tool, URL parameter) for the callable tools that take a URL, at most :data:`MAX_TOOLS`; N/A when none."""
    found = [(t, p) for t in callable_tools(target, tools_of(target)) if (p := url_param(t))]
    return found[:MAX_TOOLS]


NO_URL_TOOL = "not checked: no callable tool takes a URL (a parameter named url, uri, link or endpoint, or format: uri)"


def no_url_tool(target: Target) -> Finding:
    """N/A when no callable tool takes a URL, naming the listed ones that do but may not be called."""
    blocked = [tool_name(t) for t in tools_of(target) if url_param(t) and not target.may_call(t)]
    if blocked:
        return not_applicable(f"not checked: the tools that take a URL were not called: {how_to_allow(blocked)}")
    return not_applicable(NO_URL_TOOL)


def beyond_reach(target: Target) -> Finding | None:
    """N/A for an audit by URL of a server that is not on this machine's loopback (the probe's listeners on
    127.0.0.1 are out of its reach); None when the probe can run: over stdio, or by a loopback URL."""
    if target.transport != "http":
        return None
    host = urlsplit(target.url or "").hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        return None
    return not_applicable(f"not checked: the server is reached at {host or 'an unknown host'}, not on this machine's "
                          "loopback, so the probe's HTTP listeners on 127.0.0.1 are beyond its reach")


BY_URL_REFUSED = ("not checked: over HTTP a refusal cannot be told from a listener the server could not reach (a "
                  "server in another network namespace, behind a port forward, has a 127.0.0.1 of its own); every URL "
                  "leading to 127.0.0.1 was refused or failed")


def _row(listener: Listener, target: Target, name: str, url: str, response: dict[str, Any] | None, what: str) -> str:
    said = "no answer" if response is None else show(shown_text(response), target, 140)
    return listener.scrub(f"{name}(url={url!r}) -> {what}; {said}")


def _try_urls(target: Target, listener: Listener, urls: dict[str, str], *, seen_as: str, hit: str,
              extra_env: dict[str, str] | None = None) -> tuple[list[str], list[str], list[str], ToolCalls] | Finding:
    """Call every URL tool with every URL (``token -> url``): rows where the listener received that tool's request
    for the token (or ``seen_as`` came back), rows answered as a success, and rows refused."""
    tools = url_tools(target)
    if not tools:
        return no_url_tool(target)
    calls = ToolCalls(target, wait=target.timeout, extra_env=extra_env)
    hits, successes, others = [], [], []
    for tool, param in tools:
        name = tool_name(tool)
        plan = [(token, url, fill_arguments(tool, **{param: url})) for token, url in urls.items()]
        before = len(listener.seen)  # so a request is laid at this tool's door, not an earlier one's
        for (token, url, _args), response in zip(plan, calls.calls(name, [a for _t, _u, a in plan])):
            text = shown_text(response) if response is not None else ""
            if listener.reached(token, before) or seen_as in text:
                hits.append(_row(listener, target, name, url, response, hit))
            elif response is not None and not refused(response):
                successes.append(_row(listener, target, name, url, response, "answered as a success"))
            elif response is not None:
                others.append(_row(listener, target, name, url, response, "refused"))
    return hits, successes, others, calls


@probe("fetch_refuse_internal", "URL tools refuse loopback and other internal addresses", calls_tools=True, reasons={
    "fetched_internal": "the probe's listener on 127.0.0.1 received the request (by address, name or another spelling)",
    "not_refused": "a URL that leads to loopback was answered as a success, not refused with a tool error",
}, over_http=True)
def fetch_refuse_internal(target: Target) -> Finding:
    """Ask every URL tool for the listener's page on 127.0.0.1, spelt six ways; each must be refused, unfetched."""
    if (far := beyond_reach(target)) is not None:
        return far
    with listening() as (listener,):
        urls = {"loopback": listener.url("/hb-ssrf/loopback"),
                "name": listener.url("/hb-ssrf/name", "localhost"),
                "hex": listener.url("/hb-ssrf/hex", "0x7f000001"),
                "decimal": listener.url("/hb-ssrf/decimal", "2130706433"),
                "short": listener.url("/hb-ssrf/short", "127.1"),
                "mapped": listener.url("/hb-ssrf/mapped", "[::ffff:127.0.0.1]")}
        outcome = _try_urls(target, listener, urls, seen_as=REACHED, hit="FETCHED: the listener received it")
    if isinstance(outcome, Finding):
        return outcome
    hits, successes, others, calls = outcome
    if hits:
        return failed("fetched_internal", f"{len(hits)} URL(s) leading to 127.0.0.1 were fetched", *hits[:8], *others[:2])
    if successes:
        return failed("not_refused", f"{len(successes)} URL(s) leading to 127.0.0.1 were answered as a success",
                      *successes[:8])
    if not others:
        return calls.not_checked("no URL tool answered")
    if target.transport == "http":
        return not_applicable(BY_URL_REFUSED, *others[:8], *calls.notes)
    return passed(f"{len(others)} URL(s) leading to 127.0.0.1 refused, none fetched", *others[:8], *calls.notes)


@probe("fetch_http_schemes_only", "URL tools refuse file: URLs", calls_tools=True, reasons={
    "followed_file_scheme": "a file: URL was followed: the contents of a file the probe planted came back",
    "not_refused": "a file: URL was answered as a success, not refused with a tool error",
})
def fetch_http_schemes_only(target: Target) -> Finding:
    """Plant a file in the workspace and ask every URL tool for it by four spellings of a file: URL."""
    planted = target.workspace.resolve() / f"hb-ssrf-planted-{secrets.token_hex(4)}.txt"
    with planted.open("x", encoding="utf-8") as out:  # a new name: nothing of the server's is overwritten
        out.write(f"{FILE_MARKER}\n")
    try:
        with listening() as (listener,):
            urls = {"file": f"file://{planted}", "FILE": f"FILE://{planted}", "file-one-slash": f"file:{planted}",
                    "file-localhost": f"file://localhost{planted}"}
            outcome = _try_urls(target, listener, urls, seen_as=FILE_MARKER, hit="READ: the planted file came back")
    finally:
        planted.unlink(missing_ok=True)
    if isinstance(outcome, Finding):
        return outcome
    hits, successes, others, calls = outcome
    if hits:
        return failed("followed_file_scheme", f"{len(hits)} file: URL(s) were read", *hits[:8], *others[:2])
    if successes:
        return failed("not_refused", f"{len(successes)} file: URL(s) were answered as a success", *successes[:8])
    if not others:
        return calls.not_checked("no URL tool answered")
    return passed(f"{len(others)} file: URL(s) refused, none read", *others[:8], *calls.notes)


LISTENER_REFUSED = ("not checked: the tool refused the probe's listener on 127.0.0.1, the only server the probe can "
                    f"run offline (name it in {ALLOW_ENV} or the server's own allow-list to check this)")


@probe("fetch_check_redirects", "URL tools check every redirect like the first URL", calls_tools=True, reasons={
    "followed_redirect": "an allowed URL redirected to an internal one, and the tool followed it",
}, over_http=True)
def fetch_check_redirects(target: Target) -> Finding:
    """An allowed listener redirects to a second, internal one: the second must get nothing."""
    if (far := beyond_reach(target)) is not None:
        return far
    with listening(2) as (allowed, internal):
        allowed.redirect_to = internal.url("")
        urls = {"by-address": allowed.url("/hb-redirect/by-address")}
        outcome = _try_urls(target, internal, urls, seen_as=REACHED, hit="FOLLOWED to the internal listener",
                            extra_env={ALLOW_ENV: f"127.0.0.1:{allowed.port}"})
        first_hops = list(allowed.seen)
    if isinstance(outcome, Finding):
        return outcome
    hits, successes, others, calls = outcome
    if hits:
        return failed("followed_redirect", "a redirect from an allowed URL to 127.0.0.1 was followed",
                      *(allowed.scrub(h) for h in hits[:8]))
    rows = [allowed.scrub(r) for r in [*others, *successes][:4]]
    if not first_hops:
        return not_applicable(LISTENER_REFUSED, *rows, *calls.notes)
    return passed("the allowed URL was fetched and its redirect to 127.0.0.1 was not followed",
                  f"the allowed listener received GET {first_hops[0]}; the internal one received nothing",
                  *rows, *calls.notes)


def _seconds_param(tool: dict[str, Any]) -> float | None:
    """The smallest time limit the tool lets a caller set (``fill_arguments`` sends it), if any."""
    for name, prop in properties(tool).items():
        if any(w in name.lower() for w in (*DELAY_WORDS, "timeout")) and isinstance(prop.get("minimum"), (int, float)):
            return float(prop["minimum"])
    return None


ENDLESS_GRACE = 20.0
"""Seconds an endless response may go on being read past the tool's own wait while bytes still flow: a tool with a
byte cap stops the flow itself, so only one without a cap is still reading, and on a busy machine 16 MiB can take
longer than the wait to arrive."""


def _await(session: Any, rid: int, wait: float, listener: Listener, *, endless: bool = False) -> dict[str, Any] | str:
    """The answer to ``rid``, or ``"over_limit"`` once the listener has sent more than :data:`SIZE_LIMIT` on it,
    or ``"no_answer"`` after ``wait`` seconds (for an ``endless`` response, once the reading stalls or
    :data:`ENDLESS_GRACE` more seconds have passed)."""
    began = time.monotonic()
    deadline, last_sent, last_flow = began + wait, listener.sent, began
    while True:
        now = time.monotonic()
        if listener.sent != last_sent:
            last_sent, last_flow = listener.sent, now
        flowing = endless and now - last_flow < 1.0 and now < deadline + ENDLESS_GRACE
        if now >= deadline and not flowing:
            break
        if listener.sent > SIZE_LIMIT:
            return "over_limit"
        try:
            answer = session.wait_for_id(rid, timeout=0.1, garbage_grace=0)
        except WireTimeout:
            continue
        return "over_limit" if listener.sent > SIZE_LIMIT else answer
    return "over_limit" if listener.sent > SIZE_LIMIT else "no_answer"


@probe("fetch_bounded", "URL tools stop at a size limit and a deadline", calls_tools=True, reasons={
    "read_without_limit": f"the tool kept reading one endless response past {SIZE_LIMIT // 2**20} MiB",
    "no_deadline": "a response that trickles in one byte every 0.2 s kept the tool busy past its time limit (or the "
                   "probe's wait)",
    "headers_without_deadline": "a response whose status line and headers arrive one byte every 0.2 s held the call "
                                "past its time limit (or the probe's wait)",
})
def fetch_bounded(target: Target) -> Finding:
    """An allowed listener serves an endless body, a trickling body, then a head that trickles in; the tool must
    answer each within its time limit."""
    tools = url_tools(target)
    if not tools:
        return no_url_tool(target)
    tool, param = tools[0]
    name, own_limit = tool_name(tool), _seconds_param(tool)
    wait = own_limit + 2.0 if own_limit is not None else max(target.timeout, 5.0)
    with listening() as (listener,):
        session, _ = handshake(target, extra_env={ALLOW_ENV: f"127.0.0.1:{listener.port}"})
        rows: list[str] = []
        for path, late, what in (("/hb-endless", "no_deadline", "an endless response"),
                                 ("/hb-trickle", "no_deadline", "a trickling response"),
                                 ("/hb-slow-headers", "headers_without_deadline", "a response with trickling headers")):
            url = listener.url(path)
            rid = send_request(session, "tools/call", {"name": name, "arguments": fill_arguments(tool, **{param: url})})
            answer = _await(session, rid, wait, listener, endless=path == "/hb-endless")
            if not listener.seen:
                return not_applicable(LISTENER_REFUSED, listener.scrub(f"{name}(url={url!r}) -> "
                                      + (show(shown_text(answer), target, 140) if isinstance(answer, dict) else answer)))
            if answer == "over_limit":
                return failed("read_without_limit", f"{name} read more than {SIZE_LIMIT // 2**20} MiB of one response "
                              "and was still reading", listener.scrub(f"{name}(url={url!r}) -> still reading past "
                                                                      f"{SIZE_LIMIT // 2**20} MiB"))
            if answer == "no_answer":
                return failed(late, f"{name} was still fetching {what} after {wait:g} s",
                              listener.scrub(f"{name}(url={url!r}) -> no answer within {wait:g} s"), *rows)
            shown = show(shown_text(answer), target, 120) if isinstance(answer, dict) else answer
            rows.append(listener.scrub(f"{name}(url={url!r}) -> answered: {shown}"))
    return passed(f"{name} stopped an endless response, a trickling body and trickling headers within {wait:g} s",
                  *rows,
                  f"time limit the probe set: {compact(own_limit)} s" if own_limit is not None else "no time parameter")
