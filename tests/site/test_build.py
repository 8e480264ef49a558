"""The built site, read as files: every rule, gate and scope has its page, and nothing points off the machine."""

from __future__ import annotations

import pytest

import json
import re
import shutil
import subprocess
import sys
import urllib.request
from html import escape
from html.parser import HTMLParser
from pathlib import Path

from mcp_handbook import evidence
from mcp_handbook.export import COLUMNS, DOWNLOADS, STATUSES
from mcp_handbook.model import Corpus
from mcp_handbook.site.links import gate_src, page_url, rule_src

pytestmark = pytest.mark.slow  # whole site builds

EXTERNAL = re.compile(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"'<>)]*")
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink", "http://www.sitemaps.org/schemas/sitemap/0.9"}
"""XML namespace names: identifiers that are never fetched."""
RESERVED = re.compile(r"^(?:https?:)?//(?:[^/]*\.)?(?:example(?:\.com|\.net|\.org)?|[^/]*\.(?:test|invalid|localhost))(?![A-Za-z0-9.-])")
"""Names reserved for documentation (RFC 2606, RFC 6761): a rule's example Origin, never a place to go."""
CODE = re.compile(r"<pre\b.*?</pre>|<code\b.*?</code>", re.S)
"""Code samples may talk about any URL (a client calling an API); they are text, never fetched or linked."""


def page_html(site: Path, src: str) -> str:
    url = page_url(src)
    return (site / url / "index.html").read_text(encoding="utf-8") if url.endswith("/") else (site / url).read_text(encoding="utf-8")


def article(html: str) -> str:
    """The page's own content, without the navigation that every page repeats."""
    return html.split('<article class="md-content__inner', 1)[1].split("</article>", 1)[0]


def _external_urls(text: str) -> set[str]:
    return {m for m in EXTERNAL.findall(text) if m.startswith(("http", "//")) and m not in NAMESPACES and not RESERVED.match(m)}


def test_no_page_and_no_search_entry_names_an_external_url(built_site: Path) -> None:
    """Nothing a page loads, links or says in prose points off the machine (code samples are text, not links)."""
    checked = [*built_site.rglob("*.html"), built_site / "search" / "search_index.json", built_site / "sitemap.xml"]
    checked += list((built_site / "assets").glob("*.css")) + [p for p in (built_site / "assets").glob("*.js")]
    found = {
        str(p.relative_to(built_site)): urls
        for p in checked
        if (urls := _external_urls(CODE.sub("", p.read_text(encoding="utf-8"))))
    }
    assert len(checked) > 10
    assert not found, f"external URLs in the built site: {found}"


def test_every_rule_has_a_page_headed_by_its_id_with_its_facts(built_site: Path, corpus: Corpus) -> None:
    assert corpus.rules
    for rule in corpus.rules:
        html = page_html(built_site, rule_src(rule))
        h1 = re.search(r"<h1[^>]*>(.*?)<a class=\"headerlink\"", html, re.S)
        assert h1 and h1.group(1).startswith(f"{rule.id} · "), rule.id
        meta = re.search(r'<dl class="hb-meta">(.*?)</dl>', html, re.S)
        assert meta, f"{rule.path}: no facts panel"
        for fact in ("Id", "Scope", "Severity", "Gate", "Check", "Specification", "Since"):
            assert f"<dt>{fact}</dt>" in meta.group(1), f"{rule.path}: no {fact}"
        assert rule.since in meta.group(1)
        assert 'id="change-history"' in html


def test_each_gate_page_lists_exactly_its_rules_in_order(built_site: Path, corpus: Corpus) -> None:
    for gate in corpus.gates:
        html = page_html(built_site, gate_src(gate.key))
        listed = re.findall(r"<code>([A-Z]{2,5}-\d{3})</code>", article(html))
        assert listed == [r.id for r in corpus.rules if r.gate == gate.key], gate.key


def test_overview_has_one_filterable_row_per_rule(built_site: Path, corpus: Corpus) -> None:
    html = page_html(built_site, "overview.md")
    rows = re.findall(r'<tr data-profile="([^"]*)" data-scope="([^"]*)" data-stack="[^"]*" data-severity="([^"]*)" '
                      r'data-gate="([^"]*)" data-check="([^"]*)" data-without="([^"]*)">', html)
    assert rows == [(" ".join(r.profiles), r.scope, r.severity, r.gate, r.check, " ".join(r.conditions)) for r in corpus.rules]
    for name in ("profile", "scope", "severity", "gate", "check"):
        assert f'data-hb-filter="{name}"' in html


def test_scope_tag_pages_list_the_rules_of_their_scope(built_site: Path, corpus: Corpus) -> None:
    for scope in ("universal", "opinionated", "stack"):
        html = article(page_html(built_site, f"tags/{scope}.md"))
        for rule in corpus.rules:
            link = f"{rule.id} · "
            assert (link in html) == (rule.scope == scope), f"{scope} page and {rule.id}"


def test_navigation_lists_gates_in_checklist_order(built_site: Path, corpus: Corpus) -> None:
    html = page_html(built_site, "index.md")
    nav = html.split('class="md-nav md-nav--primary"', 1)[1].split('class="md-sidebar md-sidebar--secondary"', 1)[0]
    titles = [re.sub(r"\s+", " ", t).strip() for t in re.findall(r'<span class="md-ellipsis">(.*?)</span>', nav, re.S)]
    gates = [t for t in titles if t in {g.title for g in corpus.gates}]
    assert list(dict.fromkeys(gates)) == [g.title for g in corpus.gates]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" and (href := dict(attrs).get("href")) and "download" in dict(attrs):
            self.hrefs.append(href)


