#!/usr/bin/env bash
# The packaging tests (`make test-packaging`, part of `make test`; issue 20). Each part runs
# on its own, is timed, and leaves its log in build/test-packaging/PART.log:
#
#   header-docs  every function of include/quire.h and its topic headers has a doc comment
#                (and the check catches one that does not: --self-test)
#   cli-help     `quire --help`, `quire help COMMAND` and `quire COMMAND --help` are
#                complete and agree; usage errors exit 2
#   install      `make install DESTDIR=... PREFIX=/usr/local` stages every file: library,
#                soname link, the header (quire.h and quire/*.h), quire.pc, the CMake
#                package, the man page, the valgrind suppressions; the binaries without
#                debug information, which is in lib/debug/.build-id/xx/yyyy.debug by build
#                ID, as DWARF 4 (issue 40)
#   man-page     the installed quire.1 is what `quire --help` says now, and groff reads it
#                without a warning
#   cmake        examples/c/pdfinfo.c builds with CMake against the staged prefix
#                (find_package(Quire MAJOR.MINOR), Quire::quire) and runs; a later minor
#                version, the next major, and (while the major is 0, when minor releases
#                may break the ABI) an earlier minor are refused
#   pkg-config   the same example built with pkg-config against `make install PREFIX=...`
#   valgrind     that program under valgrind as a user runs it (--leak-check=full
#                --error-exitcode, the installed share/quire/valgrind.supp): with the installed
#                library, and with the built one, whose DWARF 4 valgrind 3.19 reads (it gave
#                up on DWARF 5); no error, no definite or possible leak (issue 40)
#   wheel        `make wheel` gives one quire-VERSION-py3-none-manylinux_*_ARCH.whl whose tag
#                auditwheel confirms, with the library inside
#   venv         the wheel installs into a fresh virtual environment (no index, no
#                repository on the path) and `import quire; quire.version()` works there
#   docs         `make docs` builds the C and Python references with no warning, and
#                every header function is in the C reference
#   uninstall    `make uninstall PREFIX=...` leaves no file behind
#
# The last line is "test-packaging: N passed, N failed"; the exit status is 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"

MAKE="${MAKE:-make}"
PYTHON="${PYTHON:-python3}"
VERSION="${VERSION:-$(sed -n 's/^#define QUIRE_VERSION_STRING "\(.*\)"/\1/p' include/quire.h)}"
MAJOR="${VERSION%%.*}"
MINOR="$(cut -d. -f2 <<<"$VERSION")"
# The soname (libquire.so.MAJOR, or libquire.so.0.MINOR while the major is 0), as the
# library says it.
SONAME="$(readelf -d build/lib/libquire.so | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')"
ARCH="$(uname -m)"
OUT="$ROOT/build/test-packaging"
QUIRE="$ROOT/build/bin/quire"
SAMPLE="$ROOT/examples/sample.pdf"

rm -rf "$OUT"
mkdir -p "$OUT"
passed=0
failed=0
failed_parts=()

# part NAME FUNCTION: runs FUNCTION with errexit in a subshell, its output in NAME.log.
part() {
    local name=$1 fn=$2 start end status
    start=$(date +%s.%N)
    ( set -e; "$fn" ) > "$OUT/$name.log" 2>&1
    status=$?
    end=$(date +%s.%N)
    local secs
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        printf 'ok    %-12s %5ss  %s\n' "$name" "$secs" "$(tail -1 "$OUT/$name.log")"
    else
        failed=$((failed + 1))
        failed_parts+=("$name")
        printf 'FAIL  %-12s %5ss  (build/test-packaging/%s.log)\n' "$name" "$secs" "$name"
        tail -25 "$OUT/$name.log" | sed 's/^/      /'
    fi
}

fail() { echo "FAILED: $*" >&2; return 1; }

# ---- the parts ------------------------------------------------------------------------------

