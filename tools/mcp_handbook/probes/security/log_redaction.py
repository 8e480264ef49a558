"""SEC-008: values under secret-looking keys are redacted, at every depth, before anything is logged.

Servers log the arguments of calls they refuse or fail, and arguments carry credentials nested in
objects and lists under names like ``client_secret`` or ``Authorization``. Logs are kept, shipped and
shared far more widely than the secrets they end up holding. The probe turns on debug logging, sends a
fresh random value under such keys at several depths in an extra argument, and reads stderr and every
``notifications/message``: the value must appear in none of them.

The value is minted for this run and is *not* the canary: the canary is also in the server's environment
(``HB_CANARY``, ``API_TOKEN``), so a server that masks its own environment values, with no redaction by key
at all, would hide it and pass. Only a value the server has never seen can be hidden by its key alone.
"""

from __future__ import annotations

import secrets as _secrets

from ..registry import probe
from ..support import (
    compact, failed, fill_arguments, Finding, mask, not_applicable, passed, session_with_tools, show, Target,
    WireTimeout,
)
from ._common import pipeline


@probe("secrets_redacted_in_logs", "secret-named argument values never reach a log", calls_tools=True,
       reasons={"secret_in_log": "a value sent under a secret-looking key appeared on stderr or in a log notification"})
def secrets_redacted_in_logs(target: Target) -> Finding:
    """Send secret-named values nested in arguments with debug logging on; neither stderr nor notifications may show them."""
    session, init, tools = session_with_tools(target)
    secret = f"hb-logged-{_secrets.token_hex(8)}"  # not the canary: nothing in the server's environment holds it

    def hide(text: str) -> str:  # evidence never shows the value, nor the canary
        return mask(text, target).replace(secret, "<SECRET>")

    context = {"api_token": secret, "settings": {"client_secret": secret, "retry": 2},
               "headers": [{"Authorization": f"Bearer {secret}"}], "db": {"password": secret}}
    evidence = []
    if "logging" in (init.get("capabilities") or {}):
        try:
            answer = session.request("logging/setLevel", {"level": "debug"}, timeout=target.timeout)
            evidence.append(f"logging/setLevel debug -> {compact(answer, 120)}")
        except WireTimeout as exc:
            evidence.append(f"logging/setLevel did not answer: {exc}")
    candidates = [t for t in tools if target.may_call(t)][:3]
    if not candidates:
        return not_applicable("no tool may be called, so no arguments can carry a secret to the server's logs")
    calls = [(t["name"], {**fill_arguments(t), "hb_probe_context": context}) for t in candidates]
    for name, _arguments, response in pipeline(session, calls, timeout=target.timeout):
        evidence.append(f"{name}(…, hb_probe_context={{api_token, settings.client_secret, headers[0].Authorization, "
                        f"db.password}}) -> {show(hide(compact(response, 10_000)), target, 140) if response else 'no answer'}")
    session.close(grace=1.0)
    stderr = [ln.text for ln in session.stderr_lines]
    notes = [m.line.text for m in session.stdout
             if isinstance(m.value, dict) and m.value.get("method") == "notifications/message"]
    leaks = [f"stderr: {hide(line)[:240]}" for line in stderr if secret in line]
    leaks += [f"notifications/message: {hide(line)[:240]}" for line in notes if secret in line]
    seen = [f"logged: {hide(line)[:240]}" for line in [*stderr, *notes] if "hb_probe_context" in line][:3]
    if leaks:
        return failed("secret_in_log", f"{len(leaks)} log record(s) carry a value sent under a secret-looking key",
                      *leaks[:6], *evidence)
    return passed(f"{len(stderr)} stderr line(s) and {len(notes)} log notification(s) inspected; the value sent under "
                  "secret-looking keys appears in none",
                  *seen, *evidence)
