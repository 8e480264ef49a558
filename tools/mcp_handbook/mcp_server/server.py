"""The handbook's MCP server: ``MCPServer`` from the official Python SDK, with the doctrine loaded once.

Everything is built from one :class:`~mcp_handbook.model.Corpus` at start: a resource per rule, the index, the
worksheet in two formats, two prompts and the tools. ``audit_server`` exists only when the operator passed
``--allow-audit``: it starts programs the caller names, which no agent should be able to do unless the person who
started this server said so.
"""


import functools
import json
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.resources import FunctionResource, Resource
from mcp.server.mcpserver.tools.base import Tool
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from .. import __version__
from ..bounded_json import loads as bounded_loads
from ..audit.static_check import check_tool_definition as static_check
from ..fields import PROFILES, SEVERITIES
from ..model import Corpus
from . import guard, search, texts

SERVER_NAME = "mcp-handbook"
INSTRUCTIONS = (
    "The MCP Server Authoring Handbook: rules for writing and reviewing MCP servers. Read handbook://rules (the "
    "index) and then only the rules a task needs (handbook://rules/<ID>); find_rules narrows by text, gate, profile, "
    "threat or severity. check_tool_definition judges one tool definition as an audit would. The prompts "
    "review_server and write_tool_definition start the two common tasks."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


class RuleHit(BaseModel):
    """One rule found: enough to decide whether to read it, and the URI to read it at."""

    id: str = Field(description="The rule's stable id, such as SEC-001.")
    title: str = Field(description="The rule's claim, short.")
    gate: str = Field(description="The checklist section the rule belongs to.")
    severity: Literal["high", "medium", "low"] = Field(description="How bad breaking it is.")
    scope: str = Field(description="universal, opinionated or stack.")
    profiles: list[str] = Field(description="The review profiles (spec, baseline, full) that hold the rule.")
    threats: list[str] = Field(description="CWE and OWASP MCP Top 10 ids the rule guards against.")
    uri: str = Field(description="The resource to read for the whole rule (resources/read).")
    page: str = Field(description="The rule's page in this doctrine version's published site.")


class RulePage(BaseModel):
    """A page of ``find_rules`` results."""

    rules: list[RuleHit] = Field(description="The rules on this page, best text match first.")
    total: int = Field(description="How many rules match the query in all.")
    next_cursor: str = Field(description="Pass as cursor for the next page; empty when this is the last page.")


def _hit(corpus: Corpus, rule) -> RuleHit:
    return RuleHit(id=rule.id, title=rule.title, gate=rule.gate, severity=rule.severity, scope=rule.scope,
                   profiles=list(rule.profiles), threats=list(rule.threats), uri=texts.rule_uri(rule),
                   page=corpus.page_url(rule))


def find_rules_tool(corpus: Corpus) -> Tool:
    gates = tuple(g.key for g in corpus.gates)
    Gate = Literal[gates]  # type: ignore[valid-type]

    def find_rules(
        text: Annotated[str, Field(max_length=search.MAX_TEXT, description=(
            "Words that must all appear in the rule (id, title or prose), such as 'path traversal'; empty for any."))] = "",
        gate: Annotated[Gate | None, Field(description="Only rules of this checklist section.")] = None,
        profile: Annotated[Literal[PROFILES] | None, Field(description=(  # type: ignore[valid-type]
            "Only rules of this review profile: spec, baseline (spec plus security) or full."))] = None,
        threat: Annotated[str, Field(max_length=12, pattern=r"^$|^(?i:cwe-[1-9][0-9]{0,4}|mcp[0-9]{2})$", description=(
            "Only rules that guard against this CWE or OWASP MCP Top 10 id, such as CWE-22 or MCP05."))] = "",
        severity: Annotated[Literal[SEVERITIES] | None, Field(description="Only rules of this severity.")] = None,  # type: ignore[valid-type]
        limit: Annotated[int, Field(ge=1, le=search.MAX_LIMIT, description=(
            f"At most this many rules on the page (1 to {search.MAX_LIMIT})."))] = search.DEFAULT_LIMIT,
        cursor: Annotated[str, Field(max_length=64, description=(
            "The next_cursor of the previous page of the same query; empty for the first page."))] = "",
    ) -> RulePage:
        query = search.Query(text=text, gate=gate or "", profile=profile or "", threat=threat, severity=severity or "")
        try:
            rules, total, next_cursor = search.page(corpus, query, limit=limit, cursor=cursor)
        except search.SearchError as exc:
            raise ToolError(f"{exc}.{FIX_INPUT}") from None
        return RulePage(rules=[_hit(corpus, r) for r in rules], total=total, next_cursor=next_cursor)

    return Tool.from_function(
        find_rules, name="find_rules", title="Find handbook rules", annotations=READ_ONLY,
        description=(
            "Find the handbook's rules by words and filters, a bounded page at a time. Use it to learn which rules "
            "govern a piece of server code before writing or reviewing it, then read each rule's uri; it reads only "
            "the doctrine loaded at start and changes nothing. Filters combine: text (all words), gate, profile, "
            "threat (CWE-22, MCP05) and severity. When total exceeds the page, pass next_cursor back as cursor."),
    )


def rule_resources(corpus: Corpus) -> list[Resource]:
    """One resource per rule, the index and the worksheet (markdown and JSON), each rendered when first read."""
    def text_of(render):
        return lambda: render()

    made: list[Resource] = [FunctionResource.from_function(
        text_of(lambda: texts.index_markdown(corpus)), uri=texts.INDEX_URI, name="rule-index",
        title="Rule index", mime_type="text/markdown",
        description="Every rule in one line under its gate, with the URI to read it; read this first.")]
    for rule in corpus.rules:
        made.append(FunctionResource.from_function(
            text_of(lambda rule=rule: texts.rule_markdown(corpus, rule)), uri=texts.rule_uri(rule), name=rule.id,
            title=f"{rule.id} · {rule.title}", mime_type="text/markdown",
            description=rule.summary or rule.title))
    made.append(FunctionResource.from_function(
        text_of(lambda: texts.worksheet(corpus, "md")), uri=texts.WORKSHEET_MD_URI, name="worksheet-md",
        title="Audit worksheet (markdown)", mime_type="text/markdown",
        description="The blank audit worksheet, one row per rule, as `mcp-handbook export worksheet` writes it."))
    made.append(FunctionResource.from_function(
        text_of(lambda: texts.worksheet(corpus, "json")), uri=texts.WORKSHEET_JSON_URI, name="worksheet-json",
        title="Audit worksheet (JSON)", mime_type="application/json",
        description="The blank audit worksheet as JSON (worksheet.schema.json), one item per rule."))
    return made


class ToolFinding(BaseModel):
    """One rule's verdict on the tool definition, as an audit of a server listing it would report it."""

    rule: str = Field(description="The rule's id.")
    status: Literal["PASS", "FAIL", "N/A"] = Field(description="FAIL: the definition breaks the rule.")
    reason: str = Field(description="For a FAIL, the probe's reason code (the same an audit reports).")
    summary: str = Field(description="What was seen, in one sentence.")
    evidence: list[str] = Field(description="Where in the definition, and what is wrong there.")
    fix: str = Field(description="What to change when it fails.")
    uri: str = Field(description="The rule's resource.")


class ToolVerdict(BaseModel):
    """Every static rule's verdict on one tool definition."""

    failed: list[str] = Field(description="Ids of the rules the definition breaks; empty when it passes them all.")
    findings: list[ToolFinding] = Field(description="One verdict per rule checked, failures first.")
    needs_server: list[str] = Field(description="Rules of these gates that only an audit of a running server can judge.")


STATUS_ORDER = {"FAIL": 0, "N/A": 1, "PASS": 2}
MAX_TOOL_JSON = 256 * 1024
FIX_INPUT = "\nAction: correct that argument and call again; the same input fails the same way every time."


def parse_tool_json(text: str) -> dict[str, Any]:
    """The definition the JSON text holds; a ToolError naming the line and column when it is not one object."""
    try:
        tool = bounded_loads(text)
    except json.JSONDecodeError as exc:
        raise ToolError(f"tool_json: not JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}.{FIX_INPUT}") from None
    except ValueError as exc:
        raise ToolError(f"tool_json: {exc}.{FIX_INPUT}") from None
    if not isinstance(tool, dict):
        raise ToolError(f"tool_json: a tool definition is a JSON object (one entry of tools/list), not "
                        f"{type(tool).__name__}.{FIX_INPUT}")
    return tool


def check_tool_tool(corpus: Corpus) -> Tool:
    from .. import probes  # noqa: F401 - registered now, at start, not on the first call (half a second)

    def check_tool_definition(
        tool_json: Annotated[str, Field(min_length=2, max_length=MAX_TOOL_JSON, description=(
            "One tool definition as JSON text, exactly as tools/list lists it: an object with name, description, "
            "inputSchema, annotations, and title and outputSchema when it has them."))],
    ) -> ToolVerdict:
        tool = parse_tool_json(tool_json)
        try:
            found = static_check(tool, corpus)
        except ValueError as exc:
            raise ToolError(f"tool_json: {exc}.{FIX_INPUT}") from None
        judged = [f for f in found if f.static]
        findings = sorted((ToolFinding(rule=f.rule_id, status=f.status, reason=f.reason, summary=f.summary,
                                       evidence=list(f.evidence[:12]), fix=f.fix if f.status == "FAIL" else "",
                                       uri=f"{texts.INDEX_URI}/{f.rule_id}") for f in judged),
                          key=lambda f: STATUS_ORDER[f.status])
        return ToolVerdict(failed=[f.rule for f in findings if f.status == "FAIL"], findings=findings,
                           needs_server=[f.rule_id for f in found if not f.static])

    return Tool.from_function(
        check_tool_definition, name="check_tool_definition", title="Check a tool definition", annotations=READ_ONLY,
        description=(
            "Judge one MCP tool definition (a tools/list entry as JSON) against every rule of the tool-definitions "
            "and agent-UX gates that the definition alone shows, with the rule ids and reason codes an audit of a "
            "server listing it would give. Use it while writing a tool, before there is a server to audit; it runs "
            "nothing the definition names and changes nothing. Rules that need the tool to be called are listed under "
            "needs_server: audit the running server for those."),
    )


def audit_tool(corpus: Corpus) -> Tool:
    async def audit_server(
        command: Annotated[list[Annotated[str, Field(min_length=1, max_length=4096)]], Field(
            min_length=1, max_length=64, description=(
                "The server's command as an argument vector (program first, no shell), such as "
                "[\"python\", \"-m\", \"my_server\"]."))],
        gate: Annotated[Literal[PROFILES], Field(description=(  # type: ignore[valid-type]
            "The profile whose HIGH failures make the audit fail: spec, baseline or full."))] = "baseline",
        era: Annotated[Literal["auto", "handshake", "2026-07-28"], Field(description=(
            "Which protocol era the probes speak: auto (the server's), handshake or 2026-07-28."))] = "auto",
    ) -> guard.AuditSummary:
        import anyio.to_thread

        try:  # the audit blocks for tens of seconds: on a worker thread, so the server keeps answering
            return await anyio.to_thread.run_sync(
                functools.partial(guard.run_audit_summary, corpus, command, gate=gate, era=era))
        except ValueError as exc:
            raise ToolError(f"{exc}.{FIX_INPUT}") from None

    return Tool.from_function(
        audit_server, name="audit_server", title="Audit an MCP server",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True),
        description=(
            "Start the stdio MCP server the command names and run every automated rule's probe against it, as "
            "`mcp-handbook audit` does: fresh temporary folder, minimal environment, only read-only tools called. "
            "Use it to review a server you own; it runs that program on this machine, so call it only for a command "
            "the user asked you to audit. Returns the counts and every FAIL with its rule, reason and fix."),
    )


