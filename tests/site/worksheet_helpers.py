"""Helpers for the worksheet browser tests: act on a row as a person would, export, read the page's data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TRICKY = 'saw "quotes", a | pipe, a back\\slash\nand a second line'


def row(page: Any, rule_id: str) -> Any:
    return page.locator(f'tr[data-id="{rule_id}"]')


def answer(page: Any, rule_id: str, *, status: str = "", evidence: str = "", notes: str = "") -> None:
    """Click the status (its visible label, as a person would) and type into the boxes."""
    r = row(page, rule_id)
    if status:
        r.locator("fieldset.hb-status label", has_text=status).click()
    if evidence:
        r.locator('textarea[data-field="evidence"]').fill(evidence)
    if notes:
        r.locator('textarea[data-field="notes"]').fill(notes)


def checked_status(page: Any, rule_id: str) -> str:
    return row(page, rule_id).locator("input[type=radio]:checked").get_attribute("value") or ""


def statuses(page: Any) -> dict[str, str]:
    """Every row's checked status, by rule id, read in one go."""
    return page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#hb-ws-table tbody tr')]"
        ".map(tr => [tr.dataset.id, (tr.querySelector('input[type=radio]:checked') || {}).value || '']))"
    )


def visible_ids(page: Any) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('#hb-ws-table tbody tr:not([hidden])')].map(tr => tr.dataset.id)")


def select_filter(page: Any, key: str, value: str) -> None:
    page.locator(f'form[data-hb-filters] select[data-hb-filter="{key}"]').select_option(value)


def export_file(page: Any, kind: str, dest: Path) -> Path:
    """Click an export button; the downloaded file, saved under the name the page suggested."""
    with page.expect_download() as info:
        page.locator(f'[data-hb-export="{kind}"]').click()
    path = dest / info.value.suggested_filename
    info.value.save_as(path)
    return path


def export(page: Any, kind: str, dest: Path) -> str:
    return export_file(page, kind, dest).read_text(encoding="utf-8")


def import_file(page: Any, path: Path, *, ok: bool = True) -> str:
    """Choose ``path`` in the Import control and wait for the page's verdict: the message it shows (an error
    message when ``ok`` is False)."""
    page.locator("[data-hb-import]").set_input_files(str(path))
    message = page.locator(".hb-ws-message." + ("hb-ws-ok" if ok else "hb-ws-error"))
    message.wait_for()
    return message.inner_text()


def page_data(page: Any) -> dict[str, Any]:
    """The JSON block the build embedded for the page's script."""
    return json.loads(page.locator("#hb-worksheet-data").text_content())
