#!/usr/bin/env bash
# Paired start-up check of the one-shot text turn (issue 26): two builds, alternating run by
# run (base, ours, base, ours, ...), each a new session against the same scripted server, in
# a project folder outside any git repository with no settings, instruction, MCP, hooks,
# commands or agents files, as scripts/bench.sh's "one-shot turn" does it.
#
#   BASE_BIN=old/bash-agent BIN=target/release/bash-agent scripts/bench-startup.sh
#   RUNS=60 ...          # runs per side (default 40, at least 40 for the issue's check)
#   FRESH_HOME=1 ...     # remove the agent home before every run (bench-scale's no-MCP row)
#   CALLGRIND=1 ...      # also count instructions of one run each (valgrind --tool=callgrind)
#   LIMIT=1.1 ...        # the ratio ours/base the verdict checks (default 1.1)
#   TMPDIR=/dev/shm ...  # homes and project on a tmpfs (see below)
#
# Both builds create the same session files (about 17 files, folders and FIFOs, 5 renames a
# run). On a loaded virtual disk each create can cost 0.2-0.7 ms, growing with the sessions
# already in the project folder, so on disk most of the wall time, and of its noise, is the
# file system, alike for both sides; on a tmpfs the binaries' own difference shows.
#
# Each side has its own empty home (HOME=BASH_AGENT_HOME), made fresh when the script
# starts, so sessions of one side never reach the other's listing. Times come from bash's
# EPOCHREALTIME around each process (no `date` fork inside the timed span). Prints the
# medians, the ratio and the load at start and end; the last line is machine-readable:
#   startup: base_ms=8.123 ours_ms=8.001 ratio=0.985 runs=40 load_start=1.20 load_end=1.31
# Exit status 0 when ratio <= LIMIT, 1 when not, 2 on a usage or set-up error.
set -euo pipefail

