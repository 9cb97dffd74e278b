# Quire: build, test, install.
#
#   make            release build: build/lib/libquire.so (self-contained), build/include (quire.h
#                   and its topic headers, quire/*.h),
#                   build/lib/pkgconfig/quire.pc, build/bin/quire, build/bin/quire-server
#   make demo       build, then run the examples on examples/sample.pdf, and two clients'
#                   notes converging through quire-server (examples/sync_demo.sh)
#   make test       every test: Swift, C (with the ABI check and the libffi harness under
#                   valgrind), the README's and docs' C blocks and versions (test-docs),
#                   Python, the sync server (test-server), the sync's convergence harness
#                   (test-convergence: 500 schedules), the web review page in headless
#                   Chromium (test-web), and the corpus sweep
#   make check      the fast tier, for the edit-test loop (70 to 100 s here once built;
#                   below): the release build if it is out of date, the Swift unit tests of
#                   the syntax and the model without the slow suites, the C API tests
#                   without valgrind, a Python smoke subset, 30 convergence schedules
#   make test-c TEST=forms::fields   one C API test, or a suite, or a pattern ('*::errors');
#                   Tests/c/out/test_api -l lists them (Tests/README.md: picking tests in C,
#                   Python and Swift; the Python tests against another library)
#   make style      check the style pinned in the tree (.swift-format, ruff.toml,
#                   .clang-format, .editorconfig; scripts/style.py); make format fixes it
#   make test-convergence-long  10,000 schedules of the convergence harness
#   make bench      build, then the quick benchmark against PDFium, MuPDF, qpdf and pypdf
#                   (installs them with pip if needed; build/bench/RESULTS.md); make
#                   bench-full runs the complete one (bench/RESULTS.md)
#   make bench-sync the sync server under load: 100 clients pushing and listening
#                   (bench/SYNC-RESULTS.md), the listener ladder of issue 41
#                   (bench/sync_ladder.py), and what refusing a bearer token costs by
#                   its size (bench/token_cost.py)
#   make test-asan  the Swift tests under AddressSanitizer (in .build/asan); CI runs
#                   make test SWIFT_TESTS=asan, whose Swift tests are these
#   make test-forms-corpus  the forms check over the whole corpus (every AcroForm file
#                   filled and read back, every annotated file flattened); make test
#                   runs a fixed sample of a quarter of it
#   make test-pages-sweep  the page operations' corpus sweep over the whole corpus (1,732
#                   files: delete, move, rotate, merge, split, encrypt, each output read
#                   by qpdf, PDFium and MuPDF); make test runs a quarter of it
#   make test-redaction-sweep  the redaction's corpus sweep over the whole corpus (a word
#                   and a rectangle redacted per file, checked by PDFium and MuPDF); make
#                   test runs a thirty-second of it
#   make fuzz       build the libFuzzer targets and run each for FUZZ_SECONDS (40) seconds
#   make install PREFIX=/usr/local   also installs the CMake package (lib/cmake/Quire), the
#                   man page (share/man/man1/quire.1) and the valgrind suppressions
#                   (share/quire/valgrind.supp); binaries stripped, their debug information
#                   in lib/debug/.build-id (INSTALL_STRIP=0: as built); DESTDIR stages it
#   make wheel      the Python package as a platform-tagged wheel, checked and tagged by
#                   auditwheel (build/dist/quire-VERSION-py3-none-manylinux_*.whl)
#   make docs       the HTML reference: C (Doxygen) and Python (pdoc), build/docs/index.html
#   make generate   regenerate what is generated from the header and checked in
#                   (bindings/python/quire/_raw_generated.py: scripts/gen_python_raw.py);
#                   Tests/python/test_raw.py fails when it is out of date
#   make deps       install what demo, test and the packaging targets need
#                   (scripts/install-deps.sh: apt-get and pip; demo and test run it first)

PREFIX ?= /usr/local
SWIFT ?= swift
PYTHON ?= python3

