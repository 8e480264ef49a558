"""Every page in a real browser: no console error, nothing fetched from off the machine; search, filters,
and rule pages whose WRONG and CORRECT blocks cannot be mistaken for each other."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from mcp_handbook import evidence
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
    firsts = {page_url(rule_src(next(r for r in corpus.rules if r.gate == g.key))) for g in corpus.gates if any(r.gate == g.key for r in corpus.rules)}
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
    assert wrong.locator(".highlight code").inner_text().strip() == rule.snippets_of("wrong")[0].code.strip()
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
