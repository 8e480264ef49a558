"""AUTH-005: no tool asks the model for a credential, and no tool definition carries one.

A parameter named ``github_token`` or described as "your API key" makes the model the courier of the
user's secrets: it asks for them in the chat, keeps them in its context and sends them wherever the call
goes. Credentials belong in the server's launch configuration. The probe reads ``tools/list`` (no calls, so
it runs over Streamable HTTP too) and walks every input schema, nested objects, arrays, ``$defs`` and combinators included, for parameters
that ask for a credential by name or description, and every definition for the server's canary or a
credential-shaped literal.

A credential authenticates to a service. A password that protects a document, a sheet, a workbook or an archive
(Excel's sheet protection, an encrypted PDF or zip) is data the user chooses for the file, and the model may well
be asked to set it: :func:`document_password` leaves it alone when its name, its description, the objects around
it or the tool say so, and nothing at the parameter says login, account, database or server. Tokens, keys and
secrets are never read that way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ..registry import probe
from ..support import Finding, Target, failed, listed, mask, not_applicable, passed, properties, tools_of

_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_CREDENTIAL_SUBSTRINGS = ("token", "secret", "password", "passwd", "passphrase", "credential", "apikey",
                          "authorization", "bearer", "cookie", "sessionid", "jwt")
_CREDENTIAL_KEY_SUFFIXES = ("apikey", "accesskey", "secretkey", "privatekey", "signingkey", "clientkey", "authkey",
                            "masterkey", "sshkey", "encryptionkey")
_NOT_CREDENTIAL_WORDS = frozenset({"page", "next", "continuation", "pagination", "cursor", "sync", "resume", "count",
                                   "counts", "used", "max", "min", "total", "limit", "remaining", "budget", "input",
                                   "output", "prompt", "completion"})
_ABOUT_A_CREDENTIAL = frozenset({"type", "types", "kind", "kinds", "name", "names", "status", "state", "states",
                                 "policy", "expiry", "expires", "expiration", "format", "length", "scope", "scopes",
                                 "filter", "label", "labels", "provider", "validity", "resolution"})
"""The last word of a name that describes a credential rather than holds one: ``secret_type`` (a filter on the kind of
secret-scanning alert), ``token_expiry``, ``secret_name`` (the secret itself stays where it is kept)."""
_ASKS_FOR_CREDENTIAL = re.compile(
    r"\b(?:your|user'?s?|an?|the)\s+(?:[\w-]+\s+){0,2}?(?:api[\s_-]?key|access[\s_-]?token|auth(?:entication|orization)?"
    r"[\s_-]?token|bearer\s+token|personal\s+access\s+token|password|passphrase|client[\s_-]?secret|secret[\s_-]?key|"
    r"private[\s_-]?key|session\s+cookie)\b", re.I)
_SECRET_LITERALS = re.compile(
    r"sk-[A-Za-z0-9_-]{20,}|ghp_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----|Bearer\s+[A-Za-z0-9._~+/-]{20,}")


_PASSWORD_NAMES = frozenset({"password", "passwd", "passphrase", "pwd"})
"""The last word of a parameter name that may hold a document's password rather than a credential."""
_DOCUMENT_WORDS = re.compile(
    r"\b(?:protect|protected|protection|unprotect|sheet|sheets|worksheet|workbook|spreadsheet|excel|document|pdf|docx|"
    r"xlsx|xlsm|pptx|odt|ods|zip|archive|rar|7z|vba)\b", re.I)
"""What says a password protects a file: a document, a sheet, a workbook, an archive."""
_SERVICE_WORDS = re.compile(
    r"\b(?:login|log\s+in|sign\s+in|signin|account|username|database|db|server|host|service|api|auth|authenticate|"
    r"authentication|smtp|imap|ssh|ftp|sftp|connection|connect|proxy|vpn|ldap|oauth|credential|credentials|wifi)\b", re.I)
"""What says a password authenticates to a service: then it is a credential, whatever else the tool does."""


def _spaced(text: str) -> str:
    """Names split into words (``StructureProtection`` -> ``Structure Protection``, ``db_password`` -> ``db password``)."""
    return " ".join(_WORD.findall(text))


