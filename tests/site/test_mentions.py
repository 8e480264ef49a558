"""Rule ids in prose become links (a Markdown treeprocessor), and what a dirty rebuild may skip (inputs.py)."""

from __future__ import annotations

from pathlib import Path

import markdown

from mcp_handbook.site.inputs import shared_inputs, without_prose
from mcp_handbook.site.mentions import Mentions, MentionsExtension, linked_text

RULES = {"SEC-001": ("rules/security/a.md", "Keep <secrets> out"), "ERR-002": ("rules/errors/b.md", "Report it"),
         "TRN-001": ("rules/transport/c.md", "Own id")}


def _render(text: str, mentions: Mentions | None) -> str:
    return markdown.markdown(text, extensions=[MentionsExtension(lambda: mentions)])


def test_an_id_in_prose_links_to_the_other_rules_source_and_nowhere_else() -> None:
    page = Mentions("rules/transport/c.md", "TRN-001", RULES)
    html = _render(
        "# SEC-001 in a heading\n\nSee SEC-001, then *ERR-002* and TRN-001 (this page) or XYZ-999.\n\n"
        "`SEC-001` in code, [SEC-001](https://example.org) in a link.\n\n    SEC-001 in a block\n",
        page,
    )
    assert '<h1>SEC-001 in a heading</h1>' in html
    assert 'See <a class="hb-rule-ref" href="../security/a.md" title="Keep &lt;secrets&gt; out">SEC-001</a>, then' in html
    assert '<em><a class="hb-rule-ref" href="../errors/b.md" title="Report it">ERR-002</a></em>' in html
    assert "and TRN-001 (this page) or XYZ-999." in html
    assert "<code>SEC-001</code> in code" in html and '>SEC-001</a> in a link' in html and "hb-rule-ref" not in html.split("in code")[1]
    assert html.count("hb-rule-ref") == 2


def test_a_page_that_is_not_a_rule_links_nothing() -> None:
    assert "hb-rule-ref" not in _render("See SEC-001.", None)


def test_finished_html_links_ids_in_plain_text_and_escapes_the_rest() -> None:
    html = linked_text("fix <b> for SEC-001 & XYZ-999", lambda i: ("../a/", "A 'title'") if i == "SEC-001" else None)
    assert html == 'fix &lt;b&gt; for <a class="hb-rule-ref" href="../a/" title="A &#x27;title&#x27;">SEC-001</a> &amp; XYZ-999'


RULE = """---
id: SEC-001
title: A rule
---

Some prose.

```python wrong
x = 1
```

## Why

More prose.
"""


def test_without_prose_keeps_front_matter_headings_and_blocks() -> None:
    kept = without_prose(RULE)
    assert "title: A rule" in kept and "x = 1" in kept and "## Why" in kept
    assert "prose" not in kept


def test_only_an_edit_to_a_rules_prose_leaves_the_shared_inputs_as_they_were(tmp_path: Path) -> None:
    rule = tmp_path / "content" / "rules" / "security" / "a.md"
    rule.parent.mkdir(parents=True)
    rule.write_text(RULE, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    before = shared_inputs(tmp_path, None)
    rule.write_text(RULE.replace("Some prose.", "Some other prose."), encoding="utf-8")
    assert shared_inputs(tmp_path, None) == before
    for edit in (("title: A rule", "title: Another"), ("x = 1", "x = 2"), ("## Why", "## Why not")):
        rule.write_text(RULE.replace(*edit), encoding="utf-8")
        assert shared_inputs(tmp_path, None) != before, edit
    rule.write_text(RULE, encoding="utf-8")
    (tmp_path / "content" / "index.md").write_text("# Home\n", encoding="utf-8")
    assert shared_inputs(tmp_path, None) != before, "another page's text shows in the nav"
