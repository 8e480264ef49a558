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

from mcp_handbook.proving import evidence
from mcp_handbook.export import COLUMNS, DOWNLOADS, STATUSES
from mcp_handbook.model import Corpus
from mcp_handbook.site.links import gate_src, page_url, rule_src
from mcp_handbook.site.links import href as link_from

pytestmark = pytest.mark.slow  # whole site builds

EXTERNAL = re.compile(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"'<>)]*")
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink", "http://www.sitemaps.org/schemas/sitemap/0.9"}
"""XML namespace names: identifiers that are never fetched."""
RESERVED = re.compile(r"^(?:https?:)?//(?:[^/]*\.)?(?:example(?:\.com|\.net|\.org)?|[^/]*\.(?:test|invalid|localhost))(?![A-Za-z0-9.-])")
"""Names reserved for documentation (RFC 2606, RFC 6761): a rule's example Origin, never a place to go."""
CODE = re.compile(r"<pre\b.*?</pre>|<code\b.*?</code>", re.S)
"""Code samples may talk about any URL (a client calling an API); they are text, never fetched or linked."""
SPEC_LINK = re.compile(r'<a class="hb-spec-link" href="https://modelcontextprotocol\.io/specification/\d{4}-\d\d-\d\d[^"]*">')
"""A rule's cited specification section: a link a reader may follow, never something a page loads."""


def page_html(site: Path, src: str) -> str:
    url = page_url(src)
    return (site / url / "index.html").read_text(encoding="utf-8") if url.endswith("/") else (site / url).read_text(encoding="utf-8")


def article(html: str) -> str:
    """The page's own content, without the navigation that every page repeats."""
    return html.split('<article class="md-content__inner', 1)[1].split("</article>", 1)[0]


def _external_urls(text: str) -> set[str]:
    return {m for m in EXTERNAL.findall(text) if m.startswith(("http", "//")) and m not in NAMESPACES and not RESERVED.match(m)}


def _own_addresses(corpus: Corpus, mkdocs_yml: str) -> re.Pattern[str]:
    """The handbook's own published pages (canonical links, the sitemap) and its repository (the header's link,
    each page's link to edit its source): places a reader may go, never something a page loads."""
    repo = re.search(r"^repo_url:\s*(\S+)", mkdocs_yml, re.M)
    assert corpus.site and repo, "handbook.yml names site: and mkdocs.yml names repo_url:"
    return re.compile("|".join(re.escape(u.rstrip("/")) + r"(?:/[^\s\"'<>]*)?(?=[\"'<\s])" for u in (corpus.site, repo[1])))


