"""Promises of the auth gate's manual rules: what a resource server, a proxy to an upstream API and a multi-user
server visibly do with tokens, ids and sessions (AUTH-002, -003, -004, -008, -009, -010, -011).

Each check drives the block's own functions in this process. Where a block talks to another service (an
issuer's key set, an upstream API, a helpdesk), the check runs that service on 127.0.0.1 and points the block's
address constant at it (``JWKS``, ``UPSTREAM``, ``HELPDESK``): the block's code runs unchanged, only the host it
reaches is a stand-in. Tokens are RS256, signed with keys made for the run (PyJWT with ``cryptography``).
Every server a check starts is stopped before the check returns.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.error
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ._auth_services import OTHER_RESOURCE, RESOURCE, Issuer, bearer, serve
from .registry import Broken, prelude, promise


# -- AUTH-003 ----------------------------------------------------------------------------------------------------

@promise("audience_checked", "a genuine token issued for another resource is refused; one for this server is accepted",
         reasons={
             "wrong_audience_accepted": "validate() returned claims for a token whose aud is another resource",
             "own_token_refused": "validate() refused a valid token issued for this server",
         }, seconds=30)
def audience_checked(block: ModuleType) -> None:
    """``validate(token)`` returns the claims or raises. Tokens come from the block's own issuer (its JWKS on
    loopback): one for ``RESOURCE``, one for another resource of the same issuer, both validly signed."""
    issuer = Issuer(block)
    with issuer.serving(block):
        try:
            block.validate(issuer.token())
        except Exception as exc:  # noqa: BLE001 - any refusal of a good token breaks the promise
            raise Broken("own_token_refused", f"a valid token for {issuer.resource} was refused: {exc!r}") from None
        try:
            claims = block.validate(issuer.token(audience=OTHER_RESOURCE))
        except Exception:  # noqa: BLE001 - refused, as promised
            return
    raise Broken("wrong_audience_accepted", f"validate() accepted aud={OTHER_RESOURCE}: {claims!r}")


# -- AUTH-002 ----------------------------------------------------------------------------------------------------

def _challenge(exc: BaseException) -> tuple[int | None, str]:
    """The HTTP status and WWW-Authenticate value a refusal carries (``status`` and ``headers()``)."""
    status = getattr(exc, "status", None)
    read_headers = getattr(exc, "headers", None)
    headers = read_headers() if callable(read_headers) else {}
    value = next((v for k, v in dict(headers).items() if k.lower() == "www-authenticate"), "")
    return (status if isinstance(status, int) else None), str(value)


@promise("bearer_validated", "a bad, expired or foreign token gets 401 with a Bearer challenge; a missing scope 403",
         reasons={
             "invalid_token_accepted": "authenticate() returned claims for a token that is forged, expired or for "
                                       "another resource",
             "no_401_challenge": "a refused token (or none) was not answered 401 with WWW-Authenticate: Bearer and "
                                 "resource_metadata",
             "insufficient_scope_not_403": "a valid token without the scope a tool needs was not answered 403 "
                                           "error=\"insufficient_scope\" with the scope to ask for",
             "valid_token_refused": "a valid token with every scope the call needs was refused",
         }, seconds=30)
def bearer_validated(block: ModuleType) -> None:
    """``authenticate(headers)`` returns the claims of the request's bearer token or raises a refusal carrying
    ``status`` and ``headers()`` (the HTTP answer); ``check_request(headers, message)`` does the same for one MCP
    message and adds the scope check. Header names are lower-cased, as the HTTP layer hands them over."""
    issuer = Issuer(block)
    bad = (("a token signed with another key", issuer.token(forged=True)),
           ("an expired token", issuer.token(lifetime=-120)),
           (f"a token for {OTHER_RESOURCE}", issuer.token(audience=OTHER_RESOURCE)))
    with issuer.serving(block):
        for label, token in bad:
            try:
                got = block.authenticate(bearer(token))
            except Exception as exc:  # noqa: BLE001 - refused: judged by the answer it carries
                status, challenge = _challenge(exc)
                if status != 401 or not challenge.lower().startswith("bearer") or "resource_metadata=" not in challenge:
                    raise Broken("no_401_challenge", f"{label}: refused with status {status}, "
                                 f"WWW-Authenticate {challenge!r}") from None
                continue
            raise Broken("invalid_token_accepted", f"{label} was accepted: {got!r}")
        try:
            got = block.authenticate({})
        except Exception as exc:  # noqa: BLE001
            status, challenge = _challenge(exc)
            if status != 401 or "resource_metadata=" not in challenge:
                raise Broken("no_401_challenge", f"no token: status {status}, WWW-Authenticate {challenge!r}") from None
        else:
            raise Broken("invalid_token_accepted", f"a request without a token was accepted: {got!r}")
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "append_note", "arguments": {}}}
        try:
            block.check_request(bearer(issuer.token(scope="notes:read")), call)
        except Exception as exc:  # noqa: BLE001
            status, challenge = _challenge(exc)
            if status != 403 or 'error="insufficient_scope"' not in challenge or "scope=" not in challenge.replace(
                    'error="insufficient_scope"', ""):
                raise Broken("insufficient_scope_not_403", f"status {status}, WWW-Authenticate {challenge!r}") from None
        else:
            raise Broken("insufficient_scope_not_403", "append_note was allowed with scope notes:read only")
        try:
            block.check_request(bearer(issuer.token(scope="notes:read notes:write")), call)
        except Exception as exc:  # noqa: BLE001
            raise Broken("valid_token_refused", f"scope notes:read notes:write, append_note: {exc!r}") from None


# -- AUTH-004 ----------------------------------------------------------------------------------------------------

CLIENT_TOKEN = "hb-client-token-for-the-mcp-server-7f3a"
UPSTREAM_TOKEN = "hb-upstream-token-of-alice-0c9e"


class _UpstreamTokens:
    """The upstream tokens this server holds per user (what the page's UpstreamTokens looks up)."""

    def for_user(self, subject: str) -> str:
        if subject != "alice":
            raise PermissionError("not connected")
        return UPSTREAM_TOKEN


@promise("no_token_passthrough", "the client's token never reaches the upstream API",
         reasons={"client_token_forwarded": "the upstream received the token the MCP client presented"}, seconds=20)
def no_token_passthrough(block: ModuleType) -> None:
    """``list_issues(headers, claims, tokens)`` calls ``UPSTREAM``; the upstream here records every request. The
    client's token (in ``headers``, already validated into ``claims``) must appear nowhere in what it receives."""
    seen: list[tuple[str, dict[str, str], bytes]] = []
    with serve(lambda _p, _h: (200, b'{"issues": []}'), seen) as base:
        vars(block)["UPSTREAM"] = f"{base}/v1/issues"
        block.list_issues({"authorization": f"Bearer {CLIENT_TOKEN}"}, {"sub": "alice", "aud": RESOURCE},
                          _UpstreamTokens())
    if not seen:
        raise RuntimeError("list_issues() never called the upstream: the check has nothing to judge")
    for path, headers, body in seen:
        if CLIENT_TOKEN in path or CLIENT_TOKEN in json.dumps(headers) or CLIENT_TOKEN.encode() in body:
            raise Broken("client_token_forwarded", f"the upstream got {path} with headers {headers}")


# -- AUTH-008 ----------------------------------------------------------------------------------------------------

def _as_text(answer: Any) -> str:
    return answer.decode("utf-8", "replace") if isinstance(answer, bytes) else json.dumps(answer, default=str)


@promise("objects_scoped_to_user", "a user cannot read another user's object, and cannot tell it exists",
         reasons={
             "other_users_object_served": "user bob was shown alice's invoice",
             "existence_revealed": "bob's answer for alice's invoice differs from his answer for an id that does not exist",
             "own_object_refused": "alice could not read her own invoice",
         }, seconds=20)
def objects_scoped_to_user(block: ModuleType) -> None:
    """``get_invoice(arguments, claims)`` reads table ``invoices(id, owner, total)`` of the block's ``DB``. The
    check fills it with one invoice each for alice and bob, then asks as bob for alice's, passing ``user_id``
    as a model would that copied it from an earlier answer."""
    db: sqlite3.Connection = block.DB
    db.execute("CREATE TABLE IF NOT EXISTS invoices (id TEXT PRIMARY KEY, owner TEXT, total TEXT)")
    db.executemany("INSERT OR REPLACE INTO invoices VALUES (?, ?, ?)",
                   [("INV-1001", "alice", "1250.00 EUR"), ("INV-2002", "bob", "80.00 EUR")])
    db.commit()
    own = _as_text(block.get_invoice({"invoice_id": "INV-1001", "user_id": "alice"}, {"sub": "alice"}))
    if "1250.00" not in own:
        raise Broken("own_object_refused", f"alice asked for INV-1001 and got {own[:200]}")
    taken = _as_text(block.get_invoice({"invoice_id": "INV-1001", "user_id": "alice"}, {"sub": "bob"}))
    if "1250.00" in taken:
        raise Broken("other_users_object_served", f"bob asked for INV-1001 (user_id alice) and got {taken[:200]}")
    missing = _as_text(block.get_invoice({"invoice_id": "INV-9999", "user_id": "alice"}, {"sub": "bob"}))
    if taken != missing:
        raise Broken("existence_revealed", f"alice's invoice: {taken[:120]}; no such invoice: {missing[:120]}")


# -- AUTH-009 ----------------------------------------------------------------------------------------------------

ADMIN_TOKEN = "hb-helpdesk-admin-token-5d1b"
ALICE_TOKEN = "hb-helpdesk-token-of-alice-9a2c"
TICKETS = {4711: ("bob", "ticket 4711 (bob): refund to the card ending 4242"),
           4712: ("alice", "ticket 4712 (alice): printer on floor 3")}

prelude("helpdesk_admin_token", f"import os\nos.environ.setdefault('HELPDESK_ADMIN_TOKEN', {ADMIN_TOKEN!r})\n")


def _helpdesk(path: str, headers: dict[str, str]) -> tuple[int, bytes]:
    """The helpdesk applies the rights of whoever the token names: the admin reads everything, a user their own."""
    token = headers.get("authorization", "").removeprefix("Bearer ")
    who = {ADMIN_TOKEN: "admin", ALICE_TOKEN: "alice"}.get(token)
    if who is None:
        return 401, b'{"error": "unknown token"}'
    number = path.rsplit("/", 1)[-1]
    ticket = TICKETS.get(int(number)) if number.isdigit() else None
    if ticket is None or who not in ("admin", ticket[0]):
        return 404, b'{"error": "no such ticket"}'
    return 200, json.dumps({"text": ticket[1]}).encode()


class _UserTokens:
    def for_user(self, subject: str) -> str:
        return {"alice": ALICE_TOKEN}[subject]


@promise("users_own_authority", "a call made for a user reaches only what that user may reach upstream",
         reasons={
             "server_authority_lent": "alice was shown bob's ticket: the call used more authority than hers",
             "own_ticket_refused": "alice could not read her own ticket",
         }, seconds=20)
def users_own_authority(block: ModuleType) -> None:
    """``read_ticket(arguments, claims, user_tokens)`` calls ``HELPDESK``; the stand-in helpdesk answers the admin
    token with every ticket and alice's token with hers only. Alice asks for bob's ticket."""
    with serve(_helpdesk) as base:
        vars(block)["HELPDESK"] = f"{base}/api"
        own = _as_text(block.read_ticket({"ticket": 4712}, {"sub": "alice"}, _UserTokens()))
        if "printer" not in own:
            raise Broken("own_ticket_refused", f"alice asked for 4712 and got {own[:200]}")
        try:
            other = _as_text(block.read_ticket({"ticket": 4711}, {"sub": "alice"}, _UserTokens()))
        except (urllib.error.HTTPError, PermissionError, LookupError):
            return  # the helpdesk (or the server) refused: alice's own rights decided
    if "refund" in other:
        raise Broken("server_authority_lent", f"alice asked for 4711 and got {other[:200]}")


# -- AUTH-010 ----------------------------------------------------------------------------------------------------

@promise("session_bound_to_user", "a session is served only to the user who opened it",
         reasons={
             "session_served_to_other_user": "bob's request with alice's session id got alice's session state",
             "owner_refused": "alice's own request in her session was refused",
         }, seconds=10)
def session_bound_to_user(block: ModuleType) -> None:
    """``open_session(session_id, claims)`` then ``session_state(headers, claims)``; a refusal is an exception."""
    block.open_session("s-3f9c", {"sub": "alice"})
    try:
        block.session_state({"mcp-session-id": "s-3f9c"}, {"sub": "alice"})
    except Exception as exc:  # noqa: BLE001
        raise Broken("owner_refused", f"alice in her own session: {exc!r}") from None
    try:
        state = block.session_state({"mcp-session-id": "s-3f9c"}, {"sub": "bob"})
    except Exception:  # noqa: BLE001 - refused, as for a session that never existed
        return
    raise Broken("session_served_to_other_user", f"bob with alice's session id got {state!r}")


# -- AUTH-011 ----------------------------------------------------------------------------------------------------

SERVER_HOST = "mcp.example.com"
"""The MCP server's own web origin in the page's blocks; any other host in an elicitation URL is a third party."""


def _url_in(message: Any) -> str:
    """The URL of the URL-mode elicitation in a message (``params.url``, or inside ``inputRequests``)."""
    if isinstance(message, dict):
        if message.get("mode") == "url" and isinstance(message.get("url"), str):
            return message["url"]
        for value in message.values():
            found = _url_in(value)
            if found:
                return found
    return ""


def _journey(block: ModuleType, starter: str, opener: str) -> str:
    """``starter`` gets the elicitation; ``opener``'s browser opens its URL, signs in at the third party and comes
    back to the server's callback. Returns what the callback did; raises PermissionError where the server refused."""
    url = urlsplit(_url_in(block.connect_calendar({"sub": starter}, f"session-of-{starter}")))
    if not url.scheme:
        raise RuntimeError("connect_calendar() returned no URL-mode elicitation")
    if url.hostname == SERVER_HOST:  # the server's own connect page: it sees who opened it
        values = [v for listed in parse_qs(url.query).values() for v in listed]
        url = urlsplit(block.open_connect_page(values[0] if values else "", opener)["redirect"])
    state = parse_qs(url.query).get("state", [""])[0]  # the third party: the opener signs in and approves
    return repr(block.oauth_callback(state, f"calendar-code-of-{opener}", opener))


@promise("elicitation_bound_to_user", "only the user who started a URL-mode elicitation can complete it",
         reasons={
             "completed_by_other_user": "bob opened the link alice's elicitation carried and linked his calendar to her",
             "starter_refused": "alice could not complete her own elicitation",
         }, seconds=10)
def elicitation_bound_to_user(block: ModuleType) -> None:
    """``connect_calendar(claims, session_id)`` returns the elicitation; ``open_connect_page(value,
    browser_user)`` is the server's page (when the URL points there) and returns ``{"redirect": URL}``;
    ``oauth_callback(state, code, browser_user)`` is the redirect back from the third party. A refusal is a
    PermissionError."""
    try:
        _journey(block, "alice", "alice")
    except PermissionError as exc:
        raise Broken("starter_refused", f"alice completing her own link: {exc}") from None
    try:
        done = _journey(block, "alice", "bob")
    except PermissionError:
        return
    raise Broken("completed_by_other_user", f"bob completed alice's elicitation: {done[:200]}")


@promise("request_state_bound", "a 2026-07-28 requestState works only for the user and call it was issued for",
         reasons={
             "state_accepted_for_other_user": "bob's retry with alice's requestState was accepted",
             "tampered_state_accepted": "a requestState with one character changed was accepted",
             "no_input_required": "the first call did not answer with an InputRequiredResult carrying a URL-mode "
                                  "elicitation and a requestState",
         }, seconds=10)
def request_state_bound(block: ModuleType) -> None:
    """``list_events(params, claims)`` answers ``tools/call`` in 2026-07-28: an ``InputRequiredResult`` until the
    user connected the calendar, then the result; a refused retry raises (the server answers a JSON-RPC error)."""
    first = block.list_events({"name": "list_events", "arguments": {}}, {"sub": "alice"})
    state = first.get("requestState") if isinstance(first, dict) else None
    if first.get("resultType") != "input_required" or not _url_in(first.get("inputRequests")) or not state:
        raise Broken("no_input_required", f"first answer: {json.dumps(first)[:200]}")
    retry = {"name": "list_events", "arguments": {}, "requestState": state,
             "inputResponses": {key: {"action": "accept"} for key in first["inputRequests"]}}
    again = block.list_events(retry, {"sub": "alice"})  # not connected yet: asked again, not refused
    if again.get("resultType") != "input_required":
        raise RuntimeError(f"alice's retry before connecting should be asked again: {json.dumps(again)[:200]}")
    try:
        stolen = block.list_events(retry, {"sub": "bob"})
    except Exception:  # noqa: BLE001 - rejected
        stolen = None
    if stolen is not None:
        raise Broken("state_accepted_for_other_user", f"bob's retry: {json.dumps(stolen)[:200]}")
    head, last = state[:-1], state[-1]
    forged = head + ("A" if last != "A" else "B")
    try:
        tampered = block.list_events({**retry, "requestState": forged}, {"sub": "alice"})
    except Exception:  # noqa: BLE001 - rejected
        return
    raise Broken("tampered_state_accepted", f"retry with a changed requestState: {json.dumps(tampered)[:200]}")

