"""TOOL-011 and TOOL-014: what a tool that declares an ``outputSchema`` returns.

TOOL-011 is the specification's MUST: a successful result carries ``structuredContent`` that conforms to the
``outputSchema`` (the SDK client raises on one without it, or with one that breaks the schema). TOOL-014 is
its SHOULD: a result that carries ``structuredContent`` also carries the same JSON in a text block, for
clients that ignore ``structuredContent``. Both probes call, through :func:`call_declaring_tools`, every
tool that declares an ``outputSchema`` and may be called, with schema-valid arguments built from its
``inputSchema``; error results are skipped (only valid arguments are sent, and there is no reliable way to
make a tool fail). A tool that does not answer within the wait is not checked (its subject is the result,
not latency); the other tools are called on a fresh session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...bounded_json import loads as bounded_loads
from ..registry import probe
from ..support import Finding, Target, compact, failed, listed, not_applicable, passed, refused, tool_name, tools_of
from ..judging import Problem, main_reason
from ..calls import ToolCalls
from ..schemas import schema_valid_arguments

REASONS = {
    "structured_content_missing": "a successful result of a tool with an outputSchema has no structuredContent",
    "structured_content_nonconforming": "structuredContent does not validate against the tool's outputSchema",
    "output_schema_unusable": "the declared outputSchema is not a usable JSON Schema",
}
"""TOOL-011's vocabulary: the MUST only."""

MIRROR_REASONS = {
    "structured_content_not_mirrored": "a result carries structuredContent but no text block carries the same JSON",
}
"""TOOL-014's vocabulary: the SHOULD."""


@dataclass(slots=True)
class Answered:
    """One successful result of a tool that declares an ``outputSchema``."""

    tool: dict[str, Any]
    result: dict[str, Any]
    shown: str
    """``name(arguments) -> result``, shortened, for the evidence."""


@dataclass(slots=True)
class Calls:
    """What calling every declaring tool once showed."""

    answered: list[Answered] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    """Tools not called, and error results (nothing to judge)."""
    notes: list[str] = field(default_factory=list)
    """One ``not checked: ...`` line per tool that did not answer in time (see :class:`..calls.ToolCalls`)."""
    calls: ToolCalls | None = None
    """The calls made (for its ``not_checked`` N/A)."""


def call_declaring_tools(target: Target) -> Calls | Finding:
    """Call each tool that declares an ``outputSchema`` and may be called, once, with schema-valid arguments;
    N/A when no tool declares one. A tool that does not answer within ``target.timeout`` is set aside and the
    next one is called on a fresh session."""
    declaring = [t for t in tools_of(target) if isinstance(t.get("outputSchema"), dict)]
    if not declaring:
        return not_applicable("no tool declares an outputSchema")
    calls = ToolCalls(target, wait=target.timeout)
    seen = Calls(calls=calls)
    for tool in declaring:
        name = tool_name(tool)
        if not target.may_call(tool):
            seen.evidence.append(f"{name}: not called (not read-only and not allowed)")
            continue
        args = schema_valid_arguments(tool)
        if args is None:
            seen.evidence.append(f"{name}: could not build schema-valid arguments; not called")
            continue
        response = calls.call(name, args)
        if response is None:
            continue  # not answered in time (noted by ``calls``), or set aside after too many silent tools
        shown = f"{name}({compact(args, 80)}) -> {compact(response.get('result', response), 200)}"
        if refused(response):
            seen.evidence.append(f"{shown} [an error result: nothing to check]")
            continue
        result = response.get("result")
        seen.answered.append(Answered(tool, result if isinstance(result, dict) else {}, shown))
    seen.notes = calls.notes
    return seen


def _nothing_judged(seen: Calls, what: str, *evidence: str) -> Finding:
    """N/A, *not checked*, for a probe that judged no result: why each tool went unjudged, then that no (other)
    tool with an outputSchema ``what``."""
    shown = (*evidence, *seen.evidence)[:8]
    if seen.notes and seen.calls is not None:
        return seen.calls.not_checked(f"no other tool with an outputSchema {what}", *shown)
    return not_applicable(f"not checked: no tool with an outputSchema {what}", *shown)


