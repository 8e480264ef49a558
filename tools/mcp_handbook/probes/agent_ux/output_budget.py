"""UX-015: a tool's result stays under an output budget, and a result it cuts says so and how to get the rest.

Hosts cap what a tool may put into the model's context: Claude Code warns above 10,000 tokens and by default refuses
more than 25,000 (``MAX_MCP_OUTPUT_TOKENS``). A result over such a cap is lost or replaced by the host, and one cut
by the server without a word makes the model believe it saw everything. The probe puts a text file of
:data:`LARGE_LINES` numbered lines (about 285 KB) in the workspace and calls each callable tool not annotated
``readOnlyHint: false`` once with ordinary arguments from its schema, a path parameter set to that file (a tool that
takes SQL with a SELECT of 5,000 generated rows, :data:`LARGE_SQL`). It measures
what the model reads of each answer (the text of its content blocks, or its ``structuredContent`` as JSON, whichever
is longer) against :data:`BUDGET_CHARS` characters (25,000 tokens at four characters a token). An answer that shows
the file's first line but not its last was cut, and must say so (a word such as "truncated", "more", "of N") and name
how to get the rest (one of the tool's own parameters other than the path, a cursor, an offset or a page).

Fair to third-party servers: tools that take no path are judged on size only; a refused call (``isError``, a
JSON-RPC error, or a success whose text plainly reports a failure) is not judged; a tool that does not answer in
time is not checked (:class:`~..calls.ToolCalls`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..calls import ToolCalls
from ..judging import main_reason
from ..registry import probe
from ..errors._common import reported_failure
from ..schemas import annotations_of, code_params, declared, input_schema, schema_valid_arguments
from ..support import (
    PATH_PARAMS, Finding, Target, callable_tools, compact, failed, listed, not_applicable, passed, planted, refused, tool_name,
    tools_of,
)

REASONS = {
    "over_budget": "a tool result is larger than the output budget (100,000 characters, about 25,000 tokens)",
    "cut_silently": "a tool result holds part of a file and does not say it was cut",
    "cut_without_guidance": "a tool result says it was cut but not how to get the rest",
}
BUDGET_CHARS = 100_000
LARGE_FILE = "hb-large-output.txt"
LARGE_LINES = 3000
CUT_WORDS = re.compile(r"truncat\w*|\bcut\b|\bmore\b|\bremaining\b|\bpartial\b|\bshowing\b|\bof \d[\d,]*\b|\bfirst \d", re.I)
LARGE_SQL = ("SELECT n, 'hb-row lorem ipsum dolor sit amet' AS pad FROM (WITH RECURSIVE hb(n) AS (SELECT 1 UNION ALL "
             "SELECT n + 1 FROM hb WHERE n < 5000) SELECT n FROM hb) AS t")
"""A read-only SELECT of 5,000 generated rows (about 200 KB as text) that SQLite, DuckDB, PostgreSQL and MySQL 8 all
run, and that a tool allowing only statements opening with SELECT accepts."""
WAYS_ON = re.compile(r"cursor|offset|\bpage\b|\bstart(?:_|\s)?(?:line|byte|at)\b|\bcall\b[^.\n]{0,40}\bagain\b", re.I)


def _line(number: int) -> str:
    return f"hb-line {number:05d} " + "lorem ipsum dolor sit amet " * 3


def plant_large_file(workspace: Path) -> None:
    """:data:`LARGE_FILE`: :data:`LARGE_LINES` numbered lines of about 100 characters."""
    text = "".join(_line(n).rstrip() + "\n" for n in range(1, LARGE_LINES + 1))
    (workspace / LARGE_FILE).write_text(text, encoding="utf-8")


def model_reads(result: dict[str, Any]) -> str:
    """What a host passes the model of a result: its text blocks (embedded text resources too), or its
    ``structuredContent`` as JSON when that is longer."""
    parts = []
    for block in result.get("content") or []:
        if not isinstance(block, dict):
            continue
        if isinstance(block.get("text"), str):
            parts.append(block["text"])
        resource = block.get("resource")
        if isinstance(resource, dict) and isinstance(resource.get("text"), str):
            parts.append(resource["text"])
    text = "\n".join(parts)
    structured = result.get("structuredContent")
    as_json = json.dumps(structured, ensure_ascii=False) if structured is not None else ""
    return as_json if len(as_json) > len(text) else text


def judge(tool: dict[str, Any], text: str) -> tuple[str, str]:
    """``(reason, detail)``: a reason from :data:`REASONS` when the text breaks the budget or is cut without saying
    so and how, else ``""`` with what was seen."""
    if len(text) > BUDGET_CHARS:
        return "over_budget", f"{len(text):,} characters, over the budget of {BUDGET_CHARS:,}"
    if "hb-line 00001" not in text or f"hb-line {LARGE_LINES:05d}" in text:
        return "", f"{len(text):,} characters"  # not a cut view of the planted file
    sign = CUT_WORDS.search(text)
    if sign is None:
        return "cut_silently", f"{len(text):,} characters, the file's start but not its end, and no word that it was cut"
    params = [p for p in declared(input_schema(tool)) if p not in PATH_PARAMS]
    named = next((p for p in params if re.search(rf"\b{re.escape(p)}\b", text)), None)
    way = named or (m.group(0) if (m := WAYS_ON.search(text)) else None)
    if way is None:
        return "cut_without_guidance", (f"says {sign.group(0)!r} but names no way to the rest (no parameter of the "
                                        "tool, cursor, offset or page)")
    return "", f"{len(text):,} characters, cut: says {sign.group(0)!r} and names {way!r}"


def _large_requests(tools: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(tool, arguments) to call: each tool once with ordinary arguments, a path parameter set to :data:`LARGE_FILE`;
    a tool that takes SQL with :data:`LARGE_SQL` instead, since only a large request can show a large result."""
    requests = []
    for tool in tools:
        props = declared(input_schema(tool))
        sql = next((p for p in code_params(tool) if schema_valid_arguments(tool, **{p: LARGE_SQL}) is not None), None)
        args = (schema_valid_arguments(tool, **{sql: LARGE_SQL}) if sql is not None else
                schema_valid_arguments(tool, **{p: LARGE_FILE for p in PATH_PARAMS if p in props}))
        if args is not None:
            requests.append((tool, args))
    return requests


