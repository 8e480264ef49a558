"""Prints a friendly banner on stdout before serving: every client's first line is garbage."""

import sys

import tiny

print("Starting Awesome MCP Server v1.0 ... ready!")
sys.stdout.flush()
tiny.serve()
