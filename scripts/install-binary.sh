#!/bin/sh
# install-binary.sh: installs a program or shared library without its debug information,
# and the debug information beside it in a file of its own that debuggers find by the
# binary's build ID, as Debian's -dbg packages ship it (`make install`, issue 40):
#
#   scripts/install-binary.sh MODE SOURCE TARGET DEBUG_ROOT
#
#   TARGET                            SOURCE without its debug information and its symbol
#                                     table (--strip-unneeded, as Debian's dh_strip does for
#                                     libraries: the dynamic symbols stay), but for the names
#                                     of the statically linked Swift runtime (swift_*,
#                                     swift::*: 0.3 MB), which the shipped valgrind
#                                     suppressions match; mode MODE
#   DEBUG_ROOT/.build-id/xx/yyyy.debug  the DWARF sections alone (objcopy --only-keep-debug),
#                                     xx the first two hex digits of the build ID, yyyy the
#                                     rest; TARGET has a .gnu_debuglink naming it
#
# DEBUG_ROOT is PREFIX/lib/debug: gdb finds the file there by build ID when its
# debug-file-directory is that directory (the default for PREFIX=/usr; for another
# prefix: gdb -iex 'set debug-file-directory PREFIX/lib/debug'), valgrind with
# --extra-debuginfo-path=PREFIX/lib/debug, and debuginfod-style tools by the ID.
# The debug information is DWARF 4 (the Makefile's DEBUG_INFO_FLAGS): valgrind 3.19
# reads it.
#
# INSTALL_STRIP=0 installs SOURCE as it is (debug information inside), and no debug file.
# A SOURCE without a build ID is installed stripped, with no debug file (a warning).
#
# Sizes (Swift 6.3.1, x86-64, 27 Nov 2026): libquire.so 123 MB as built, 36.8 MB installed
# and 86 MB of debug file; quire-server 181 MB -> see the README's "Sizes".
set -euf  # -f: the --keep-symbol patterns are not file globs

if [ $# -ne 4 ]; then
    echo "usage: install-binary.sh MODE SOURCE TARGET DEBUG_ROOT" >&2
    exit 2
fi
mode=$1 source=$2 target=$3 debug_root=$4
OBJCOPY=${OBJCOPY:-objcopy}

# The Swift runtime's names, kept for the valgrind suppressions (Tests/c/valgrind.supp) and
# for backtraces into the runtime: C++ names of namespace swift and of the runtime's local
# functions, and its C entry points.
STRIP_FLAGS="--strip-unneeded --remove-section=.comment --wildcard"
for pattern in '_ZN5swift*' '_ZNK5swift*' '_ZL*swift*' '_ZZL*' '_ZNK12_GLOBAL__N_1*' 'swift_*' '_swift_*' '__swift_*'; do
    STRIP_FLAGS="$STRIP_FLAGS --keep-symbol=$pattern"
done

tmp="$target.tmp.$$"
work=$(mktemp -d)
trap 'rm -f "$tmp"; rm -rf "$work"' EXIT

if [ "${INSTALL_STRIP:-1}" = 0 ]; then
    install -m "$mode" "$source" "$tmp"
    mv -f "$tmp" "$target"
    exit 0
fi

id=$(readelf -n "$source" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\).*/\1/p' | head -1)
if [ -z "$id" ] || [ "${#id}" -lt 3 ]; then
    echo "install-binary: $source has no build ID: installed without its debug information, which is not kept" >&2
    "$OBJCOPY" $STRIP_FLAGS "$source" "$tmp"
    chmod "$mode" "$tmp"
    mv -f "$tmp" "$target"
    exit 0
fi

dir=$(printf '%s' "$id" | cut -c1-2)
rest=$(printf '%s' "$id" | cut -c3-)
# Made under its final name: .gnu_debuglink records the file's name (and CRC), for tools
# that follow it rather than the build ID.
"$OBJCOPY" --only-keep-debug "$source" "$work/$rest.debug"
chmod 644 "$work/$rest.debug"
"$OBJCOPY" $STRIP_FLAGS --add-gnu-debuglink="$work/$rest.debug" "$source" "$tmp"
chmod "$mode" "$tmp"
mkdir -p "$debug_root/.build-id/$dir"
# Replaced by rename, never rewritten in place: a process that has the old file mapped
# keeps it intact (the Makefile's rule for build/).
mv -f "$work/$rest.debug" "$debug_root/.build-id/$dir/$rest.debug.tmp.$$"
mv -f "$debug_root/.build-id/$dir/$rest.debug.tmp.$$" "$debug_root/.build-id/$dir/$rest.debug"
mv -f "$tmp" "$target"
