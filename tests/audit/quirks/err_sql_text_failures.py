"""A ``query`` tool that runs SQL (not annotated, as mcp-server-duckdb's). ``--mode text`` (default) answers SQL
that does not parse with "Database error: Parser Error: ..." and a tool never listed with "Error: Unknown tool",
both as successes (isError false), as mcp-server-duckdb's handler does; ``--mode flagged`` sends the same texts
with isError true. A SELECT of a recursive table answers every row (5,000 rows of 40 characters), as
mcp-server-duckdb and mcp-server-sqlite-npx do, unless ``--cap N`` cuts the answer at N rows and says how to page.
Protocol 2025-06-18, so no invalid-arguments case
is asked. Otherwise it is the tiny server."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

MODE = tiny.option("--mode") or "text"
CAP = int(tiny.option("--cap") or 0)

tiny.TOOLS = [{
    "name": "query", "description": "Execute a SQL query on the database.", "annotations": {"readOnlyHint": True},
    "inputSchema": {"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}},
}]


def call(name: object, arguments: dict) -> dict:
    if name != "query":
        return {"content": [{"type": "text", "text": f"Error: Unknown tool: {name}"}], "isError": MODE != "text"}
    sql = str(arguments.get("query", "")).strip()
    if not sql.upper().startswith("SELECT") or sql.upper().endswith("WHERE"):
        text = f"Database error: Parser Error: syntax error at or near {sql.split()[-1] if sql else 'end'!r}"
        return {"content": [{"type": "text", "text": text}], "isError": MODE != "text"}
    rows = [f"({n}, 'hb-row lorem ipsum dolor sit amet')" for n in range(1, 5001)] if "RECURSIVE" in sql else ["(1,)"]
    if CAP and len(rows) > CAP:
        text = "[" + ", ".join(rows[:CAP]) + f"] (showing {CAP} of {len(rows)} rows; add LIMIT and OFFSET to the query for more)"
    else:
        text = "[" + ", ".join(rows) + "]"
    return {"content": [{"type": "text", "text": text}]}


original = tiny.answer


def answer(message: dict) -> dict | None:
    if message.get("method") == "initialize" and "id" in message:
        reply = original(message)
        reply["result"]["protocolVersion"] = "2025-06-18"
        return reply
    return original(message)


tiny.answer = answer
tiny.serve_tools(call)
