"""Read a JSON worksheet back, checked against the schema shipped with the exporter."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

from ..export.filters import filters_text, normalise
from ..export.schemas import load_schema
from ..export.worksheet import COLUMNS
from .places import Place, Problem
from .read import STAMP_KEYS, Cell, Entry, Filled, decode


def _item_place(file: str, index: int) -> Place:
    return Place(file, row=index + 1, row_word="item", column_word="field")


def _schema_problems(document: Any, file: str) -> list[Problem]:
    problems = []
    for error in sorted(Draft202012Validator(load_schema("worksheet")).iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
        path = list(error.absolute_path)
        if path[:1] == ["items"] and len(path) >= 2:
            place = _item_place(file, int(path[1])).at(column=str(path[2]) if len(path) > 2 else "")
            if len(path) == 3 and path[2] == "status" and error.validator == "pattern":
                continue  # the status check says this more helpfully, for every format alike
        else:
            place = Place(file, column="/".join(map(str, path)), column_word="field") if path else Place(file)
        problems.append(Problem(place, f"does not match the worksheet schema: {error.message}"))
    return problems


def _filters(value: Any) -> str:
    """The JSON filters object in the stamp's text form, so every format reads back alike."""
    return filters_text(normalise(value)) if isinstance(value, dict) else ""


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def read_json(data: bytes, file: str) -> tuple[Filled | None, list[Problem]]:
    text, problems = decode(data, file)
    if text is None:
        return None, problems
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        place = Place(file, row=exc.lineno, row_word="line", column=str(exc.colno))
        return None, [Problem(place, f"is not valid JSON: {exc.msg} (is the file truncated?)")]
    if not isinstance(document, dict):
        return None, [Problem(Place(file), "is not a worksheet: the top level must be an object with doctrine_version and items")]
    problems = _schema_problems(document, file)
    stamp = {
        key: Cell(_text(document.get(key)) if key != "filters" else _filters(document.get(key)), Place(file, column=key, column_word="field"))
        for key in STAMP_KEYS
        if key in document
    }
    items = document.get("items") if isinstance(document.get("items"), list) else []
    entries = []
    for i, item in enumerate(items):
        if isinstance(item, dict):
            place = _item_place(file, i)
            cells = {c: Cell(_text(item.get(c)), place.at(column=c)) for c in COLUMNS if c in item}
            entries.append(Entry(place, cells))
    return Filled(file, "json", stamp, tuple(entries)), problems