header_docs() {
    "$PYTHON" Tests/packaging/check_header_docs.py include/quire.h
    "$PYTHON" Tests/packaging/check_header_docs.py --self-test include/quire.h
}

cli_help() {
    local main commands cmd text
    main="$("$QUIRE" --help)"
    grep -q "^usage: quire " <<<"$main" || fail "quire --help has no usage line"
    for section in Commands: Options: "Exit status:" Examples:; do
        grep -qx "$section" <<<"$main" || fail "quire --help has no '$section' section"
    done
    # The commands of the Commands section, each with a complete help of its own.
    commands="$(sed -n '/^Commands:$/,/^$/p' <<<"$main" | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')"
    [ -n "$commands" ] || fail "no commands listed"
    for cmd in $commands; do
        grep -q "quire $cmd" <<<"$main" || fail "the usage does not show quire $cmd"
        text="$("$QUIRE" help "$cmd")" || fail "quire help $cmd exited $?"
        [ "$text" = "$("$QUIRE" "$cmd" --help)" ] || [ "$cmd" = help ] || fail "quire $cmd --help differs from quire help $cmd"
        grep -q "^usage: quire $cmd" <<<"$text" || fail "quire help $cmd has no usage line"
        if [ "$cmd" != help ]; then
            grep -qx "Options:" <<<"$text" || fail "quire help $cmd has no Options section"
            grep -q "^Exit status" <<<"$text" || fail "quire help $cmd has no Exit status section"
            grep -q -- "--help" <<<"$text" || fail "quire help $cmd does not mention --help"
            # Every option the usage line shows is explained.
            for opt in $(head -1 <<<"$text" | grep -o -- '--[a-z]*'); do
                grep -q "^  $opt" <<<"$text" || fail "quire help $cmd does not explain $opt"
            done
        fi
    done
    # Usage errors: exit 2, a message and the usage on stderr, nothing on stdout.
    local status=0 err
    err="$("$QUIRE" info 2>&1 >/dev/null)" || status=$?
    [ "$status" = 2 ] || fail "quire info without FILE exited $status, not 2"
    grep -q "^usage: quire info" <<<"$err" || fail "quire info without FILE does not print its usage"
    status=0; "$QUIRE" no-such-command >/dev/null 2>&1 || status=$?
    [ "$status" = 2 ] || fail "an unknown command exited $status, not 2"
    [ "$("$QUIRE" --version)" = "quire $VERSION" ] || fail "quire --version is not 'quire $VERSION'"
    echo "quire --help lists $(wc -w <<<"$commands") commands, each with its own help"
}

