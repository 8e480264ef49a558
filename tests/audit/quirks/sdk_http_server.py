"""The official Python SDK's ``MCPServer`` with one tool, served over Streamable HTTP on 127.0.0.1 (a free port).

Built as its documentation shows, with the SDK's own defaults for a loopback host (DNS-rebinding protection on).
It binds the socket itself so that the port is known before it serves, prints ``listening on
http://127.0.0.1:PORT/mcp`` on stderr, and runs the SDK's app under uvicorn until SIGTERM.
"""

import asyncio
import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("sdk-http-echo", version="0.1.0")


@server.tool()
def echo_text(text: str) -> str:
    """Return the text unchanged."""
    return text


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning")
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
