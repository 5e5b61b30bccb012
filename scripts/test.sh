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
# A test that cannot run here (a tool missing) appends a "SKIPPED: …" line to this file
# (tests/support/skip.rs); the list is printed at the end, pass or fail.
skips=$(mktemp "${TMPDIR:-/tmp}/bash-agent-skips.XXXXXX")
trap 'rm -f "$skips"' EXIT
status=0
BASH_AGENT_TEST_SKIPS=$skips cargo test --no-fail-fast --lib --bins --tests -- \
    --test-threads="${TEST_THREADS:-4}" || status=$?
if [ -s "$skips" ]; then
    echo "== $(sort -u "$skips" | wc -l) skipped (a tool or a kernel feature missing here):"
    sort -u "$skips"
else
    echo "== 0 skipped"
fi
if [ "$status" -ne 0 ]; then
    echo "== TESTS FAILED (cargo test exit $status; every target ran, see the failures above)"
    exit "$status"
fi
echo "== all tests passed"