def test_no_page_and_no_search_entry_names_an_external_url(built_site: Path, corpus: Corpus, project_root: Path) -> None:
    """Nothing a page loads, links or says in prose points off the machine (code samples are text, not links),
    except each rule's link to the specification section it cites and the handbook's own addresses."""
    own = _own_addresses(corpus, (project_root / "mkdocs.yml").read_text(encoding="utf-8"))
    checked = [*built_site.rglob("*.html"), built_site / "search" / "search_index.json", built_site / "sitemap.xml"]
    checked += list((built_site / "assets").glob("*.css")) + [p for p in (built_site / "assets").glob("*.js")]
    found = {
        str(p.relative_to(built_site)): urls
        for p in checked
        if (urls := _external_urls(own.sub("", SPEC_LINK.sub("", CODE.sub("", p.read_text(encoding="utf-8"))))))
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


def test_a_rule_page_lists_the_commits_that_touched_its_file_newest_first(built_site: Path, corpus: Corpus, project_root: Path) -> None:
    """The commit list is put in after Markdown and search: it must still be there, complete, escaped and linked."""
    rule = next(r for r in corpus.rules if r.id == "TRN-020")
    log = subprocess.run(["git", "log", "--format=%h", "--no-renames", "--", rule.path], cwd=project_root,
                         capture_output=True, text=True, check=True, timeout=30).stdout.split()
    if not log:
        pytest.skip("not a git checkout: no history to show")
    html = page_html(built_site, rule_src(rule))
    listing = re.search(r'<ul class="hb-commits">(.*?)</ul>', html, re.S)
    assert listing, "no commit list on the page"
    assert re.findall(r"<li>\d{4}-\d\d-\d\d · <code>([0-9a-f]+)</code> · ", listing.group(1)) == log
    assert 'class="hb-rule-ref" href="../../security/' in listing.group(1), "another rule's id in a subject is a link"
    assert ">TRN-020<" not in listing.group(1), "the page's own id is not linked to itself"
    assert "hb-late" not in html


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
    listing = scope_page(changed, "stack")
    assert '{ include: ["Stack: Python", ' in listing and '"Stack",' not in listing  # labels only: each rule listed once


def _article_of(built_site: Path, rule) -> str:
    return article(page_html(built_site, rule_src(rule)))


def test_each_rule_page_puts_its_one_sentence_claim_directly_under_the_title(built_site: Path, corpus: Corpus) -> None:
    for rule in corpus.rules:
        after_h1 = _article_of(built_site, rule).split("</h1>", 1)[1].lstrip()
        claim = re.match(r'<p class="hb-claim">(.*?)</p>', after_h1, re.S)
        assert claim, f"{rule.id}: the first thing under the title is not the claim"
        text = re.sub(r'<a class="hb-rule-ref"[^>]*>([^<]+)</a>', r"\1", claim.group(1))  # ids in it are links
        assert re.sub(r"</?code>", "`", text) == escape(rule.summary, quote=False), rule.id


def test_scope_and_check_kind_are_distinct_badges_and_the_page_links_their_legend(built_site: Path, corpus: Corpus) -> None:
    legend = page_html(built_site, "legend.md")
    for check in ("automated", "manual"):
        assert f'class="hb-checkkind hb-checkkind-{check}"' in legend
    for scope in ("universal", "opinionated", "stack"):
        assert f'class="hb-badge hb-scope-{scope}"' in legend
    for rule in corpus.rules:
        meta = re.search(r'<dl class="hb-meta"[^>]*>(.*?)</dl>', page_html(built_site, rule_src(rule)), re.S).group(1)
        scope = re.search(r"<dt>Scope</dt><dd>(.*?)</dd>", meta).group(1)
        check = re.search(r"<dt>Check</dt><dd>(.*?)</dd>", meta).group(1)
        assert f'class="hb-badge hb-scope-{rule.scope}"' in scope and "hb-checkkind" not in scope, rule.id
        assert f'class="hb-checkkind hb-checkkind-{rule.check}"' in check and "hb-badge" not in check, rule.id
        assert re.search(r'<a href="(\.\./)+legend/">What the badges mean</a>', meta), rule.id


def test_related_rules_and_rule_ids_in_prose_link_to_their_pages_never_inside_code(built_site: Path, corpus: Corpus) -> None:
    by_id = {r.id: r for r in corpus.rules}
    prose_links = 0
    for rule in corpus.rules:
        html = _article_of(built_site, rule)
        for other in rule.related:
            link = link_from(rule_src(by_id[other]), from_src=rule_src(rule))
            assert f'<a href="{link}">{other} · ' in html, f"{rule.id}: related {other}"
        for code in re.findall(r"<code\b.*?</code>|<pre\b.*?</pre>|<h[1-6]\b.*?</h[1-6]>", html, re.S):
            assert "hb-rule-ref" not in code, f"{rule.id}: a rule link inside code or a heading"
        for url, text in re.findall(r'<a class="hb-rule-ref" href="([^"]+)"[^>]*>([A-Z]+-\d{3})</a>', html):
            assert url == link_from(rule_src(by_id[text]), from_src=rule_src(rule)) and text != rule.id, (rule.id, url, text)
            prose_links += 1
    sec001 = _article_of(built_site, by_id["SEC-001"])
    assert re.search(r'\(<a class="hb-rule-ref" href="\.\./log-refused-paths/"[^>]*>SEC-014</a>\)', sec001)
    assert prose_links > 50


def test_spec_references_link_to_the_cited_revision_and_section(built_site: Path, corpus: Corpus) -> None:
    cited = [r for r in corpus.rules if r.spec]
    assert cited
    for rule in cited:
        meta = re.search(r'<dl class="hb-meta"[^>]*>(.*?)</dl>', page_html(built_site, rule_src(rule)), re.S).group(1)
        link = re.search(r'<dt>Specification</dt><dd><a class="hb-spec-link" href="([^"]+)">([^<]+)</a>', meta)
        assert link, f"{rule.id}: spec {rule.spec!r} not linked"
        revision, section = rule.spec.split(maxsplit=1)
        page, _, anchor = section.partition("#")
        page = page.removesuffix("/index").removesuffix("index")
        assert link.group(1) == f"https://modelcontextprotocol.io/specification/{revision}" + (f"/{page}" if page else "") + (
            f"#{anchor}" if anchor else ""), rule.id


def test_a_rule_page_in_the_search_index_starts_with_its_claim_not_the_facts_panel(built_site: Path, corpus: Corpus) -> None:
    docs = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    first = {d["location"]: d["text"] for d in docs if "#" not in d["location"]}
    for rule in corpus.rules:
        text = first[page_url(rule_src(rule))]
        assert text.startswith("<p>"), rule.id
        claim = re.sub(r"</?code>", "`", text[3:].split("</p>", 1)[0])
        assert claim == escape(rule.summary, quote=False), rule.id
    glued = re.compile(r"Id<code>|ScopeUniversal|ScopeOpinionated|CheckAutomated|Verification: (automated|manual)\.")
    assert not [d["location"] for d in docs if glued.search(d["text"])], "the facts panel or verification is in the search index"


def test_tag_pages_say_what_a_scope_is_in_a_sentence_that_reads(built_site: Path) -> None:
    pages = {scope: article(page_html(built_site, f"tags/{scope}.md")) for scope in ("universal", "opinionated", "stack")}
    assert "An <strong>opinionated</strong>" not in pages["opinionated"] and "a default we recommend" in pages["opinionated"]
    assert "An opinionated rule is a default we recommend" in pages["opinionated"]
    assert "A universal rule holds for any MCP server" in pages["universal"]
    assert "A stack rule holds only for" in pages["stack"]
    home = article(page_html(built_site, "index.md")) + article(page_html(built_site, "tags/index.md"))
    assert "rule a default" not in home and "A opinionated" not in home


def test_rule_pages_leave_out_the_right_hand_table_of_contents(built_site: Path, corpus: Corpus) -> None:
    for rule in corpus.rules:
        html = page_html(built_site, rule_src(rule))
        assert re.search(r'<div class="md-sidebar md-sidebar--secondary"[^>]*data-md-type="toc" hidden>', html), rule.id


def test_no_built_page_names_a_path_of_the_build_machine(built_site: Path, project_root: Path) -> None:
    """Transcripts and pages show placeholders (<workspace>, <temp>) for temporary folders and the checkout."""
    import tempfile

    machine = [str(project_root), f"{tempfile.gettempdir()}/", "/tmp/", "$TMP"]
    found = {
        str(p.relative_to(built_site)): [m for m in machine if m in text]
        for p in built_site.rglob("*.html")
        if any(m in (text := p.read_text(encoding="utf-8")) for m in machine)
    }
    assert not found, f"build-machine paths in the built site: {found}"
    assert "&lt;workspace&gt;" in page_html(built_site, "rules/security/child-env-allowlist.md")


def test_each_automated_rule_page_shows_the_audit_command_for_that_rule_alone(built_site: Path, corpus: Corpus) -> None:
    for rule in corpus.rules:
        html = _article_of(built_site, rule)
        command = f"mcp-handbook audit --rule {rule.id} -o {rule.id.lower()}.json -- YOUR-SERVER-COMMAND"
        assert (command in html) == (rule.check == "automated"), rule.id
        if rule.check == "automated":
            assert re.search(r'<a href="(\.\./)+audit/">Run an audit</a>', html), rule.id
    audit = re.sub(r"<[^>]+>", "", article(page_html(built_site, "audit.md")))  # code is highlighted token by token
    for step in ("pip install -e .", "mcp-handbook audit -o review.json --", "{workspace}", "--rule SEC-001", "Import JSON",
                 "manual rows", "mcp-handbook report review.json"):
        assert escape(step, quote=False) in audit, step


def test_each_rule_page_is_at_its_published_address_and_links_to_its_source_for_editing(built_site: Path, corpus: Corpus) -> None:
    """The canonical link is the page ``Corpus.page_url`` gives (what worksheets and reports link to), and the
    edit link opens the rule's own markdown file on the repository's main branch."""
    for rule in corpus.rules:
        html = page_html(built_site, rule_src(rule))
        canonical = re.search(r'<link rel="canonical" href="([^"]+)"', html)
        assert canonical and canonical[1] == corpus.page_url(rule), rule.id
        edit = re.search(r'<a href="([^"]+)" title="Edit this page"', html)
        assert edit and edit[1] == f"https://github.com/mcp-handbook/handbook/edit/main/{rule.path}", rule.id
        assert (corpus.root / rule.path).is_file()