STAGE="$OUT/stage"
install_staged() {
    "$MAKE" -s --no-print-directory install DESTDIR="$STAGE" PREFIX=/usr/local
    local p="$STAGE/usr/local" f
    [ -n "$SONAME" ] || fail "build/lib/libquire.so has no soname"
    # The header: the umbrella and each topic header, as they are in the tree.
    for f in include/quire.h include/quire/*.h; do
        cmp -s "$f" "$p/$f" || fail "make install did not install $f as it is"
    done
    [ "$(ls "$p/include/quire" | wc -l)" = "$(ls include/quire | wc -l)" ] || fail "make install put other files into include/quire"
    for f in "lib/$SONAME" lib/libquire.so include/quire.h bin/quire lib/pkgconfig/quire.pc \
             lib/cmake/Quire/QuireConfig.cmake lib/cmake/Quire/QuireConfigVersion.cmake \
             share/man/man1/quire.1 share/quire/valgrind.supp; do
        [ -e "$p/$f" ] || fail "make install did not install $f"
    done
    # Stripped, with the debug information beside them by build ID (and DWARF 4 in it).
    local binary id debug versions
    for binary in "lib/$SONAME" bin/quire bin/quire-server; do
        ! readelf -SW "$p/$binary" | grep -q ' \.debug_info ' || fail "$binary is installed with its debug information"
        readelf -SW "$p/$binary" | grep -q ' \.gnu_debuglink ' || fail "$binary has no .gnu_debuglink"
        id="$(readelf -n "$p/$binary" | sed -n 's/^ *Build ID: *\([0-9a-f]*\).*/\1/p' | head -1)"
        [ -n "$id" ] || fail "$binary has no build ID"
        debug="$p/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
        [ -s "$debug" ] || fail "no debug file $debug for $binary"
        echo "$binary: $(du -k "$p/$binary" | cut -f1) KB, its debug information $(du -k "$debug" | cut -f1) KB"
    done
    id="$(readelf -n "$p/lib/$SONAME" | sed -n 's/^ *Build ID: *\([0-9a-f]*\).*/\1/p' | head -1)"
    versions="$(readelf --debug-dump=info "$p/lib/debug/.build-id/${id:0:2}/${id:2}.debug" 2>/dev/null \
                | sed -n 's/^ *Version: *\([0-9]*\)$/\1/p' | sort -u | tr '\n' ' ')"
    [ "$versions" = "4 " ] || fail "the library's debug information is DWARF version(s) $versions, not 4 alone (valgrind 3.19 reads up to 4)"
    # The symbol table is gone but for the Swift runtime's names, which the suppressions match.
    # (Through a file: grep -q would stop reading, and pipefail would count nm's SIGPIPE.)
    nm "$p/lib/$SONAME" > "$OUT/installed-symbols.txt" 2>/dev/null || true
    grep -q 'ConcurrentReadableHashMap.*resize' "$OUT/installed-symbols.txt" \
        || fail "the installed library lost the Swift runtime's names that valgrind.supp matches"
    [ "$(readlink "$p/lib/libquire.so")" = "$SONAME" ] || fail "lib/libquire.so is not a link to $SONAME"
    grep -qx "prefix=/usr/local" "$p/lib/pkgconfig/quire.pc" || fail "quire.pc does not say prefix=/usr/local"
    grep -q "set(PACKAGE_VERSION \"$VERSION\")" "$p/lib/cmake/Quire/QuireConfigVersion.cmake" \
        || fail "QuireConfigVersion.cmake is not version $VERSION"
    echo "make install DESTDIR=... stages $(find "$STAGE" -type f -o -type l | wc -l) files"
}

man_page() {
    local man="$STAGE/usr/local/share/man/man1/quire.1"
    [ -f "$man" ] || fail "no staged man page (install failed?)"
    "$PYTHON" scripts/help2man.py "$QUIRE" > "$OUT/quire.1"
    cmp -s "$OUT/quire.1" "$man" || fail "the installed quire.1 is not what quire --help says now"
    local warnings
    warnings="$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$man" 2>&1)"
    [ -z "$warnings" ] || { echo "$warnings"; fail "groff warns about quire.1"; }
    LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$man" 2>/dev/null | col -b > "$OUT/quire.1.txt" \
        || LC_ALL=C.UTF-8 groff -man -Tutf8 "$man" | col -b > "$OUT/quire.1.txt"
    for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" EXAMPLES; do
        grep -q "^$s" "$OUT/quire.1.txt" || fail "quire.1 has no $s section"
    done
    for cmd in info check annots thread export import doctor; do
        grep -q "^   quire $cmd" "$OUT/quire.1.txt" || fail "quire.1 has no subsection for quire $cmd"
    done
    grep -q -- "--password PW" "$OUT/quire.1.txt" || fail "quire.1 does not explain --password"
    echo "quire.1 matches quire --help, has every section and command, and groff reads it cleanly"
}

