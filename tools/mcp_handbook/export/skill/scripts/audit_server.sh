#!/bin/sh
# Audit an MCP server with the handbook's installed auditor and print its summary.
#
#   sh scripts/audit_server.sh -- SERVER COMMAND [ARGS...]    a stdio server (the auditor starts it)
#   sh scripts/audit_server.sh --url http://127.0.0.1:PORT/mcp  a Streamable HTTP server already running
#
# Any other `mcp-handbook audit` option may come before `--` (--era, --gate baseline|spec|full, --rule ID,
# --no-tool-calls, --allow-tool NAME...). The worksheet is written to $MCP_AUDIT_OUT (default ./mcp-audit.md);
# the summary printed names every failed rule with its reason. Exit status is the auditor's: 0 no high-severity
# rule fails, 1 one does, 2 a usage error. By default it calls only tools annotated read-only: audit your own
# server, in a sandbox, before allowing more.
# Needs the handbook's toolchain: pip install mcp-handbook
set -eu
if command -v mcp-handbook >/dev/null 2>&1; then
    set -- audit -o "${MCP_AUDIT_OUT:-mcp-audit.md}" "$@"
    exec mcp-handbook "$@"
fi
if python3 -c "import mcp_handbook" >/dev/null 2>&1; then
    set -- audit -o "${MCP_AUDIT_OUT:-mcp-audit.md}" "$@"
    exec python3 -m mcp_handbook.cli "$@"
fi
echo "audit_server.sh: the handbook's toolchain is not installed: pip install mcp-handbook" >&2
exit 2
