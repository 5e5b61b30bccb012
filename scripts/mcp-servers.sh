#!/usr/bin/env bash
# Installs the real MCP servers the MCP tests run against, outside the repository:
# npm packages and a Python venv under ${BASH_AGENT_MCP_CACHE:-$HOME/.cache/bash-agent-mcp}.
# A machine without the registries still passes: the tests that need a missing server say so
# and are skipped.
set -u
dir="${BASH_AGENT_MCP_CACHE:-$HOME/.cache/bash-agent-mcp}"
mkdir -p "$dir"
if command -v npm >/dev/null 2>&1; then
  npm install --silent --prefix "$dir" @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem >/dev/null 2>&1 \
    || echo "note: could not install the npm MCP servers; their tests are skipped"
else
  echo "note: npm missing; the npm MCP server tests are skipped"
fi
if [ ! -x "$dir/venv/bin/mcp-server-time" ]; then
  (python3 -m venv "$dir/venv" && "$dir/venv/bin/pip" install -q mcp-server-time) >/dev/null 2>&1 \
    || echo "note: could not install mcp-server-time; its tests are skipped"
fi
exit 0
