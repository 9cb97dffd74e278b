#!/usr/bin/env bash
# Builds the libFuzzer targets (FuzzWalk, FuzzEdit, FuzzJSON, FuzzFont, FuzzSignatures) with libFuzzer and
# AddressSanitizer, and prints the directory that holds them.
#
# Release (-O) so that runs are fast: -O keeps every check that matters here (overflow
# traps, bounds checks, preconditions); -g for symbolized reports. The targets exist only
# when QUIRE_FUZZ is set (see Package.swift), and build in their own scratch directory so
# that the sanitizer flags never touch the ordinary .build/debug and .build/release.
set -euo pipefail
cd "$(dirname "$0")/../.."
#
# FUZZ_SANITIZE=fuzzer builds them without AddressSanitizer, into .build/fuzz-plain: about
# twice the executions per second, for long runs (run-long.sh --plain). Swift's own checks
# (the traps that would take a host down) are all still there; what only ASan sees is a
# bad access in C code (zlib, BoringSSL) or in unsafe pointer code, so the corpus those
# runs find is replayed under ASan too (run-long.sh merges it with the ASan build).
SWIFT=${SWIFT:-swift}
SANITIZE=${FUZZ_SANITIZE:-fuzzer,address}
case $SANITIZE in
    fuzzer,address) SCRATCH=.build/fuzz ;;
    fuzzer) SCRATCH=.build/fuzz-plain ;;
    *) echo "FUZZ_SANITIZE must be fuzzer,address or fuzzer" >&2; exit 2 ;;
esac
FLAGS=(-c release --scratch-path "$SCRATCH" -Xswiftc "-sanitize=$SANITIZE" -Xswiftc -g)
# QUIRE_NO_SERVER: quire-server and its dependencies stay out of these builds (Package.swift).
export QUIRE_NO_SERVER=1
for target in FuzzWalk FuzzEdit FuzzJSON FuzzFont FuzzSignatures; do
    QUIRE_FUZZ=1 nice -n 19 "$SWIFT" build "${FLAGS[@]}" --product "$target" >&2
done
QUIRE_FUZZ=1 "$SWIFT" build "${FLAGS[@]}" --show-bin-path
