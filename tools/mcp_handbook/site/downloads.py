"""The downloads page: one entry per file the build writes under ``site/downloads/``.

The names come from the exporters' own table (``export.DOWNLOADS``), so the
page lists exactly what the build produces. The files are not in docs_dir,
so the links are raw HTML, which the strict build does not try to resolve;
the site tests fetch every one of them instead.
"""

from __future__ import annotations

from html import escape

DESCRIPTIONS = {
    "worksheet.md": ("Audit worksheet, Markdown",
                     "One row per rule with empty status, evidence and notes; paste into a pull request or a review "
                     "document."),
    "worksheet.csv": ("Audit worksheet, CSV", "The same rows for a spreadsheet; the doctrine version and commit are repeated on every row."),
    "worksheet.json": ("Audit worksheet, JSON", "The same rows for tools; the interactive worksheet imports this file to resume a review."),
    "worksheet.xlsx": ("Audit worksheet, Excel", "The same rows as a workbook with a status drop-down."),
    "rules.json": ("Every rule as data", "All fields, summaries and WRONG/CORRECT snippets, each with the path:line it came from."),
    "mcp-server-authoring-skill.zip": ("Agent Skill bundle",
                                       "SKILL.md, an index per gate, a file per rule and two scripts, so a coding "
                                       "agent loads only the rules a task needs."),
}
"""Title and one-line purpose by file name; a file without an entry is still listed."""


def download_names() -> list[str]:
    """The files the build writes, in the exporters' order."""
    from ..export import DOWNLOADS

    return list(DOWNLOADS)


def downloads_list(*, version: str, prefix: str = "") -> str:
    """The HTML list of downloads; ``prefix`` is the relative path from the page to the folder."""
    items = []
    for name in download_names():
        title, purpose = DESCRIPTIONS.get(name, (name, ""))
        items.append(
            f'<li><a href="{escape(prefix + name)}" download><strong>{escape(title)}</strong> '
            f"<code>{escape(name)}</code></a><br>{escape(purpose)}</li>"
        )
    return f'<ul class="hb-downloads" data-doctrine-version="{escape(version)}">\n' + "\n".join(items) + "\n</ul>\n"
