"""The generated page "Threats: OWASP MCP Top 10": every rule under each category it names, what a server author
cannot address, a CWE index, and links to it from the nav, the home page and each rule's threats.

The page is made from the model, so most tests read the markdown it generates for a small fixture doctrine
(tests/site/fixtures/threats); one builds that doctrine into a site with the real configuration.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.model import Corpus
from mcp_handbook.site.generated import generated_pages, navigation
from mcp_handbook.site.rule_page import meta_block
from mcp_handbook.site.state import SiteData
from mcp_handbook.site.threats_page import threats_page
from mcp_handbook.threats import CATEGORIES, OWASP_MCP_TOP10

FIXTURE = Path(__file__).parent / "fixtures" / "threats"
ROW_ID = re.compile(r"^\| \[`([A-Z]+-\d{3})`\]\(([^)]+)\)", re.M)


def _sections(page: str) -> dict[str, str]:
    """Each level-2 section's text by its anchor (``mcp05``, ``cwe-index``)."""
    found = {}
    for part in page.split("\n## ")[1:]:
        anchor = re.search(r"\{#([a-z0-9-]+)\}", part.split("\n", 1)[0])
        assert anchor, part.split("\n", 1)[0]
        found[anchor.group(1)] = part
    return found


def _listed(section: str) -> list[str]:
    return [m.group(1) for m in ROW_ID.finditer(section)]


@pytest.fixture
def fixture_corpus() -> Corpus:
    corpus = load_corpus(FIXTURE)
    assert not corpus.diagnostics, corpus.diagnostics
    return corpus


def test_each_category_lists_exactly_the_rules_that_name_it_with_what_authors_cannot_address(fixture_corpus: Corpus) -> None:
    page = threats_page(fixture_corpus)
    sections = _sections(page)
    assert list(sections) == [c.anchor for c in CATEGORIES] + ["cwe-index"]
    for c in CATEGORIES:
        expected = [r.id for r in fixture_corpus.rules if c.id in r.threats]
        section = sections[c.anchor]
        assert section.startswith(f"{c.id} · {c.name} {{#{c.anchor}}}")
        assert _listed(section) == expected, c.id
        assert c.description in section and f"**What a server author cannot address:** {c.beyond_server}" in section
        assert f"| [{c.id} · {c.name}](#{c.anchor}) | {len(expected)} |" in page, "the summary counts each category's rules"
    assert _listed(sections["mcp05"]) == ["SEC-001"] and _listed(sections["mcp07"]) == ["AUTH-001"]
    assert "TST-001" not in page, "a rule that names no threat is on no list"
    assert OWASP_MCP_TOP10 in page, "the page names the list version it maps against"


def test_each_listed_rule_links_its_page_with_scope_basis_and_check(fixture_corpus: Corpus) -> None:
    section = _sections(threats_page(fixture_corpus))["mcp05"]
    row = next(line for line in section.splitlines() if line.startswith("| [`SEC-001`]"))
    assert "(rules/security/path-containment.md)" in row
    assert 'class="hb-badge hb-scope-universal"' in row and 'class="hb-badge hb-basis-security"' in row
    assert "hb-checkkind-automated" in row
    manual = next(line for line in _sections(threats_page(fixture_corpus))["mcp08"].splitlines() if line.startswith("| [`SEC-002`]"))
    assert "hb-scope-opinionated" in manual and "hb-basis-practice" in manual and "hb-checkkind-manual" in manual


def test_a_category_no_rule_names_is_information_on_the_page(fixture_corpus: Corpus) -> None:
    page = threats_page(fixture_corpus)
    named = {t for r in fixture_corpus.rules for t in r.threats}
    missing = [c for c in CATEGORIES if c.id not in named]
    assert missing, "the fixture leaves some categories without a rule"
    note = page.split("!!! info ", 1)[1].split("\n\n", 1)[0]
    assert note.startswith(f'"{len(missing)} of 10 categories have no rule yet"')
    assert all(f"[{c.id}](#{c.anchor})" in note for c in missing) and "[MCP05]" not in note
    for c in missing:
        assert "**Rules that address it**: none in doctrine 0.3.0." in _sections(page)[c.anchor]