RUNS=${RUNS:-40}
LIMIT=${LIMIT:-1.1}
FRESH_HOME=${FRESH_HOME:-0}
die() { printf 'bench-startup: %s\n' "$*" >&2; exit 2; }
[[ -n ${BASE_BIN:-} && -n ${BIN:-} ]] || die "set BASE_BIN and BIN to the two bash-agent binaries"
BASE_BIN=$(cd "$(dirname "$BASE_BIN")" && pwd)/$(basename "$BASE_BIN")
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
[[ -x $BASE_BIN ]] || die "not an executable: $BASE_BIN"
[[ -x $BIN ]] || die "not an executable: $BIN"
[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "needs bash 5 (EPOCHREALTIME)"

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }
LOAD_START=$(load)
TMP=$(mktemp -d)
MOCK_PID=""
cleanup() {
    [[ -n $MOCK_PID ]] && kill "$MOCK_PID" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT

# The project folder: under the temporary folder, which must not be inside a git work tree
# (the agent would walk up to that root and read its files).
PROJ=$TMP/proj
mkdir -p "$PROJ" "$TMP/home-base" "$TMP/home-ours"
PROJ=$(cd "$PROJ" && pwd -P)
d=$PROJ
while [[ $d != / ]]; do
    [[ -e $d/.git ]] && die "$PROJ is inside a git repository ($d); set TMPDIR to a folder outside one"
    d=$(dirname "$d")
done
[[ -e /.git ]] && die "/ holds a .git"

cat >"$TMP/oneshot.json" <<'EOF'
[{"repeat": true, "text": "Hello from the benchmark: a short answer of a few words.", "usage": {"input": 1200, "output": 14}}]
EOF
"$BIN" mock-server --script "$TMP/oneshot.json" --record /dev/null >"$TMP/url" 2>/dev/null &
MOCK_PID=$!
for ((i = 0; i < 200; i++)); do
    [[ -s $TMP/url ]] && break
    sleep 0.05
done
URL=$(head -1 "$TMP/url")
[[ $URL == http* ]] || die "the scripted server did not start"

export NO_COLOR=1 LANG=C.UTF-8
cd "$PROJ"
# one SIDE BIN RECORD: one timed run (when RECORD=1: wall µs appended to $TMP/SIDE.times,
# CPU ms to $TMP/SIDE.cpu)
one() {
    local side=$1 bin=$2 record=$3 t0 t1
    local home=$TMP/home-$side
    [[ $FRESH_HOME == 1 ]] && rm -rf "$home" && mkdir -p "$home"
    child_cpu
    CPU_BEFORE=$CPU_NOW
    t0=$EPOCHREALTIME
    HOME=$home BASH_AGENT_HOME=$home "$bin" --provider claude --api-key sk-bench \
        --base-url "$URL/v1" "say hello" >/dev/null 2>"$TMP/err" ||
        die "$side run failed: $(head -3 "$TMP/err")"
    t1=$EPOCHREALTIME
    if [[ $record == 1 ]]; then
        echo $((${t1/./} - ${t0/./})) >>"$TMP/$side.times"
        child_cpu
        echo $((CPU_NOW - CPU_BEFORE)) >>"$TMP/$side.cpu"
    fi
}
# child_cpu: CPU_NOW = user + system ms of all finished children so far (bash's `times`,
# run in this shell: no fork).
child_cpu() {
    local u s
    times >"$TMP/times.out"
    { read -r _ && read -r u s; } <"$TMP/times.out"
    local um=${u%%m*} ux=${u#*m} sm=${s%%m*} sx=${s#*m}
    ux=${ux%s} sx=${sx%s}
    CPU_NOW=$(((um * 60 + ${ux%.*}) * 1000 + 10#${ux#*.} + (sm * 60 + ${sx%.*}) * 1000 + 10#${sx#*.}))
}
for i in 1 2 3; do
    one base "$BASE_BIN" 0
    one ours "$BIN" 0
done
: >"$TMP/base.times" >"$TMP/ours.times" >"$TMP/base.cpu" >"$TMP/ours.cpu"
for ((i = 0; i < RUNS; i++)); do
    one base "$BASE_BIN" 1
    one ours "$BIN" 1
done
LOAD_END=$(load)

median() { # median FILE → ms, 3 decimals
    sort -n "$1" | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.3f\n", m / 1000}'
}
quart() { # quart FILE → "p25–p75" ms
    sort -n "$1" | awk '{a[NR]=$1} END {printf "%.3f–%.3f\n", a[int(NR/4)+1] / 1000, a[int(3*NR/4)] / 1000}'
}
MB=$(median "$TMP/base.times")
MO=$(median "$TMP/ours.times")
RATIO=$(awk -v a="$MO" -v b="$MB" 'BEGIN { printf "%.3f", a / b }')

printf 'One-shot text turn, %s alternating runs per side (new session each, home %s)\n' \
    "$RUNS" "$([[ $FRESH_HOME == 1 ]] && echo "removed before every run" || echo "kept per side")"
printf '  base %s: median %s ms (p25–p75 %s)\n' "$BASE_BIN" "$MB" "$(quart "$TMP/base.times")"
printf '  ours %s: median %s ms (p25–p75 %s)\n' "$BIN" "$MO" "$(quart "$TMP/ours.times")"
printf '  ours / base = %s (limit %s); load %s → %s\n' "$RATIO" "$LIMIT" "$LOAD_START" "$LOAD_END"
mean() { awk '{ t += $1 } END { printf "%.2f", t / NR }' "$1"; }
printf '  CPU (user+sys) per run, mean: base %s ms, ours %s ms (1 ms resolution per run)\n' \
    "$(mean "$TMP/base.cpu")" "$(mean "$TMP/ours.cpu")"

if [[ ${CALLGRIND:-0} == 1 ]]; then
    command -v valgrind >/dev/null || die "CALLGRIND=1 needs valgrind"
    for side in base ours; do
        bin=$BASE_BIN
        [[ $side == ours ]] && bin=$BIN
        HOME=$TMP/home-$side BASH_AGENT_HOME=$TMP/home-$side valgrind --tool=callgrind \
            --callgrind-out-file="$TMP/cg.$side" "$bin" --provider claude --api-key sk-bench \
            --base-url "$URL/v1" "say hello" >/dev/null 2>"$TMP/cg.$side.err" || true
        ir=$(grep -oE 'Collected : [0-9]+' "$TMP/cg.$side.err" | grep -oE '[0-9]+' || echo "?")
        printf '  callgrind %s: %s instructions (all threads)\n' "$side" "$ir"
    done
fi

printf 'startup: base_ms=%s ours_ms=%s ratio=%s runs=%s load_start=%s load_end=%s\n' \
    "$MB" "$MO" "$RATIO" "$RUNS" "${LOAD_START%% *}" "${LOAD_END%% *}"
awk -v r="$RATIO" -v l="$LIMIT" 'BEGIN { exit !(r <= l) }'
