"""``rules.json``: every rule with its fields and snippets, for other tools and the site.

The shape is ``rules.schema.json`` beside this module. Every rule and snippet
carries the ``path:line`` it came from, so a consumer can point a person back
at the markdown.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from typing import Any

from ..model import Corpus, Rule, Snippet
from ..threats import CATEGORIES, LIST_NAME, LIST_READ_ON, LIST_STATUS, OWASP_MCP_TOP10
from .worksheet import Stamp

JSON_FORMAT = "mcp-handbook-rules"
JSON_FORMAT_VERSION = 1


def _plain(value: Any) -> Any:
    """YAML gives dates for ``observed:``; JSON wants text."""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def snippet_entry(snippet: Snippet) -> dict[str, Any]:
    return {
        "name": snippet.name,
        "kind": snippet.kind,
        "index": snippet.index,
        "language": snippet.language,
        "title": snippet.title,
        "seam": snippet.seam,
        "location": str(snippet.location),
        "path": snippet.location.path,
        "line": snippet.location.line,
        "end_line": snippet.location.end_line if snippet.location.end_line is not None else snippet.location.line,
        "code_line": snippet.code_line,
        "code": snippet.code,
    }


def rule_entry(rule: Rule, page: str = "") -> dict[str, Any]:
    return {
        "id": rule.id,
        "title": rule.title,
        "summary": rule.summary,
        "scope": rule.scope,
        "basis": rule.basis,
        "threats": list(rule.threats),
        "profiles": list(rule.profiles),
        "conditions": list(rule.conditions),
        "changelog": _plain(list(rule.changelog)),
        "stack": rule.stack,
        "qualifiers": _plain(list(rule.qualifiers)),
        "severity": rule.severity,
        "gate": rule.gate,
        "check": rule.check,
        "probe": rule.probe,
        "seam": rule.seam,
        "spec": rule.spec,
        "since": rule.since,
        "related": list(rule.related),
        "location": str(rule.location),
        "page": page,
        "path": rule.path,
        "line": rule.location.line,
        "sections": list(rule.sections),
        "body": rule.body,
        "body_line": rule.body_line,
        "snippets": [snippet_entry(s) for s in rule.snippets],
    }


def threat_list() -> dict[str, Any]:
    """The OWASP MCP Top 10 the rules' ``MCPnn`` ids are read against: its pinned version and its categories."""
    return {
        "name": LIST_NAME,
        "status": LIST_STATUS,
        "read_on": LIST_READ_ON,
        "label": OWASP_MCP_TOP10,
        "categories": [
            {"id": c.id, "name": c.name, "description": c.description, "beyond_server": c.beyond_server} for c in CATEGORIES
        ],
    }


def rules_document(corpus: Corpus, rules: Iterable[Rule], stamp: Stamp) -> dict[str, Any]:
    """The whole document as plain data; ``to_rules_json`` serialises it."""
    rules = list(rules)
    used = {r.gate for r in rules}
    return {
        "format": JSON_FORMAT,
        "format_version": JSON_FORMAT_VERSION,
        "doctrine_version": stamp.doctrine_version,
        "commit": stamp.commit,
        "date": stamp.date,
        "filters": {k: list(v) for k, v in stamp.filters.items()},
        "gates": [
            {"key": g.key, "title": g.title, "order": g.order, "summary": g.summary, "rules": sum(r.gate == g.key for r in rules)}
            for g in corpus.gates
            if g.key in used or not any(stamp.filters.values())
        ],
        "retired": _plain([dict(r) for r in corpus.retired]),
        "threat_list": threat_list(),
        "rules": [rule_entry(r, corpus.page_url(r)) for r in rules],
    }


def to_rules_json(corpus: Corpus, rules: Iterable[Rule], stamp: Stamp) -> str:
    return json.dumps(rules_document(corpus, rules, stamp), indent=2, ensure_ascii=False) + "\n"
