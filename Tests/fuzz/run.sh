#!/usr/bin/env bash
# The CI smoke run (`make fuzz`): builds the fuzz targets, seeds them, and runs each for
# FUZZ_SECONDS (default 40, so under three minutes in all), one after the other. Exits
# non-zero on the first crash, timeout or out-of-memory, leaving the input that caused it
# in .build/fuzz-artifacts/<target>/ (replay it with `<bin>/<Target> FILE`).
#
# Each target reads the committed corpus (Tests/fuzz/corpus.tar.xz, unpacked by corpus.sh
# into .build/fuzz-corpus/<target>/, read-only here) and the seeds, and writes what it finds
# to .build/fuzz-work/<target>/, which the long runs (run-long.sh) merge into the corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
# A Swift trap is reported by libFuzzer's handler (stack, input saved); the Swift runtime's
# own backtracer would first spend a long time symbolizing every crash.
export SWIFT_BACKTRACE=enable=no
SECONDS_EACH=${FUZZ_SECONDS:-40}
BIN=$(Tests/fuzz/build.sh)
SEEDS=.build/fuzz-seeds
[ -d "$SEEDS/sig" ] || python3 Tests/fuzz/seed.py "$SEEDS"
CORPUS=$(Tests/fuzz/corpus.sh unpack)
status=0
for t in walk edit json font sig; do
    case $t in
        walk) target=FuzzWalk; dict=pdf.dict ;;
        edit) target=FuzzEdit; dict=pdf.dict ;;
        json) target=FuzzJSON; dict=json.dict ;;
        font) target=FuzzFont; dict=font.dict ;;
        sig) target=FuzzSignatures; dict=pdf.dict ;;
    esac
    mkdir -p ".build/fuzz-work/$t" ".build/fuzz-artifacts/$t" "$CORPUS/$t"
    echo "== fuzz $target for ${SECONDS_EACH}s"
    # -rss_limit_mb: the limits the targets open documents with keep a run far below it.
    if ! nice -n 19 "$BIN/$target" -dict="Tests/fuzz/$dict" -max_total_time="$SECONDS_EACH" -max_len=4096 \
            -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix=".build/fuzz-artifacts/$t/" \
            ".build/fuzz-work/$t" "$CORPUS/$t" "$SEEDS/$t" \
            > ".build/fuzz-artifacts/$t.log" 2>&1; then
        echo "fuzz: $target FAILED; the report:"
        grep -A40 -E "^==[0-9]+==ERROR|Fatal error|^SUMMARY|ALARM|out-of-memory" ".build/fuzz-artifacts/$t.log" | head -80
        ls -1 ".build/fuzz-artifacts/$t/"
        status=1
        continue
    fi
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" ".build/fuzz-artifacts/$t.log" | tr '\n' ' '
    echo
done
exit $status
