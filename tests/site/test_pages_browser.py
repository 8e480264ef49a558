"""Every page in a real browser: no console error, nothing fetched from off the machine; search, filters,
and rule pages whose WRONG and CORRECT blocks cannot be mistaken for each other."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from mcp_handbook.proving import evidence
from mcp_handbook.model import Corpus
from mcp_handbook.site.links import page_url, rule_src

pytestmark = pytest.mark.slow


def test_every_kind_of_page_loads_with_no_console_error_and_no_request_off_the_machine(
    visit: Any, built_site: Path, corpus: Corpus
) -> None:
    """Every page that is not a rule page, plus the first rule page of each gate.

    Rule pages all come from one template, and a browser takes about 0.4 s a
    page here, so sampling one per gate keeps this bounded as the doctrine grows.
    """
    rule_pages = {page_url(rule_src(r)) for r in corpus.rules}
    firsts = {page_url(rule_src(next(r for r in corpus.rules if r.gate == g.key))) for g in corpus.gates
              if any(r.gate == g.key for r in corpus.rules)}
    every = (p.relative_to(built_site).as_posix().removesuffix("index.html") for p in built_site.rglob("index.html"))
    pages = sorted(p for p in every if p not in rule_pages or p in firsts)
    assert len(pages) > 10 and firsts <= set(pages)
    for path in pages:
        visit.open(path)
        assert visit.page.locator("article h1").count() == 1, f"{path}: no single heading"
    visit.assert_clean()


def test_search_finds_a_rule_by_its_id(visit: Any, corpus: Corpus) -> None:
    rule = corpus.rules[-1]
    page = visit.open("")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially(rule.id, delay=30)  # material listens to keys
    result = page.locator(".md-search-result__item", has_text=rule.id).first
    result.wait_for(timeout=10_000)
    result.locator("a").first.click()
    page.wait_for_load_state("load")
    assert urlsplit(page.url).path.endswith("/" + page_url(rule_src(rule)))
    visit.assert_clean()


def test_overview_filters_by_severity_gate_check_and_text(visit: Any, corpus: Corpus) -> None:
    page = visit.open("overview/")
    rows = page.locator("#hb-overview tbody tr")

    def shown() -> list[str]:
        return [rows.nth(i).get_attribute("data-gate") for i in range(rows.count()) if rows.nth(i).is_visible()]

    assert len(shown()) == len(corpus.rules)
    target = corpus.rules[-1]
    form = page.locator('form[data-hb-filters="hb-overview"]')
    form.locator('select[data-hb-filter="severity"]').select_option(target.severity)
    form.locator('select[data-hb-filter="gate"]').select_option(target.gate)
    form.locator('select[data-hb-filter="check"]').select_option(target.check)
    expected = [r for r in corpus.rules if (r.severity, r.gate, r.check) == (target.severity, target.gate, target.check)]
    assert len(shown()) == len(expected)
    assert form.locator(".hb-filter-count").inner_text().startswith(str(len(expected)))
    form.locator("[data-hb-filter-text]").fill("no rule says this zzqx")
    assert shown() == [] and page.locator(".hb-empty").is_visible()
    form.locator("button[type=reset]").click()
    page.wait_for_function("document.querySelectorAll('#hb-overview tbody tr:not([hidden])').length > 0")
    assert len(shown()) == len(corpus.rules)
    for profile in ("spec", "baseline", "full"):
        form.locator('select[data-hb-filter="profile"]').select_option(profile)
        assert len(shown()) == sum(1 for r in corpus.rules if profile in r.profiles), profile
    visit.assert_clean()


def _style(locator: Any, prop: str) -> str:
    return locator.evaluate(f"e => getComputedStyle(e).getPropertyValue('{prop}')")


def _copied(code: Any) -> str:
    """The text material's copy button puts on the clipboard (marked lines are blocks on screen, not when copied)."""
    return code.evaluate(
        "e => { e.setAttribute('data-md-copying', ''); const text = e.innerText; e.removeAttribute('data-md-copying'); return text }"
    )


def _below_header(locator: Any) -> None:
    """Scroll so the sticky header does not cover the top of the element in its screenshot."""
    locator.evaluate("e => window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 90)")