def document_password(tool: dict[str, Any], pointer: str, name: str, sub: dict[str, Any]) -> bool:
    """True when a password-named parameter protects a document, sheet or archive (data) rather than logging in to
    a service (a credential): document words at the parameter (its name, description, the objects and ``$defs``
    around it), or in the tool's name and description when the tool speaks of no service either; and no service
    word at the parameter itself."""
    words = [w.lower() for w in _WORD.findall(name)]
    if not words or words[-1] not in _PASSWORD_NAMES:
        return False
    here = " ".join([_spaced(pointer.replace("/", " ")), str(sub.get("description") or ""), str(sub.get("title") or "")])
    if _SERVICE_WORDS.search(here):
        return False
    if _DOCUMENT_WORDS.search(here):
        return True
    said = " ".join([_spaced(str(tool.get("name") or "")), str(tool.get("title") or ""), str(tool.get("description") or "")])
    return bool(_DOCUMENT_WORDS.search(said)) and not _SERVICE_WORDS.search(said)


def credential_name(name: str) -> bool:
    """A parameter name that asks for a credential (``api_key``, ``githubToken``, ``password``; not ``max_tokens``)."""
    words = [w.lower() for w in _WORD.findall(name)]
    flat = "".join(words)
    if words and words[-1] in _ABOUT_A_CREDENTIAL and len(words) > 1:
        return False  # secret_type, token_expiry: a question about a credential, not one
    if flat.endswith(_CREDENTIAL_KEY_SUFFIXES) or "pwd" in words:
        return True
    hits = [s for s in _CREDENTIAL_SUBSTRINGS if s in flat]
    if hits == ["token"] and _NOT_CREDENTIAL_WORDS.intersection(words):
        return False  # next_token, page_token, max_tokens: pagination and usage counters
    return bool(hits)


def _schema_properties(schema: Any, pointer: str = "", depth: int = 0) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every (pointer, property name, property schema) in a JSON Schema, nested objects and arrays included."""
    if not isinstance(schema, dict) or depth > 12:
        return
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict):
            yield f"{pointer}/{name}", name, sub
            yield from _schema_properties(sub, f"{pointer}/{name}", depth + 1)
    for key in ("items", "additionalProperties", "not", "if", "then", "else"):
        if isinstance(schema.get(key), dict):
            yield from _schema_properties(schema[key], f"{pointer}/{key}", depth + 1)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for i, sub in enumerate(schema.get(key) or []):
            yield from _schema_properties(sub, f"{pointer}/{key}/{i}", depth + 1)
    for key in ("$defs", "definitions", "patternProperties"):
        for name, sub in (schema.get(key) or {}).items():
            yield from _schema_properties(sub, f"{pointer}/{key}/{name}", depth + 1)


@probe("no_credentials_in_tool_surface", "no tool asks for or carries a credential", over_http=True, reasons={
    "credential_parameter": "a parameter asks the caller for a credential, by its name or its description",
    "secret_in_definition": "a tool definition carries the server's secret or a credential-shaped literal",
}, shares_session=True)
def no_credentials_in_tool_surface(target: Target) -> Finding:
    """Read tools/list: no parameter may ask for a credential, and no definition may carry one."""
    tools = tools_of(target)
    if not tools:
        return not_applicable("the server lists no tools")
    problems: list[tuple[str, str]] = []
    kept: list[str] = []  # passwords that protect a document, not a login: named, not failed
    for tool in tools:
        name = tool.get("name", "?")
        for pointer, prop, sub in _schema_properties(tool.get("inputSchema") or {}):
            if document_password(tool, pointer, prop, sub):
                kept.append(f"{name}: {pointer} is a document's password (data the user sets on a file), not a "
                            "credential")
            elif credential_name(prop):
                problems.append(("credential_parameter", f"{name}: parameter {pointer} asks for a credential by its name"))
            elif _ASKS_FOR_CREDENTIAL.search(str(sub.get("description", ""))):
                problems.append(("credential_parameter", f"{name}: parameter {pointer} asks for a credential in its "
                                 f"description: {str(sub.get('description'))[:120]!r}"))
        text = json.dumps(tool, ensure_ascii=False)
        if target.canary and target.canary in text:
            shown = mask(text, target)[:200]
            problems.append(("secret_in_definition", f"{name}: the definition contains the server's own secret: {shown}"))
        literal = _SECRET_LITERALS.search(text)
        if literal:
            problems.append(("secret_in_definition",
                             f"{name}: the definition contains a credential-looking literal {literal.group(0)[:12]}…"))
    if problems:
        return failed(problems[0][0], f"{len(problems)} credential(s) asked for or exposed in the tool surface",
                      *listed(text for _, text in problems), *kept[:4])
    return passed(f"{len(tools)} tool definition(s): no parameter asks for a credential and none carries one",
                  *kept[:4], *[f"{t.get('name')}: {', '.join(properties(t)) or '(no parameters)'}" for t in tools[:10]])