MAJOR   := $(shell sed -n 's/^\#define QUIRE_VERSION_MAJOR \([0-9]*\).*/\1/p' include/quire.h)
VERSION := $(shell sed -n 's/^\#define QUIRE_VERSION_STRING "\(.*\)"/\1/p' include/quire.h)
MINOR   := $(shell sed -n 's/^\#define QUIRE_VERSION_MINOR \([0-9]*\).*/\1/p' include/quire.h)
# The ABI version in the soname: the major version, and while it is 0 the minor too, since a
# 0.x release may break the ABI (docs/abi.md).
ABI     := $(if $(filter 0,$(MAJOR)),$(MAJOR).$(MINOR),$(MAJOR))
SONAME  := libquire.so.$(ABI)

# The toolchain's static Swift runtime, linked into libquire.so so that C and Python users
# need no Swift toolchain. lld (shipped with the toolchain) links it: gold and bfd leave
# local Swift metadata symbols in .dynsym for cross-module GOT relocations.
SWIFT_BIN    := $(shell readlink -f "$$(command -v $(SWIFT))")
SWIFT_STATIC := $(abspath $(dir $(SWIFT_BIN))../lib/swift_static/linux)

# --disable-local-rpath: no RUNPATH $ORIGIN in the library (SwiftPM's default), which it
# does not need (the runtime is static) and which made valgrind report ld.so errors.
# --symbol-ordering-file: the functions the benchmark's workloads run, side by side at the
# start of .text (quire.order, written by scripts/symbol_order.py). Spread over 22 MB of
# code, the pages the kernel maps around each fault kept 4.3 MB of it resident in a process
# that opened one file; ordered, 2.6 MB (bench/PROFILE.md, "Memory"). Symbols it names
# that no longer exist are ignored (--no-warn-symbol-ordering): a stale file costs
# locality, never a build. It is checked in, not made here: making it takes a linked
# library, the benchmark's data and minutes of callgrind (scripts/symbol_order.py, whose
# --prune drops the names that no longer exist).
#
# --build-id: `make install` puts the debug information in a file named by it
# (scripts/install-binary.sh), where gdb and valgrind look for it.
#
# DWARF 4, not the toolchain's default DWARF 5: valgrind 3.19 (Debian 12's) cannot read
# DWARF 5's forms ("unhandled dwarf2 abbrev form code 0x25 ... Giving up") and stops before
# running a program that loads the library. Swift with -dwarf-version=4, the C of the
# dependencies (BoringSSL, the SwiftNIO shims) with -gdwarf-4; the static Swift runtime
# has no debug information of its own. gdb and perf read DWARF 4 as well.
DEBUG_INFO_FLAGS := -Xswiftc -debug-info-format=dwarf -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4
RELEASE_FLAGS := -c release --disable-local-rpath $(DEBUG_INFO_FLAGS) \
	-Xswiftc -static-stdlib -Xlinker -L$(SWIFT_STATIC) -Xswiftc -use-ld=lld \
	-Xlinker --version-script=$(CURDIR)/quire.map \
	-Xlinker --symbol-ordering-file=$(CURDIR)/quire.order -Xlinker --no-warn-symbol-ordering \
	-Xlinker --build-id=sha1 -Xlinker -soname=$(SONAME)

SOURCES := Makefile Package.swift quire.map quire.order $(shell find Sources include -type f)
# Where SwiftPM puts the release products: .build/release is the link it keeps to
# .build/<target triple>/release, what `swift build -c release --show-bin-path` prints,
# known without starting SwiftPM (which took seconds on every make, even `make -n`).
BIN_DIR := .build/release

.PHONY: all generate demo check style format deps-style test test-swift test-asan test-c test-docs test-python test-server test-convergence test-convergence-long test-pages-sweep test-redaction-sweep test-web test-corpus test-forms-corpus bench bench-full bench-sync fuzz install uninstall clean

