"""TOOL-002: every input property has a description that says more than its name.

A property's description is all the model reads to decide what to send: without one, or with one that
only restates the name ("The path."), it guesses the format. The probe walks every property of every
listed ``inputSchema`` (nested ones and array items included) and reads its description.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, tool_name
from ..judging import Problem, judge_each_tool
from ..schemas import input_schema, restates, walk_properties, words

REASONS = {
    "property_undescribed": "an input property has no description",
    "description_restates_name": "a property's description is under three words or says nothing beyond its name",
}
MIN_PROPERTY_DESCRIPTION_WORDS = 3


def _problems(tool: dict[str, Any]) -> list[Problem]:
    schema = input_schema(tool)
    problems: list[Problem] = []
    for path, prop, sub in walk_properties(schema, schema, f"{tool_name(tool)}.inputSchema"):
        text = sub.get("description") if isinstance(sub, dict) else None
        if not isinstance(text, str) or not text.strip():
            problems.append(("property_undescribed", f"{path}: no description: the model has to guess what to send"))
        elif len(words(text)) < MIN_PROPERTY_DESCRIPTION_WORDS or restates(text, prop):
            problems.append(("description_restates_name", f"{path}.description: {text!r} only restates the name: "
                                                          "say the format and give an example"))
    return problems


@probe("properties_described", "every input property has a description beyond its name", over_http=True, reasons=REASONS,
       shares_session=True)
def properties_described(target: Target) -> Finding:
    """Every input property has a description that says more than its name."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="describe every input property",
                           broken="have input properties without a real description")