@probe("output_budget", "tool results stay under 100,000 characters and say when and how they were cut",
       reasons=REASONS, calls_tools=True, shares_session=True)
def output_budget(target: Target) -> Finding:
    """Call each tool once, a path parameter set to a 300 KB file: no result over the budget, no silent cut."""
    tools = [t for t in callable_tools(target, tools_of(target)) if annotations_of(t).get("readOnlyHint") is not False]
    if not tools:
        return not_applicable("no tool may be called (every tool is annotated readOnlyHint: false or not allowed)")
    with planted(target.workspace / LARGE_FILE):
        plant_large_file(target.workspace)
        return _judged(target, tools)


def _judged(target: Target, tools: list[dict[str, Any]]) -> Finding:
    """Each tool called once with a large request (:func:`_large_requests`): no result over the budget, no silent cut."""
    calls = ToolCalls(target, wait=target.timeout * 2)
    problems, seen = [], []
    for tool, args in _large_requests(tools):
        name = tool_name(tool)
        response = calls.call(name, args)
        if response is None or refused(response):
            continue
        if reported_failure(response) is not None:  # a refusal sent as a success is not an ordinary answer
            continue
        text = model_reads(response.get("result") or {})
        reason, detail = judge(tool, text)
        if reason:
            problems.append((reason, f"{name}({compact(args, 80)}): {detail}; ends {compact(text[-120:], 130)!r}"))
        else:
            seen.append(f"{name}({compact(args, 80)}) -> {detail}")
    if problems:
        return failed(main_reason(problems, REASONS), f"{len(problems)} tool result(s) over budget or cut without saying so",
                      *listed(text for _, text in problems), *calls.notes)
    if not seen:
        return calls.not_checked("no tool answered an ordinary call without refusing it")
    return passed(f"{len(seen)} tool result(s) within {BUDGET_CHARS:,} characters, any cut announced", *seen[:10],
                  *calls.notes)
