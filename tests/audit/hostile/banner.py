"""Prints a friendly, coloured banner on stdout before serving: every client's first line is garbage."""

import sys

import tiny

print("\x1b[32mStarting Awesome MCP Server v1.0 ... ready!\x1b[0m")
sys.stdout.flush()
tiny.serve()