def test_rule_page_shows_wrong_and_correct_unmistakably(visit: Any, corpus: Corpus, screenshot_dir: Path) -> None:
    rule = next(r for r in corpus.rules if r.snippets_of("wrong") and r.snippets_of("correct") and r.check == "automated")
    page = visit.open(page_url(rule_src(rule)))
    wrong, correct = page.locator(".hb-snippet.hb-wrong").first, page.locator(".hb-snippet.hb-correct").first
    # a text label and a mark, so colour is never the only signal
    assert wrong.locator(".hb-snippet-label strong").inner_text() == "✗ WRONG"
    assert correct.locator(".hb-snippet-label strong").inner_text() == "✓ CORRECT"
    assert _style(wrong, "border-left-style") == "dashed" and _style(correct, "border-left-style") == "solid"
    assert _style(wrong, "border-left-color") != _style(correct, "border-left-color")
    assert _style(wrong, "background-color") != _style(correct, "background-color")
    # the code is inside its box, and the proof of that box sits under the code
    assert _copied(wrong.locator(".highlight code")).strip() == rule.snippets_of("wrong")[0].code.strip()
    if all(evidence.provable(rule, s) for s in rule.snippets):
        assert "The probe failed, as expected" in wrong.locator(".hb-proof").inner_text() and "✓" not in wrong.locator(".hb-proof").inner_text()
        assert "✓ Proved" in correct.locator(".hb-proof").inner_text() and "PASS" in correct.locator(".hb-proof").inner_text()
        assert wrong.locator(".hb-transcript pre").is_visible()
    page.screenshot(path=str(screenshot_dir / f"{rule.id}-page.png"), full_page=True)
    _below_header(wrong)
    wrong.screenshot(path=str(screenshot_dir / f"{rule.id}-wrong.png"))
    _below_header(correct)
    correct.screenshot(path=str(screenshot_dir / f"{rule.id}-correct.png"))
    light = _style(wrong, "background-color")
    page.locator("form[data-md-component=palette] label:visible").first.click()  # the dark-mode toggle
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    assert _style(wrong, "background-color") != light
    assert _style(wrong, "border-left-color") != _style(correct, "border-left-color")
    _below_header(wrong)
    wrong.screenshot(path=str(screenshot_dir / f"{rule.id}-wrong-dark.png"))
    visit.assert_clean()


WIDE = {"width": 1440, "height": 900}
CODE_BLOCKS = ".hb-snippet .highlight pre > code"
"""The WRONG and CORRECT code of a rule page (material scrolls the code element, not the pre)."""


@pytest.fixture
def wide(browser: Any, site_url: str) -> Iterator[Any]:
    """A page 1440 px wide, as on a laptop; closed after the test."""
    context = browser.new_context(viewport=WIDE)
    try:
        yield context.new_page()
    finally:
        context.close()


def test_at_1440_px_at_most_one_code_block_in_ten_scrolls_sideways(wide: Any, site_url: str, corpus: Corpus) -> None:
    scrolling: list[str] = []
    total = 0
    for rule in corpus.rules:
        wide.goto(site_url + page_url(rule_src(rule)))
        sizes = wide.evaluate(f"() => [...document.querySelectorAll('{CODE_BLOCKS}')].map(c => [c.scrollWidth, c.clientWidth])")
        assert len(sizes) == len(rule.snippets), f"{rule.id}: {len(sizes)} code boxes for {len(rule.snippets)} blocks"
        total += len(sizes)
        scrolling += [f"{rule.id} block {i + 1}: {sw - cw} px hidden" for i, (sw, cw) in enumerate(sizes) if sw > cw]
    assert total == sum(len(r.snippets) for r in corpus.rules)
    assert len(scrolling) * 10 <= total, f"{len(scrolling)} of {total} blocks scroll sideways:\n" + "\n".join(scrolling)
    assert wide.evaluate("document.documentElement.scrollWidth") <= WIDE["width"]


def _rule_with_marked_proofs(corpus: Corpus) -> Any:
    """An automated rule whose WRONG and CORRECT blocks are all proved by current recorded runs."""
    from mcp_handbook.site.state import SiteData

    proofs = evidence.load(corpus.root)
    data = SiteData(corpus=corpus, proofs=proofs)
    for rule in corpus.rules:
        blocks = [s for s in rule.snippets if evidence.provable(rule, s)]
        if (rule.check == "automated" and rule.related and rule.spec and {s.kind for s in blocks} == {"wrong", "correct"}
                and all((p := data.proof(rule, s))[1] and p[0] and p[0].get("ok") for s in blocks)):
            return rule
    pytest.fail("no automated rule with related rules, a spec citation and current proofs: run `mcp-handbook evidence`")


