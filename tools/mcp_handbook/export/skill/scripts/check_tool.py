#!/usr/bin/env python3
"""Check MCP tool definitions against the handbook's static rules, without a server.

Usage:
    python3 scripts/check_tool.py TOOL.json        # a file
    python3 scripts/check_tool.py - < TOOL.json    # standard input
    python3 scripts/check_tool.py --json TOOL.json # the findings as JSON

The JSON is one tool definition (an entry of tools/list), an array of them, a tools/list result ({"tools": [...]})
or a whole JSON-RPC response ({"result": {"tools": [...]}}). Every probe of the tool-definitions and agent-UX gates
that needs only the listing runs on it, exactly as `mcp-handbook audit` runs it on a server, so the rule ids, reasons
and sentences printed are the ones an audit of a server listing these tools gives. Rules whose probe calls the tool
are listed as needing a running server: audit one (scripts/audit_server.sh) for those.

Exit status: 0 no rule fails, 1 some rule fails, 2 bad input or the toolchain is not installed.
Needs the handbook's toolchain (`pip install mcp-handbook`); it judges with the doctrine installed with it.
"""

from __future__ import annotations

import argparse
import json
import sys

BUNDLE_DOCTRINE = "__DOCTRINE_VERSION__"
"""The doctrine version of the skill bundle this script came with."""


def tools_in(document: object) -> list:
    """The tool definitions in any of the accepted shapes, or a ValueError saying what was found instead."""
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        document = document["result"]
    if isinstance(document, dict) and "tools" in document:
        document = document["tools"]
    if isinstance(document, dict):
        return [document]
    if isinstance(document, list):
        return document
    raise ValueError(f"expected a tool object, an array of tools or a tools/list result, not {type(document).__name__}")


def read_json(source: str) -> object:
    where = "standard input" if source == "-" else source
    try:
        if source == "-":
            text = sys.stdin.read()
        else:
            with open(source, encoding="utf-8") as file:
                text = file.read()
    except OSError as exc:
        raise ValueError(f"{where}: cannot read it: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None


def report(findings: list, installed: str) -> list[str]:
    """The lines printed for a person: each FAIL with its reason and evidence, then what was not checked."""
    failed = [f for f in findings if f.status == "FAIL"]
    unchecked = [f for f in findings if not f.static]
    lines = [f"FAIL {f.rule_id} {f.reason}: {f.summary}" + "".join(f"\n    {e}" for e in f.evidence[:6])
             + (f"\n    fix: {f.fix}" if f.fix else "") for f in failed]
    lines += [f"PASS {f.rule_id}" for f in findings if f.static and f.status == "PASS"]
    lines += [f"N/A  {f.rule_id}: {f.summary}" for f in findings if f.static and f.status == "N/A"]
    if unchecked:
        lines.append("needs a running server (run scripts/audit_server.sh): " + ", ".join(f.rule_id for f in unchecked))
    checked = len(findings) - len(unchecked)
    lines.append(f"{len(failed)} of {checked} static rule(s) fail (doctrine {installed})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check MCP tool definitions against the handbook's static rules.")
    parser.add_argument("source", help="a JSON file, or - for standard input")
    parser.add_argument("--json", action="store_true", help="print the findings as a JSON array")
    args = parser.parse_args(argv)
    try:
        from mcp_handbook.audit.static_check import default_corpus, check_tool_listing
    except ImportError:
        print("check_tool.py: the handbook's toolchain is not installed: pip install mcp-handbook", file=sys.stderr)
        return 2
    try:
        tools = tools_in(read_json(args.source))
        corpus = default_corpus()
        findings = check_tool_listing(tools, corpus)
    except ValueError as exc:
        print(f"check_tool.py: {exc}", file=sys.stderr)
        return 2
    if corpus.version != BUNDLE_DOCTRINE and not BUNDLE_DOCTRINE.startswith("__"):
        print(f"check_tool.py: note: the installed toolchain carries doctrine {corpus.version}, this skill "
              f"{BUNDLE_DOCTRINE}", file=sys.stderr)
    if args.json:
        print(json.dumps([f.as_dict() for f in findings], indent=2, ensure_ascii=False))
    else:
        print("\n".join(report(findings, corpus.version)))
    return 1 if any(f.status == "FAIL" for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
