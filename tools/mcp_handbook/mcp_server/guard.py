"""What the handbook's server checks before the SDK sees a request, and the audit tool's work.

The SDK validates tool arguments with pydantic and sends its raw report to the model (ERR-003), ignores arguments no
parameter takes (TOOL-001's closed schema would be a lie), and answers an unknown prompt with error code 0 and a
missing prompt argument only after rendering fails (ERR-015). One middleware, run before the SDK's own handling,
checks ``tools/call`` arguments against the very schema the tool lists and ``prompts/get`` against the prompt's
listed arguments, and answers in the handbook's words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from ..model import Corpus

INVALID_PARAMS = -32602
MAX_PROBLEMS = 8


def _where(error: Any) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"arguments{path}"


def _what_to_send(error: Any) -> str:
    """One problem as the model should read it: where, what is wrong, what to send instead."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    value = error.validator_value
    kind = error.validator
    if kind == "required":
        missing = [name for name in value if isinstance(error.instance, dict) and name not in error.instance]
        return "; ".join(f"{_where(error)}.{name}: missing; it is required" for name in missing)
    if kind == "additionalProperties":
        extra = sorted(set(error.instance) - set(schema.get("properties", {}))) if isinstance(error.instance, dict) else []
        allowed = ", ".join(sorted(schema.get("properties", {}))) or "none"
        return f"{_where(error)}: unknown argument(s) {', '.join(extra)}; the tool takes only: {allowed}"
    if kind == "type":
        return f"{_where(error)}: expected {value if isinstance(value, str) else ' or '.join(value)}, got {type(error.instance).__name__}"
    if kind == "enum":
        return f"{_where(error)}: {error.instance!r} is not one of {', '.join(map(repr, value))}"
    if kind in ("maxLength", "minLength", "maxItems", "minItems", "maximum", "minimum"):
        return f"{_where(error)}: must have {kind} {value} (got {str(error.instance)[:40]!r})"
    if kind == "pattern":
        return f"{_where(error)}: {str(error.instance)[:40]!r} does not match {value}"
    return f"{_where(error)}: {error.message[:160]}"


def argument_problems(schema: Mapping[str, Any], arguments: Any) -> list[str]:
    """Every reason ``arguments`` break ``schema``, each naming the field and what to send; empty when they fit."""
    if not isinstance(arguments, dict):
        return [f"arguments: expected an object, got {type(arguments).__name__}"]
    errors = sorted(Draft202012Validator(schema).iter_errors(arguments), key=lambda e: list(e.absolute_path))
    lines = [_what_to_send(e) for e in errors[:MAX_PROBLEMS]]
    return [line for line in lines if line]


class Guard:
    """The middleware: tool arguments and prompt arguments checked against what the server lists."""

    def __init__(self, schemas: Mapping[str, Mapping[str, Any]], prompts: Mapping[str, Any]) -> None:
        self._schemas = dict(schemas)
        self._prompts = dict(prompts)

    async def middleware(self, ctx: Any, call_next: Any) -> Any:
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        if ctx.method == "tools/call" and params.get("name") in self._schemas:
            arguments = params.get("arguments", {})
            if not isinstance(arguments, dict):  # not a tool's error: the request itself is malformed
                raise MCPError(code=INVALID_PARAMS, message=f"params.arguments: expected an object, got "
                               f"{type(arguments).__name__}")
            problems = argument_problems(self._schemas[params["name"]], arguments)
            if problems:
                text = (f"Invalid arguments for {params['name']}: " + "; ".join(problems) + ".\nAction: send the "
                        "arguments the tool's inputSchema lists, with those fixed; the same arguments fail every time.")
                return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        if ctx.method == "prompts/get":
            self._check_prompt(params)
        return await call_next(ctx)

    def _check_prompt(self, params: Mapping[str, Any]) -> None:
        name = params.get("name")
        prompt = self._prompts.get(name) if isinstance(name, str) else None
        if prompt is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt {str(name)[:80]!r}; prompts/list names "
                           f"the prompts: {', '.join(sorted(self._prompts))}")
        given = params.get("arguments") or {}
        if not isinstance(given, dict) or not all(isinstance(v, str) for v in given.values()):
            raise MCPError(code=INVALID_PARAMS, message="arguments: an object of strings")
        known = {a.name: a for a in prompt.arguments or ()}
        unknown = sorted(set(given) - set(known))
        missing = sorted(n for n, a in known.items() if a.required and not given.get(n, "").strip())
        if unknown or missing:
            parts = [f"missing required argument(s) {', '.join(missing)}"] if missing else []
            parts += [f"unknown argument(s) {', '.join(unknown)[:200]}"] if unknown else []
            raise MCPError(code=INVALID_PARAMS, message=f"Prompt {name}: {'; '.join(parts)}; it takes: "
                           f"{', '.join(known) or 'none'}")


class AuditFailure(BaseModel):
    rule: str = Field(description="The failed rule's id.")
    severity: str = Field(description="high, medium or low.")
    reason: str = Field(description="The probe's reason code.")
    summary: str = Field(description="What the probe saw.")
    fix: str = Field(description="What to change.")


class AuditSummary(BaseModel):
    """An audit's outcome: counts, and every FAIL."""

    server: str = Field(description="The server's name and version from its own answer.")
    transport: str = Field(description="How it was reached and which eras it answered.")
    counts: dict[str, dict[str, int]] = Field(description="PASS, FAIL and N/A counts per severity.")
    failures: list[AuditFailure] = Field(description="Every FAIL, most severe first.")
    exit_code: int = Field(description="1 when a HIGH rule of the gate's profile failed or the server could not be audited.")


def run_audit_summary(corpus: Corpus, command: list[str], *, gate: str, era: str) -> AuditSummary:
    """``mcp-handbook audit -- COMMAND`` in this process, summarised for the caller."""
    from ..audit.engine import AuditError, run_audit
    from ..audit.plan import AuditOptions
    from ..audit.sheet import audit_stamp

    try:
        result = run_audit(corpus, command, options=AuditOptions(gate=gate, era=era, sdk_baseline=False))
    except AuditError as exc:
        raise ValueError(f"command: {exc}") from None
    stamp = audit_stamp(corpus, result)
    failures = [AuditFailure(rule=f.rule.id, severity=f.rule.severity, reason=f.finding.reason,
                             summary=f.finding.summary[:300], fix=f.rule.fix) for f in result.failures()]
    return AuditSummary(server=f"{stamp.server_name} {stamp.server_version}".strip(), transport=stamp.server_transport,
                        counts=result.counts(), failures=failures, exit_code=result.exit_code)
