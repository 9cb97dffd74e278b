#!/bin/sh
# abi_check.sh: the ABI of libquire.so is what the header and the baseline say it is.
#
#   Tests/c/abi_check.sh [--update] [ROOT]      (ROOT defaults to the repository root)
#   Tests/c/abi_check.sh --library quire-postgres [ROOT]
#
# Checks, on $ROOT/build/lib/libquire.so (with --library NAME, on libNAME.so: the
# PostgreSQL flavour, libquire-postgres, exports exactly libquire's name@version pairs,
# the same baseline, under its own soname libquire-postgres.so.<ABI>):
#   (Signatures are pinned by header_c99.c, whose typed table stops compiling when a
#   declaration changes; this script checks the names.)
#   1. its exported symbols (`nm -D --defined-only`) are the functions declared in
#      include/quire.h (scripts/quire_header.py), each with a symbol version (the node of
#      quire.map for the release that added it), and those name@version pairs are the
#      checked-in baseline Tests/c/abi-baseline.txt (one a line, sorted): a symbol removed,
#      added without updating the baseline, or moved to another version node fails;
#   2. it exports nothing but quire_* (no Swift runtime, no mangled Swift names);
#   3. its soname is libquire.so.<MAJOR> (libquire.so.0.<MINOR> while the major version is
#      0: docs/abi.md), and build/lib/libquire.so.<that> is the file the symlink points at;
#   4. `ldd` lists no libswift*, libFoundation*, libdispatch or libBlocksRuntime: the
#      Swift runtime is linked in statically, so C and Python users need no toolchain.
#
# --update rewrites the baseline from the exported symbols (only when they equal the
# header's declarations). Adding a function is a minor version bump; removing or changing
# one (its name, parameters or return type) breaks callers and is a MAJOR version bump,
# which also changes the soname.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
update=0
name=quire
if [ "${1:-}" = "--update" ]; then
    update=1
    shift
fi
if [ "${1:-}" = "--library" ]; then
    name=${2:?--library needs a name: quire-postgres}
    shift 2
fi
root=${1:-$(cd "$here/../.." && pwd)}
lib=$root/build/lib/lib$name.so
header=$root/include/quire.h
baseline=$here/abi-baseline.txt
python=${PYTHON:-python3}

if [ ! -e "$lib" ]; then
    echo "abi_check: $lib does not exist: run make at the repository root first" >&2
    exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0

# Defined dynamic symbols as name@version (`A` symbols are the version nodes themselves);
# a symbol without a version is written name@NONE, which no baseline line has.
nm -D --defined-only --with-symbol-versions "$lib" 2>/dev/null |
    awk '$2 != "A" { v = $3; sub(/@@/, "@", v); if (v !~ /@/) v = v "@NONE"; print v }' |
    LC_ALL=C sort -u > "$tmp/versioned"
sed 's/@.*//' "$tmp/versioned" | LC_ALL=C sort -u > "$tmp/exported"
"$python" "$here/../../scripts/quire_header.py" --names "$header" | LC_ALL=C sort -u > "$tmp/declared"
grep -v '^[[:space:]]*$' "$baseline" > "$tmp/baseline.raw" || true
LC_ALL=C sort -u "$tmp/baseline.raw" > "$tmp/baseline"

show_diff() { # $1 $2: files; $3 $4: their names
    comm -23 "$1" "$2" | sed "s/^/    only in $3: /"
    comm -13 "$1" "$2" | sed "s/^/    only in $4: /"
}

if ! cmp -s "$tmp/exported" "$tmp/declared"; then
    echo "abi_check: FAIL: the exported symbols differ from the functions in include/quire.h:"
    show_diff "$tmp/exported" "$tmp/declared" "the library" "the header"
    failed=1
fi

others=$(grep -v '^quire_' "$tmp/exported" || true)
if [ -n "$others" ]; then
    echo "abi_check: FAIL: the library exports symbols that are not quire_* (check quire.map):"
    echo "$others" | head -20 | sed 's/^/    /'
    failed=1
fi

if [ "$update" = 1 ]; then
    if [ "$failed" = 1 ]; then
        echo "abi_check: not updating the baseline while the library and the header disagree"
        exit 1
    fi
    removed=$(comm -23 "$tmp/baseline" "$tmp/versioned")
    cp "$tmp/versioned" "$baseline"
    echo "abi_check: wrote $(wc -l < "$baseline") symbols to $baseline"
    if [ -n "$removed" ]; then
        echo "abi_check: symbols REMOVED from the ABI (this needs a major version bump):"
        echo "$removed" | sed 's/^/    /'
    fi
    exit 0
fi

if [ "$(sed -n '$=' "$tmp/baseline.raw")" != "$(sed -n '$=' "$tmp/baseline")" ] ||
   ! LC_ALL=C sort -c "$tmp/baseline.raw" 2>/dev/null; then
    echo "abi_check: FAIL: $baseline is not sorted or has duplicates (LC_ALL=C sort -u)"
    failed=1
fi
unversioned=$(grep '@NONE$' "$tmp/versioned" | sed 's/@NONE$//' || true)
if [ -n "$unversioned" ]; then
    echo "abi_check: FAIL: exported without a symbol version (list them in a node of quire.map):"
    echo "$unversioned" | head -20 | sed 's/^/    /'
    failed=1
fi
if ! cmp -s "$tmp/versioned" "$tmp/baseline"; then
    echo "abi_check: FAIL: the exported name@version pairs differ from the baseline Tests/c/abi-baseline.txt:"
    show_diff "$tmp/versioned" "$tmp/baseline" "the library" "the baseline"
    echo "  A new function: list it in a new version node of quire.map, update the baseline"
    echo "  with 'make -C Tests/c abi-baseline' (or 'Tests/c/abi_check.sh --update') and bump"
    echo "  QUIRE_VERSION_MINOR. A removed, changed or re-versioned function breaks callers:"
    echo "  that is a MAJOR version bump (docs/abi.md)."
    failed=1
fi

major=$(sed -n 's/^#define QUIRE_VERSION_MAJOR \([0-9][0-9]*\).*/\1/p' "$header")
minor=$(sed -n 's/^#define QUIRE_VERSION_MINOR \([0-9][0-9]*\).*/\1/p' "$header")
abi=$major
if [ "$major" = 0 ]; then abi=0.$minor; fi
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "lib$name.so.$abi" ]; then
    echo "abi_check: FAIL: the soname is '$soname', not lib$name.so.$abi"
    failed=1
fi
if [ "$(readlink -f "$lib")" != "$(readlink -f "$root/build/lib/lib$name.so.$abi")" ]; then
    echo "abi_check: FAIL: build/lib/lib$name.so is not build/lib/lib$name.so.$abi"
    failed=1
fi

runtime=$(ldd "$lib" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' || true)
if [ -n "$runtime" ]; then
    echo "abi_check: FAIL: the library needs the Swift runtime at run time (link it statically):"
    echo "$runtime" | sed 's/^/    /'
    failed=1
fi
if ldd "$lib" | grep -q 'not found'; then
    echo "abi_check: FAIL: ldd cannot find some dependencies:"
    ldd "$lib" | grep 'not found' | sed 's/^/    /'
    failed=1
fi

if [ "$failed" = 1 ]; then
    exit 1
fi
echo "abi_check: ok: lib$name.so: $(wc -l < "$tmp/exported") quire_* symbols exported, declared and in" \
    "the baseline; soname $soname; no Swift runtime libraries in ldd"
