"""The worksheet as a review tool, in a real browser (issue 15, defects 1 to 8): what a stack means,
filters that survive Back, exports that keep every row, a Clear that can be undone, keys that stay in
the worksheet, a phone-sized screen, a record of what was reviewed, filters that find what is left, and
answers stored under an earlier doctrine version."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from worksheet_helpers import answer, checked_status, export, export_file, import_file, page_data, row, select_filter, statuses, visible_ids

from mcp_handbook.cli import main
from mcp_handbook.export import load_schema
from mcp_handbook.model import Corpus

pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844}
REVIEW = {"server_name": "Acme Files (beta)", "server_version": "1.4.2", "reviewer": "Ada Lovelace"}


def fill_review(page: Any, values: dict[str, str]) -> None:
    for name, value in values.items():
        page.locator(f'input[data-hb-review="{name}"]').fill(value)


def stamp_filters(page: Any, tmp_path: Path) -> str:
    return next(csv.DictReader(io.StringIO(export(page, "csv", tmp_path))))["filters"]


# ---- 1. a stack filter means "the rules that apply to this kind of server" ---------------------


@pytest.mark.parametrize("where", ["worksheet/", "overview/"])
def test_a_stack_filter_keeps_the_general_rules_and_that_stacks_rules(where: str, visit: Any, corpus: Corpus) -> None:
    stacks = sorted({r.stack for r in corpus.rules if r.stack})
    assert stacks, "the doctrine has no stack rule to filter by"
    chosen = stacks[0]
    wanted = [r.id for r in corpus.rules if not r.stack or r.stack == chosen]
    page = visit.open(where)
    table = "#hb-ws-table" if where == "worksheet/" else "#hb-overview"
    page.locator(f'form[data-hb-filters="{table[1:]}"] select[data-hb-filter="stack"]').select_option(chosen)
    shown = page.evaluate(f"() => [...document.querySelectorAll('{table} tbody tr:not([hidden])')].length")
    assert shown == len(wanted), f"stack {chosen}: {shown} rules shown, the general rules plus its own are {len(wanted)}"
    if where == "worksheet/":
        assert visible_ids(page) == wanted
        others = [r.id for r in corpus.rules if r.stack and r.stack != chosen]
        assert not set(others) & set(visible_ids(page)), "another stack's rules must be left out"
    visit.assert_clean()


# ---- 2. filters live in the URL; after Back, dropdowns, table and stamp agree ------------------


def test_filters_are_in_the_url_and_a_shared_link_applies_them(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    gate = corpus.rules[-1].gate
    condition = next(c for r in corpus.rules for c in r.conditions)
    page = visit.open("worksheet/")
    select_filter(page, "gate", gate)
    assert f"gate={gate}" in page.url
    shared = visit.open(f"worksheet/?gate={gate}&without={condition}&severity=nonsense")
    wanted = [r.id for r in corpus.rules if r.gate == gate and condition not in r.conditions]
    assert visible_ids(shared) == wanted
    assert shared.locator('select[data-hb-filter="gate"]').input_value() == gate
    assert shared.locator(f'input[data-hb-without="{condition}"]').is_checked()
    assert stamp_filters(shared, tmp_path) == f"gate={gate}; without={condition}"
    assert "severity=nonsense" not in shared.url, "a value that is not a choice is dropped from the URL"
    visit.assert_clean()


def test_after_opening_a_rule_and_going_back_dropdowns_table_and_stamp_agree(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    gate = corpus.rules[-1].gate
    in_gate = [r.id for r in corpus.rules if r.gate == gate]
    page = visit.open("worksheet/")
    select_filter(page, "gate", gate)
    row(page, in_gate[0]).locator("th a").first.click()
    page.wait_for_url(lambda url: "worksheet" not in url)
    page.go_back()
    page.wait_for_url(lambda url: "worksheet" in url)
    assert page.locator('select[data-hb-filter="gate"]').input_value() == gate
    assert visible_ids(page) == in_gate
    assert stamp_filters(page, tmp_path) == f"gate={gate}"
    visit.assert_clean()


def test_a_page_restored_with_stale_dropdowns_is_set_again_from_its_url(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    """What a return from the back/forward cache (or a browser restoring form fields) can leave behind:
    a dropdown that no longer matches the table. pageshow re-reads the URL."""
    gate = corpus.rules[-1].gate
    in_gate = [r.id for r in corpus.rules if r.gate == gate]
    page = visit.open("worksheet/")
    select_filter(page, "gate", gate)
    page.evaluate(
        """() => {
          document.querySelector('select[data-hb-filter="gate"]').value = '';
          document.querySelectorAll('#hb-ws-table tbody tr').forEach(tr => { tr.hidden = false; });
          window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}));
        }"""
    )
    assert page.locator('select[data-hb-filter="gate"]').input_value() == gate
    assert visible_ids(page) == in_gate
    assert stamp_filters(page, tmp_path) == f"gate={gate}"
    visit.assert_clean()


# ---- 3. an export keeps every row; Clear counts what is not exported and can be undone ----------


def test_an_export_after_filtering_holds_every_row_answered_or_not(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    gate = corpus.rules[0].gate
    hidden_answer = next(r.id for r in corpus.rules if r.gate != gate)
    page = visit.open("worksheet/")
    answer(page, hidden_answer, status="Fail", evidence="seen before filtering")
    select_filter(page, "gate", gate)
    document = json.loads(export(page, "json", tmp_path))
    assert [i["id"] for i in document["items"]] == [r.id for r in corpus.rules]
    item = next(i for i in document["items"] if i["id"] == hidden_answer)
    assert (item["status"], item["evidence"]) == ("Fail", "seen before filtering")
    assert document["filters"]["gate"] == [gate]
    assert "the file holds every row" in page.locator(".hb-ws-message").inner_text()
    visit.assert_clean()


def test_clear_says_how_many_answers_are_not_in_the_last_export_and_can_be_undone(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    a, b, c = (r.id for r in corpus.rules[:3])
    page = visit.open("worksheet/")
    answer(page, a, status="Pass")
    answer(page, b, status="Fail", notes="exported")
    export(page, "json", tmp_path)
    answer(page, b, status="N/A")  # changed since the export
    answer(page, c, evidence="typed after the export")
    questions: list[str] = []

    def accept(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.accept()

    page.on("dialog", accept)
    page.locator("[data-hb-clear]").click()
    assert questions and "Clear all 3 answers" in questions[0] and "2 of them are not in your last export" in questions[0]
    message = page.locator(".hb-ws-message")
    assert "Cleared 3 answers; 2 of them were not in your last export." in message.inner_text()
    assert set(statuses(page).values()) == {""}
    page.reload()
    assert checked_status(page, a) == "", "a clear is saved"
    page.locator("[data-hb-clear]").click()
    assert "no answers to clear" in page.locator(".hb-ws-message").inner_text()


def test_undo_restores_every_cleared_answer_and_keeps_it(visit: Any, corpus: Corpus) -> None:
    a, b = corpus.rules[0].id, corpus.rules[-1].id
    page = visit.open("worksheet/")
    answer(page, a, status="Pass", notes="kept")
    answer(page, b, status="Fail")
    questions: list[str] = []
    page.on("dialog", lambda d: (questions.append(d.message), d.accept()))
    page.locator("[data-hb-clear]").click()
    assert "You have not exported this review." in questions[0]
    assert "none of them were exported" in page.locator(".hb-ws-message").inner_text()
    page.locator('.hb-ws-message button[data-hb-action="undo"]').click()
    assert "Restored 2 answers." in page.locator(".hb-ws-message").inner_text()
    page.reload()
    assert (checked_status(page, a), checked_status(page, b)) == ("Pass", "Fail")
    assert row(page, a).locator('textarea[data-field="notes"]').input_value() == "kept"
    visit.assert_clean()


# ---- 4. keys stay inside the worksheet ----------------------------------------------------------


def test_letter_keys_set_the_focused_rows_status_and_never_reach_the_theme(visit: Any, corpus: Corpus) -> None:
    target = corpus.rules[1].id
    page = visit.open("worksheet/")
    start = page.url
    hint = page.locator(".hb-ws-keys")
    assert hint.is_visible() and "P" in hint.inner_text() and "Fail" in hint.inner_text()
    row(page, target).locator("fieldset.hb-status label").first.click()  # focuses the "not reviewed" radio
    for key, expected in (("p", "Pass"), ("f", "Fail"), ("n", "N/A"), ("-", ""), ("P", "Pass"), ("s", "Pass"), ("/", "Pass")):
        page.keyboard.press(key)
        page.wait_for_timeout(50)  # a theme shortcut would navigate or open search within this time
        assert page.url == start, f"{key!r} left the page"
        assert not page.evaluate("document.getElementById('__search').checked"), f"{key!r} opened the search"
        assert checked_status(page, target) == expected, f"after {key!r}"
    focused = page.evaluate("document.activeElement.closest('tr') && document.activeElement.closest('tr').dataset.id")
    assert focused == target, "the focus stays on the row's status"
    page.reload()
    assert checked_status(page, target) == "Pass", "a status set by key is saved"
    visit.assert_clean()


def test_a_focused_button_keeps_the_page_and_letters_typed_into_a_box_are_text(visit: Any, corpus: Corpus) -> None:
    target = corpus.rules[0].id
    page = visit.open("worksheet/")
    start = page.url
    for control in ("[data-hb-print]", 'form[data-hb-filters] button[type="reset"]'):
        page.locator(control).focus()
        for key in ("n", "p", "s"):
            page.keyboard.press(key)
            page.wait_for_timeout(50)
            assert page.url == start, f"{key!r} pressed on {control} left the page"
            assert not page.evaluate("document.getElementById('__search').checked"), f"{key!r} on {control} opened the search"
    box = row(page, target).locator('textarea[data-field="notes"]')
    box.click()
    page.keyboard.type("pfn-/s")
    assert box.input_value() == "pfn-/s" and checked_status(page, target) == ""
    reviewer = page.locator('input[data-hb-review="reviewer"]')
    reviewer.click()
    page.keyboard.type("nps")
    assert reviewer.input_value() == "nps" and page.url == start
    visit.assert_clean()


# ---- 5. a phone: no sideways scrolling, every status reachable --------------------------------


def test_at_390_px_the_page_fits_the_screen_and_every_status_is_within_reach(visit: Any, corpus: Corpus, screenshot_dir: Path) -> None:
    visit.page.set_viewport_size(PHONE)
    page = visit.open("worksheet/")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    outside = page.evaluate(
        """(width) => [...document.querySelectorAll('#hb-ws-table tbody tr')].filter(tr => {
             const r = tr.querySelector('fieldset.hb-status').getBoundingClientRect();
             return r.left < 0 || r.right > width || r.width === 0;
           }).map(tr => tr.dataset.id)""",
        PHONE["width"],
    )
    assert outside == [], f"status controls off the screen: {outside}"
    last = corpus.rules[-1].id
    answer(page, last, status="Fail", evidence="seen on a phone")
    assert checked_status(page, last) == "Fail"
    assert page.evaluate("window.scrollX") == 0
    page.screenshot(path=str(screenshot_dir / "worksheet-phone.png"))
    visit.assert_clean()


# ---- 6. a record of what was reviewed -------------------------------------------------------------


def test_server_reviewer_and_date_go_into_every_export_and_the_file_name(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    today = dt.date.today().isoformat()
    page = visit.open("worksheet/")
    fill_review(page, REVIEW)
    answer(page, corpus.rules[0].id, status="Pass")
    page.reload()
    assert {n: page.locator(f'input[data-hb-review="{n}"]').input_value() for n in REVIEW} == REVIEW, "saved as typed"

    path = export_file(page, "json", tmp_path)
    assert path.name == f"mcp-worksheet-acme-files-beta-1.4.2-{today}.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(document, load_schema("worksheet"))
    assert {n: document[n] for n in REVIEW} == REVIEW and document["date"] == today

    rows = list(csv.DictReader(io.StringIO(export(page, "csv", tmp_path))))
    assert {(r["server_name"], r["server_version"], r["reviewer"], r["date"]) for r in rows} == {(*REVIEW.values(), today)}

    md = export(page, "md", tmp_path)
    assert "- Server: Acme Files (beta)\n- Server version: 1.4.2\n- Reviewer: Ada Lovelace\n" in md

    page.emulate_media(media="print")
    head = page.locator(".hb-print-head")
    assert head.is_visible()
    assert head.inner_text().startswith(f"Review of Acme Files (beta), version 1.4.2 · reviewer Ada Lovelace · {today}")
    visit.assert_clean()


def test_report_shows_the_review_record_of_a_browser_export(visit: Any, tmp_path: Path, project_root: Path, capsys: Any) -> None:
    page = visit.open("worksheet/")
    fill_review(page, REVIEW)
    path = export_file(page, "md", tmp_path)
    code = main(["--root", str(project_root), "report", str(path), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {n: data[n] for n in REVIEW} == REVIEW


def test_an_import_brings_back_the_review_record(new_visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    one = new_visit()
    page = one.open("worksheet/")
    fill_review(page, REVIEW)
    answer(page, corpus.rules[0].id, status="Fail")
    path = export_file(page, "json", tmp_path)
    two = new_visit()
    fresh = two.open("worksheet/")
    assert "Imported" in import_file(fresh, path)
    assert {n: fresh.locator(f'input[data-hb-review="{n}"]').input_value() for n in REVIEW} == REVIEW
    assert checked_status(fresh, corpus.rules[0].id) == "Fail"
    one.assert_clean()
    two.assert_clean()


# ---- 7. find what is left -------------------------------------------------------------------------


def test_filters_by_status_check_kind_and_profile_find_what_is_left(visit: Any, corpus: Corpus) -> None:
    manual = [r.id for r in corpus.rules if r.check == "manual"]
    passed, failed = manual[0], corpus.rules[0].id
    page = visit.open("worksheet/")
    answer(page, passed, status="Pass")
    answer(page, failed, status="Fail")
    select_filter(page, "status", "unreviewed")
    assert visible_ids(page) == [r.id for r in corpus.rules if r.id not in (passed, failed)]
    select_filter(page, "check", "manual")
    assert visible_ids(page) == [i for i in manual if i not in (passed, failed)]
    select_filter(page, "check", "")
    select_filter(page, "status", "Fail")
    assert visible_ids(page) == [failed]
    select_filter(page, "status", "")
    select_filter(page, "profile", "spec")
    assert visible_ids(page) == [r.id for r in corpus.rules if "spec" in r.profiles]
    assert page.locator(".hb-ws-progress").inner_text().startswith(f"Showing {len(visible_ids(page))} of {len(corpus.rules)} rules")
    visit.assert_clean()


@pytest.mark.parametrize("size", [{"width": 1440, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_the_progress_line_stays_in_sight_while_the_table_scrolls(size: dict[str, int], visit: Any, corpus: Corpus) -> None:
    visit.page.set_viewport_size(size)
    page = visit.open("worksheet/")
    answer(page, corpus.rules[-1].id, status="Fail")  # scrolls to the end of the table
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight * 0.6)")
    box = page.locator(".hb-ws-progress").bounding_box()
    assert box is not None and 0 <= box["y"] < 120, f"the progress line is at {box}"
    on_top = page.evaluate(
        """() => { const p = document.querySelector('.hb-ws-progress'); const r = p.getBoundingClientRect();
                   const hit = document.elementFromPoint(r.left + 5, r.top + r.height / 2); return p.contains(hit); }"""
    )
    assert on_top, "the progress line is hidden under something"
    assert "1 Fail" in page.locator(".hb-ws-progress").inner_text()
    visit.assert_clean()


# ---- 8. answers stored under an earlier doctrine version ------------------------------------------


def _seed(page: Any, version: str, rows: dict[str, dict[str, str]], review: dict[str, str]) -> None:
    key = f"mcp-handbook/worksheet/{version}"
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, JSON.stringify(value))",
        [key, {"doctrine_version": version, "rows": rows, "review": review}],
    )


def test_answers_under_an_earlier_version_are_offered_with_what_changed_and_carried_over(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    page = visit.open("worksheet/")
    data = page_data(page)
    version = sorted(data["earlier"])[0] if data["earlier"] else "0.0.1"
    retired = data["retired"][0] if data["retired"] else None
    kept, carried = corpus.rules[0].id, corpus.rules[1].id
    old = {kept: {"status": "Fail", "evidence": "", "notes": ""}, carried: {"status": "Pass", "evidence": "old evidence", "notes": ""},
           "ZZZ-999": {"status": "Pass", "evidence": "", "notes": ""}}
    if retired:
        old[retired["id"]] = {"status": "N/A", "evidence": "", "notes": "retired since"}
    _seed(page, version, old, {"server_name": "acme", "reviewer": "Old Reviewer"})
    page.reload()
    answer(page, kept, status="Pass")  # answered after the offer was drawn: carrying over must not overwrite it

    offer = page.locator(f'.hb-ws-earlier-one[data-version="{version}"]')
    text = offer.inner_text()
    assert f"holds {len(old)} answers for doctrine {version}" in text
    assert f"Not in doctrine {corpus.version}, so not carried over (1): ZZZ-999." in text
    if retired:
        assert f"Retired since, so not carried over (1): {retired['id']} (retired in {retired['retired_in']}" in text
    if version in data["earlier"]:
        changed = [i for i in (kept, carried) if i in data["earlier"][version]["changed"]]
        if changed:
            assert f"look at them again ({len(changed)}): {', '.join(changed)}." in text
    else:
        assert "cannot tell which rules changed" in text
    assert f"Already answered here, so your answer here stays (1): {kept}." in text
    assert offer.locator('button[data-hb-earlier="carry"]').inner_text() == "Carry over 1 answer"

    with page.expect_download() as info:
        offer.locator('button[data-hb-earlier="export"]').click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(document, load_schema("worksheet"))
    assert document["doctrine_version"] == version and sorted(i["id"] for i in document["items"]) == sorted(old)
    assert document["server_name"] == "acme" and document["reviewer"] == "Old Reviewer"

    offer.locator('button[data-hb-earlier="carry"]').click()
    assert f"Carried over 1 answer from doctrine {version}." in page.locator(".hb-ws-message").inner_text()
    assert (checked_status(page, kept), checked_status(page, carried)) == ("Pass", "Pass")
    assert row(page, carried).locator('textarea[data-field="evidence"]').input_value() == "old evidence"
    assert page.locator('input[data-hb-review="reviewer"]').input_value() == "Old Reviewer"
    assert page.locator(".hb-ws-earlier").is_hidden()
    page.reload()
    assert page.locator(".hb-ws-earlier").is_hidden(), "carried answers are not offered again"
    still = page.evaluate(f"() => JSON.parse(localStorage.getItem('mcp-handbook/worksheet/{version}')).rows")
    assert sorted(still) == sorted(old), "the earlier answers stay stored"
    visit.assert_clean()


def test_not_now_puts_the_offer_away_until_the_next_visit_and_an_empty_review_is_never_offered(visit: Any, corpus: Corpus) -> None:
    page = visit.open("worksheet/")
    _seed(page, "0.0.9", {corpus.rules[0].id: {"status": "Pass", "evidence": "", "notes": ""}}, {})
    _seed(page, "0.0.8", {}, {"reviewer": "nobody answered"})
    page.reload()
    assert page.locator(".hb-ws-earlier-one").count() == 1
    page.locator('.hb-ws-earlier-one[data-version="0.0.9"] button[data-hb-earlier="dismiss"]').click()
    assert page.locator(".hb-ws-earlier").is_hidden()
    assert checked_status(page, corpus.rules[0].id) == "", "putting the offer away carries nothing over"
    page.reload()
    assert page.locator('.hb-ws-earlier-one[data-version="0.0.9"]').is_visible()
    visit.assert_clean()


def test_importing_an_earlier_versions_export_says_what_changed_and_what_was_left_out(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    page = visit.open("worksheet/")
    data = page_data(page)
    version = sorted(data["earlier"])[0] if data["earlier"] else "0.0.1"
    first = corpus.rules[0].id
    items = [{"id": first, "status": "Fail", "evidence": "from the old review", "notes": ""},
             {"id": "ZZZ-999", "status": "Pass", "evidence": "", "notes": ""}]
    document = {"format": "mcp-handbook-worksheet", "format_version": 1, "doctrine_version": version, "items": items}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    text = import_file(page, path)
    assert f"It was exported from doctrine {version}; this page is doctrine {corpus.version}." in text
    assert f"Not in doctrine {corpus.version}, so not imported (1): ZZZ-999." in text
    if version in data["earlier"] and first in data["earlier"][version]["changed"]:
        assert f"look at them again (1): {first}." in text
    elif version not in data["earlier"]:
        assert "look at every imported answer again" in text
    assert checked_status(page, first) == "Fail"
    visit.assert_clean()
