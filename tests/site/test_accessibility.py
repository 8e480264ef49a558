"""Readable by everyone: axe-core, run in Chromium on every kind of page, in the light and the dark scheme,
finds no serious or critical violation of WCAG 2 A or AA.

axe-core is the npm package `.ci/install-tools` installs beside the other Node tools; HB_AXE_JS names another
copy of ``axe.min.js``. Each page is judged whole (the navigation and header included), as a reader meets it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from handbook_testing import ROOT, require_tool

from mcp_handbook.model import Corpus
from mcp_handbook.site.links import page_url, rule_src

pytestmark = pytest.mark.slow

AXE_JS = Path(os.environ.get("HB_AXE_JS") or ROOT / ".tools" / "node" / "node_modules" / "axe-core" / "axe.min.js")
WCAG_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = {"serious", "critical"}
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
def axe_source() -> str:
    return require_tool(AXE_JS, "the accessibility test runs axe-core in the browser").read_text(encoding="utf-8")


def _violations(page: Any, axe_source: str) -> list[str]:
    """axe's serious and critical WCAG A/AA violations on the page as it is now, one line per failing element."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    found = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})", WCAG_A_AA)
    return [
        f"{v['id']} ({v['impact']}): {node['target']} — {node['failureSummary'].splitlines()[-1].strip()}"
        for v in found["violations"] if v["impact"] in BLOCKING for node in v["nodes"]
    ]


def _dark(page: Any) -> None:
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_or_critical_wcag_violation_on_any_kind_of_page(
    browser: Any, site_url: str, corpus: Corpus, axe_source: str, scheme: str, screenshot_dir: Path
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
            problems += [f"{kind} ({path or '/'}): {line}" for line in _violations(page, axe_source)]
            slug = re.sub(r"\W+", "-", kind).strip("-")
            page.screenshot(path=str(screenshot_dir / f"a11y-{scheme}-{slug}.png"))
    finally:
        context.close()
    assert not problems, f"{len(problems)} serious or critical violations:\n" + "\n".join(problems)
