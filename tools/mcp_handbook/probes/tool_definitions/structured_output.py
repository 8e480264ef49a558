"""TOOL-011: a tool that declares an ``outputSchema`` returns conforming ``structuredContent``, mirrored as text.

An ``outputSchema`` is a promise to programs that read the result field by field: the SDK client raises on
a successful result without ``structuredContent`` or with one that breaks the schema, and clients that
ignore ``structuredContent`` see only the text blocks. The probe calls every tool that declares an
``outputSchema`` and may be called, with schema-valid arguments built from its ``inputSchema``; error
results are skipped (it sends only valid arguments and has no reliable way to make a tool fail).
"""

from __future__ import annotations

import json
from typing import Any

from ..registry import probe
from ..support import (
    Finding, Target, WireTimeout, call_tool, compact, failed, handshake, not_applicable, passed, refused, tool_name,
    tools_of,
)
from ._common import Problem, main_reason, schema_valid_arguments

REASONS = {
    "structured_content_missing": "a successful result of a tool with an outputSchema has no structuredContent",
    "structured_content_nonconforming": "structuredContent does not validate against the tool's outputSchema",
    "output_schema_unusable": "the declared outputSchema is not a usable JSON Schema",
    "structured_content_not_mirrored": "no text block carries the structuredContent as the same JSON",
}


def _text_blocks_each(result: dict[str, Any]) -> list[str]:
    """Each ``text`` block of a result, separately (each must parse as JSON on its own)."""
    return [c["text"] for c in result.get("content") or [] if isinstance(c, dict) and c.get("type") == "text"
            and isinstance(c.get("text"), str)]


def _judge(tool: dict[str, Any], result: dict[str, Any], shown: str) -> Problem | None:
    """What is wrong with one successful result, or None when it keeps the outputSchema's contract."""
    name = tool_name(tool)
    if "structuredContent" not in result:
        return ("structured_content_missing",
                f"{name}: declares outputSchema but the successful result has no structuredContent; {shown}")
    structured = result["structuredContent"]
    schema = tool["outputSchema"]
    try:
        from jsonschema import validators

        cls = validators.validator_for(schema, default=validators.Draft202012Validator)
        errors = sorted(cls(schema).iter_errors(structured), key=lambda e: list(map(str, e.absolute_path)))
    except Exception as exc:
        return "output_schema_unusable", f"{name}.outputSchema: not a usable JSON Schema ({type(exc).__name__}: {exc})"
    if errors:
        where = "/" + "/".join(map(str, errors[0].absolute_path))
        return ("structured_content_nonconforming", f"{name}: structuredContent does not conform to outputSchema at "
                f"{where}: {errors[0].message[:160]}; {shown}")
    mirrored = False
    for text in _text_blocks_each(result):
        try:
            mirrored = mirrored or json.loads(text) == structured
        except ValueError:
            pass
    if not mirrored:
        return ("structured_content_not_mirrored", f"{name}: no text block carries the structuredContent as JSON, so "
                f"clients that ignore structuredContent see something else; {shown}")
    return None


@probe("structured_output", "tools with an outputSchema return conforming structuredContent, mirrored as text",
       reasons=REASONS, calls_tools=True)
def structured_output(target: Target) -> Finding:
    """Call every callable tool that declares outputSchema; a successful result must carry conforming
    structuredContent and the same JSON in a text block."""
    declaring = [t for t in tools_of(target) if isinstance(t.get("outputSchema"), dict)]
    if not declaring:
        return not_applicable("no tool declares an outputSchema")
    session, _ = handshake(target)
    evidence: list[str] = []
    problems: list[Problem] = []
    silent = ""
    checked = 0
    for tool in declaring:
        name = tool_name(tool)
        if not target.may_call(tool):
            evidence.append(f"{name}: not called (not read-only and not allowed)")
            continue
        args = schema_valid_arguments(tool)
        if args is None:
            evidence.append(f"{name}: could not build schema-valid arguments; not called")
            continue
        try:
            response = call_tool(session, name, args, timeout=target.timeout)
        except WireTimeout as exc:
            silent = f"{name}({compact(args, 80)}): no answer ({exc}); no further calls made"
            break  # a server that stopped answering is not waited on again
        shown = f"{name}({compact(args, 80)}) -> {compact(response.get('result', response), 200)}"
        if refused(response):
            evidence.append(f"{shown} [an error result: nothing to check]")
            continue
        checked += 1
        problem = _judge(tool, response.get("result") or {}, shown)
        if problem is not None:
            problems.append(problem)
        else:
            evidence.append(f"{shown} [conforms; mirrored as text]")
    if problems:
        return failed(main_reason(problems, REASONS),
                      f"{len(problems)} tool(s) with an outputSchema broke its contract",
                      *(text for _, text in problems[:8]), *([silent] if silent else []), *evidence[:4])
    if silent:  # silence is not this rule's subject: the result it would have judged never came
        return failed("no_answer", "a tools/call got no answer, so its result could not be checked",
                      silent, *evidence[:4])
    if not checked:
        return not_applicable("no tool with an outputSchema could be called successfully with schema-valid arguments",
                              *evidence[:8])
    return passed(f"{checked} tool(s) with an outputSchema returned conforming structuredContent mirrored as text",
                  *evidence[:8])
