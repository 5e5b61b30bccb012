#!/bin/sh
# Replay benchmark: build a ~1 GB events.jsonl (SIZE_MB, default 1024) in a temp
# BASH_AGENT_HOME and time `bash-agent --replay-frames` (the last 10 turns) on it.
# Usage: scripts/bench-replay.sh [path/to/bash-agent]   (default: target/release/bash-agent)
set -eu
BIN=${1:-target/release/bash-agent}
SIZE_MB=${SIZE_MB:-1024}
[ -x "$BIN" ] || { echo "build first: cargo build --release" >&2; exit 1; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$TMP/proj"
cd "$TMP/proj"
export BASH_AGENT_HOME="$TMP/home"
KEY=$(pwd -P | sed 's/[^A-Za-z0-9._]\{1,\}/-/g; s/^-*//; s/-*$//')
DIR="$BASH_AGENT_HOME/.bash-agent/projects/-$KEY/bench"
mkdir -p "$DIR"
# One turn of about 1 MiB: a user input, a tool call, a large result, text deltas.
PAD=$(head -c 4000 /dev/zero | tr '\0' 'x')
{
	echo '{"type":"user_input","content":"run the benchmark turn"}'
	echo '{"type":"tool_call","name":"Bash","id":"toolu_1","input":{"command": "ls -l"}}'
	i=0
	while [ $i -lt 250 ]; do
		echo "{\"type\":\"text\",\"content\":\"$PAD\"}"
		i=$((i + 1))
	done
	echo '{"type":"stop","reason":"end_turn"}'
} > "$TMP/turn.jsonl"
echo '{"type":"session_start","session_id":"bench"}' > "$DIR/events.jsonl"
n=0
while [ $n -lt "$SIZE_MB" ]; do
	cat "$TMP/turn.jsonl" "$TMP/turn.jsonl" "$TMP/turn.jsonl" "$TMP/turn.jsonl" >> "$DIR/events.jsonl"
	n=$((n + 4))
done
ls -l "$DIR/events.jsonl"
sync
for run in 1 2 3; do
	start=$(date +%s%N)
	"$BIN" --session bench --replay-frames > "$TMP/out.resp"
	end=$(date +%s%N)
	echo "run $run: $(( (end - start) / 1000000 )) ms, $(wc -c < "$TMP/out.resp") bytes of frames"
done
