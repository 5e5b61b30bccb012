#!/bin/sh
# The MCP conformance suite's client (tests/e2e/mcp_conformance.rs): the suite runs this
# with the scenario server's URL as the last argument, MCP_CONFORMANCE_SCENARIO and, for
# some scenarios, MCP_CONFORMANCE_CONTEXT (a pre-registered client's id and secret). It
# configures that URL as the http MCP server "srv" in a fresh BASH_AGENT_HOME (an entry's
# `oauth` object from the context, as a user would write it: a client's id, secret or key),
# starts the bundled scripted model, and runs bash-agent headless: the model calls the server's tool. The sign-in is
# done by an automated "browser" (curl following the authorization server's redirect to
# bash-agent's loopback listener), allowed by BASH_AGENT_MCP_BROWSER_SIGN_IN=1. The
# elicitation scenario expects the schema's defaults accepted, which a headless run does only
# when told to (BASH_AGENT_MCP_ELICIT=defaults, docs/mcp.md).
set -u
url="$1"
bin="${BASH_AGENT_BIN:?BASH_AGENT_BIN names the bash-agent binary}"
home=$(mktemp -d)
mockpid=""
cleanup() {
  [ -n "$mockpid" ] && kill "$mockpid" 2>/dev/null && wait "$mockpid" 2>/dev/null
  rm -rf "$home"
}
trap cleanup EXIT
mkdir -p "$home/.bash-agent" "$home/work"
python3 - "$url" "$home" <<'EOF'
import json, os, sys
url, home = sys.argv[1], sys.argv[2]
ctx = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
oauth = {"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}
if ctx.get("client_id"):
    oauth["clientId"] = ctx["client_id"]
if ctx.get("client_secret"):
    oauth["clientSecret"] = ctx["client_secret"]
if ctx.get("private_key_pem"):
    key = os.path.join(home, ".bash-agent", "client-key.pem")
    with open(key, "w") as f:
        f.write(ctx["private_key_pem"])
    oauth["privateKeyFile"] = key
if ctx.get("idp_id_token"):
    oauth["idpTokenEndpoint"] = ctx["idp_token_endpoint"]
    oauth["idpClientId"] = ctx.get("idp_client_id", "")
    oauth["idpIdToken"] = ctx["idp_id_token"]
if scenario.startswith("auth/client-credentials"):
    oauth["grant"] = "client_credentials"
settings = {"mcpServers": {"srv": {"type": "http", "url": url, "oauth": oauth}}}
with open(os.path.join(home, ".bash-agent", "settings.json"), "w") as f:
    json.dump(settings, f)
call = lambda tool, args: {"when": tool, "tool_calls": [{"name": "mcp__srv__" + tool, "input": args}]}
script = [
    call("add_numbers", {"a": 5, "b": 3}),
    call("test-tool", {}),
    call("test_client_elicitation_defaults", {}),
    call("test_reconnection", {}),
    {"text": "done", "repeat": True},
]
with open(os.path.join(home, "script.json"), "w") as f:
    json.dump(script, f)
EOF
"$bin" mock-server --script "$home/script.json" --port 0 >"$home/mock.url" 2>/dev/null &
mockpid=$!
i=0
while [ ! -s "$home/mock.url" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
base="$(head -n1 "$home/mock.url")/v1"
cd "$home/work" || exit 1
HOME="$home" BASH_AGENT_HOME="$home" BASH_AGENT_MCP_BROWSER_SIGN_IN=1 BASH_AGENT_MCP_ELICIT=defaults \
  BROWSER="curl -s -o /dev/null -L --max-time 10" MCP_TIMEOUT=20000 \
  "$bin" --base-url "$base" --api-key k --allow mcp__srv "call the tool" </dev/null
