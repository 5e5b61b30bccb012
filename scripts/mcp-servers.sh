#!/usr/bin/env bash
# Installs the real MCP servers the MCP tests run against, outside the repository:
# npm packages and a Python venv under ${BASH_AGENT_MCP_CACHE:-$HOME/.cache/bash-agent-mcp}.
# Already installed servers are kept (BASH_AGENT_MCP_UPDATE=1 installs them again).
# A machine without the registries still passes: the tests that need a missing server say so
# loudly and are skipped.
set -u
dir="${BASH_AGENT_MCP_CACHE:-$HOME/.cache/bash-agent-mcp}"
update="${BASH_AGENT_MCP_UPDATE:-}"
mkdir -p "$dir"
mods="$dir/node_modules/@modelcontextprotocol"
if [ -n "$update" ] || [ ! -f "$mods/server-everything/dist/index.js" ] || [ ! -f "$mods/server-filesystem/dist/index.js" ]; then
  if command -v npm >/dev/null 2>&1; then
    npm install --silent --prefix "$dir" @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem >/dev/null 2>&1 \
      || echo "note: could not install the npm MCP servers; their tests are skipped"
  else
    echo "note: npm missing; the npm MCP server tests are skipped"
  fi
fi
if [ -n "$update" ] || [ ! -x "$dir/venv/bin/mcp-server-time" ]; then
  { [ -x "$dir/venv/bin/pip" ] || python3 -m venv "$dir/venv"; } >/dev/null 2>&1
  "$dir/venv/bin/pip" install -q --upgrade mcp-server-time >/dev/null 2>&1 \
    || echo "note: could not install mcp-server-time; its tests are skipped"
fi
# The official conformance suite (tests/e2e/mcp_conformance.rs) and the node 22 it needs,
# both from npm into their own folder (the node package ships the binary).
conf="$dir/conformance"
if [ -n "$update" ] || [ ! -x "$conf/node_modules/.bin/node" ] || [ ! -f "$conf/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
  if command -v npm >/dev/null 2>&1; then
    mkdir -p "$conf"
    npm install --silent --prefix "$conf" node@22 @modelcontextprotocol/conformance@0.1.16 >/dev/null 2>&1 \
      || echo "note: could not install the MCP conformance suite or node 22; its test is skipped"
  else
    echo "note: npm missing; the MCP conformance test is skipped"
  fi
fi
for f in "$conf/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$mods/server-everything/dist/index.js" "$mods/server-filesystem/dist/index.js" "$dir/venv/bin/mcp-server-time"; do
  [ -e "$f" ] && echo "MCP test server: $f"
done
exit 0
