"""An :class:`Assessment` as words: terminal text, pull-request Markdown, a changelog entry.

Every function returns a string; the command prints it.
"""

from __future__ import annotations

import datetime as dt
import os

from ..model import Rule
from .versioning import Assessment, Impact

CHANGELOG_MARKER = "<!-- mcp-handbook: new entries go below this line -->"
SECTIONS = (("added", "Added"), ("changed", "Changed"), ("retired", "Retired"), ("removed", "Removed without retirement"), ("registry", "Registry"))


def _rule(a: Assessment, impact: Impact) -> Rule | None:
    return a.new_rules.get(impact.rule_id) or a.old_rules.get(impact.rule_id)


def _title(a: Assessment, impact: Impact) -> str:
    rule = _rule(a, impact)
    return rule.title if rule else ""


def _headline(a: Assessment, *, base: str, head: str) -> str:
    old = a.changes.old_version
    if a.level is None:
        return f"doctrine {old}: no rule changes between {base} and {head}"
    return f"doctrine {old} -> {a.suggested} suggested ({a.level}), comparing {base} with {head}"


def as_text(a: Assessment, *, base: str, head: str) -> str:
    """One editor-jumpable line per rule (``path:line: added SEC-009 ...``), details indented below."""
    lines = [_headline(a, base=base, head=head)]
    for impact in a.impacts:
        lines.append(f"{impact.where}: {impact.kind} {impact.rule_id} \"{_title(a, impact)}\" [{impact.level}]")
        lines.extend(f"    {d}" for d in impact.details)
    lines.extend(str(n) for n in a.notes)
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_details(impact: Impact) -> str:
    """Severity and scope changes are called out in bold: they change what reviewers must do."""
    shown = [f"**{d}**" if d.startswith(("severity", "scope")) else d for d in impact.details]
    return "; ".join(_md(d) for d in shown)


def as_markdown(a: Assessment, *, base: str, head: str) -> str:
    """A pull-request description: the suggested release, one table row per rule, the notes."""
    out = ["## Doctrine change", ""]
    if a.level is None:
        return "\n".join([*out, f"No rule changes between `{base}` and {head}; doctrine stays {a.changes.old_version}.", ""])
    out += [f"**Suggested release: {a.suggested}** ({a.level}; base {a.changes.old_version}), comparing `{base}` with {head}.", ""]
    out += ["| change | rule | what | bump |", "|---|---|---|---|"]
    for i in a.impacts:
        level = f"**{i.level}**" if i.level == "major" else i.level
        out.append(f"| {i.kind} | **{i.rule_id}** {_md(_title(a, i))} | {_md_details(i)} | {level} |")
    if a.notes:
        out += ["", "### Notes", "", *(f"- `{n.where}`: {_md(n.message)} ({_md(n.hint)})" for n in a.notes)]
    out += ["", "The bump follows the doctrine's versioning rules (content/versioning.md); a reviewer may raise it, "
                "e.g. when a reworded claim reverses the rule.", ""]
    out += ["<details><summary>CHANGELOG.md entry, drafted (edit it into sentences at the release)</summary>", "",
            changelog_entry(a).rstrip("\n"), "", "</details>", ""]
    return "\n".join(out)


def _today() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")  # reproducible drafts in tests and CI
    day = dt.datetime.fromtimestamp(int(epoch), dt.UTC).date() if epoch else dt.date.today()
    return day.isoformat()


def changelog_entry(a: Assessment) -> str:
    """A CHANGELOG.md entry for the next release, headed by the suggested version."""
    counts = ", ".join(f"{sum(i.kind == k for i in a.impacts)} {k}" for k, _ in SECTIONS if any(i.kind == k for i in a.impacts))
    out = [f"## {a.suggested} - {_today()}", "", f"{a.level.capitalize() if a.level else 'No'} release ({counts or 'no rule changes'})."]
    for kind, heading in SECTIONS:
        items = [i for i in a.impacts if i.kind == kind]
        if items:
            out += ["", f"### {heading}", ""]
            out += [f"- {i.rule_id} {_title(a, i)}: {'; '.join(i.details)}." for i in items]
    return "\n".join(out) + "\n"


def insert_entry(changelog: str, entry: str) -> str:
    """``changelog`` with ``entry`` placed just below the marker line (newest first)."""
    if CHANGELOG_MARKER not in changelog:
        raise ValueError(f"CHANGELOG.md has no line {CHANGELOG_MARKER!r} to insert below")
    head, _, tail = changelog.partition(CHANGELOG_MARKER + "\n")
    tail = tail if tail.startswith("\n") else "\n" + tail
    return f"{head}{CHANGELOG_MARKER}\n\n{entry}{tail}"
