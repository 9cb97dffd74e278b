# Quire: build, test, install.
#
#   make            release build: build/lib/libquire.so (self-contained), build/include,
#                   build/lib/pkgconfig/quire.pc, build/bin/quire
#   make demo       build, then run the examples on examples/sample.pdf
#   make test       every test: Swift, C (with the ABI check and the libffi harness under
#                   valgrind), Python, and the corpus sweep
#   make bench      build, then the quick benchmark against PDFium, MuPDF, qpdf and pypdf
#                   (installs them with pip if needed; build/bench/RESULTS.md); make
#                   bench-full runs the complete one (bench/RESULTS.md)
#   make test-asan  the Swift tests under AddressSanitizer (in .build/asan)
#   make fuzz       build the libFuzzer targets and run each for FUZZ_SECONDS (40) seconds
#   make install PREFIX=/usr/local

PREFIX ?= /usr/local
SWIFT ?= swift
PYTHON ?= python3

MAJOR   := $(shell sed -n 's/^\#define QUIRE_VERSION_MAJOR \([0-9]*\).*/\1/p' include/quire.h)
VERSION := $(shell sed -n 's/^\#define QUIRE_VERSION_STRING "\(.*\)"/\1/p' include/quire.h)
SONAME  := libquire.so.$(MAJOR)

# The toolchain's static Swift runtime, linked into libquire.so so that C and Python users
# need no Swift toolchain. lld (shipped with the toolchain) links it: gold and bfd leave
# local Swift metadata symbols in .dynsym for cross-module GOT relocations.
SWIFT_BIN    := $(shell readlink -f "$$(command -v $(SWIFT))")
SWIFT_STATIC := $(abspath $(dir $(SWIFT_BIN))../lib/swift_static/linux)

RELEASE_FLAGS := -c release \
	-Xswiftc -static-stdlib -Xlinker -L$(SWIFT_STATIC) -Xswiftc -use-ld=lld \
	-Xlinker --version-script=$(CURDIR)/quire.map \
	-Xlinker -soname=$(SONAME)

SOURCES := Makefile Package.swift quire.map $(shell find Sources include -type f)
BIN_DIR := $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)

.PHONY: all demo test test-swift test-asan test-c test-python test-corpus bench bench-full fuzz install uninstall clean

all: build/lib/$(SONAME) build/lib/libquire.so build/include/quire.h \
     build/lib/pkgconfig/quire.pc build/bin/quire bindings/python/quire/libquire.so

build/.stamp: $(SOURCES)
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

build/include/quire.h: include/quire.h
	@mkdir -p build/include
	cp $< $@

# pkg-config for using the library from the build tree; `make install` writes its own.
build/lib/pkgconfig/quire.pc: bindings/c/quire.pc.in include/quire.h
	@mkdir -p build/lib/pkgconfig
	sed -e 's|@PREFIX@|$(CURDIR)/build|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# The Python package carries the library next to its modules, as pypdfium2 does: this
# makes PYTHONPATH=bindings/python work from the repository and `pip install
# ./bindings/python` self-contained.
bindings/python/quire/libquire.so: build/lib/$(SONAME)
	cp $< $@.tmp && mv -f $@.tmp $@

demo: all
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

test: test-swift test-c test-python test-corpus

test-swift:
	$(SWIFT) test

# AddressSanitizer over the Swift tests, in a scratch directory of its own so that the
# instrumented objects never mix with the ordinary debug build. Leak detection is off:
# XCTest's runner leaks a few objects of its own at exit (368 bytes in 6 allocations, all
# from libXCTest), which LeakSanitizer reports as a failure; leaks are checked by valgrind
# over the C tests and the libffi harness instead.
test-asan:
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 $(SWIFT) test --sanitize=address --scratch-path .build/asan

# The fuzz targets, briefly (Tests/fuzz/README.md): CI's smoke run. Tests/fuzz/run-long.sh
# runs them for hours.
fuzz:
	Tests/fuzz/run.sh

test-c: all
	$(MAKE) -C Tests/c ROOT=$(CURDIR) test valgrind

test-python: all
	PYTHONPATH=bindings/python $(PYTHON) -m pytest -q Tests/python

# Every corpus file through the CLI, in child processes with a time limit: no crash, no
# hang, and PDFium's page count on the ordinary files (known differences are listed).
test-corpus: all
	@if [ -f ../shared/corpus/manifest.jsonl ]; then \
		$(PYTHON) Tests/corpus/sweep.py --only ordinary; \
	else echo "test-corpus: skipped: ../shared/corpus is not there"; fi

# Benchmarks (bench/run.py): each measurement in a fresh process, alternating libraries.
bench: all
	$(PYTHON) bench/run.py

bench-full: all
	$(PYTHON) bench/run.py --full

install: all
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 755 build/lib/$(SONAME) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libquire.so
	install -m 644 include/quire.h $(DESTDIR)$(PREFIX)/include/quire.h
	install -m 755 build/bin/quire $(DESTDIR)$(PREFIX)/bin/quire
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' bindings/c/quire.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/quire.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/$(SONAME) $(DESTDIR)$(PREFIX)/lib/libquire.so \
	      $(DESTDIR)$(PREFIX)/include/quire.h $(DESTDIR)$(PREFIX)/bin/quire \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/quire.pc

clean:
	rm -rf build .build bindings/python/quire/libquire.so
	-$(MAKE) -C Tests/c ROOT=$(CURDIR) clean 2>/dev/null
