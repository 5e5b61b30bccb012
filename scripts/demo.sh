#!/usr/bin/env bash
# Offline demo: a full session against the bundled scripted model server (no API key).
# A tool call, its result, the final answer, the session files, then a resume.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${BASH_AGENT_BIN:-}"
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release --quiet)
  bin="$root/target/release/bash-agent"
fi
work="$(mktemp -d)"
export BASH_AGENT_HOME="$work/home"
mkdir -p "$work/proj" "$BASH_AGENT_HOME"
cd "$work/proj"
"$bin" mock-server --script "$root/scripts/demo-script.json" --record "$work/requests.jsonl" >"$work/url" &
mock=$!
trap 'kill $mock 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done
url="$(head -1 "$work/url")"
echo "== one-shot run against the scripted model at $url"
"$bin" --base-url "$url/v1" --session demo "Create hello.txt with a greeting and check it"
echo
echo "== session files"
dir="$BASH_AGENT_HOME/.bash-agent/projects/$(ls "$BASH_AGENT_HOME/.bash-agent/projects")/demo"
ls -l "$dir"
echo "-- events.jsonl (first lines)"; head -n 8 "$dir/events.jsonl"
echo "-- stats.json"; cat "$dir/stats.json"
echo
echo "== resume with --continue"
"$bin" --base-url "$url/v1" --continue "DEMO_RESUME what did we do?"
echo
echo "== replay of the session"
"$bin" --session demo --replay
echo "== --list-sessions"
"$bin" --list-sessions
