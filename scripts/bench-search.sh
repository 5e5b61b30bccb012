#!/usr/bin/env bash
# Benchmark the in-process Glob/Grep tools against ripgrep on a generated tree.
#
#   scripts/bench-search.sh            # 100k files under /tmp/bash-agent-bench-tree
#   BENCH_FILES=20000 BENCH_TREE=/tmp/small scripts/bench-search.sh
#   BASH_AGENT_BIN=target/debug/bash-agent scripts/bench-search.sh
#
# The tree is generated once (skipped when it exists). Uses hyperfine when installed,
# else a timing loop. Prints a table: mean milliseconds and bash-agent/rg ratio.
set -euo pipefail

FILES=${BENCH_FILES:-100000}
TREE=${BENCH_TREE:-/tmp/bash-agent-bench-tree}
RUNS=${BENCH_RUNS:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BASH_AGENT_BIN:-$ROOT/target/release/bash-agent}

if [[ ! -x $BIN ]]; then
    echo "building $BIN (cargo build --release)..." >&2
    (cd "$ROOT" && cargo build --release --quiet)
fi

if ! command -v rg >/dev/null 2>&1; then
    echo "rg not found; trying apt-get install ripgrep..." >&2
    if ! { apt-get install -y ripgrep >/dev/null 2>&1 || sudo -n apt-get install -y ripgrep >/dev/null 2>&1; }; then
        echo "could not install ripgrep: only bash-agent timings are shown" >&2
    fi
fi
HAVE_RG=0
command -v rg >/dev/null 2>&1 && HAVE_RG=1

if [[ ! -f $TREE/.complete ]]; then
    echo "generating $FILES files under $TREE ..." >&2
    rm -rf "$TREE"
    mkdir -p "$TREE/.git"
    printf 'ignored/\n*.log\n' >"$TREE/.gitignore"
    python3 - "$TREE" "$FILES" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(42)
words = ["alpha", "beta", "gamma", "delta", "value", "result", "config", "handler", "index", "token"]
exts = [".rs", ".txt", ".py", ".md", ".log"]
per_dir = 200
for i in range(n):
    d = os.path.join(root, "d%03d" % (i // (per_dir * 50)), "s%03d" % ((i // per_dir) % 50))
    if i % per_dir == 0:
        os.makedirs(d, exist_ok=True)
    if i % 997 == 0:
        d = os.path.join(root, "ignored")
        os.makedirs(d, exist_ok=True)
    ext = exts[i % len(exts)]
    lines = []
    for j in range(rnd.randint(5, 40)):
        lines.append("fn %s_%d(%s) -> %s" % (rnd.choice(words), j, rnd.choice(words), rnd.choice(words)))
    if i % 50 == 0:
        lines.append("// needle %d here" % i)
    with open(os.path.join(d, "f%06d%s" % (i, ext)), "w") as f:
        f.write("\n".join(lines) + "\n")
PY
    touch "$TREE/.complete"
fi

cd "$TREE"
NAMES=("Glob *.rs" "Grep needle" "Grep regex --glob *.py")
OURS=(
    "$BIN tool Glob '{\"pattern\":\"*.rs\"}'"
    "$BIN tool Grep '{\"pattern\":\"needle\",\"path\":\".\"}'"
    "$BIN tool Grep '{\"pattern\":\"fn (alpha|beta)_1[0-9]\",\"glob\":\"*.py\"}'"
)
THEIRS=(
    "rg --files . -g '*.rs'"
    "rg -n --color never --heading -- needle ."
    "rg -n --color never --heading --glob '*.py' -- 'fn (alpha|beta)_1[0-9]' ."
)

mean_ms() { # command → mean wall time in ms
    local cmd=$1
    if command -v hyperfine >/dev/null 2>&1; then
        local json
        json=$(mktemp)
        hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$json" "$cmd" >/dev/null 2>&1 ||
            hyperfine --warmup 1 --runs "$RUNS" --export-json "$json" "$cmd" >/dev/null 2>&1
        python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["mean"]*1000))' "$json"
        rm -f "$json"
    else
        bash -c "$cmd" >/dev/null 2>&1 || true
        local start end
        start=$(date +%s%N)
        for ((i = 0; i < RUNS; i++)); do bash -c "$cmd" >/dev/null 2>&1 || true; done
        end=$(date +%s%N)
        echo "scale=1; ($end - $start) / $RUNS / 1000000" | bc
    fi
}

printf '%-26s %14s %10s %7s\n' "case ($FILES files)" "bash-agent ms" "rg ms" "ratio"
for i in "${!NAMES[@]}"; do
    a=$(mean_ms "${OURS[$i]}")
    if [[ $HAVE_RG == 1 ]]; then
        b=$(mean_ms "${THEIRS[$i]}")
        r=$(echo "scale=2; $a / $b" | bc)
    else
        b="-" r="-"
    fi
    printf '%-26s %14s %10s %7s\n' "${NAMES[$i]}" "$a" "$b" "$r"
done