def _mirrored(result: dict[str, Any]) -> bool:
    """Some ``text`` block, parsed on its own as JSON, equals the ``structuredContent``."""
    for block in result.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            try:
                if bounded_loads(block["text"]) == result["structuredContent"]:
                    return True
            except ValueError:
                pass
    return False


def _judge(tool: dict[str, Any], result: dict[str, Any], shown: str) -> Problem | None:
    """What breaks the outputSchema's MUST in one successful result, or None when it keeps it."""
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
        return ("structured_content_nonconforming", (f"{name}: structuredContent does not conform to outputSchema at "
                                                     f"{where}: {errors[0].message[:160]}; {shown}"))
    return None


def _unanswered(seen: Calls) -> str:
    return f"; {len(seen.notes)} tool(s) not checked (no answer)" if seen.notes else ""


@probe("structured_output", "tools with an outputSchema return structuredContent that conforms to it",
       over_http=True, reasons=REASONS, calls_tools=True, shares_session=True)
def structured_output(target: Target) -> Finding:
    """Call every callable tool that declares outputSchema; a successful result must carry structuredContent
    that validates against it. A missing text mirror is noted, not judged (TOOL-014)."""
    seen = call_declaring_tools(target)
    if isinstance(seen, Finding):
        return seen
    problems: list[Problem] = []
    kept: list[str] = []
    for answer in seen.answered:
        problem = _judge(answer.tool, answer.result, answer.shown)
        if problem is not None:
            problems.append(problem)
        elif _mirrored(answer.result):
            kept.append(f"{answer.shown} [conforms; mirrored as text]")
        else:
            kept.append(f"{answer.shown} [conforms; not mirrored as text: TOOL-014's to judge]")
    if problems:
        return failed(main_reason(problems, REASONS),
                      f"{len(problems)} tool(s) with an outputSchema returned a result that breaks it",
                      *listed(text for _, text in problems), *seen.notes, *kept[:4], *seen.evidence[:4])
    if not kept:
        return _nothing_judged(seen, "could be called successfully with schema-valid arguments")
    return passed(f"{len(kept)} tool(s) with an outputSchema returned conforming structuredContent" + _unanswered(seen),
                  *kept[:8], *seen.notes, *seen.evidence[:4])


@probe("structured_output_mirrored", "results with structuredContent carry the same JSON in a text block",
       over_http=True, reasons=MIRROR_REASONS, calls_tools=True, shares_session=True)
def structured_output_mirrored(target: Target) -> Finding:
    """Call every callable tool that declares outputSchema; a successful result that carries structuredContent
    must also carry a text block that parses to the same JSON."""
    seen = call_declaring_tools(target)
    if isinstance(seen, Finding):
        return seen
    problems: list[Problem] = []
    kept: list[str] = []
    skipped: list[str] = []
    for answer in seen.answered:
        name = tool_name(answer.tool)
        if "structuredContent" not in answer.result:
            skipped.append(f"{answer.shown} [no structuredContent, nothing to mirror: TOOL-011's to judge]")
        elif _mirrored(answer.result):
            kept.append(f"{answer.shown} [mirrored as text]")
        else:
            problems.append(("structured_content_not_mirrored",
                             (f"{name}: no text block carries the structuredContent as JSON, so clients that ignore "
                              f"structuredContent see something else; {answer.shown}")))
    if problems:
        return failed("structured_content_not_mirrored",
                      f"{len(problems)} tool(s) returned structuredContent without the same JSON in a text block",
                      *listed(text for _, text in problems), *seen.notes, *kept[:4], *skipped[:4])
    if not kept:
        if skipped and not seen.notes:
            return not_applicable("no called tool returned structuredContent, so there was nothing to mirror "
                                  "(its absence is TOOL-011's to judge)", *skipped[:8], *seen.evidence[:4])
        return _nothing_judged(seen, "returned structuredContent to a call with schema-valid arguments", *skipped)
    return passed(f"{len(kept)} tool(s) returned structuredContent with the same JSON in a text block"
                  + _unanswered(seen), *kept[:8], *seen.notes, *skipped[:4], *seen.evidence[:4])
