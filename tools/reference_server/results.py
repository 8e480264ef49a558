"""Tool results: argument validation and safe failure results.

Why: since 2025-11-25 (SEP-1303) bad arguments and tool failures are results
with ``isError: true`` that the model reads, so every message must say which
field is wrong and what to send instead, and must never carry exception text,
tracebacks or file paths (those go to stderr under a shared reference id).
"""
from __future__ import annotations

from reference_server.table import SEAMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FAST: dict[str, tuple[Any, Any]] = {}  # tool name -> (schema object, fast-accept predicate or None)
_VALIDATORS: dict[str, tuple[Any, Any]] = {}  # tool name -> (schema object, jsonschema validator)


def text_result(text: str, *, is_error: bool = False, **extra: Any) -> dict[str, Any]:
    """A ``CallToolResult`` with one text block."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], **extra}
    if is_error:
        result["isError"] = True
    return result


def compiled_validator(tool: dict[str, Any]) -> Any:
    """The cached Draft 2020-12 validator for ``tool`` (recompiled if its schema object changed)."""
    schema = tool.get("inputSchema") or {"type": "object"}
    cached = _VALIDATORS.get(tool.get("name", ""))
    if cached is not None and cached[0] is schema:
        return cached[1]
    from jsonschema import Draft202012Validator  # lazy: ~0.1 s of import kept off startup

    validator = Draft202012Validator(schema)
    _VALIDATORS[tool.get("name", "")] = (schema, validator)
    return validator


def _pointer(path: Any) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path) if path else "(arguments)"


def _describe(error: Any) -> str:
    """One actionable sentence: field, problem, what to send instead (never the value itself)."""
    where = _pointer(error.absolute_path)
    kind, expected, schema = error.validator, error.validator_value, error.schema
    if kind == "required":
        missing = [name for name in expected if isinstance(error.instance, dict) and name not in error.instance]
        props = schema.get("properties", {}) if isinstance(schema, dict) else {}
        parts = []
        for name in missing:
            hint = props.get(name, {}).get("description", "")
            parts.append(f"{where if where != '(arguments)' else ''}/{name}: required field is missing; "
                         f"send it{(' (' + hint + ')') if hint else ''}")
        return "; ".join(parts) or f"{where}: {error.message}"
    if kind == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        return (f"{where}: unexpected field(s) {', '.join(repr(e) for e in extra)}; remove them "
                f"(accepted fields: {', '.join(allowed) or 'none'})")
    if kind == "type":
        wanted = expected if isinstance(expected, str) else " or ".join(expected)
        return f"{where}: expected {wanted}, got {type(error.instance).__name__}; send a {wanted}"
    if kind == "enum":
        return f"{where}: value not allowed; send one of {', '.join(repr(v) for v in expected)}"
    if kind == "const":
        return f"{where}: value not allowed; send {expected!r}"
    if kind in ("maxLength", "minLength"):
        bound = "at most" if kind == "maxLength" else "at least"
        return f"{where}: length {len(error.instance)} is out of range; send {bound} {expected} characters"
    if kind in ("maxItems", "minItems"):
        bound = "at most" if kind == "maxItems" else "at least"
        return f"{where}: {len(error.instance)} items is out of range; send {bound} {expected} items"
    if kind in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"):
        relation = {"maximum": "<=", "minimum": ">=", "exclusiveMaximum": "<", "exclusiveMinimum": ">"}[kind]
        return f"{where}: {error.instance!r} is out of range; send a number {relation} {expected}"
    if kind == "pattern":
        return f"{where}: value does not match the pattern {expected!r}; send a value that does"
    return f"{where}: fails the schema keyword {kind!r}; see the tool's inputSchema for what to send"


def validate_arguments(tool: dict[str, Any], arguments: dict[str, Any]) -> list[str]:
    """Validate ``arguments`` against ``tool["inputSchema"]``; return actionable messages (empty = valid)."""
    schema = tool.get("inputSchema")
    cached = _FAST.get(tool.get("name", ""))
    if cached is None or cached[0] is not schema:
        from reference_server.fastcheck import compile_schema

        cached = (schema, compile_schema(schema if schema is not None else {"type": "object"}))
        _FAST[tool.get("name", "")] = cached
    if cached[1] is not None and cached[1](arguments):
        return []  # certainly valid: skip jsonschema on the hot path
    validator = compiled_validator(tool)
    if validator.is_valid(arguments):
        return []
    errors = sorted(validator.iter_errors(arguments), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    return [_describe(error) for error in errors]


def tool_error_result(tool: str, exc: BaseException) -> dict[str, Any]:
    """A safe ``isError`` result: a reference id and an ``Action:`` hint; details go to stderr only."""
    from reference_server.logs import format_exception, new_reference

    ref = new_reference()
    SEAMS["log"]("error", "tool_failed", tool=tool, ref=ref, error_type=type(exc).__name__,
                 traceback=format_exception(exc))
    return text_result(
        f"Tool '{tool}' failed with an internal error (reference {ref}). "
        "Action: retry once; if it fails again, try a different approach or report the reference to the operator.",
        is_error=True,
    )


def invalid_arguments_result(tool: str, problems: list[str]) -> dict[str, Any]:
    """Seam: what the client gets for arguments that fail the inputSchema.

    Since 2025-11-25 (SEP-1303) this is a tool execution error the model can
    read and correct (``isError: true``), not a JSON-RPC -32602 error.
    """
    lines = "\n".join(f"- {p}" for p in problems)
    return text_result(f"Invalid arguments for tool '{tool}':\n{lines}\n"
                       "Action: fix the fields listed above and call the tool again.", is_error=True)
