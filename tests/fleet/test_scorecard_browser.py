"""The scorecard page in a real browser, opened from file:// as a person opens an artifact: sort, filter, Back, a
phone's width, and a hostile server name that stays text."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fleet_helpers import fleet, result, verdict

from mcp_handbook.fleet.merge import merge_results
from mcp_handbook.fleet.result import write
from mcp_handbook.fleet.scorecard import write_scorecard

pytestmark = pytest.mark.slow
HOSTILE = '<img src=x onerror="document.title=\'owned\'"><script>document.title="owned"</script>'


@pytest.fixture
def page_file(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    fleet(results)
    write(results, result(HOSTILE, rules=[verdict("TRN-001", "PASS"), verdict("SEC-001", "FAIL", inherited=True)], state="audited"))
    write(results, result("io.example/silent", state="no answer", why="the server exited before answering initialize"))
    card = merge_results([results])
    card["site"] = "https://example.org/handbook/"
    write_scorecard(card, tmp_path / "scorecard")
    return tmp_path / "scorecard" / "index.html"


def shown(page: Any) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('#hb-card tbody tr:not([hidden]) th strong')].map(s => s.textContent)")


def screenshots() -> Path | None:
    chosen = os.environ.get("HB_SCREENSHOTS")
    return Path(chosen) if chosen else None


def test_sort_filter_and_back_keep_the_view_in_the_url(browser: Any, watch: Any, page_file: Path, axe_violations: Any) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        visit = watch(context, "file:///")
        page = visit.open(page_file.as_uri()[len("file:///"):])
        assert page.title().startswith("Fleet scorecard") and HOSTILE in shown(page), "the hostile name is text"
        assert axe_violations(page) == []
        high = page.locator('th:has(button[data-sort="high"])')
        high.locator("button").click()
        assert high.get_attribute("aria-sort") == "ascending"
        high.locator("button").click()
        assert high.get_attribute("aria-sort") == "descending"
        assert shown(page)[0] == "io.example/every-kind", "the one server failing a HIGH rule itself comes first"
        page.locator('select[data-hb-filter="state"]').select_option("not audited")
        assert shown(page) == ["io.example/needs-uvx"]
        assert "state=not+audited" in page.url and "sort=high" in page.url and "dir=desc" in page.url
        if screenshots():
            page.locator('select[data-hb-filter="state"]').select_option("")
            page.screenshot(path=str(screenshots() / "scorecard-desktop.png"), full_page=True)
            page.locator('select[data-hb-filter="state"]').select_option("not audited")
        page.goto("about:blank")
        page.go_back()
        page.wait_for_selector("form[data-hb-filters], form[data-hb-card-filters]:not([hidden])")
        assert page.locator('select[data-hb-filter="state"]').input_value() == "not audited"
        assert shown(page) == ["io.example/needs-uvx"], "after Back the view is the one left"
        assert page.locator('th:has(button[data-sort="high"])').get_attribute("aria-sort") == "descending"
        page.locator("input[data-hb-filter-text]").fill("")
        page.locator('select[data-hb-filter="state"]').select_option("")
        page.locator("input[data-hb-filter-text]").fill("SEC-001")
        assert sorted(shown(page)) == sorted([HOSTILE, "io.example/every-kind"]), "a rule id finds the servers failing it"
        page.locator('select[data-hb-filter="gate"]').select_option("transport")
        assert shown(page) == ["io.example/every-kind"]
        assert page.title().startswith("Fleet scorecard"), "no script of the server's ran"
        visit.assert_clean()
    finally:
        context.close()


def test_at_390_px_nothing_is_wider_than_the_phone(browser: Any, page_file: Path, axe_violations: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        page.goto(page_file.as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        wider = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter(e => !e.closest('.hb-scroll') && e.getBoundingClientRect().right > 390.5)
            .map(e => e.tagName + '.' + e.className)""")
        assert wider == [], "only the table's own box may scroll sideways"
        box = page.locator(".hb-scroll").first
        assert box.evaluate("e => e.scrollWidth > e.clientWidth"), "the table scrolls inside its box"
        assert axe_violations(page) == []
        if screenshots():
            page.screenshot(path=str(screenshots() / "scorecard-phone.png"), full_page=True)
    finally:
        context.close()


def test_a_long_scorecard_shows_a_page_of_rows_at_a_time_chosen_from_all(browser: Any, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_handbook.fleet import scorecard_page

    monkeypatch.setattr(scorecard_page, "SHOWN", 2)
    results = tmp_path / "results"
    fleet(results)  # read after the three in results/a: a folder is read in the order of its sorted names
    for n in range(3):
        write(results / "a", result(f"io.example/a{n}", rules=[verdict("TRN-001", "PASS")]))
    write_scorecard(merge_results([results]), tmp_path / "out")
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.goto((tmp_path / "out" / "index.html").as_uri())
        assert shown(page) == ["io.example/a0", "io.example/a1"]
        assert "6 servers; the first 2 shown" in page.locator(".hb-filter-count").inner_text()
        page.locator('button[data-sort="high"]').click()
        page.locator('button[data-sort="high"]').click()
        assert shown(page)[0] == "io.example/every-kind", "the sort chooses from every row, not the ones shown"
        page.locator("[data-hb-more]").click()
        assert len(shown(page)) == 4
        page.locator("[data-hb-more]").click()
        assert len(shown(page)) == 6 and page.locator("[data-hb-more]").is_hidden()
    finally:
        context.close()
