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
cargo test --lib --bins --tests -- --test-threads="${TEST_THREADS:-4}"
echo "== all tests passed"
