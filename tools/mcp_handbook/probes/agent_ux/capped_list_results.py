"""UX-007: a tool that lists things returns a bounded page and says that more exist.

A listing that returns every entry floods the model's context (and the client's memory) on a large
workspace; one that is cut silently makes the model believe it saw everything. The probe puts 1,200 files
in ``hb_many/`` of the workspace and calls every callable tool that is not annotated as writing and takes
a path-like argument, a query-like argument or no required argument; each result that names two or more
of the files is a listing and must be capped, under 512 KiB, and carry a sign of being partial. A tool that
does not answer within the wait (slow by design, or stuck) is not checked; the other tools are judged.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..registry import probe
from ..support import (
    PATH_PARAMS, callable_tools, compact, failed, listed, Finding, not_applicable, passed, planted, refused, Target, tool_name, tools_of,
)
from ..judging import Problem, main_reason
from ..calls import ToolCalls
from ..schemas import annotations_of, declared, input_schema, schema_valid_arguments

REASONS = {
    "listing_uncapped": "a listing call returned every one of the 1,200 files in one response",
    "listing_oversized": "a listing call returned more than 512 KiB in one response",
    "listing_cut_silently": "a capped listing says nothing about more entries (no truncated flag, cursor or 'more')",
}
MANY_FILES = 1200
MAX_RESULT_BYTES = 512 * 1024
QUERY_PARAMS = ("query", "pattern", "search", "q", "term", "keyword", "needle", "glob")
TRUNCATION_SIGNS = re.compile(
    r"truncated\"?\s*[:=]\s*true|has_?more\"?\s*[:=]\s*true|next_?cursor|\bcursor\b|\[truncated|truncated (after|at|to)"
    r"|\btruncated:|\bmore\s*(:|entries|results|items|matches|files|remain)|\bnext page\b|\boffset\s*=\s*\d+"
    r"|\bof \d+\b|\bremaining\b", re.I)


def _plant_many(workspace: Path) -> None:
    """``hb_many/`` with 1,200 files each holding the line ``hb-needle line`` (hard links: milliseconds)."""
    folder = workspace / "hb_many"
    folder.mkdir(exist_ok=True)
    first = folder / "hb-item-0000.txt"
    first.write_text("hb-needle line\n")
    for i in range(1, MANY_FILES):
        item = folder / f"hb-item-{i:04d}.txt"
        try:
            os.link(first, item)
        except FileExistsError:
            pass
        except OSError:
            item.write_text("hb-needle line\n")


@probe("capped_list_results", "listing 1,200 files returns a bounded page that says more exist", reasons=REASONS,
       calls_tools=True, shares_session=True)
def capped_list_results(target: Target) -> Finding:
    """Put 1,200 files in the workspace; every tool call that lists them must return a bounded page
    and say that more exist."""
    tools = callable_tools(target, tools_of(target))
    with planted(target.workspace / "hb_many"):
        _plant_many(target.workspace)
        return _judged(target, tools)


def _judged(target: Target, tools: list[dict[str, Any]]) -> Finding:
    """Each tool that may list ``hb_many/`` called once: every listing must be a bounded page that says more exist."""
    calls = ToolCalls(target, wait=target.timeout * 2)
    evidence: list[str] = []
    problems: list[Problem] = []
    listings = 0
    for tool in tools:
        if annotations_of(tool).get("readOnlyHint") is False:
            continue  # it says it writes: not a listing, and not to be called with made-up arguments here
        schema = input_schema(tool)
        props = declared(schema)
        overrides = {p: "hb_many" for p in PATH_PARAMS if p in props}
        overrides.update({p: "hb-needle" for p in QUERY_PARAMS if p in props})
        if not overrides and schema.get("required"):
            continue
        args = schema_valid_arguments(tool, **overrides)
        if args is None:
            continue
        name = tool_name(tool)
        response = calls.call(name, args)
        if response is None or refused(response):
            continue  # not answered in time (noted by ``calls``), or refused: no page to judge
        text = json.dumps(response.get("result"), ensure_ascii=False)
        count = len(set(re.findall(r"hb-item-\d{4}", text)))
        if count < 2:
            continue
        listings += 1
        shown = f"{name}({compact(args, 80)}) -> {len(text.encode()):,} bytes, {count} of {MANY_FILES} files"
        if count >= MANY_FILES:
            problems.append(("listing_uncapped", f"{shown}: every entry in one response; no cap"))
        elif len(text.encode()) > MAX_RESULT_BYTES:
            problems.append(("listing_oversized", f"{shown}: over {MAX_RESULT_BYTES // 1024} KiB in one response"))
        else:
            sign = TRUNCATION_SIGNS.search(text)
            if sign is None:
                problems.append(("listing_cut_silently",
                                 f"{shown}: capped, but nothing says more exist (no truncated flag, cursor or 'more')"))
            else:
                evidence.append(f"{shown}; says so: {sign.group(0)!r}")
    if problems:
        return failed(main_reason(problems, REASONS), f"{len(problems)} listing call(s) are unbounded or silently cut",
                      *listed(text for _, text in problems), *calls.notes, *evidence[:4])
    if not listings:
        if calls.notes:  # a tool that never answered may be the listing: it could not be judged
            return calls.not_checked(f"no other callable tool listed the {MANY_FILES} files put in hb_many/")
        return not_applicable(f"no callable tool listed the {MANY_FILES} files put in hb_many/")
    return passed(f"{listings} listing call(s) returned a bounded page and said more exist"
                  + (f"; {len(calls.unanswered)} tool(s) not checked (no answer)" if calls.unanswered else ""),
                  *evidence[:8], *calls.notes)
