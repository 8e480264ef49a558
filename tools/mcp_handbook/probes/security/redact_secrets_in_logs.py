"""SEC-008: values under secret-looking keys are redacted, at every depth, before anything is logged.

Servers log the arguments of calls they refuse or fail, and arguments carry credentials nested in
objects and lists under names like ``client_secret`` or ``Authorization``. Logs are kept, shipped and
shared far more widely than the secrets they end up holding. The probe turns on debug logging, sends a
fresh random value under such keys at several depths in an extra argument, and reads stderr and every
``notifications/message``: the value must appear in none of them.

After the calls it also sends requests that fail validation with a token under ``api_token``: a
``tools/list`` whose cursor is an object, a line cut short, and (when tool calls are allowed) a ``tools/call``
with no ``name``. An SDK that logs what it could not validate (the Python SDK 1.30 prints pydantic's
``input_value=`` with the middle of a long value cut out) writes part of the token to stderr: any
:data:`MIN_PART` characters of it in a log record is a leak, since a token's tail is as good as the token to
whoever recognises it. These need no tool call, so they run under ``--no-tool-calls`` too.

The value is minted for this run and is *not* the canary: the canary is also in the server's environment
(``HB_CANARY``, ``API_TOKEN``), so a server that masks its own environment values, with no redaction by key
at all, would hide it and pass. Only a value the server has never seen can be hidden by its key alone.
"""

from __future__ import annotations

import json
import secrets as _secrets
import string

from ..registry import probe
from ..support import (
    compact, failed, fill_arguments, Finding, listed, mask, not_applicable, passed, session_with_tools, show, Target,
    trivial_method, WireTimeout,
)
from ._common import pipeline

MIN_PART = 12
"""Characters of a secret in a row that make a log record a leak: a 40-character token's last 21 (pydantic's cut)
name it to whoever holds the rest of the log, and no word of an ordinary log line shares 12 with a random token."""
TOKEN_CHARS = string.ascii_letters + string.digits


def _token() -> str:
    """A fresh value shaped like a GitHub token (``ghp_`` and 36 letters and digits): nothing else holds it."""
    return "ghp_" + "".join(_secrets.choice(TOKEN_CHARS) for _ in range(36))


def longest_part(text: str, secret: str) -> str:
    """The longest run of ``secret`` found in ``text`` (at least :data:`MIN_PART` characters), or ``""``."""
    for size in range(len(secret), MIN_PART - 1, -1):
        for start in range(len(secret) - size + 1):
            if secret[start:start + size] in text:
                return secret[start:start + size]
    return ""


def malformed_requests(target: Target, token: str) -> list[tuple[str, bytes]]:
    """(what, line) for requests that fail validation carrying ``token`` under ``api_token``; a nameless
    ``tools/call`` only where the audit may send ``tools/call`` (its guard reads the method name, not the name)."""
    hide = {"api_token": token}
    lines = [("tools/list with an object for its cursor, {cursor: {api_token}}",
              json.dumps({"jsonrpc": "2.0", "id": "hb-log-1", "method": "tools/list", "params": {"cursor": hide}})),
             ("a line cut short after {api_token}",
              '{"jsonrpc": "2.0", "id": "hb-log-2", "method": "tools/list", "params": ' + json.dumps(hide))]
    if target.may_request("tools/call"):
        lines.append(("tools/call without a name, {arguments: {api_token}}", json.dumps(
            {"jsonrpc": "2.0", "id": "hb-log-3", "method": "tools/call", "params": {"arguments": hide}})))
    return [(what, (line + "\n").encode()) for what, line in lines]


@probe("redact_secrets_in_logs", "secret-named argument values never reach a log",
       reasons={"secret_in_log": "a value sent under a secret-looking key appeared on stderr or in a log notification"})
def redact_secrets_in_logs(target: Target) -> Finding:
    """Send secret-named values nested in arguments with debug logging on, then in requests that fail validation;
    neither stderr nor notifications may show them, whole or :data:`MIN_PART` characters of them."""
    session, init, tools = session_with_tools(target)
    secret = f"hb-logged-{_secrets.token_hex(8)}"  # not the canary: nothing in the server's environment holds it
    token = _token()

    def hide(text: str) -> str:  # evidence never shows the value (nor a part of it), nor the canary
        text = mask(text, target).replace(secret, "<SECRET>").replace(token, "<SECRET>")
        for _ in range(8):  # a record may hold several parts of it
            part = longest_part(text, token) or longest_part(text, secret)
            if not part:
                break
            text = text.replace(part, f"<{len(part)} CHARACTERS OF THE SECRET>")
        return text

    evidence: list[str] = []
    context = {"api_token": secret, "settings": {"client_secret": secret, "retry": 2},
               "headers": [{"Authorization": f"Bearer {secret}"}], "db": {"password": secret}}
    if "logging" in (init.get("capabilities") or {}):
        try:
            answer = session.request("logging/setLevel", {"level": "debug"}, timeout=target.timeout)
            evidence.append(f"logging/setLevel debug -> {compact(answer, 120)}")
        except WireTimeout as exc:
            evidence.append(f"logging/setLevel did not answer: {exc}")
    candidates = [t for t in tools if target.may_call(t)][:3]
    calls = [(t["name"], {**fill_arguments(t), "hb_probe_context": context}) for t in candidates]
    for name, _arguments, response in pipeline(session, calls, timeout=target.timeout) if calls else []:
        evidence.append(f"{name}(…, hb_probe_context={{api_token, settings.client_secret, headers[0].Authorization, "
                        f"db.password}}) -> {show(hide(compact(response, 10_000)), target, 140) if response else 'no answer'}")
    malformed = malformed_requests(target, token)  # last: a server that gives up on a bad line has answered the rest
    for _what, line in malformed:
        session.send_raw(line)
    try:
        session.request(trivial_method(target), {}, timeout=target.timeout)
    except WireTimeout:
        pass
    evidence.append(f"sent, failing validation: {'; '.join(what for what, _ in malformed)}")
    session.close(grace=1.0)
    stderr = [ln.text for ln in session.stderr_lines]
    notes = [m.line.text for m in session.stdout
             if isinstance(m.value, dict) and m.value.get("method") == "notifications/message"]
    leaks = [f"{where}: {hide(line)[:240]}" for where, lines in (("stderr", stderr), ("notifications/message", notes))
             for line in lines if longest_part(line, token) or longest_part(line, secret)]
    seen = [f"logged: {hide(line)[:240]}" for line in [*stderr, *notes] if "hb_probe_context" in line][:3]
    if leaks:
        return failed("secret_in_log", f"{len(leaks)} log record(s) carry a value sent under a secret-looking key, "
                      f"whole or {MIN_PART}+ characters of it", *listed(leaks, 6), *evidence)
    if not candidates:
        return not_applicable(f"not checked: no tool may be called, so no arguments carried a secret to the server's "
                              f"logs; {len(malformed)} request(s) failing validation with a secret under api_token left "
                              f"no part of it in {len(stderr)} stderr line(s) or {len(notes)} log notification(s)",
                              *evidence)
    return passed(f"{len(stderr)} stderr line(s) and {len(notes)} log notification(s) inspected; the value sent under "
                  "secret-looking keys appears in none",
                  *seen, *evidence)
