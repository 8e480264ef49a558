"""AUTH-005: no tool asks the model for a credential, and no tool definition carries one.

A parameter named ``github_token`` or described as "your API key" makes the model the courier of the
user's secrets: it asks for them in the chat, keeps them in its context and sends them wherever the call
goes. Credentials belong in the server's launch configuration. The probe reads ``tools/list`` (no calls)
and walks every input schema, nested objects, arrays, ``$defs`` and combinators included, for parameters
that ask for a credential by name or description, and every definition for the server's canary or a
credential-shaped literal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ..registry import probe
from ..support import Finding, Target, failed, mask, not_applicable, passed, properties, tools_of

_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_CREDENTIAL_SUBSTRINGS = ("token", "secret", "password", "passwd", "passphrase", "credential", "apikey",
                          "authorization", "bearer", "cookie", "sessionid", "jwt")
_CREDENTIAL_KEY_SUFFIXES = ("apikey", "accesskey", "secretkey", "privatekey", "signingkey", "clientkey", "authkey",
                            "masterkey", "sshkey", "encryptionkey")
_NOT_CREDENTIAL_WORDS = frozenset({"page", "next", "continuation", "pagination", "cursor", "sync", "resume", "count",
                                   "counts", "used", "max", "min", "total", "limit", "remaining", "budget", "input",
                                   "output", "prompt", "completion"})
_ASKS_FOR_CREDENTIAL = re.compile(
    r"\b(?:your|user'?s?|an?|the)\s+(?:[\w-]+\s+){0,2}?(?:api[\s_-]?key|access[\s_-]?token|auth(?:entication|orization)?"
    r"[\s_-]?token|bearer\s+token|personal\s+access\s+token|password|passphrase|client[\s_-]?secret|secret[\s_-]?key|"
    r"private[\s_-]?key|session\s+cookie)\b", re.I)
_SECRET_LITERALS = re.compile(
    r"sk-[A-Za-z0-9_-]{20,}|ghp_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----|Bearer\s+[A-Za-z0-9._~+/-]{20,}")


def credential_name(name: str) -> bool:
    """A parameter name that asks for a credential (``api_key``, ``githubToken``, ``password``; not ``max_tokens``)."""
    words = [w.lower() for w in _WORD.findall(name)]
    flat = "".join(words)
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


@probe("no_credential_parameters", "no tool asks for or carries a credential", reasons={
    "credential_parameter": "a parameter asks the caller for a credential, by its name or its description",
    "secret_in_definition": "a tool definition carries the server's secret or a credential-shaped literal",
}, shares_session=True)
def no_credential_parameters(target: Target) -> Finding:
    """Read tools/list: no parameter may ask for a credential, and no definition may carry one."""
    tools = tools_of(target)
    if not tools:
        return not_applicable("the server lists no tools")
    problems: list[tuple[str, str]] = []
    for tool in tools:
        name = tool.get("name", "?")
        for pointer, prop, sub in _schema_properties(tool.get("inputSchema") or {}):
            if credential_name(prop):
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
                      *[text for _, text in problems[:8]])
    return passed(f"{len(tools)} tool definition(s): no parameter asks for a credential and none carries one",
                  *[f"{t.get('name')}: {', '.join(properties(t)) or '(no parameters)'}" for t in tools[:10]])
