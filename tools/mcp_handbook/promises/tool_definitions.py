"""Promises of the tool-definitions gate's examples, checked on the code itself.

* ``default_from_schema`` (TOOL-004): the handler applies the very default the schema declares, and that default
  fits the property's own bounds.
"""

from __future__ import annotations

from typing import Any

from .registry import Broken, promise


@promise("default_from_schema", "left out, max_bytes gets the default the schema declares, inside its bounds",
         reasons={"default_differs": "the handler's value for a left-out argument is not the schema's default",
                  "default_out_of_bounds": "the declared default is outside the property's minimum and maximum"},
         seconds=20)
def default_from_schema(block: Any) -> None:
    schema = block.MAX_BYTES_SCHEMA
    declared = schema["default"]
    if not schema.get("minimum", declared) <= declared <= schema.get("maximum", declared):
        raise Broken("default_out_of_bounds", f"default {declared!r} is outside {schema.get('minimum')}..{schema.get('maximum')}")
    applied = block.read_limit({})
    if applied != declared:
        raise Broken("default_differs", f"read_limit({{}}) is {applied!r}; the schema declares {declared!r}")
