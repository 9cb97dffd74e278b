#!/usr/bin/env bash
# Builds the libFuzzer targets (FuzzWalk, FuzzEdit, FuzzJSON) with libFuzzer and
# AddressSanitizer, and prints the directory that holds them.
#
# Release (-O) so that runs are fast: -O keeps every check that matters here (overflow
# traps, bounds checks, preconditions); -g for symbolized reports. The targets exist only
# when QUIRE_FUZZ is set (see Package.swift), and build in their own scratch directory so
# that the sanitizer flags never touch the ordinary .build/debug and .build/release.
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT=${SWIFT:-swift}
SCRATCH=.build/fuzz
FLAGS=(-c release --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address -Xswiftc -g)
for target in FuzzWalk FuzzEdit FuzzJSON; do
    QUIRE_FUZZ=1 nice -n 19 "$SWIFT" build "${FLAGS[@]}" --product "$target" >&2
done
QUIRE_FUZZ=1 "$SWIFT" build "${FLAGS[@]}" --show-bin-path