all: build/lib/$(SONAME) build/lib/libquire.so build/include/quire.h \
     build/lib/pkgconfig/quire.pc build/bin/quire build/bin/quire-server bindings/python/quire/libquire.so \
     build/lib/cmake/Quire/QuireConfig.cmake build/lib/cmake/Quire/QuireConfigVersion.cmake \
     build/bin/quire-convergence

# What the header generates and the tree holds (CONVENTIONS, "Shape": generated by a script,
# checked, never edited): the Python binding's raw table. The libffi harness's table is
# generated into Tests/c/out at each run instead. Needs no build and no package.
generate:
	$(PYTHON) scripts/gen_python_raw.py

build/.stamp: $(SOURCES)
	@# SwiftPM relinks on changed objects, not on a changed quire.order: make it relink.
	@if [ quire.order -nt $(BIN_DIR)/libquire.so ]; then rm -f $(BIN_DIR)/libquire.so; fi
	$(SWIFT) build $(RELEASE_FLAGS)
	@mkdir -p build
	@touch $@

# Libraries and programs are replaced by rename, never rewritten in place: a process that
# has the old file mapped keeps it intact instead of dying with SIGBUS.
build/lib/$(SONAME): build/.stamp
	@mkdir -p build/lib
	cp $(BIN_DIR)/libquire.so $@.tmp && mv -f $@.tmp $@

build/lib/libquire.so: build/lib/$(SONAME)
	ln -sf $(SONAME) $@

build/bin/quire: build/.stamp
	@mkdir -p build/bin
	cp $(BIN_DIR)/quire-cli $@.tmp && mv -f $@.tmp $@

# The sync server (Sources/QuireServer, docs/sync-protocol.md), built by the same release
# build (the Swift runtime linked statically, as for the CLI).
build/bin/quire-server: build/.stamp
	@mkdir -p build/bin
	cp $(BIN_DIR)/quire-server $@.tmp && mv -f $@.tmp $@

# The sync's convergence harness (Tests/Convergence/README.md), built by the same release
# build: make test runs it.
build/bin/quire-convergence: build/.stamp
	@mkdir -p build/bin
	cp $(BIN_DIR)/quire-convergence $@.tmp && mv -f $@.tmp $@

