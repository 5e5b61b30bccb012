#!/usr/bin/env bash
# Coverage-guided fuzzing (cargo-fuzz / libFuzzer) of the parsers that read untrusted
# bytes: the RESP frame reader, the SSE parser + normalisers, the events.jsonl readers, the
# quick read of stored conversation lines, WebFetch's HTML to markdown conversion, the
# permission gate's Bash parse and judgement (tree-sitter-bash; unparseable input asks).
#
#   scripts/fuzz.sh            # 30 s per target
#   scripts/fuzz.sh 300        # 5 min per target
#   FUZZ_TARGETS="resp" scripts/fuzz.sh 60
#   FUZZ_SEED=1 scripts/fuzz.sh 10   # reproducible mutation order (CI)
#
# Only the stable toolchain exists here: RUSTC_BOOTSTRAP=1 lets cargo-fuzz pass its -Z
# flags, and `--sanitizer none` avoids rebuilding std (the parsers are safe Rust; the
# fuzzer looks for panics, hangs and broken invariants, not memory errors). The first
# build compiles the whole crate with coverage instrumentation (several minutes on 2
# cores); later runs reuse fuzz/target.
#
# Seeds come from tests/fuzz_corpus/<kind>/. A crash is minimised and copied into
# tests/fuzz_corpus/<kind>/ (replayed by `cargo test --test faults fuzz_regress` from then on),
# and the script exits 1.
set -euo pipefail

SECS=${1:-30}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGETS=${FUZZ_TARGETS:-"resp sse events conversation html bashparse"}
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz (cargo install cargo-fuzz)..." >&2
    cargo install --quiet cargo-fuzz
fi

cd "$ROOT/fuzz"
failed=0
for t in $TARGETS; do
    corpus=$ROOT/fuzz/corpus/$t
    mkdir -p "$corpus" "$ROOT/fuzz/artifacts/$t"
    cp -n "$ROOT/tests/fuzz_corpus/$t"/* "$corpus"/ 2>/dev/null || true
    echo "== fuzzing $t for ${SECS}s" >&2
    if cargo fuzz run --sanitizer none -O "$t" "$corpus" -- \
        -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
        >"$ROOT/fuzz/artifacts/$t.log" 2>&1; then
        grep -E '^(Done|stat::number_of_executed_units)' "$ROOT/fuzz/artifacts/$t.log" | tail -1 >&2 || true
    else
        failed=1
        echo "!! $t: the fuzzer found a failing input (log: fuzz/artifacts/$t.log)" >&2
        tail -30 "$ROOT/fuzz/artifacts/$t.log" >&2
        for a in "$ROOT/fuzz/artifacts/$t"/crash-* "$ROOT/fuzz/artifacts/$t"/timeout-* "$ROOT/fuzz/artifacts/$t"/oom-*; do
            [[ -f $a ]] || continue
            min=$a.min
            cargo fuzz tmin --sanitizer none -O "$t" "$a" -- -runs=2000 >/dev/null 2>&1 &&
                [[ -f $ROOT/fuzz/artifacts/$t/minimized-from-$(basename "$a") ]] &&
                cp "$ROOT/fuzz/artifacts/$t/minimized-from-$(basename "$a")" "$min" || cp "$a" "$min"
            dest=$ROOT/tests/fuzz_corpus/$t/regress-$(basename "$a")
            cp "$min" "$dest"
            echo "   saved as regression input: ${dest#"$ROOT"/}" >&2
        done
    fi
done
exit $failed
