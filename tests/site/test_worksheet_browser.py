"""The review worksheet, used as a reviewer would in a real browser: answer, reload, filter, export, import, print."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from worksheet_helpers import TRICKY, answer, checked_status, export, import_file, row

from mcp_handbook.export import COLUMNS, STAMP_COLUMNS, STATUSES, WRITERS, Stamp, worksheet_rows
from mcp_handbook.export.filters import normalise
from mcp_handbook.model import Corpus

pytestmark = pytest.mark.slow


def test_answers_survive_a_reload(visit: Any, corpus: Corpus) -> None:
    first, last = corpus.rules[0].id, corpus.rules[-1].id
    page = visit.open("worksheet/")
    answer(page, first, status="Pass", evidence="probe log attached", notes="checked by hand too")
    answer(page, last, status="Fail")
    page.reload()
    assert checked_status(page, first) == "Pass"
    assert checked_status(page, last) == ("Fail" if last != first else "Pass")
    assert row(page, first).locator('textarea[data-field="notes"]').input_value() == "checked by hand too"
    assert row(page, first).locator('textarea[data-field="evidence"]').input_value() == "probe log attached"
    assert "1 Pass" in page.locator(".hb-ws-progress").inner_text()
    visit.assert_clean()


def test_a_filtered_csv_export_holds_every_row_with_answers_and_the_filters_in_view(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    gate = corpus.rules[-1].gate
    in_gate = [r.id for r in corpus.rules if r.gate == gate]
    elsewhere = next(r.id for r in corpus.rules if r.gate != gate)
    page = visit.open("worksheet/")
    answer(page, in_gate[0], status="N/A", notes=TRICKY)
    answer(page, elsewhere, status="Fail")
    page.locator('form[data-hb-filters] select[data-hb-filter="gate"]').select_option(gate)
    visible = [r.id for r in corpus.rules if row(page, r.id).is_visible()]
    assert visible == in_gate
    rows = list(csv.DictReader(io.StringIO(export(page, "csv", tmp_path))))
    assert [r["id"] for r in rows] == [r.id for r in corpus.rules], "filters decide what is shown, not what is kept"
    assert list(rows[0]) == [*COLUMNS, *STAMP_COLUMNS]
    by_id = {r["id"]: r for r in rows}
    assert by_id[in_gate[0]]["status"] == "N/A" and by_id[in_gate[0]]["notes"] == TRICKY
    assert by_id[elsewhere]["status"] == "Fail", "an answer the filters hide is still exported"
    assert {r["filters"] for r in rows} == {f"gate={gate}"}
    assert {r["doctrine_version"] for r in rows} == {corpus.version}
    visit.assert_clean()


def _expected(corpus: Corpus, answers: dict[str, dict[str, str]], exported: dict) -> tuple[list[dict[str, str]], Stamp]:
    """The CLI's rows and stamp for the same answers; date and commit as the page stamped them (the commit
    is taken at build time; HEAD and `-dirty` may move while other work goes on)."""
    rows = worksheet_rows(corpus.rules, corpus)
    for r in rows:
        r.update(answers.get(r["id"], {}))
    assert re.fullmatch(r"[0-9a-f]{40}(-dirty)?|unknown", exported["commit"]), exported["commit"]
    return rows, Stamp(corpus.version, exported["commit"], exported["date"], normalise(None), **REVIEW)


REVIEW = {"server_name": "Acme files, \"beta\"", "server_version": "1.4.2", "reviewer": "Ada | Grace"}


def test_browser_exports_are_the_cli_exports_byte_for_byte(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    answers = {corpus.rules[0].id: {"status": "Fail", "evidence": TRICKY, "notes": "a, b"}}
    page = visit.open("worksheet/")
    for name, value in REVIEW.items():
        page.locator(f'input[data-hb-review="{name}"]').fill(value)
    for rule_id, a in answers.items():
        answer(page, rule_id, **a)
    exported = {kind: export(page, kind, tmp_path) for kind in ("json", "csv", "md")}
    rows, stamp = _expected(corpus, answers, json.loads(exported["json"]))
    for kind, text in exported.items():
        assert text == WRITERS[kind](rows, stamp), f"the browser's {kind} export differs from the CLI's"
    visit.assert_clean()


def test_a_json_export_resumes_the_review_in_a_fresh_browser(new_visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    first = corpus.rules[0].id
    one = new_visit()
    page = one.open("worksheet/")
    answer(page, first, status="Fail", evidence="stdout carried a banner", notes=TRICKY)
    export(page, "json", tmp_path)
    (exported,) = tmp_path.glob("*.json")

    two = new_visit()
    fresh = two.open("worksheet/")
    assert checked_status(fresh, first) == ""
    assert "Imported" in import_file(fresh, exported)
    assert checked_status(fresh, first) == "Fail"
    assert row(fresh, first).locator('textarea[data-field="notes"]').input_value() == TRICKY
    fresh.reload()
    assert checked_status(fresh, first) == "Fail", "imported answers must be saved, not only shown"
    one.assert_clean()
    two.assert_clean()


def test_an_import_with_a_bad_row_names_row_and_column_and_changes_nothing(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    ids = [r.id for r in corpus.rules]
    page = visit.open("worksheet/")
    answer(page, ids[0], status="Pass")
    bad = json.loads(WRITERS["json"](worksheet_rows(corpus.rules, corpus), Stamp(corpus.version, "x", "2026-01-01")))
    bad["items"][0]["status"] = "Fail"
    bad["items"][-1]["status"] = "Passed"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    text = import_file(page, path, ok=False)
    assert f"bad.json: row {len(ids)} ({ids[-1]}), column status" in text and "nothing was imported" in text
    assert checked_status(page, ids[0]) == "Pass", "a rejected import must not apply its good rows"
    visit.assert_clean()


def test_the_print_layout_shows_answers_as_text_without_controls(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    first = corpus.rules[0].id
    page = visit.open("worksheet/")
    answer(page, first, status="Pass", notes="printed note")
    page.emulate_media(media="print")
    assert not page.locator(".hb-ws-actions").is_visible()
    assert not row(page, first).locator("fieldset.hb-status").is_visible()
    assert not page.locator(".md-sidebar--primary").is_visible()
    assert row(page, first).locator(".hb-print-status").inner_text() == "Pass"
    assert "printed note" in row(page, first).inner_text()
    pdf = page.pdf(path=str(tmp_path / "worksheet.pdf"))
    assert pdf.startswith(b"%PDF") and len(pdf) > 5000
    visit.assert_clean()


def test_statuses_offered_are_the_exporters(visit: Any, corpus: Corpus) -> None:
    page = visit.open("worksheet/")
    values = row(page, corpus.rules[0].id).locator("input[type=radio]").evaluate_all("els => els.map(e => e.value)")
    assert values == ["", *STATUSES]
    visit.assert_clean()


def test_a_profile_and_an_unmet_condition_narrow_the_review_and_are_stamped(visit: Any, corpus: Corpus, tmp_path: Path) -> None:
    condition = next(c for r in corpus.rules for c in r.conditions)
    wanted = [r.id for r in corpus.rules if "baseline" in r.profiles and condition not in r.conditions]
    page = visit.open("worksheet/")
    page.locator('form[data-hb-filters] select[data-hb-filter="profile"]').select_option("baseline")
    page.locator("form[data-hb-filters] details.hb-conditions summary").click()
    page.locator(f'input[data-hb-without="{condition}"]').check()
    visible = [r.id for r in corpus.rules if row(page, r.id).is_visible()]
    assert visible == wanted and 0 < len(wanted) < len(corpus.rules)
    assert {r.basis for r in corpus.rules if r.id in visible} <= {"spec-must", "spec-should", "security"}
    rows = list(csv.DictReader(io.StringIO(export(page, "csv", tmp_path))))
    assert [r["id"] for r in rows] == [r.id for r in corpus.rules]
    assert {r["filters"] for r in rows} == {f"profile=baseline; without={condition}"}
    visit.assert_clean()
