#!/usr/bin/env bash
# Long fuzzing runs: the three targets in turn, CHUNK seconds at a time (round robin, so
# each makes progress and a crash in one shows early), until each has run RUNS
# executions in all (runs.tsv, across sessions) or HOURS have passed; a chunk ends early
# when its target reaches RUNS. One fuzzer process at a time, niced; on a machine with
# cores to spare, start one script per target.
#
#   Tests/fuzz/run-long.sh [--plain] [--fork] [--runs N] [--hours H] [--chunk SECONDS] [walk edit json]
#
# --plain fuzzes with the build without AddressSanitizer (build.sh, FUZZ_SANITIZE=fuzzer),
# about twice as fast; the merge after each chunk still replays every input it keeps under
# the ASan build, so a bad access that only ASan sees is still caught on what was found.
#
# libFuzzer runs in its own process: a crash, timeout or out-of-memory ends the chunk
# (recorded as "failed") and the script goes on with the next. The failing input is kept in
# .build/fuzz-long/artifacts/<target>/ (crash-*, timeout-*, oom-*). --fork runs libFuzzer's
# fork mode with -ignore_crashes/-ignore_timeouts/-ignore_ooms instead, which survives
# failures inside the chunk but restarts a process per job (re-running part of the corpus
# each time), so short jobs spend much of their time re-running inputs. After each chunk the
# inputs found are merged with the committed corpus into a minimal set of what the seeds
# do not cover (libFuzzer's -merge=1, files up to MAX_LEN = 4096 bytes) that replaces
# the corpus's <target>/ (see merge_corpus); the corpus is unpacked from, and packed back
# into, Tests/fuzz/corpus.tar.xz (corpus.sh), which a commit then carries.
#
# Progress: .build/fuzz-long/runs.tsv (one line per chunk: target, executions, seconds,
# failing inputs so far, time, how the chunk ended, build, commit) and .build/fuzz-long/summary.txt (totals per target, exec/s);
# each chunk's libFuzzer output is in .build/fuzz-long/logs/.
set -uo pipefail
cd "$(dirname "$0")/../.."
# A Swift trap is reported by libFuzzer's handler (stack, input saved); the Swift runtime's
# own backtracer would first spend a long time symbolizing every crash.
export SWIFT_BACKTRACE=enable=no
RUNS=10000000
HOURS=0          # 0: no time limit
PLAIN=0
FORK=0
CHUNK=1200
MAX_LEN=${MAX_LEN:-4096}
targets=()
while [ $# -gt 0 ]; do
    case $1 in
        --runs) RUNS=$2; shift 2 ;;
        --hours) HOURS=$2; shift 2 ;;
        --chunk) CHUNK=$2; shift 2 ;;
        --plain) PLAIN=1; shift ;;
        --fork) FORK=1; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(walk edit json)

OUT=.build/fuzz-long
SEEDS=.build/fuzz-seeds
CORPUS=$(Tests/fuzz/corpus.sh unpack)
mkdir -p "$OUT/logs"
# Builds (incrementally: seconds when nothing changed) before every chunk, so that each
# chunk fuzzes the tree as it is then and runs.tsv names the commit it ran on.
build() {
    BIN=$(Tests/fuzz/build.sh) || exit 1      # the ASan build: merges, and fuzzing unless --plain
    FUZZ_BIN=$BIN BUILD=asan
    if [ $PLAIN = 1 ]; then FUZZ_BIN=$(FUZZ_SANITIZE=fuzzer Tests/fuzz/build.sh) || exit 1; BUILD=plain; fi
    COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- Sources Tests/fuzz/Support 2>/dev/null || echo +)
}
build
[ -d "$SEEDS/sig" ] || python3 Tests/fuzz/seed.py "$SEEDS"
touch "$OUT/runs.tsv"
start=$(date +%s)

