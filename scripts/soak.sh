#!/usr/bin/env bash
# The suite under load: runs the README's test command (scripts/test.sh) RUNS times (default
# 10) on a fresh clone of HEAD while a release build of the project loops beside it (cargo
# clean, cargo build --release, again), and prints one line per run: its exit code, its
# time, and the tmux servers and bash-agent processes on the machine before and after it.
# Exits 1 when a run failed or left a process behind. Logs stay in the work folder.
#
#   scripts/soak.sh [RUNS]
#   SOAK_DIR=/path   work folder (default: a new temp folder)
#   SOAK_SEED=/path  a target folder copied into the clone first (skips the first build)
set -euo pipefail
runs=${1:-10}
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${SOAK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bash-agent-soak.XXXXXX")}
mkdir -p "$dir"
rm -rf "$dir/clone"
git clone -q "$repo" "$dir/clone"
echo "soak: $runs runs of scripts/test.sh at $(git -C "$dir/clone" rev-parse --short HEAD) in $dir"
if [ -n "${SOAK_SEED:-}" ] && [ -d "$SOAK_SEED" ]; then
    cp -a "$SOAK_SEED" "$dir/clone/target"
fi
cd "$dir/clone"
bash scripts/mcp-servers.sh > "$dir/mcp-servers.log" 2>&1 || true

# The release build beside, in a process group of its own so it ends with the script.
stop="$dir/stop-beside"
rm -f "$stop"
set -m
(
    export CARGO_TARGET_DIR="$dir/release-target"
    n=0
    while [ ! -e "$stop" ]; do
        cargo clean > /dev/null 2>&1 || true
        n=$((n + 1))
        echo "release build $n start $(date +%T)"
        rc=0
        cargo build --release > /dev/null 2>&1 || rc=$?
        echo "release build $n rc=$rc end $(date +%T)"
    done
) > "$dir/beside.log" 2>&1 &
beside=$!
set +m
trap 'touch "$stop"; kill -- -"$beside" 2>/dev/null || true' EXIT

count() { pgrep -c -x "$1" 2>/dev/null || true; }
failed=0
for i in $(seq 1 "$runs"); do
    tb=$(count 'tmux: server')
    ab=$(count bash-agent)
    start=$(date +%s)
    rc=0
    bash scripts/test.sh > "$dir/run$i.log" 2>&1 || rc=$?
    secs=$(($(date +%s) - start))
    ta=$(count 'tmux: server')
    aa=$(count bash-agent)
    line="run $i: exit $rc, ${secs} s, tmux servers $tb -> $ta, bash-agent $ab -> $aa"
    if [ "$rc" -ne 0 ]; then
        line="$line; failed: $(grep -E '^    [A-Za-z0-9_:]+$' "$dir/run$i.log" | tr -d ' ' | tr '\n' ' ')"
        failed=1
    fi
    [ "$ta" -le "$tb" ] && [ "$aa" -le "$ab" ] || failed=1
    echo "$line"
done
echo "release builds beside: $(grep -c 'rc=' "$dir/beside.log") finished"
exit "$failed"
