"""``mcp-handbook audit``: the doctrine's own probes, run against anyone's stdio MCP server.

:func:`run_audit` meets the server once (:mod:`.preflight`), runs every
automated rule's probe in its own workspace under a deadline (:mod:`.contain`,
:mod:`.target`), never lets a probe call a tool that may be destructive unless
the user named it (:mod:`.guard`), and returns an :class:`AuditResult`; the
worksheet (:mod:`.sheet`) and the summary (:mod:`.summary`) are views of it.
"""

from __future__ import annotations

from .engine import AuditError, resolve_command, run_audit
from .plan import AuditOptions, AuditResult, RuleFinding
from .sheet import audit_rows, formats, write_audit_worksheet
from .summary import summary_lines

__all__ = [
    "AuditError", "AuditOptions", "AuditResult", "RuleFinding", "audit_rows", "formats", "resolve_command",
    "run_audit", "summary_lines", "write_audit_worksheet",
]