cmake_build() {
    local prefix="$STAGE/usr/local" dir="$OUT/cmake"
    cmake -S Tests/packaging/cmake -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" -DQUIRE_FIND_VERSION="$MAJOR.$MINOR" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
        | tee "$OUT/cmake-configure.log"
    grep -q "Quire $VERSION from $prefix/lib/cmake/Quire" "$OUT/cmake-configure.log" \
        || fail "CMake did not find Quire $VERSION in the staged prefix"
    cmake --build "$dir"
    "$dir/pdfinfo" "$SAMPLE" > "$OUT/cmake-pdfinfo.out"
    grep -q '^Pages: *2$' "$OUT/cmake-pdfinfo.out" || fail "pdfinfo built with CMake did not print 'Pages: 2'"
    ldd "$dir/pdfinfo" > "$OUT/cmake-ldd.txt"
    grep -q "$SONAME => $prefix/lib/" "$OUT/cmake-ldd.txt" \
        || { ldd "$dir/pdfinfo"; fail "pdfinfo built with CMake does not load the staged library"; }
    # Versions that must be refused: a later minor, the next major, and while the major is
    # 0 an earlier minor.
    local v refused=("$MAJOR.$((MINOR + 1))" "$((MAJOR + 1)).0")
    [ "$MAJOR" != 0 ] || [ "$MINOR" = 0 ] || refused+=("0.$((MINOR - 1))")
    for v in "${refused[@]}"; do
        if cmake -S Tests/packaging/cmake -B "$OUT/cmake-$v" -DCMAKE_PREFIX_PATH="$prefix" \
            -DQUIRE_FIND_VERSION="$v" > "$OUT/cmake-$v.log" 2>&1; then
            fail "find_package(Quire $v) accepted version $VERSION"
        fi
        grep -q "version: $VERSION" "$OUT/cmake-$v.log" \
            || { cat "$OUT/cmake-$v.log"; fail "find_package(Quire $v) failed, but not on the version"; }
    done
    echo "CMake: find_package(Quire $MAJOR.$MINOR) and Quire::quire build pdfinfo, which runs; ${refused[*]} refused"
}

pkg_config_build() {
    local prefix="$OUT/prefix"
    "$MAKE" -s --no-print-directory install PREFIX="$prefix"
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    [ "$(pkg-config --modversion quire)" = "$VERSION" ] || fail "pkg-config --modversion quire is not $VERSION"
    # shellcheck disable=SC2046
    cc -std=c99 -Wall -Wextra -Werror -pedantic examples/c/pdfinfo.c -o "$OUT/pdfinfo-pkgconfig" \
        $(pkg-config --cflags --libs quire) -Wl,-rpath,"$(pkg-config --variable=libdir quire)"
    "$OUT/pdfinfo-pkgconfig" "$SAMPLE" > "$OUT/pkgconfig-pdfinfo.out"
    grep -q '^Pages: *2$' "$OUT/pkgconfig-pdfinfo.out" || fail "pdfinfo built with pkg-config did not print 'Pages: 2'"
    ldd "$OUT/pdfinfo-pkgconfig" > "$OUT/pkgconfig-ldd.txt"
    grep -q "$SONAME => $prefix/lib/" "$OUT/pkgconfig-ldd.txt" \
        || { ldd "$OUT/pdfinfo-pkgconfig"; fail "pdfinfo built with pkg-config does not load the installed library"; }
    echo "pkg-config: pdfinfo builds against make install PREFIX=... and runs"
}

