#!/usr/bin/env bash
# Long fuzzing runs: the three targets in turn, CHUNK seconds at a time (round robin, so
# each makes progress and a crash in one shows early), until each has run RUNS
# executions in all or HOURS have passed. One fuzzer process at a time, niced.
#
#   Tests/fuzz/run-long.sh [--runs N] [--hours H] [--chunk SECONDS] [walk edit json]
#
# libFuzzer runs in fork mode with -ignore_crashes/-ignore_timeouts/-ignore_ooms, so a
# crash does not stop the run: every distinct failing input is kept in
# .build/fuzz-long/artifacts/<target>/ (crash-*, timeout-*, oom-*). After each chunk the
# inputs found are merged with the committed corpus into a minimal set (libFuzzer's
# -merge=1, files up to MAX_LEN bytes only) that replaces Tests/fuzz/corpus/<target>/.
#
# Progress: .build/fuzz-long/runs.tsv (one line per chunk: target, executions, seconds,
# failing inputs so far) and .build/fuzz-long/summary.txt (totals per target, exec/s);
# each chunk's libFuzzer output is in .build/fuzz-long/logs/.
set -uo pipefail
cd "$(dirname "$0")/../.."
RUNS=10000000
HOURS=0          # 0: no time limit
CHUNK=1200
MAX_LEN=${MAX_LEN:-8192}
targets=()
while [ $# -gt 0 ]; do
    case $1 in
        --runs) RUNS=$2; shift 2 ;;
        --hours) HOURS=$2; shift 2 ;;
        --chunk) CHUNK=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(walk edit json)

OUT=.build/fuzz-long
SEEDS=.build/fuzz-seeds
mkdir -p "$OUT/logs"
BIN=$(Tests/fuzz/build.sh) || exit 1
[ -d "$SEEDS/walk" ] || python3 Tests/fuzz/seed.py "$SEEDS"
touch "$OUT/runs.tsv"
start=$(date +%s)

total_runs() { awk -v t="$1" '$1 == t { s += $2 } END { print s + 0 }' "$OUT/runs.tsv"; }
summary() {
    for t in walk edit json; do
        awk -v t="$t" '$1 == t { r += $2; s += $3; f = $4 } END {
            printf "%-5s %12d executions %8d s %8.0f exec/s  failing inputs: %d\n", t, r, s, (s ? r / s : 0), f }' "$OUT/runs.tsv"
    done > "$OUT/summary.txt"
    cat "$OUT/summary.txt"
}

while :; do
    progressed=0
    for t in "${targets[@]}"; do
        case $t in
            walk) target=FuzzWalk; dict=pdf.dict ;;
            edit) target=FuzzEdit; dict=pdf.dict ;;
            json) target=FuzzJSON; dict=json.dict ;;
            *) echo "unknown target $t" >&2; exit 2 ;;
        esac
        [ "$(total_runs "$t")" -lt "$RUNS" ] || continue
        if [ "$HOURS" != 0 ] && [ $(( $(date +%s) - start )) -ge $(( HOURS * 3600 )) ]; then
            summary; exit 0
        fi
        progressed=1
        work="$OUT/work/$t"; art="$OUT/artifacts/$t"
        mkdir -p "$work" "$art" "Tests/fuzz/corpus/$t"
        log="$OUT/logs/$t-$(date +%Y%m%d-%H%M%S).log"
        t0=$(date +%s)
        nice -n 19 "$BIN/$target" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
            -dict="Tests/fuzz/$dict" -max_total_time="$CHUNK" -timeout=10 -rss_limit_mb=2048 \
            -artifact_prefix="$art/" "$work" "Tests/fuzz/corpus/$t" "$SEEDS/$t" > "$log" 2>&1
        secs=$(( $(date +%s) - t0 ))
        # Fork mode's status lines: "#RUNS: cov: ... exec/s: ... crash: ..."; the last one
        # counts every execution of the chunk.
        runs=$(grep -oE '^#[0-9]+:' "$log" | tail -1 | tr -d '#:')
        failures=$(find "$art" -type f | wc -l)
        printf '%s\t%s\t%s\t%s\t%s\n' "$t" "${runs:-0}" "$secs" "$failures" "$(date -Is)" >> "$OUT/runs.tsv"
        # A minimal set of the committed corpus and what this chunk found, small files only.
        small=$(mktemp -d) new=$(mktemp -d)
        find "$work" "Tests/fuzz/corpus/$t" -type f -size -$((MAX_LEN + 1))c -exec cp -t "$small" {} + 2>/dev/null
        if nice -n 19 "$BIN/$target" -merge=1 -timeout=10 -rss_limit_mb=2048 "$new" "$small" \
                > "$OUT/logs/$t-merge.log" 2>&1; then
            rm -rf "Tests/fuzz/corpus/$t" && mv "$new" "Tests/fuzz/corpus/$t" && chmod 755 "Tests/fuzz/corpus/$t"
        else
            rm -rf "$new"
        fi
        rm -rf "$small"
        summary
    done
    [ $progressed = 1 ] || break
done
summary
