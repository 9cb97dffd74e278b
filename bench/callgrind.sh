#!/bin/sh
# Instruction counts of Quire on one benchmark workload, with callgrind: repeatable on a
# busy machine, where wall times are not. The C driver bench/profile.c runs the workload
# through the C interface (no Python); valgrind 3.19 cannot read libquire.so's DWARF 5, so
# it loads a copy without debug information (the symbol table stays: functions are named).
#
#   bench/callgrind.sh OUT.callgrind read build/bench/large.pdf
#   LIB=path/to/libquire.so.0.5 bench/callgrind.sh ...  (another build, e.g. a baseline)
# then: callgrind_annotate OUT.callgrind | head -40
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$1; shift
LIB=${LIB:-$ROOT/build/lib/libquire.so}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
# The copy goes by the library's soname (libquire.so.0.5 while the major version is 0),
# which is the name the driver asks the loader for.
SONAME=$(readelf -d "$LIB" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
objcopy --strip-debug "$LIB" "$DIR/$SONAME"
mkdir -p "$ROOT/build/bench"
cc -O2 -std=c99 -o "$DIR/profile" "$ROOT/bench/profile.c" -I"$ROOT/include" "$DIR/$SONAME"
LD_LIBRARY_PATH=$DIR valgrind --tool=callgrind --callgrind-out-file="$OUT" "$DIR/profile" "$@" 2>&1 \
    | grep -E "Collected|refs" || true