def test_a_new_rule_appears_under_its_category_without_touching_the_page(tmp_path: Path) -> None:
    root = tmp_path / "hb"
    shutil.copytree(FIXTURE, root)
    source = (root / "content/rules/testing/real-pipe.md").read_text()
    new = source.replace("id: TST-001", "id: TST-002").replace("severity: medium", "threats: [MCP09, CWE-1104]\nseverity: medium")
    (root / "content/rules/testing/shadow-inventory.md").write_text(new)
    corpus = load_corpus(root)
    assert not corpus.diagnostics, corpus.diagnostics
    sections = _sections(threats_page(corpus))
    assert _listed(sections["mcp09"]) == ["TST-002"]
    assert "[MCP09](#mcp09)" not in threats_page(corpus).split("## MCP01", 1)[0], "MCP09 is no longer reported as unaddressed"
    assert "CWE-1104" in sections["cwe-index"]


def test_the_cwe_index_lists_each_cwe_in_number_order_with_its_rules_and_mitre_address_as_text(fixture_corpus: Corpus) -> None:
    index = _sections(threats_page(fixture_corpus))["cwe-index"]
    rows = [line for line in index.splitlines() if line.startswith('| <span id="cwe-')]
    assert [re.search(r"</span>(CWE-\d+)", r).group(1) for r in rows] == ["CWE-22", "CWE-306", "CWE-639"]
    assert "[AUTH-001](rules/auth/per-user-checks.md)" in rows[2]
    assert "<code>cwe.mitre.org/data/definitions/639.html</code>" in rows[2]
    assert "http" not in index, "the address is text: the site links nothing off the machine"


def test_the_page_is_generated_and_placed_after_all_rules_in_the_nav(fixture_corpus: Corpus) -> None:
    pages = generated_pages(fixture_corpus)
    assert pages["threats.md"] == threats_page(fixture_corpus)
    nav = navigation(fixture_corpus, ["index.md", "overview.md", *pages])
    assert nav[:3] == [{"Home": "index.md"}, {"All rules": "overview.md"}, {"Threats: OWASP MCP Top 10": "threats.md"}]


def test_a_rule_pages_threats_link_each_id_to_its_place_on_the_threats_page(fixture_corpus: Corpus) -> None:
    rule = fixture_corpus.rule("SEC-001")
    facts = meta_block(SiteData(corpus=fixture_corpus), rule)
    threats = re.search(r"<dt>Threats</dt><dd>(.*?)</dd>", facts).group(1)
    assert '<a class="hb-threat" href="../../../threats/#mcp05">MCP05 Command injection and execution</a>' in threats
    assert '<a class="hb-threat" href="../../../threats/#mcp02">MCP02 Privilege escalation via scope creep</a>' in threats
    assert '<a class="hb-threat" href="../../../threats/#cwe-22">CWE-22</a>' in threats
    assert OWASP_MCP_TOP10 in threats
    flat = meta_block(SiteData(corpus=fixture_corpus, directory_urls=False), rule)
    assert 'href="../../threats.html#mcp05"' in flat


@pytest.mark.slow  # a whole (small) site build
def test_the_built_site_serves_the_page_its_anchors_and_the_links_to_it(tmp_path: Path, project_root: Path) -> None:
    from mcp_handbook.cli import build_site

    root = tmp_path / "hb"
    shutil.copytree(FIXTURE, root)
    shutil.copy(project_root / "mkdocs.yml", root / "mkdocs.yml")
    for shared in ("tools", "site_overrides"):
        (root / shared).symlink_to(project_root / shared)
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    build_site(root, tmp_path / "site")  # strict: a broken link or anchor in the page fails the build
    page = (tmp_path / "site" / "threats" / "index.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="([a-z0-9-]+)"', page))
    assert {c.anchor for c in CATEGORIES} | {"cwe-index", "cwe-22", "cwe-306", "cwe-639"} <= anchors
    assert 'href="../rules/security/path-containment/"' in page
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="threats/">Threats: OWASP MCP Top 10</a>' in home
    rule = (tmp_path / "site" / "rules" / "auth" / "per-user-checks" / "index.html").read_text(encoding="utf-8")
    for target in re.findall(r'class="hb-threat" href="\.\./\.\./\.\./threats/#([a-z0-9-]+)"', rule):
        assert target in anchors, f"the rule page links #{target}, which the threats page lacks"
    assert len(re.findall(r'class="hb-threat"', rule)) == 4
