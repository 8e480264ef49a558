"""Another rule's id in a rule page's prose becomes a link to that rule.

A Markdown treeprocessor does it, after the inline patterns have made the code spans, links and raw HTML of
the page: it walks the element tree and splits only the text of elements that hold prose, so an id in code, in
an existing link or in a heading stays as written, and no HTML is ever read back with a regular expression.
The link it makes points at the other rule's markdown source, relative to this page's, so mkdocs' own link
processor (which runs after it) turns it into the page's URL and checks it, as it does a link a rule writes.

Finished HTML that Markdown never parses (the commit list under *Change history*) is built from plain text
with :func:`linked_text` instead.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as etree
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import escape

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

RULE_ID = re.compile(r"(?<![\w-])([A-Z]{2,5}-\d{3})(?![\w-])")
NOT_PROSE = frozenset({"a", "code", "pre", "kbd", "samp", "script", "style", "textarea", "h1", "h2", "h3", "h4", "h5", "h6"})
"""Elements whose text is not prose: a rule id there stays as written (code, an existing link, a heading)."""
LINK_CLASS = "hb-rule-ref"
PRIORITY = 12
"""After the inline patterns (20: code spans and links exist as elements), before mkdocs' link processor (0)."""


@dataclass(frozen=True, slots=True)
class Mentions:
    """What the page being rendered may link: its own source and id, and every rule's (source, title) by id."""

    src: str
    own_id: str
    rules: Mapping[str, tuple[str, str]]

    def link(self, rule_id: str) -> tuple[str, str] | None:
        """(href relative to this page's source, title) for another rule's id; None for this page's own or an unknown id."""
        if rule_id == self.own_id or rule_id not in self.rules:
            return None
        target, title = self.rules[rule_id]
        return posixpath.relpath(target, posixpath.dirname(self.src) or "."), title


class MentionLinks(Treeprocessor):
    """Link the rule ids in the prose of the page that ``current()`` describes (None: this page links nothing)."""

    def __init__(self, md: Markdown, current: Callable[[], Mentions | None]) -> None:
        super().__init__(md)
        self.current = current

    def run(self, root: etree.Element) -> None:
        mentions = self.current()
        if mentions is not None:
            _link_in(root, mentions)


class MentionsExtension(Extension):
    """Registers :class:`MentionLinks`; the site's plugin adds one to ``markdown_extensions`` and says, page by
    page, which rule is being rendered."""

    def __init__(self, current: Callable[[], Mentions | None]) -> None:
        super().__init__()
        self.current = current

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        md.treeprocessors.register(MentionLinks(md, self.current), "hb_rule_mentions", PRIORITY)


def _link_in(element: etree.Element, mentions: Mentions) -> None:
    """Split the prose text of ``element`` and of its descendants (the tails of its children included)."""
    children = list(element)
    if element.text and RULE_ID.search(element.text):
        element.text, links = _split(element.text, mentions)
        for offset, link in enumerate(links):
            element.insert(offset, link)
    for child in children:
        if child.tag not in NOT_PROSE:
            _link_in(child, mentions)
        if child.tail and RULE_ID.search(child.tail):
            child.tail, links = _split(child.tail, mentions)
            at = list(element).index(child) + 1
            for offset, link in enumerate(links):
                element.insert(at + offset, link)


def _split(text: str, mentions: Mentions) -> tuple[str, list[etree.Element]]:
    """``text`` up to the first linked id, and the links, each carrying the text after it as its tail."""
    parts = RULE_ID.split(text)  # text, id, text, id, ..., text
    head = parts[0]
    links: list[etree.Element] = []
    for rule_id, after in zip(parts[1::2], parts[2::2]):
        target = mentions.link(rule_id)
        if target is None:
            if links:
                links[-1].tail = (links[-1].tail or "") + rule_id + after
            else:
                head += rule_id + after
            continue
        href, title = target
        link = etree.Element("a", {"class": LINK_CLASS, "href": href, "title": title})
        link.text = AtomicString(rule_id)
        link.tail = after
        links.append(link)
    return head, links


def linked_text(text: str, link: Callable[[str], tuple[str, str] | None]) -> str:
    """Plain ``text`` as HTML, each id that ``link`` gives an (href, title) for made a link to it."""
    parts = RULE_ID.split(text)
    out = [escape(parts[0])]
    for rule_id, after in zip(parts[1::2], parts[2::2]):
        target = link(rule_id)
        if target is None:
            out.append(escape(rule_id))
        else:
            url, title = target
            out.append(f'<a class="{LINK_CLASS}" href="{escape(url)}" title="{escape(title)}">{rule_id}</a>')
        out.append(escape(after))
    return "".join(out)
