"""How the model's field values read on the site: one table of labels, used by every page."""

from __future__ import annotations

from ..fields import CONDITIONS, condition_keys
from ..model import Rule

KIND_LABEL = {"wrong": ("✗ WRONG", "hb-wrong"), "correct": ("✓ CORRECT", "hb-correct")}
"""Label text and CSS class of a block: a mark and a word, so colour is never the only signal."""
SCOPE_LABEL = {"universal": "Universal", "opinionated": "Opinionated", "stack": "Stack"}
SCOPE_MEANING = {
    "universal": "holds for any MCP server, whatever its stack or deployment",
    "opinionated": "is a default we recommend and label as opinion; a team may choose otherwise and say why",
    "stack": "holds only for the named stack or deployment shape",
}
"""What a scope means, written to follow "A <scope> rule" (see :func:`scope_sentence`)."""
BASIS_LABEL = {"spec-must": "Spec: MUST", "spec-should": "Spec: SHOULD", "security": "Security", "practice": "Practice"}
BASIS_MEANING = {
    "spec-must": "the cited specification section says MUST (or REQUIRED) for this claim",
    "spec-should": "the cited specification section says SHOULD (or RECOMMENDED) for this claim",
    "security": "without it, a realistic deployment is exploitable; the weakness is cited",
    "practice": "this handbook's recommendation; the specification does not require it",
}
PROFILE_LABEL = {"spec": "Spec", "baseline": "Baseline", "full": "Full"}
SEVERITY_LABEL = {"high": "High", "medium": "Medium", "low": "Low"}
CHECK_LABEL = {"automated": "Automated", "manual": "Manual"}
CHECK_MARK = {"automated": "⚙", "manual": "✎"}
"""A mark beside the check kind's word on a rule page, so the two badges differ in more than colour."""
CHECK_MEANING = {
    "automated": "a probe checks it over a real stdio pipe, and its WRONG and CORRECT code is proved against the reference server",
    "manual": "a reviewer judges it; the rule's How it is verified section says exactly how",
}
SEVERITY_MEANING = {
    "high": "a break exposes data or the host, or makes the server unusable to clients",
    "medium": "a break degrades safety or interoperability",
    "low": "hygiene",
}


def scope_sentence(scope: str) -> str:
    """One sentence saying what a scope means: "An opinionated rule is a default we recommend ..."."""
    label = SCOPE_LABEL.get(scope, scope).lower()
    article = "An" if label[:1] in "aeio" else "A"  # "a universal": the u sounds like "you"
    return f"{article} {label} rule {SCOPE_MEANING.get(scope, '')}."


def scope_text(rule: Rule) -> str:
    label = SCOPE_LABEL.get(rule.scope, rule.scope)
    return f"{label}: {rule.stack}" if rule.scope == "stack" and rule.stack else label


def severity_text(rule: Rule) -> str:
    return SEVERITY_LABEL.get(rule.severity, rule.severity)


def check_text(rule: Rule) -> str:
    if rule.check == "automated":
        return f"automated (probe {rule.probe})" if rule.probe else "automated"
    return "manual (a reviewer judges)"


def basis_text(rule: Rule) -> str:
    return BASIS_LABEL.get(rule.basis, rule.basis or "?")


def condition_text(key: str) -> str:
    """What a condition key means, in words: ``takes-paths`` -> "a tool takes a file-system path"."""
    return CONDITIONS.get(key, key)


def qualifier_text(rule: Rule) -> str:
    parts = []
    for q in rule.qualifiers:
        if q.get("kind") == "empirical":
            what = f": {q['what']}" if q.get("what") else ""
            parts.append(f"empirical (observed {q.get('observed')}{what})")
        elif q.get("kind") == "conditional":
            words = str(q["when"]) if q.get("when") else " and ".join(condition_text(k) for k in condition_keys(q))
            parts.append(f"applies only when {words}")
    return "; ".join(parts)


def profile_text(rule: Rule) -> str:
    return ", ".join(PROFILE_LABEL[p] for p in rule.profiles) or "none"


def scope_tag(rule: Rule) -> str:
    """The rule's one scope tag: the scope, or ``Stack: <label>`` for a stack rule (never both, so the stack
    page, which lists every stack label, names each rule once)."""
    if rule.scope == "stack" and rule.stack:
        return f"Stack: {rule.stack}"
    return SCOPE_LABEL.get(rule.scope, rule.scope)


def page_tags(rule: Rule) -> list[str]:
    """Tags for the material tags plugin: the scope (or stack label), then the severity."""
    return [scope_tag(rule), f"Severity: {rule.severity}"]


ORDER_META = "hb_order"
"""A rule page's place in the checklist, set in its page meta, read back by the tag listings' sort key."""
