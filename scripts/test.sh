#!/usr/bin/env bash
# Runs every check and test of the project: formatting, clippy, unit, integration,
# end-to-end and fault-injection tests. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
echo "== import graph (no cycle between folders, nothing imports the entry point)"
python3 scripts/import-graph.py >/dev/null || python3 scripts/import-graph.py
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets -- -D warnings
echo "== cargo test"
# Every target runs even after one fails (--no-fail-fast), so a run shows all failures.
# The tests' temp folders (session homes, tmux sockets) go into one folder of this run, so
# a process still running from it afterwards is one a test left behind.
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/bash-agent-test.XXXXXX")
trap 'rm -rf "$run_tmp"' EXIT
# A test that cannot run here (a tool missing) appends a "SKIPPED: …" line to this file
# (tests/support/skip.rs); the list is printed at the end, pass or fail.
skips="$run_tmp/skipped"
: > "$skips"
status=0
TMPDIR="$run_tmp" BASH_AGENT_TEST_SKIPS="$skips" \
    cargo test --no-fail-fast --lib --bins --tests -- --test-threads="${TEST_THREADS:-4}" \
    || status=$?

# Processes started from the run's folder (command line or working directory in it) that
# still run; zombies and processes on their way out get a few seconds first.
left_behind() {
    local d pid cmd cwd state
    for d in /proc/[0-9]*; do
        pid=${d#/proc/}
        [ "$pid" = "$$" ] && continue
        state=$(awk '{print $3}' "$d/stat" 2>/dev/null) || continue
        [ "$state" = Z ] && continue
        cmd=$(tr '\0' ' ' 2>/dev/null < "$d/cmdline") || continue
        cwd=$(readlink "$d/cwd" 2>/dev/null) || cwd=
        case "$cmd $cwd" in
            *"$run_tmp"*) echo "  pid $pid: $cmd(cwd $cwd)" ;;
        esac
    done
}
left=$(left_behind)
for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ -z "$left" ] && break
    sleep 1
    left=$(left_behind)
done
if [ -n "$left" ]; then
    echo "== processes left behind by the tests (now killed):"
    echo "$left"
    echo "$left" | sed -n 's/^  pid \([0-9]*\):.*/\1/p' | xargs -r kill -9 2>/dev/null || true
    [ "$status" -ne 0 ] || status=1
else
    echo "== no process left behind"
fi
if [ -s "$skips" ]; then
    echo "== $(sort -u "$skips" | wc -l) skipped (a tool or a kernel feature missing here):"
    sort -u "$skips"
else
    echo "== 0 skipped"
fi
if [ "$status" -ne 0 ]; then
    echo "== TESTS FAILED (exit $status; every target ran, see the failures above)"
    exit "$status"
fi
echo "== all tests passed"
