"""How the model's field values read on the site: one table of labels, used by every page."""

from __future__ import annotations

from ..model import Rule

KIND_LABEL = {"wrong": ("✗ WRONG", "hb-wrong"), "correct": ("✓ CORRECT", "hb-correct")}
"""Label text and CSS class of a block: a mark and a word, so colour is never the only signal."""
SCOPE_LABEL = {"universal": "Universal", "opinionated": "Opinionated", "stack": "Stack"}
SCOPE_MEANING = {
    "universal": "holds for any MCP server, whatever its stack or deployment",
    "opinionated": "a default we recommend and label as opinion; a team may choose otherwise and say why",
    "stack": "holds only for the named stack or deployment shape",
}
SEVERITY_LABEL = {"high": "High", "medium": "Medium", "low": "Low"}
CHECK_LABEL = {"automated": "Automated", "manual": "Manual"}


def scope_text(rule: Rule) -> str:
    label = SCOPE_LABEL.get(rule.scope, rule.scope)
    return f"{label}: {rule.stack}" if rule.scope == "stack" and rule.stack else label


def severity_text(rule: Rule) -> str:
    return SEVERITY_LABEL.get(rule.severity, rule.severity)


def check_text(rule: Rule) -> str:
    if rule.check == "automated":
        return f"automated (probe {rule.probe})" if rule.probe else "automated"
    return "manual (a reviewer judges)"


def qualifier_text(rule: Rule) -> str:
    parts = []
    for q in rule.qualifiers:
        if q.get("kind") == "empirical":
            parts.append(f"empirical (observed {q.get('observed')})")
        elif q.get("kind") == "conditional":
            parts.append(f"conditional: {q.get('when')}")
    return "; ".join(parts)


def page_tags(rule: Rule) -> list[str]:
    """Tags for the material tags plugin: the scope, the stack label, the severity."""
    tags = [SCOPE_LABEL.get(rule.scope, rule.scope)]
    if rule.scope == "stack" and rule.stack:
        tags.append(f"Stack: {rule.stack}")
    tags.append(f"Severity: {rule.severity}")
    return tags
