"""The smallest server the official Python SDK (``mcp``) builds: one read-only tool, every default kept.

The auditor runs it with the audited server's own interpreter, so it meets the same SDK version; a rule this
server fails for the same reason as the audited one is the SDK's default, not the author's choice. Nothing here
may change a default: no signal handler, no stdio reader, no logging set-up.
"""

try:  # SDK 2.x
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # SDK 1.x
    from mcp.server.fastmcp import FastMCP as Server

from mcp.types import ToolAnnotations

server = Server("hb-sdk-baseline")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
def echo(text: str, times: int = 1, shout: bool = False) -> str:
    """Return the text it is given, ``times`` times, in capitals when ``shout``. A baseline tool: it reads nothing
    and writes nothing. Its integer and boolean show what the SDK's validator does with a number or a flag sent as
    a string (ERR-004)."""
    said = text.upper() if shout else text
    return " ".join([said] * max(1, min(times, 3)))


if __name__ == "__main__":
    server.run()
