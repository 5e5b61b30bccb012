#!/bin/sh
# Prompt-cache benchmark: a 10-turn and a 50-turn session (each turn a tool loop: thinking,
# a Read of a 6 KB file, the answer) per provider against the scripted model server in
# strict mode, whose prompt caches are SIMULATIONS of the documented rules:
# - Anthropic (src/mock/strict_cache.rs): prefixes keyed by the blocks up to each
#   cache_control breakpoint, 20-block lookback, the model's minimum cacheable length;
# - OpenAI chat / Responses and DeepSeek (src/mock/strict_prefix.rs): automatic prefix
#   caching, the longest previously seen prefix in 128-token units from 1024 tokens
#   (OpenAI) or in 64-token units (DeepSeek);
# tokens estimated as bytes / 4. Prints, per provider and session, the share of input
# tokens read from the cache and the billed input in USD at the model table's prices,
# against the same tokens billed at the full input price (no cache).
# Usage: scripts/bench-cache.sh [path/to/bash-agent]   (default: target/release/bash-agent)
#        MODEL=claude-opus-4-7 scripts/bench-cache.sh   (the Anthropic model)
#        PROVIDERS="anthropic openai" TURNS="10" scripts/bench-cache.sh
set -eu
BIN=${1:-target/release/bash-agent}
MODEL=${MODEL:-claude-sonnet-5-5}
PROVIDERS=${PROVIDERS:-anthropic openai responses deepseek}
TURNS=${TURNS:-10 50}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$BIN" ] || { echo "build first: cargo build --release" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq is required" >&2; exit 1; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
TMP=$(mktemp -d)
MOCK_PID=
cleanup() {
	[ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
price() {
	p=$(jq -c --arg m "$1" '.models[] | select(.id == $m) | .price' "$ROOT/assets/models.json")
	[ -n "$p" ] || { echo "no price for $1 in assets/models.json" >&2; exit 1; }
	echo "$p"
}

# session PROVIDER TURNS
session() {
	prov=$1
	turns=$2
	case $prov in
	anthropic) model=$MODEL; flags="-p claude --thinking adaptive"; strict='{strict: "anthropic"}' ;;
	openai) model=gpt-5.5; flags="-p openai"; strict='{}' ;;
	responses) model=gpt-5.5; flags="-p responses"; strict='{}' ;;
	deepseek) model=deepseek-v4-flash; flags="-p openai"; strict='{}' ;;
	*) echo "unknown provider $prov" >&2; exit 1 ;;
	esac
	PRICE=$(price "$model")
	dir="$TMP/$prov$turns"
	mkdir -p "$dir/proj" "$dir/home"
	# A file the model reads each turn (about 6 KB, a small source file's worth).
	i=0
	while [ $i -lt 120 ]; do
		echo "line $i: the quick brown fox jumps over the lazy dog"
		i=$((i + 1))
	done > "$dir/proj/notes.txt"
	jq -n --argjson n "$turns" "$strict"' + {steps: [range(0; $n) as $t |
		({thinking: "Turn \($t): I should read the notes before answering.",
		  text: "Reading the notes.",
		  tool_calls: [{name: "Read", id: "toolu_\($t)", input: {path: "notes.txt"}}]},
		 {thinking: "Turn \($t): the notes have 120 lines.",
		  text: "The notes have 120 lines; line \($t) mentions a fox."})]}' > "$dir/script.json"
	BASH_AGENT_MOCK_STRICT=1 "$BIN" mock-server --script "$dir/script.json" --port 0 > "$dir/url" &
	MOCK_PID=$!
	n=0
	while [ ! -s "$dir/url" ] && [ $n -lt 200 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	url=$(head -n 1 "$dir/url")
	t=0
	while [ $t -lt "$turns" ]; do
		(cd "$dir/proj" && env -i PATH="$PATH" HOME="$dir/home" BASH_AGENT_HOME="$dir/home" \
			"$BIN" $flags --base-url "$url/v1" --api-key sk-bench --model "$model" \
			--session bench "question $t: what do the notes say?" \
			> /dev/null 2> "$dir/err") || { cat "$dir/err" >&2; exit 1; }
		t=$((t + 1))
	done
	kill "$MOCK_PID" 2>/dev/null || true
	wait "$MOCK_PID" 2>/dev/null || true
	MOCK_PID=
	events=$(find "$dir/home" -path '*/bench/events.jsonl' | head -n 1)
	jq -s -r --argjson p "$PRICE" --argjson turns "$turns" --arg who "$prov $model" '
		map(select(.type == "usage" and .kind == "agent")) as $u
		| ($u | map(.input_tokens) | add) as $in
		| ($u | map(.cache_read_input_tokens) | add) as $rd
		| ($u | map(.cache_creation_input_tokens) | add) as $cr
		| ($in + $rd + $cr) as $all
		| (($in * $p.input + $rd * $p.cache_read + $cr * $p.cache_write) / 1e6) as $billed
		| ($all * $p.input / 1e6) as $nocache
		| "\($who): \($turns) turns, \($u | length) calls: input \($all) tokens, read from cache \($rd) (\(($rd * 1000 / $all | floor) / 10) %), written \($cr), uncached \($in); billed input $\(($billed * 10000 | round) / 10000) vs $\(($nocache * 10000 | round) / 10000) without a cache (\(($billed * 1000 / $nocache | floor) / 10) %)"
	' "$events"
}

for prov in $PROVIDERS; do
	for n in $TURNS; do
		session "$prov" "$n"
	done
done