# The header: the umbrella quire.h and its topic headers (include/quire/*.h), copied whole
# so that no topic header that was removed from include/quire stays behind.
TOPIC_HEADERS := $(wildcard include/quire/*.h)

build/include/quire.h: include/quire.h $(TOPIC_HEADERS)
	@rm -rf build/include && mkdir -p build/include/quire
	cp $(TOPIC_HEADERS) build/include/quire/
	cp include/quire.h $@

# pkg-config for using the library from the build tree; `make install` writes its own.
build/lib/pkgconfig/quire.pc: bindings/c/quire.pc.in include/quire.h
	@mkdir -p build/lib/pkgconfig
	sed -e 's|@PREFIX@|$(CURDIR)/build|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# The CMake package (find_package(Quire), target Quire::quire). QuireConfig.cmake finds the
# prefix from its own location, so the same files serve the build tree
# (CMAKE_PREFIX_PATH=$PWD/build) and an installed or DESTDIR-staged prefix.
build/lib/cmake/Quire/%.cmake: bindings/cmake/%.cmake.in include/quire.h
	@mkdir -p build/lib/cmake/Quire
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' -e 's|@MINOR@|$(MINOR)|g' -e 's|@SONAME@|$(SONAME)|g' $< > $@

# The man page, made from `quire --help` and each command's help (scripts/help2man.py).
build/share/man/man1/quire.1: build/bin/quire scripts/help2man.py
	@mkdir -p build/share/man/man1
	$(PYTHON) scripts/help2man.py build/bin/quire > $@.tmp && mv -f $@.tmp $@

# The Python package carries the library next to its modules, as pypdfium2 does: this
# makes PYTHONPATH=bindings/python work from the repository and `pip install
# ./bindings/python` self-contained.
bindings/python/quire/libquire.so: build/lib/$(SONAME)
	cp $< $@.tmp && mv -f $@.tmp $@

# What a fresh machine lacks (Debian and pip packages): scripts/install-deps.sh installs it
# as root, or says what to run. Fast when everything is there. QUIRE_SKIP_DEPS=1 skips it.
deps:
	@PYTHON=$(PYTHON) bash scripts/install-deps.sh

deps-demo:
	@PYTHON=$(PYTHON) bash scripts/install-deps.sh demo

demo: deps-demo all
	@echo "== quire info examples/sample.pdf"
	build/bin/quire info examples/sample.pdf
	@echo
	@echo "== Python: examples/python/pdfinfo.py examples/sample.pdf"
	PYTHONPATH=bindings/python $(PYTHON) examples/python/pdfinfo.py examples/sample.pdf
	@echo
	@echo "== C: examples/c/pdfinfo examples/sample.pdf"
	$(MAKE) -s -C examples/c ROOT=$(CURDIR)
	examples/c/pdfinfo examples/sample.pdf
	@echo
	@echo "== C: examples/c/bookmarks: go-to bookmarks kept in build/bookmarks-c.csv, the others in the PDF"
	rm -f build/bookmarks-c.csv
	examples/c/bookmarks examples/sample.pdf build/bookmarked-c.pdf build/bookmarks-c.csv
	@echo
	@echo "== Python: a note, replies and review states, saved incrementally to build/reviewed.pdf"
	PYTHONPATH=bindings/python $(PYTHON) examples/python/review.py examples/sample.pdf build/reviewed.pdf
	@echo
	@echo "== Sync: quire-server on loopback, two clients' notes converging (examples/sync_demo.sh)"
	PYTHON=$(PYTHON) bash examples/sync_demo.sh build/bin/quire-server

test: deps test-swift test-c test-docs test-python test-server test-convergence test-web test-corpus test-packaging

# ---- the fast tier: make check (issue 32) ----------------------------------------------------

# make check: what to run after each edit, in a few minutes (sqlite's quick tier; `make
# test` stays the full run, CI's). Each part is a subset of one of make test's:
#   - the Swift unit tests of the syntax and document layers (the debug build), without the
#     five suites that take two thirds of their time (CHECK_SWIFT_SKIP: the lazy-reading
#     and object-stream residency measurements, the reloads of a file changed underneath,
#     the random undo walks, the checkpoint timings); the sync's Swift tests are left out;
#   - the C API tests (Tests/c/out/test_api), without valgrind, the libffi harness, the
#     header checks and the examples;
#   - the Python tests of the binding's core and its raw table (CHECK_PYTHON);
#   - the convergence harness with 30 schedules instead of 500.
# Measured on this 2-core machine while other builds kept its load near 10: 68 s with both
# builds up to date, 98 s when `all` also had to relink the library; an edit to the Swift
# sources adds what the release and debug builds take to catch up with it.
CHECK_SWIFT_FILTER ?= QuireSyntaxTests|QuireDocumentTests
CHECK_SWIFT_SKIP   ?= LazyReadingTests|ContinuingReloadTests|ToolManagerRandomUndoTests|ObjectStreamResidencyTests|CheckpointTests
CHECK_PYTHON ?= Tests/python/test_document.py Tests/python/test_errors.py Tests/python/test_objects.py \
                Tests/python/test_annotations.py Tests/python/test_strings.py Tests/python/test_raw.py
check: all
	QUIRE_NO_SERVER=1 $(SWIFT) test --filter '$(CHECK_SWIFT_FILTER)' --skip '$(CHECK_SWIFT_SKIP)'
	$(MAKE) -C Tests/c ROOT=$(CURDIR) api
	PYTHONPATH=bindings/python $(PYTHON) -m pytest -q $(CHECK_PYTHON)
	build/bin/quire-convergence --schedules 30

# The style pinned in the tree, checked (make style; .ci/run runs it first) and fixed
# (make format) by scripts/style.py: whitespace (.editorconfig), Python (ruff.toml: lint
# on every file, formatting), C (.clang-format), Swift (.swift-format, swift-nio's settings,
# with the toolchain's swift format). The files not yet formatted are listed in
# scripts/style-pending.txt and skipped; the list only shrinks
# (`python3 scripts/style.py format FILE` formats one and takes it off).
deps-style:
	@PYTHON=$(PYTHON) bash scripts/install-deps.sh style

style: deps-style
	$(PYTHON) scripts/style.py check

format: deps-style
	$(PYTHON) scripts/style.py format

# The sync's convergence harness (Tests/Convergence/README.md): seeded random schedules of 3
# to 6 clients over a network the schedule controls (loss, duplicates, delays, cuts,
# crashes), each checked for convergence, nothing lost and nothing applied twice.
# QUIRE_CONVERGENCE_SEED picks the run's seed (1 by default); a failure prints the
# command that replays it.
CONVERGENCE_SCHEDULES ?= 500
test-convergence: all
	build/bin/quire-convergence --schedules $(CONVERGENCE_SCHEDULES)

# The long run: 10,000 schedules (about an hour here; not in CI).
test-convergence-long: all
	build/bin/quire-convergence --schedules 10000

# QUIRE_NO_SERVER: no Swift test covers quire-server (Tests/server tests the release binary
# over HTTP), and a debug build of it and its dependencies (SwiftNIO, Hummingbird,
# postgres-nio, BoringSSL) would add about ten minutes to CI (Package.swift).
#
# SWIFT_TESTS=asan runs them under AddressSanitizer instead (test-asan, below): CI's run
# (.ci/run) does, so that the package is built and its tests run once, not once plain and
# once more instrumented. The same tests run in both (none is conditional on the sanitizer);
# an instrumented run finds everything a plain one does, and what only ASan sees. CI's
# last run took 2,588 s of its 45 minutes, a cold debug build and a run of the Swift tests
# among them, both now spent once.
SWIFT_TESTS ?= plain
test-swift:
ifeq ($(SWIFT_TESTS),asan)
	$(MAKE) test-asan
else
	QUIRE_NO_SERVER=1 $(SWIFT) test
endif

# AddressSanitizer over the Swift tests, in a scratch directory of its own so that the
# instrumented objects never mix with the ordinary debug build. Leak detection is off:
# XCTest's runner leaks a few objects of its own at exit (368 bytes in 6 allocations, all
# from libXCTest), which LeakSanitizer reports as a failure; leaks are checked by valgrind
# over the C tests and the libffi harness instead.
# QUIRE_NO_SERVER leaves quire-server and its dependencies (SwiftNIO, Hummingbird) out of
# this build: no test of it runs here, and they would add minutes to CI (Package.swift).
test-asan:
	QUIRE_NO_SERVER=1 ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 $(SWIFT) test --sanitize=address --scratch-path .build/asan

# The fuzz targets, briefly (Tests/fuzz/README.md): CI's smoke run. Tests/fuzz/run-long.sh
# runs them for hours.
fuzz:
	Tests/fuzz/run.sh

test-c: all
	$(MAKE) -C Tests/c ROOT=$(CURDIR) test valgrind

# What the README and docs/ say, checked (issue 40): every version string agrees with the
# header (Tests/docs/check_versions.py, and its self-test on what the 0.5 README said),
# and every C block compiles with -Werror, links and runs (Tests/docs/c_blocks.py).
test-docs: all
	$(PYTHON) Tests/docs/check_versions.py --self-test
	$(PYTHON) Tests/docs/check_versions.py
	$(PYTHON) Tests/docs/c_blocks.py $(CURDIR)

test-python: all
	PYTHONPATH=bindings/python $(PYTHON) -m pytest -q Tests/python

# The sync server over HTTP (Tests/server): the protocol's conformance on every host, JWT
# attacks, kill -9 during pushes, the command line. Real processes on loopback ports.
test-server: all
	PYTHONPATH=bindings/python QUIRE_SERVER=$(CURDIR)/build/bin/quire-server $(PYTHON) -m pytest -q Tests/server

# The web review page (examples/web) in a real headless Chromium driven by Selenium through
# Debian's chromedriver (Tests/web): the server on a free loopback port; a square, a note,
# a move and an undo, each checked in the saved file with pikepdf and PDFium. The screenshot
# of the page after the session is build/web-review.png. And the live review page
# (examples/web/live) in two Chromium sessions as two users on quire-server (a note, a
# reply, a review state and presence, each seen in the other's page within 2 s). Chromium,
# chromium-driver and selenium come from scripts/install-deps.sh (group test); the test
# fails without them.
test-web: all
	PYTHONPATH=bindings/python $(PYTHON) -m pytest -q Tests/web

# The long runs of the crash tests: the checkpoints' (2,000 SIGKILLs at random moments over
# every strategy and file kind; make test runs 200), the sync client's (1,000; make test
# runs 200) and the append in place's (500; make test runs 30). QUIRE_CRASH_SEED=N repeats a run.
test-crash: all
	PYTHONPATH=bindings/python $(PYTHON) Tests/python/checkpoint_crash.py --trials 2000
	PYTHONPATH=bindings/python $(PYTHON) Tests/server/client_crash.py --trials 1000
	PYTHONPATH=bindings/python QUIRE_APPEND_TRIALS=500 $(PYTHON) -m pytest -q Tests/python/test_append_in_place.py -k killed

# The forms check of issue 22 over the whole corpus (Tests/python/test_forms.py): every
# field of every AcroForm file filled, saved, read back by PDFium and pypdf and rendered by
# pdftoppm; every annotated file of one or two pages flattened and rendered. make test
# (test-python) runs every fourth file of each list, from a seeded offset (about 20 s
# instead of 4 to 5.5 minutes).
test-forms-corpus: all
	PYTHONPATH=bindings/python QUIRE_FORMS_CORPUS=all $(PYTHON) -m pytest -q Tests/python/test_forms.py

# Every corpus file through the CLI, in child processes with a time limit: no crash, no
# hang, and PDFium's page count on the ordinary files (known differences are listed).
# The long runs of the corpus sweeps (Tests/python/page_sweep.py, redaction_sweep.py), over
# every file the peers open (1,732), on two long-lived child processes. The page operations'
# (issue 36: each file's pages deleted, moved, rotated, merged with the next file, split in
# two and half encrypted, every output read by qpdf, PDFium and MuPDF; make test runs a
# quarter of it, Tests/python/test_page_operations.py) and the redaction's (issue 38: a
# random word and a random rectangle applied and checked on each file; make test runs a
# thirty-second, Tests/python/test_redaction.py). Measured in docs/pages.md and
# docs/redaction.md.
test-pages-sweep: all
	QUIRE_PAGES_CORPUS=all PYTHONPATH=bindings/python $(PYTHON) -m pytest -q Tests/python/test_page_operations.py -k corpus_sweep

test-redaction-sweep: all
	PYTHONPATH=bindings/python $(PYTHON) Tests/python/redaction_sweep.py --every 1

test-corpus: all
	@if [ -f ../shared/corpus/manifest.jsonl ]; then \
		$(PYTHON) Tests/corpus/sweep.py --only ordinary; \
	else echo "test-corpus: skipped: ../shared/corpus is not there"; fi

# Benchmarks (bench/run.py): each measurement in a fresh process, alternating libraries.
bench: all
	$(PYTHON) bench/run.py

bench-full: all
	$(PYTHON) bench/run.py --full

# The sync server under load (bench/sync_bench.py): 100 clients on loopback pushing and
# long-polling for 60 s per scenario against quire-server with a SQLite store; accepted
# mutations/s, push-to-listener latency, 0 lost and 0 duplicated (bench/SYNC-RESULTS.md).
bench-sync: all
	@PYTHON=$(PYTHON) bash scripts/install-deps.sh bench
	$(PYTHON) bench/sync_bench.py
	$(PYTHON) bench/sync_ladder.py
	$(PYTHON) bench/token_cost.py

# ---- Packaging: wheel, docs, and their tests (issue 20) ----------------------------------

.PHONY: deps deps-demo deps-packaging wheel docs man test-packaging

deps-packaging:
	@PYTHON=$(PYTHON) bash scripts/install-deps.sh packaging

man: build/share/man/man1/quire.1

# A platform-tagged wheel: the package with the library (its debug information stripped:
# 28 MB instead of 44), built by pip in a copy under build/wheel so that the source tree
# stays clean, then checked by auditwheel against the manylinux rules, which give the
# platform tag (the glibc version the library needs, and the architecture). The library
# links only libc, libm, libstdc++, libgcc_s and libz, all allowed by manylinux, so
# nothing is grafted in. The version is the header's (setup.py is given it).
wheel: deps-packaging all
	rm -rf build/wheel && mkdir -p build/wheel/src build/dist
	cp -R bindings/python/pyproject.toml bindings/python/setup.py bindings/python/quire build/wheel/src/
	rm -rf build/wheel/src/quire/libquire.so* && find build/wheel/src -name __pycache__ -prune -exec rm -rf {} +
	@# Stripped as make install strips it (scripts/install-binary.sh: the Swift runtime's names
	@# kept for the valgrind suppressions); the debug file stays in build/wheel/debug.
	sh scripts/install-binary.sh 755 build/lib/$(SONAME) build/wheel/src/quire/libquire.so build/wheel/debug
	cd build/wheel/src && QUIRE_VERSION=$(VERSION) $(PYTHON) -m pip wheel -q --no-deps \
		--no-build-isolation --disable-pip-version-check -w .. .
	rm -f build/dist/quire-*.whl
	$(PYTHON) -m auditwheel repair -w build/dist build/wheel/quire-$(VERSION)-py3-none-linux_*.whl
	@echo "wheel: $$(ls build/dist/quire-$(VERSION)-py3-none-manylinux_*.whl)"

# The HTML reference: the C API from the header (Doxygen, docs/api/Doxyfile; its main page
# is the README), the Python package (pdoc, scripts/docs_python.py; the README on top), and
# build/docs/index.html linking both. Any Doxygen warning fails it, and so does a public
# Python function or class without a docstring.
docs: deps-packaging all
	rm -rf build/docs && mkdir -p build/docs
	@QUIRE_VERSION=$(VERSION) QUIRE_DOCS_DIR=build/docs QUIRE_PYTHON=$(PYTHON) doxygen docs/api/Doxyfile \
		|| { cat build/docs/doxygen-warnings.log >&2; echo "docs: doxygen failed" >&2; exit 1; }
	@echo "docs: build/docs/c/index.html (doxygen, no warnings)"
	@$(PYTHON) scripts/docs_python.py build/docs

# The packaging tests (Tests/packaging/run.sh): every header function documented, the CLI's
# help and man page, make install (DESTDIR and PREFIX), the C example built with CMake and
# with pkg-config against the installed prefix, the wheel in a fresh virtual environment,
# and make docs.
test-packaging: deps-packaging all
	MAKE="$(MAKE)" PYTHON="$(PYTHON)" VERSION="$(VERSION)" bash Tests/packaging/run.sh

# The library and the programs are installed without their debug information, which goes
# into DEBUGDIR/.build-id/xx/yyyy.debug, found by build ID (as Debian's -dbgsym packages
# ship it; scripts/install-binary.sh): libquire.so is 123 MB as built, 37 MB installed
# (README, "Sizes"). DEBUGDIR is PREFIX/lib/debug: for PREFIX=/usr, /usr/lib/debug, where
# gdb and valgrind look by default; with another prefix, DEBUGDIR=/usr/lib/debug puts the
# files there (README, "Debugging and valgrind"). INSTALL_STRIP=0 installs the binaries as
# built. The valgrind suppressions for programs that link the library
# (Tests/c/valgrind.supp: the Swift runtime's caches) go to PREFIX/share/quire/valgrind.supp.
DEBUGDIR ?= $(PREFIX)/lib/debug
DEBUG_DIR = $(DESTDIR)$(DEBUGDIR)
INSTALLED_BINARIES = lib/$(SONAME) bin/quire bin/quire-server

install: all build/share/man/man1/quire.1
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/quire $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/lib/cmake/Quire $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/quire
	sh scripts/install-binary.sh 755 build/lib/$(SONAME) $(DESTDIR)$(PREFIX)/lib/$(SONAME) $(DEBUG_DIR)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libquire.so
	install -m 644 include/quire.h $(DESTDIR)$(PREFIX)/include/quire.h
	install -m 644 $(TOPIC_HEADERS) $(DESTDIR)$(PREFIX)/include/quire/
	sh scripts/install-binary.sh 755 build/bin/quire $(DESTDIR)$(PREFIX)/bin/quire $(DEBUG_DIR)
	sh scripts/install-binary.sh 755 build/bin/quire-server $(DESTDIR)$(PREFIX)/bin/quire-server $(DEBUG_DIR)
	install -m 644 Tests/c/valgrind.supp $(DESTDIR)$(PREFIX)/share/quire/valgrind.supp
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' bindings/c/quire.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/quire.pc
	install -m 644 build/lib/cmake/Quire/QuireConfig.cmake build/lib/cmake/Quire/QuireConfigVersion.cmake \
		$(DESTDIR)$(PREFIX)/lib/cmake/Quire/
	install -m 644 build/share/man/man1/quire.1 $(DESTDIR)$(PREFIX)/share/man/man1/quire.1

uninstall:
	@# The debug files, named by the installed binaries' build IDs (the same as the built ones').
	@for f in $(INSTALLED_BINARIES); do \
	  id=$$(readelf -n $(DESTDIR)$(PREFIX)/$$f 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\).*/\1/p' | head -1); \
	  [ -z "$$id" ] || { rm -f $(DEBUG_DIR)/.build-id/$$(echo $$id | cut -c1-2)/$$(echo $$id | cut -c3-).debug; \
	                     rmdir $(DEBUG_DIR)/.build-id/$$(echo $$id | cut -c1-2) 2>/dev/null || true; }; \
	done
	@rmdir $(DEBUG_DIR)/.build-id $(DEBUG_DIR) 2>/dev/null || true
	rm -f $(DESTDIR)$(PREFIX)/lib/$(SONAME) $(DESTDIR)$(PREFIX)/lib/libquire.so \
	      $(DESTDIR)$(PREFIX)/include/quire.h $(addprefix $(DESTDIR)$(PREFIX)/include/quire/,$(notdir $(TOPIC_HEADERS))) \
	      $(DESTDIR)$(PREFIX)/bin/quire \
	      $(DESTDIR)$(PREFIX)/bin/quire-server \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/quire.pc \
	      $(DESTDIR)$(PREFIX)/lib/cmake/Quire/QuireConfig.cmake \
	      $(DESTDIR)$(PREFIX)/lib/cmake/Quire/QuireConfigVersion.cmake \
	      $(DESTDIR)$(PREFIX)/share/man/man1/quire.1 \
	      $(DESTDIR)$(PREFIX)/share/quire/valgrind.supp
	rmdir $(DESTDIR)$(PREFIX)/lib/cmake/Quire $(DESTDIR)$(PREFIX)/share/quire $(DESTDIR)$(PREFIX)/include/quire 2>/dev/null || true

clean:
	rm -rf build .build bindings/python/quire/libquire.so
	-$(MAKE) -C Tests/c ROOT=$(CURDIR) clean 2>/dev/null