def test_downloads_page_links_every_file_the_build_wrote(built_site: Path, site_url: str) -> None:
    parser = _Links()
    parser.feed(page_html(built_site, "downloads.md"))
    assert sorted(h.rsplit("/", 1)[-1] for h in parser.hrefs) == sorted(DOWNLOADS)
    for href in parser.hrefs:
        with urllib.request.urlopen(site_url + "downloads/" + href, timeout=10) as response:
            assert response.status == 200 and len(response.read()) > 0, href


def test_worksheet_page_carries_every_rule_and_the_exporters_format(built_site: Path, corpus: Corpus) -> None:
    html = page_html(built_site, "worksheet.md")
    data = json.loads(re.search(r'<script type="application/json" id="hb-worksheet-data">(.*?)</script>', html, re.S).group(1))
    assert [row["id"] for row in data["rows"]] == [r.id for r in corpus.rules]
    assert data["format"]["columns"] == list(COLUMNS) and data["format"]["statuses"] == list(STATUSES)
    assert data["storage_key"].endswith(corpus.version)
    assert html.count('<fieldset class="hb-status"') == len(corpus.rules)


def test_each_proved_block_shows_its_current_proof_on_the_page(built_site: Path, corpus: Corpus) -> None:
    for rule in corpus.rules:
        blocks = [s for s in rule.snippets if evidence.provable(rule, s)]
        if not blocks:
            continue
        html = page_html(built_site, rule_src(rule))
        shown = re.findall(r'class="hb-proof (hb-proof-expected|hb-proof-ok)"[^>]*><p class="hb-proof-verdict">(.*?)</p>', html, re.S)
        ordered = sorted(blocks, key=lambda s: s.location.line)
        assert [css for css, _ in shown] == [("hb-proof-expected" if s.kind == "wrong" else "hb-proof-ok") for s in ordered], (
            f"{rule.path}: proofs on the page do not match its blocks; run `mcp-handbook evidence`"
        )
        for (_, text), block in zip(shown, ordered):
            if block.kind == "wrong":  # never a green tick on WRONG code: the probe failed, for the reason named
                assert "✓" not in text and "The probe failed, as expected" in text and "<code>" in text, text
            else:
                assert "✓ Proved" in text and "<strong>PASS</strong>" in text, text


def test_search_index_holds_the_code_of_every_proved_block(built_site: Path, corpus: Corpus) -> None:
    """The code of every block is searchable; the proof transcripts are not."""
    docs = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    text_of: dict[str, str] = {}
    for doc in docs:
        page = doc["location"].split("#", 1)[0]
        text_of[page] = text_of.get(page, "") + doc["text"]
    for rule in corpus.rules:
        for snippet in rule.snippets:
            first = next((ln.strip() for ln in snippet.code.splitlines() if ln.strip().startswith("def ")), None)
            if first:
                assert escape(first, quote=False) in text_of[page_url(rule_src(rule))], f"{rule.id}: {first!r} not searchable"
    assert not any("What the probe saw" in text for text in text_of.values()), "transcripts are evidence, not search text"


def test_a_content_error_stops_a_plain_mkdocs_build_with_its_line_and_no_traceback(tmp_path: Path, project_root: Path) -> None:
    copy = tmp_path / "hb"
    copy.mkdir()
    for name in ("mkdocs.yml", "content", "snippets", "site_overrides"):
        src = project_root / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, copy / name)
    hooks = Path("tools/mcp_handbook/site/hooks.py")
    (copy / hooks).parent.mkdir(parents=True)
    shutil.copy(project_root / hooks, copy / hooks)
    rule = next((copy / "content" / "rules").rglob("*.md"))
    rule.write_text(re.sub(r"^severity: .*$", "severity: critical", rule.read_text(encoding="utf-8"), count=1, flags=re.M), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "out")],
        cwd=copy, capture_output=True, text=True, timeout=120, env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode != 0
    line = next(i for i, text in enumerate(rule.read_text().splitlines(), 1) if text.startswith("severity:"))
    assert f"{rule.relative_to(copy).as_posix()}:{line}: HB012" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "index.html").exists()


def test_a_stack_rule_brings_a_stack_filter_and_its_tag_page_listing(corpus: Corpus) -> None:
    """Filters and tag pages come from the model: the first stack-scoped rule adds them, no page edits."""
    import dataclasses

    from mcp_handbook.site.generated import scope_page
    from mcp_handbook.site.worksheet_page import worksheet_app

    stacked = dataclasses.replace(corpus.rules[0], scope="stack", stack="Python")
    changed = dataclasses.replace(corpus, rules=(stacked, *corpus.rules[1:]))
    html = worksheet_app(changed, from_src="worksheet.md")
    assert '<select data-hb-filter="stack">' in html and '<option value="Python">Python</option>' in html
    assert re.search(rf'<tr data-id="{stacked.id}" data-profile="[^"]*" data-scope="stack" data-stack="Python"', html)
    assert '"Stack", "Stack: Python"' in scope_page(changed, "stack")
