"""The JSON Schemas shipped beside the exporters, for tests and for anyone reading the files."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

SCHEMAS = {"worksheet": "worksheet.schema.json", "rules": "rules.schema.json"}


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema for ``worksheet`` or ``rules`` (package data of ``mcp_handbook.export``)."""
    text = resources.files(__package__).joinpath(SCHEMAS[name]).read_text(encoding="utf-8")
    return json.loads(text)