def closed(tool: Tool) -> Tool:
    """The tool with ``additionalProperties: false`` on its inputSchema: the SDK leaves it open (TOOL-001), and
    :mod:`.guard` refuses what the schema does not allow before the SDK's own validation runs."""
    return tool.model_copy(update={"parameters": {**tool.parameters, "additionalProperties": False}})


def prompts(corpus: Corpus) -> list[Prompt]:
    def review_server(
        how_it_runs: Annotated[str, Field(max_length=2000, description=(
            "How the server is run: its command or URL, language and SDK, what it serves."))],
    ) -> str:
        return texts.review_prompt(corpus, how_it_runs)

    def write_tool_definition(
        what_it_does: Annotated[str, Field(max_length=2000, description=(
            "What the tool should do, what it reads or changes, and for whom."))],
    ) -> str:
        return texts.tool_prompt(corpus, what_it_does)

    return [
        Prompt.from_function(review_server, name="review_server", title="Review a server against the baseline profile",
                             description="Review an MCP server against the handbook's baseline profile (the "
                             "specification plus security): which rules to read, what to run, how to report."),
        Prompt.from_function(write_tool_definition, name="write_tool_definition",
                             title="Write a tool definition that passes the tool-definition gate",
                             description="Write one MCP tool definition that passes the tool-definitions and agent-UX "
                             "rules, then check it with check_tool_definition."),
    ]


def build_server(corpus: Corpus, *, allow_audit: bool = False, middleware: list[Any] | None = None) -> MCPServer:
    """The server, with every rule, prompt and tool registered from ``corpus``; ``audit_server`` only when the
    operator allowed it."""
    tools = [closed(find_rules_tool(corpus)), closed(check_tool_tool(corpus))]
    tools += [closed(audit_tool(corpus))] if allow_audit else []
    made = prompts(corpus)
    checks = guard.Guard({t.name: t.parameters for t in tools}, {p.name: p for p in made})
    server = MCPServer(SERVER_NAME, title="MCP Server Authoring Handbook", version=__version__,
                       instructions=INSTRUCTIONS, tools=tools, resources=rule_resources(corpus),
                       middleware=[*(middleware or ()), checks.middleware],
                       # Nothing here changes while it runs (the doctrine is loaded once), so there is nothing to
                       # subscribe to: without this the SDK serves subscriptions/listen and, at 2026-07-28, declares
                       # listChanged and resources.subscribe, promises with nothing behind them (OPS-003, OPS-012).
                       subscriptions=False)
    for prompt in made:
        server.add_prompt(prompt)
    return server
