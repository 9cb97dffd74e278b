#!/usr/bin/env python3
"""Writes quire.order: the functions of libquire.so that the benchmark's workloads run, for
the linker to place side by side at the start of .text (lld --symbol-ordering-file; see
RELEASE_FLAGS in the Makefile).

Why: the library's .text is 22 MB (the Swift runtime, Foundation, SwiftNIO, BoringSSL
and Quire, linked statically), and the code that opening a file runs, about 130 KB, was
spread over it. The kernel maps a file's pages 64 KB (and more, whole large folios) around
each fault, so a process that opened one document had 4 MB of the library's code resident;
packed together, the same code costs what it weighs. bench/PROFILE.md ("Memory") has the
numbers.

How: every workload of bench/worker.py (open, last page, read, incremental, in place,
rewrite, text) runs once in Python under callgrind, with a copy of the library without
debug information (valgrind 3.19 cannot read its DWARF 5); the functions of the library
that ran are listed, those that more workloads run first (the load and the open lead),
then by instructions. C++ names, which valgrind demangles, are mapped back to the
symbols the linker knows. Symbols the linker no longer finds are ignored
(--no-warn-symbol-ordering), so a stale file costs locality, never a build; run this
again after large changes:

    python3 scripts/symbol_order.py          # about 5 minutes; needs valgrind and make's build
    python3 scripts/symbol_order.py --check  # says how much of the file the library still has

The output is sorted by rank, one symbol a line, with a header comment (lld ignores
lines starting with #).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "build" / "lib" / "libquire.so"
OUT = ROOT / "quire.order"
WORK = ROOT / "build" / "bench"


def workloads(scratch: Path) -> List[Tuple[str, List[str]]]:
    """(name, worker.py arguments) for every workload of the benchmark that Quire runs."""
    big, large = WORK / "big.pdf", WORK / "large.pdf"
    corpus_list = WORK / "corpus-files.txt"
    if not big.exists() or not large.exists():
        sys.exit("symbol_order: %s and %s are missing: run `make bench` (or bench/make_data.py) first" % (big, large))
    files: List[str] = []
    if corpus_list.exists():
        files = [line.strip() for line in corpus_list.read_text().splitlines() if line.strip()][:40]
    sample = scratch / "corpus.txt"
    sample.write_text("\n".join(files) + "\n")
    copy = scratch / "in-place.pdf"
    shutil.copyfile(big, copy)
    out = scratch / "out.pdf"
    shutil.copyfile(big, out)
    result = [
        ("open-big", ["open", str(big)]),
        ("open-large", ["open", str(large)]),
        ("last-page", ["last-page", str(big)]),
        ("incremental", ["incremental", str(big), str(out)]),
        ("incremental-stream", ["incremental-stream", str(big), str(out)]),
        ("in-place", ["incremental-in-place", str(copy), str(out)]),
        ("read-large", ["read", str(large)]),
        ("rewrite", ["rewrite", str(large), str(scratch / "rewrite.pdf")]),
    ]
    if files:
        result += [("read-corpus", ["read", "@" + str(sample)]), ("text-corpus", ["text", "@" + str(sample)])]
    return result


def executed(profile: Path) -> Dict[str, int]:
    """{function: instructions} of the library's functions in a callgrind profile."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", str(profile)],
                          capture_output=True, text=True, check=True).stdout
    found: Dict[str, int] = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*?:(\S.*?) \[(.*)\]$", line)
        if not m or "libquire" not in m.group(3):
            continue
        name = re.sub(r"'\d+$", "", m.group(2))
        if name.startswith("0x"):
            continue
        found[name] = found.get(name, 0) + int(m.group(1).replace(",", ""))
    return found


def defined_symbols(library: Path) -> List[str]:
    out = subprocess.run(["nm", "--defined-only", str(library)], capture_output=True, text=True, check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if len(line.split()) >= 3]


def demangled_to_symbols(symbols: List[str]) -> Dict[str, List[str]]:
    """valgrind prints C++ names demangled: the linker needs them mangled."""
    mangled = sorted(s for s in set(symbols) if s.startswith("_Z"))
    plain = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True, text=True, check=True).stdout.splitlines()
    back: Dict[str, List[str]] = collections.defaultdict(list)
    for m, d in zip(mangled, plain):
        back[d].append(m)
    return back


def generate(library: Path, keep: Optional[Path]) -> List[str]:
    python = os.path.realpath(sys.executable)  # not a pyenv shim: valgrind must see Python itself
    with tempfile.TemporaryDirectory(prefix="quire-order-") as tmp:
        scratch = Path(tmp)
        profiles = keep or scratch
        profiles.mkdir(parents=True, exist_ok=True)
        soname = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True, check=True).stdout
        m = re.search(r"\(SONAME\).*\[(.*)\]", soname)
        copy = scratch / (m.group(1) if m else "libquire.so")
        subprocess.run(["objcopy", "--strip-debug", str(library), str(copy)], check=True)
        env = dict(os.environ, QUIRE_LIBRARY=str(copy), PYTHONWARNINGS="ignore")
        runs: Dict[str, Dict[str, int]] = {}
        for name, args in workloads(scratch):
            profile = profiles / (name + ".callgrind")
            if keep and profile.exists():  # kept from an earlier run with --keep
                runs[name] = executed(profile)
                continue
            command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + str(profile),
                       python, str(ROOT / "bench" / "worker.py"), "quire", *args]
            done = subprocess.run(command, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit("symbol_order: %s failed under callgrind:\n%s" % (name, done.stderr[-2000:]))
            runs[name] = executed(profile)
            print("symbol_order: %-18s %5d functions" % (name, len(runs[name])), file=sys.stderr)
        back = demangled_to_symbols(defined_symbols(copy))
    count: Dict[str, int] = collections.Counter()
    cost: Dict[str, int] = collections.Counter()
    for found in runs.values():
        this_run: Dict[str, int] = collections.Counter()
        for name, instructions in found.items():
            symbols = list(back.get(name, [name]))
            # A C entry point (@c, in a section of its own) often shows in the profile only
            # as the closures and thunks of its Swift name ($s5Quire19quire_document_open...):
            # its C symbol goes with them.
            entry = re.match(r"\$s5Quire(\d+)", name)
            if entry:
                start = entry.end()
                c_name = name[start:start + int(entry.group(1))]
                if c_name.startswith("quire_"):
                    symbols.append(c_name)
            for symbol in symbols:
                this_run[symbol] += instructions
        for symbol, instructions in this_run.items():
            count[symbol] += 1
            cost[symbol] += instructions
    return sorted(count, key=lambda s: (-count[s], -cost[s], s))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, default=LIBRARY)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="how many symbols of the file the library defines")
    parser.add_argument("--keep", type=Path, help="keep the callgrind profiles in this directory (and reuse those there)")
    options = parser.parse_args()
    if options.check:
        wanted = [line for line in options.out.read_text().splitlines() if line and not line.startswith("#")]
        have = set(defined_symbols(options.library))
        print("%s: %d of %d symbols still in %s" % (options.out, sum(1 for s in wanted if s in have), len(wanted), options.library))
        return 0
    symbols = generate(options.library.resolve(), options.keep)
    header = ("# The functions the benchmark's workloads run, in link order: generated by scripts/symbol_order.py\n"
              "# (lld --symbol-ordering-file, see RELEASE_FLAGS in the Makefile); do not edit by hand.\n")
    options.out.write_text(header + "\n".join(symbols) + "\n")
    print("symbol_order: %d symbols in %s" % (len(symbols), options.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