valgrind_installed() {
    local prefix="$OUT/prefix" program="$OUT/pdfinfo-pkgconfig" supp log status lib
    [ -x "$program" ] || fail "no $program (the pkg-config part failed?)"
    supp="$prefix/share/quire/valgrind.supp"
    [ -f "$supp" ] || fail "make install did not install share/quire/valgrind.supp"
    # As a user runs it: every leak kind valgrind counts by default (definite and possible).
    for lib in installed built; do
        log="$OUT/valgrind-$lib.log"
        status=0
        if [ "$lib" = installed ]; then
            valgrind --leak-check=full --error-exitcode=99 --suppressions="$supp" "$program" "$SAMPLE" \
                > "$OUT/valgrind-$lib.out" 2> "$log" || status=$?
        else
            # The library as built, debug information and all (LD_LIBRARY_PATH wins over the
            # program's RUNPATH).
            LD_LIBRARY_PATH="$ROOT/build/lib" valgrind --leak-check=full --error-exitcode=99 --suppressions="$supp" \
                "$program" "$SAMPLE" > "$OUT/valgrind-$lib.out" 2> "$log" || status=$?
        fi
        ! grep -q "Giving up\|unhandled dwarf2" "$log" || { cat "$log"; fail "valgrind could not read the $lib library's debug information"; }
        [ "$status" = 0 ] || { tail -40 "$log"; fail "valgrind exited $status on pdfinfo with the $lib library"; }
        grep -q '^Pages: *2$' "$OUT/valgrind-$lib.out" || fail "pdfinfo under valgrind did not print 'Pages: 2'"
        grep -q "ERROR SUMMARY: 0 errors" "$log" || { tail -20 "$log"; fail "valgrind reported errors with the $lib library"; }
    done
    echo "valgrind --leak-check=full --error-exitcode with share/quire/valgrind.supp: pdfinfo is clean with the installed and the built library"
}

