"""Read a JSON worksheet back, checked against the schema shipped with the exporter."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

from ..export.filters import filters_text, normalise
from ..export.schemas import load_schema
from ..export.worksheet import COLUMNS
from ..bounded_json import MAX_DEPTH, TooDeep
from ..bounded_json import loads as bounded_loads
from .places import Place, Problem
from .read import MAX_ROWS, STAMP_KEYS, Cell, Entry, Filled, decode, too_many_rows

MAX_SCHEMA_PROBLEMS = 100
"""Schema problems listed one by one; past this many the rest are counted."""
MESSAGE_CHARS = 300
"""Longest quote of a schema message (it repeats the offending value, which may be huge)."""


def _item_place(file: str, index: int) -> Place:
    return Place(file, row=index + 1, row_word="item", column_word="field")


def _schema_problems(document: Any, file: str) -> list[Problem]:
    problems = []
    errors = []
    for error in Draft202012Validator(load_schema("worksheet")).iter_errors(document):
        errors.append(error)
        if len(errors) > MAX_SCHEMA_PROBLEMS:
            break
    for error in sorted(errors[:MAX_SCHEMA_PROBLEMS], key=lambda e: list(map(str, e.absolute_path))):
        path = list(error.absolute_path)
        if path[:1] == ["items"] and len(path) >= 2:
            place = _item_place(file, int(path[1])).at(column=str(path[2]) if len(path) > 2 else "")
            if len(path) == 3 and path[2] == "status" and error.validator == "pattern":
                continue  # the status check says this more helpfully, for every format alike
        else:
            place = Place(file, column="/".join(map(str, path)), column_word="field") if path else Place(file)
        message = error.message if len(error.message) <= MESSAGE_CHARS else error.message[:MESSAGE_CHARS] + " …"
        problems.append(Problem(place, f"does not match the worksheet schema: {message}"))
    if len(errors) > MAX_SCHEMA_PROBLEMS:
        problems.append(Problem(Place(file), f"more than {MAX_SCHEMA_PROBLEMS} schema problems; the rest are not listed"))
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
        document = bounded_loads(text)
    except TooDeep:
        return None, [Problem(Place(file), f"is not a worksheet: its JSON is nested more than {MAX_DEPTH} levels deep "
                                           "(a worksheet's is 3)")]
    except json.JSONDecodeError as exc:
        place = Place(file, row=exc.lineno, row_word="line", column=str(exc.colno))
        return None, [Problem(place, f"is not valid JSON: {exc.msg} (is the file truncated?)")]
    if not isinstance(document, dict):
        return None, [Problem(Place(file), "is not a worksheet: the top level must be an object with doctrine_version and items")]
    if isinstance(document.get("items"), list) and len(document["items"]) > MAX_ROWS:
        return None, [too_many_rows(Place(file, column="items", column_word="field"), "items")]
    problems = _schema_problems(document, file)
    stamp = {
        key: Cell(_text(document.get(key)) if key != "filters" else _filters(document.get(key)), Place(file, column=key, column_word="field"))
        for key in STAMP_KEYS
        if key in document
    }
    items = document.get("items")
    items = items if isinstance(items, list) else []
    entries = []
    for i, item in enumerate(items):
        if isinstance(item, dict):
            place = _item_place(file, i)
            cells = {c: Cell(_text(item.get(c)), place.at(column=c)) for c in COLUMNS if c in item}
            entries.append(Entry(place, cells))
    return Filled(file, "json", stamp, tuple(entries)), problems
