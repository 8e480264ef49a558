"""UX-002: no tool that may write is a catch-all driven by a free-form string.

A tool whose behaviour is chosen by a free-form ``action``, ``mode`` or ``command`` string does whatever
the string says: its annotations, its schema and the person approving the call cannot describe what it
will do. The probe is a heuristic: for every tool not annotated ``readOnlyHint: true`` it looks for a
top-level selector-named string property without ``enum`` or ``const``, and for a ``query`` the tool says is
SQL or another query language (a ``query`` is otherwise a search text, and is left alone).
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, tool_name
from ..judging import Problem, judge_each_tool
from ..schemas import annotations_of, code_params, declared, input_schema, resolve, types

REASONS = {
    "free_form_selector": "a tool that may write takes a free-form command/action/mode/sql/script string",
}
SELECTOR_PARAMS = frozenset({"command", "cmd", "action", "mode", "operation", "op", "method", "verb", "sql",
                             "query_language", "script", "code", "expression", "shell", "statement"})


def _problems(tool: dict[str, Any]) -> list[Problem]:
    if annotations_of(tool).get("readOnlyHint") is True:
        return []
    schema = input_schema(tool)
    problems: list[Problem] = []
    query_language = set(code_params(tool))
    for name, sub in declared(schema).items():
        sub = resolve(sub, schema)
        if (name.lower() not in SELECTOR_PARAMS and name not in query_language) or not isinstance(sub, dict):
            continue
        if "string" in types(sub) and "enum" not in sub and "const" not in sub:
            problems.append(("free_form_selector",
                             f"{tool_name(tool)}.inputSchema.properties.{name}: free-form {name!r} string on a tool "
                             "that may modify state: one tool doing whatever the string says"))
    return problems


@probe("single_purpose_tools", "no tool that may write takes a free-form command/action/mode string (heuristic)",
       over_http=True, reasons=REASONS, shares_session=True)
def single_purpose_tools(target: Target) -> Finding:
    """Heuristic: no tool that may write takes a free-form command/action/mode/sql/script string."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="are single-purpose (no free-form command/action/mode string on a tool that may write)",
                           broken="are catch-alls driven by a free-form command/action/mode string")