WHEEL=""
wheel() {
    "$MAKE" -s --no-print-directory wheel
    local wheels
    wheels=(build/dist/quire-*.whl)
    [ "${#wheels[@]}" = 1 ] && [ -f "${wheels[0]}" ] || fail "build/dist holds ${#wheels[@]} wheels, not 1: ${wheels[*]}"
    local name tag
    name="$(basename "${wheels[0]}")"
    [[ "$name" =~ ^quire-${VERSION//./\\.}-py3-none-(manylinux_[0-9]+_[0-9]+_${ARCH})\.whl$ ]] \
        || fail "$name is not quire-$VERSION-py3-none-manylinux_X_Y_$ARCH.whl"
    tag="${BASH_REMATCH[1]}"
    "$PYTHON" -m auditwheel show "${wheels[0]}" > "$OUT/auditwheel-show.txt" 2>&1
    tr -s ' \n' ' ' < "$OUT/auditwheel-show.txt" | grep -q "consistent with the following platform tag: \"$tag\"" \
        || { cat "$OUT/auditwheel-show.txt"; fail "auditwheel does not confirm the tag $tag"; }
    "$PYTHON" - "${wheels[0]}" "$VERSION" <<'EOF'
import sys, zipfile
wheel, version = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    meta = z.read("quire-%s.dist-info/METADATA" % version).decode()
    info = z.read("quire-%s.dist-info/WHEEL" % version).decode()
assert "quire/libquire.so" in names, "no quire/libquire.so in the wheel"
assert "quire/__init__.py" in names, "no quire/__init__.py in the wheel"
assert "Version: %s\n" % version in meta, "METADATA is not version %s" % version
assert "Root-Is-Purelib: false" in info, "the wheel says it is pure"
# The libraries auditwheel may graft in: the system SQLite that the sync service's store
# links, and HarfBuzz (with hb-subset) and FriBidi, which draw text of any script in
# generated appearances, with what HarfBuzz links (FreeType, GLib, Graphite, libpng,
# Brotli, PCRE2), fontconfig, which finds rich text's font families among the system's
# fonts, and libjpeg (libjpeg-turbo), which re-encodes a redacted JPEG image:
# libquire.so's dependencies beyond libc, libm, libz, libstdc++, libgcc and Expat.
allowed = ("libsqlite3", "libharfbuzz", "libfribidi", "libfontconfig", "libfreetype", "libglib-2", "libgraphite2",
           "libpng16", "libbrotlicommon", "libbrotlidec", "libpcre2-8", "libjpeg")
grafted = [n for n in names if n.startswith("quire.libs/") and n != "quire.libs/"]
assert all(n.split("/")[-1].startswith(allowed) for n in grafted), "auditwheel grafted other libraries in: %s" % grafted
EOF
    echo "$name ($(du -k "${wheels[0]}" | cut -f1) KB), auditwheel: $tag"
}

venv() {
    local wheels venv="$OUT/venv" got
    wheels=(build/dist/quire-"$VERSION"-*.whl)
    [ -f "${wheels[0]}" ] || fail "no wheel in build/dist (the wheel part failed?)"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --no-index --disable-pip-version-check "${wheels[0]}"
    # From outside the repository, isolated (-I: no PYTHONPATH, no user site, no current
    # directory), with no QUIRE_LIBRARY: the package and its library come from the venv.
    got="$(cd "$OUT" && env -u PYTHONPATH -u QUIRE_LIBRARY "$venv/bin/python" -I -c "import quire; print(quire.version())")"
    [ "$got" = "$VERSION" ] || fail "quire.version() in the venv printed '$got', not $VERSION"
    (cd "$OUT" && env -u PYTHONPATH -u QUIRE_LIBRARY "$venv/bin/python" -I - "$venv" "$SAMPLE" <<'EOF'
import os, sys
import quire
venv, sample = (os.path.realpath(p) for p in sys.argv[1:])
for what, path in (("the package", quire.__file__), ("the library", quire.library_path())):
    assert os.path.realpath(path).startswith(venv + os.sep), "%s is not from the venv: %s" % (what, path)
with quire.Document(sample) as doc:
    assert doc.page_count == 2, doc.page_count
EOF
    ) || fail "the installed package does not load its own library, or does not read the sample"
    echo "pip install of the wheel into a fresh venv: import quire; quire.version() = $got"
}

docs() {
    "$MAKE" -s --no-print-directory docs
    local f
    for f in index.html c/index.html c/quire_8h.html python/quire.html; do
        [ -s "build/docs/$f" ] || fail "make docs did not write build/docs/$f"
    done
    [ ! -s build/docs/doxygen-warnings.log ] || { cat build/docs/doxygen-warnings.log; fail "doxygen warned"; }
    # Every function of the header is in the C reference, on the page of the header file
    # that declares it (quire/save.h: c/save_8h.html), and the README is its main page.
    local missing
    missing="$("$PYTHON" -c '
import os, sys
sys.path.insert(0, "scripts")
import quire_header
for f in quire_header.read("include/quire.h").functions:
    page = "build/docs/c/%s_8h.html" % os.path.basename(f.file)[:-2].replace("_", "__")
    if not os.path.exists(page) or ">%s</a>" % f.name not in open(page, encoding="utf-8").read():
        print("not in the C reference (%s): %s" % (page, f.name))
')"
    [ -z "$missing" ] || { echo "$missing"; fail "$(wc -l <<<"$missing") header functions are not in the C reference"; }
    grep -q "Two commands" build/docs/c/index.html || fail "the C reference's main page is not the README"
    grep -q "Two commands" build/docs/python/quire.html || fail "the Python reference does not start with the README"
    echo "make docs: C and Python references, no warnings, every header function documented"
}

uninstall() {
    local prefix="$OUT/prefix" left
    [ -d "$prefix" ] || fail "nothing installed in $prefix (the pkg-config part failed?)"
    "$MAKE" -s --no-print-directory uninstall PREFIX="$prefix"
    left="$(find "$prefix" -type f -o -type l)"
    [ -z "$left" ] || { echo "$left"; fail "make uninstall left files behind"; }
    echo "make uninstall removes every file make install wrote"
}

# ---- run ------------------------------------------------------------------------------------

echo "test-packaging: Quire $VERSION (logs in build/test-packaging)"
part header-docs header_docs
part cli-help cli_help
part install install_staged
part man-page man_page
part cmake cmake_build
part pkg-config pkg_config_build
part valgrind valgrind_installed
part wheel wheel
part venv venv
part docs docs
part uninstall uninstall

[ "$failed" = 0 ] || echo "failed: ${failed_parts[*]}"
echo "test-packaging: $passed passed, $failed failed"
[ "$failed" = 0 ]