# Appends one chunk's line to runs.tsv. The executions: libFuzzer's final statistics, or
# else its last status line ("#RUNS: cov: ..." in fork mode, "#RUNS\tNEW ..." otherwise),
# which counts every execution of the chunk so far.
record() {
    local runs secs failures
    runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$2" | grep -oE '[0-9]+$' | tail -1)
    [ -n "$runs" ] || runs=$(grep -oE '^#[0-9]+' "$2" | tail -1 | tr -d '#')
    secs=$(( $(date +%s) - $3 ))
    failures=$(find "$4" -type f | wc -l)
    printf '%s\t%s\t%s\t%s\t%s %s\t%s\t%s\n' "$1" "${runs:-0}" "$secs" "$failures" "$(date -Is)" "$5" "$BUILD" "$COMMIT" >> "$OUT/runs.tsv"
}

# Replaces the corpus's <t> (and so Tests/fuzz/corpus.tar.xz) with a minimal set of what the fuzzer found that the seeds
# do not already cover: the seeds (recreated from ../shared/corpus by seed.py) go first into
# a scratch directory, libFuzzer's -merge=1 adds the committed corpus's and this run's
# inputs (up to MAX_LEN bytes) that bring new coverage, and those additions are kept.
merge_corpus() {
    local t=$1 target=$2 work=$3 base small
    base=$(mktemp -d) small=$(mktemp -d)
    find "$SEEDS/$t" -type f -exec cp -t "$base" {} + 2>/dev/null
    ls "$base" > "$base.seeds"
    find "$work" "$CORPUS/$t" -type f -size -$((MAX_LEN + 1))c -exec cp -t "$small" {} + 2>/dev/null
    local mlog="$OUT/logs/$t-merge.log"
    if nice -n 19 "$BIN/$target" -merge=1 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$OUT/artifacts/$t/merge-" "$base" "$small" \
            > "$mlog" 2>&1; then
        # The merge runs every input under ASan and steps over one that fails: such a
        # failure is a finding of its own, kept with the chunk's artifacts.
        if grep -qE "^==[0-9]+== ?ERROR|^SUMMARY: |Fatal error" "$mlog"; then
            cp "$mlog" "$OUT/artifacts/$t/merge-failure-$(date +%Y%m%d-%H%M%S).log"
        fi
        (cd "$base" && xargs -a "$base.seeds" rm -f)
        rm -rf "$CORPUS/$t" && mv "$base" "$CORPUS/$t" && chmod 755 "$CORPUS/$t" && Tests/fuzz/corpus.sh pack
    else
        rm -rf "$base"
    fi
    rm -rf "$small" "$base.seeds"
}

total_runs() { awk -v t="$1" '$1 == t { s += $2 } END { print s + 0 }' "$OUT/runs.tsv"; }
summary() {
    for t in walk edit json font sig; do
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
            font) target=FuzzFont; dict=font.dict ;;
            sig) target=FuzzSignatures; dict=pdf.dict ;;
            *) echo "unknown target $t" >&2; exit 2 ;;
        esac
        [ "$(total_runs "$t")" -lt "$RUNS" ] || continue
        if [ "$HOURS" != 0 ] && [ $(( $(date +%s) - start )) -ge $(( HOURS * 3600 )) ]; then
            summary; exit 0
        fi
        progressed=1
        build
        work="$OUT/work/$t"; art="$OUT/artifacts/$t"
        mkdir -p "$work" "$art" "$CORPUS/$t"
        log="$OUT/logs/$t-$(date +%Y%m%d-%H%M%S).log"
        t0=$(date +%s)
        # In-process, the chunk also ends when the target reaches RUNS executions in all.
        mode=(-print_final_stats=1 -runs=$(( RUNS - $(total_runs "$t") )))
        [ $FORK = 1 ] && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
        nice -n 19 "$FUZZ_BIN/$target" "${mode[@]}" \
            -dict="Tests/fuzz/$dict" -max_total_time="$CHUNK" -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=2048 \
            -artifact_prefix="$art/" "$work" "$CORPUS/$t" "$SEEDS/$t" > "$log" 2>&1 &
        child=$!
        # Stopped (kill -TERM the script's process group, or Ctrl-C): the chunk so far still
        # counts.
        trap 'kill $child 2>/dev/null; wait $child 2>/dev/null; record "$t" "$log" "$t0" "$art" stopped; summary; exit 0' TERM INT
        ended=done
        wait $child || ended=failed
        trap - TERM INT
        record "$t" "$log" "$t0" "$art" $ended
        merge_corpus "$t" "$target" "$work"
        summary
    done
    [ $progressed = 1 ] || break
done
summary