def test_a_rule_page_reads_claim_badges_links_and_proofs(wide: Any, site_url: str, corpus: Corpus, screenshot_dir: Path) -> None:
    rule = _rule_with_marked_proofs(corpus)
    wide.goto(site_url + page_url(rule_src(rule)))
    # the claim is the first thing under the title, and there is no right-hand table of contents
    claim = wide.locator("article h1 + p.hb-claim")
    assert claim.is_visible() and claim.inner_text().replace("`", "") == rule.summary.replace("`", "")
    assert not wide.locator(".md-sidebar--secondary").is_visible()
    # scope and check are two badges that differ in shape, not only in words
    scope, check = wide.locator(".hb-meta .hb-badge.hb-scope-" + rule.scope), wide.locator(".hb-meta .hb-checkkind")
    assert scope.is_visible() and check.is_visible() and "Automated" in check.inner_text()
    assert _style(scope, "border-top-left-radius") != _style(check, "border-top-left-radius")
    # the spec citation links to the specification; related rules link to their pages
    spec = wide.locator(".hb-meta a.hb-spec-link")
    assert spec.get_attribute("href").startswith("https://modelcontextprotocol.io/specification/" + rule.spec.split()[0])
    related = next(r for r in corpus.rules if r.id == rule.related[0])
    wide.locator("article a", has_text=f"{related.id} · ").first.click()
    wide.wait_for_load_state("load")
    assert urlsplit(wide.url).path.endswith("/" + page_url(rule_src(related)))
    wide.go_back()
    # the legend is one click away
    wide.locator(".hb-meta a", has_text="What the badges mean").click()
    wide.wait_for_load_state("load")
    assert wide.locator("article h1").inner_text().startswith("Reading a rule page")
    wide.go_back()
    wrong, correct = wide.locator(".hb-snippet.hb-wrong").first, wide.locator(".hb-snippet.hb-correct").first
    # WRONG code: no green tick; the probe failed, as expected, and its transcript is open with the notation legend
    verdict = wrong.locator(".hb-proof-verdict").inner_text()
    assert verdict.startswith("✗ The probe failed, as expected") and "✓" not in verdict
    assert wrong.locator(".hb-transcript pre").is_visible() and wrong.locator(".hb-transcript-legend").is_visible()
    assert ">>> sent to the server" in wrong.locator(".hb-transcript-legend").inner_text()
    # CORRECT code: proved, its transcript folded until asked for
    assert correct.locator(".hb-proof-verdict").inner_text().startswith("✓ Proved")
    assert not correct.locator(".hb-transcript pre").is_visible()
    correct.locator(".hb-transcript summary").click()
    assert correct.locator(".hb-transcript pre").is_visible()
    _below_header(wrong)
    wide.screenshot(path=str(screenshot_dir / f"{rule.id}-1440.png"), full_page=True)


def test_marked_lines_are_the_lines_that_differ_between_wrong_and_correct(wide: Any, site_url: str, corpus: Corpus) -> None:
    from mcp_handbook.site.rule_page import differing_lines

    rule = next(r for r in corpus.rules if r.snippets and all(differing_lines(r, s) for s in r.snippets))
    wide.goto(site_url + page_url(rule_src(rule)))
    for box, snippet in zip(wide.locator(".hb-snippet").all(), sorted(rule.snippets, key=lambda s: s.location.line)):
        lines = snippet.code.split("\n")
        marked = [m.inner_text().rstrip("\n") for m in box.locator(".highlight .hll").all()]
        assert marked == [lines[n - 1] for n in differing_lines(rule, snippet)], snippet.name
        assert "differ from" in box.locator(".hb-diff-note").inner_text()
        assert _copied(box.locator(".highlight code")).rstrip("\n") == snippet.code.rstrip("\n"), "the copy button copies the code as written"
        assert _style(box.locator(".highlight .hll").first, "background-color") != _style(box.locator(".highlight code"), "background-color")


def test_tag_pages_list_each_rule_once_in_checklist_order(visit: Any, corpus: Corpus) -> None:
    order = [r.id for r in corpus.rules]
    for page, section_of in (
        ("tags/universal/", lambda r: r.scope == "universal"),
        ("tags/opinionated/", lambda r: r.scope == "opinionated"),
        ("tags/stack/", lambda r: r.scope == "stack"),
        ("tags/severity/", lambda r: True),
    ):
        visit.open(page)
        sections = visit.page.locator("article h2").all_inner_texts()
        links = visit.page.locator("article ul li a").all_inner_texts()
        listed = [text.split(" · ", 1)[0].strip() for text in links]
        assert sorted(listed) == sorted(r.id for r in corpus.rules if section_of(r)), page
        assert len(listed) == len(set(listed)), f"{page}: a rule listed twice"
        if page == "tags/severity/":
            assert [s.strip().removesuffix("¶").strip() for s in sections] == ["Severity: high", "Severity: medium", "Severity: low"]
            by_severity = [i for s in ("high", "medium", "low") for i in order if next(r for r in corpus.rules if r.id == i).severity == s]
            assert listed == by_severity
        elif page == "tags/stack/":
            assert all(listed.index(a) < listed.index(b) for a, b in pairwise(listed)
                       if next(r for r in corpus.rules if r.id == a).stack == next(r for r in corpus.rules if r.id == b).stack)
        else:
            assert listed == [i for i in order if i in listed], f"{page}: not in checklist order"
    visit.assert_clean()


def test_rule_page_at_390_px_is_no_wider_than_the_phone(browser: Any, site_url: str, corpus: Corpus, screenshot_dir: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        rule = _rule_with_marked_proofs(corpus)
        page.goto(site_url + page_url(rule_src(rule)))
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.locator("article h1 + p.hb-claim").is_visible()
        page.screenshot(path=str(screenshot_dir / f"{rule.id}-390.png"), full_page=True)
    finally:
        context.close()
