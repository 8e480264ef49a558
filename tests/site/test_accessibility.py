"""Readable by everyone: axe-core, run in Chromium on every kind of page, in the light and the dark scheme,
finds no serious or critical violation of WCAG 2 A or AA.

Each page is judged whole (the navigation and header included), as a reader meets it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from axe_helpers import axe_source, blocking_violations

from mcp_handbook.model import Corpus
from mcp_handbook.site.links import page_url, rule_src

pytestmark = pytest.mark.slow

PAGES = {
    "home": "",
    "all rules": "overview/",
    "a gate": "rules/security/",
    "threats": "threats/",
    "audit": "audit/",
    "proofs": "proofs/",
    "worksheet": "worksheet/",
}
"""Every kind of page but the rule page, which is SEC-001's (its blocks, badges and proofs are the densest)."""


@pytest.fixture(scope="module")
def axe() -> str:
    return axe_source()


def _dark(page: Any) -> None:
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_or_critical_wcag_violation_on_any_kind_of_page(
    browser: Any, site_url: str, corpus: Corpus, axe: str, scheme: str, screenshot_dir: Path
) -> None:
    rule = corpus.rule("SEC-001")
    assert rule is not None
    pages = {**PAGES, "a rule (SEC-001)": page_url(rule_src(rule))}
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    try:
        page = context.new_page()
        page.goto(site_url)
        if scheme == "dark":
            _dark(page)  # remembered by the browser for every page after
        for kind, path in pages.items():
            page.goto(site_url + path)
            page.wait_for_load_state("load")
            assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == ("slate" if scheme == "dark" else "default")
            problems += [f"{kind} ({path or '/'}): {line}" for line in blocking_violations(page, axe)]
            slug = re.sub(r"\W+", "-", kind).strip("-")
            page.screenshot(path=str(screenshot_dir / f"a11y-{scheme}-{slug}.png"))
    finally:
        context.close()
    assert not problems, f"{len(problems)} serious or critical violations:\n" + "\n".join(problems)
