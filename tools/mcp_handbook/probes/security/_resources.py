"""What the resource probes of this gate share: meeting a server that declares resources, listing them, and
finding the URI under which it serves a file the probe planted in its root.

A server names files in its own way: ``file:///docs/a.md`` relative to its root, ``file:///srv/root/docs/a.md``
absolute, or through a template such as ``file:///{path}``. The probe does not guess: it plants a file, finds
it in ``resources/list`` (or builds its URI from a ``file:`` template and checks the server serves it), and
takes the text before the file's name as the *base* every other URI is built on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from ...wire import WireSession
from ..support import ProbeAbort, Target, WireTimeout, compact, handshake, no_server_action, not_applicable

MAX_PAGES = 20
NO_RESOURCES = "does not apply: the server does not declare the resources capability"


def resources_session(target: Target, *, reads: bool = True) -> WireSession:
    """Start the server and complete the handshake; N/A (*does not apply*) when it declares no ``resources``, and
    (*not checked*) when the probe ``reads`` and the audit sends no ``resources/read`` (``--no-tool-calls``)."""
    session, init = handshake(target)
    capabilities = init.get("capabilities")
    if not (isinstance(capabilities, dict) and isinstance(capabilities.get("resources"), dict)):
        raise ProbeAbort(not_applicable(NO_RESOURCES, f"capabilities: {compact(capabilities, 200)}"))
    if reads and not target.may_request("resources/read"):
        raise ProbeAbort(not_applicable(no_server_action("resources/read")))
    return session


def list_all(session: WireSession, target: Target, method: str, field: str) -> list[dict[str, Any]]:
    """Every entry of a paged listing (``resources/list``, ``resources/templates/list``), bounded; an error or
    silence counts as an empty listing (a server may serve templates only)."""
    items: list[dict[str, Any]] = []
    cursor: Any = None
    for _ in range(MAX_PAGES):
        try:
            answer = session.request(method, {} if cursor is None else {"cursor": cursor}, timeout=target.timeout)
        except WireTimeout:
            return items
        result = answer.get("result")
        if not isinstance(result, dict):
            return items
        items += [item for item in result.get(field) or [] if isinstance(item, dict)]
        cursor = result.get("nextCursor")
        if not cursor:
            break
    return items


def read(session: WireSession, uri: str, *, timeout: float) -> dict[str, Any]:
    return session.request("resources/read", {"uri": uri}, timeout=timeout)


def contents_of(answer: dict[str, Any]) -> list[dict[str, Any]]:
    result = answer.get("result")
    contents = result.get("contents") if isinstance(result, dict) else None
    return [c for c in contents if isinstance(c, dict)] if isinstance(contents, list) else []


def _template_bases(templates: list[dict[str, Any]], root: Path) -> list[str]:
    """Bases built from ``file:`` templates that end in one variable (``file:///{path}``, ``file://{+path}``):
    the text before the variable, then that text plus the root's absolute path."""
    bases: list[str] = []
    for template in templates:
        text = template.get("uriTemplate")
        if not (isinstance(text, str) and text.startswith("file:") and text.endswith("}") and text.count("{") == 1):
            continue
        prefix = text[:text.index("{")]
        bases += [prefix, prefix.rstrip("/") + quote(str(root)) + "/"]
    return bases


def find_base(session: WireSession, target: Target, root: Path, name: str, expected: bytes
              ) -> tuple[str | None, list[str]]:
    """The base the server's URI for ``root/name`` starts with (URI minus the quoted name), or None, with evidence.

    The file's listed URI wins when it is listed; else each ``file:`` template is tried, and a base counts only
    when the server answers its URI with contents holding ``expected``."""
    _, base, evidence = find_planted(session, target, root, [(name, expected)])
    return base, evidence


def find_planted(session: WireSession, target: Target, root: Path, planted: list[tuple[str, bytes]]
                 ) -> tuple[str | None, str | None, list[str]]:
    """The first of several planted files (``(name, expected bytes)``, most likely first) the server names, with
    the base of its URI, or (None, None), with evidence: listed first, then through ``file:`` templates."""
    listed = list_all(session, target, "resources/list", "resources")
    uris = [uri for entry in listed if isinstance(uri := entry.get("uri"), str)]
    for name, _ in planted:
        quoted = quote(name)
        for uri in uris:
            if uri.startswith("file:") and uri.endswith("/" + quoted):
                return name, uri[:-len(quoted)], [f"resources/list names the planted file {uri}"]
    names = ", ".join(name for name, _ in planted)
    evidence = [f"resources/list: {len(listed)} resource(s), the planted {names} not among them"]
    templates = list_all(session, target, "resources/templates/list", "resourceTemplates")
    for base in _template_bases(templates, root):
        for name, expected in planted:
            try:
                answer = read(session, base + quote(name), timeout=target.timeout)
            except WireTimeout:
                continue
            evidence.append(f"resources/read {base + quote(name)} -> {compact(answer, 140)}")
            needle = expected.decode("latin-1")
            if any(needle in str(c.get("text", "")) or c.get("blob") for c in contents_of(answer)):
                return name, base, evidence
    if not templates:
        evidence.append("resources/templates/list: no file: template")
    return None, None, evidence
