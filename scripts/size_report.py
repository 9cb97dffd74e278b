#!/usr/bin/env python3
"""What each part of a Quire binary costs in size: the code and data of each Swift module
and C library linked into it, from the sizes its symbol table gives them (`nm -S`), for the
README's "Sizes" (issue 40: what the HTTP client, TLS and NIO cost).

    scripts/size_report.py [BINARY]      (default build/lib/libquire.so.*: the built library)

Each defined symbol with a size is counted once, for its owner: a Swift module (from the
mangled name: `$s15AsyncHTTPClient...` is AsyncHTTPClient), the Swift runtime and standard
library (swift_*, swift::*, the Swift, _Concurrency and Foundation modules), BoringSSL (its
C symbols carry the CNIOBoringSSL_ or CCryptoBoringSSL_ prefix), or "other C". What no
symbol covers (section headers, metadata records without symbols, padding) is "unattributed".
The owners are then grouped as the README reports them. The binary must still have its
symbol table (the built one does; the installed one keeps only the runtime's names).
"""

import glob
import os
import re
import subprocess
import sys
from collections import defaultdict

# Swift modules (and C modules) by the group the README names.
GROUPS = [
    ("Quire's own code (syntax, document, sync, C layer)",
     {"Quire", "QuireSyntax", "QuireDocument", "QuireSync", "QuireSyncClient", "QuireSyncHTTP", "CQuireLoad"}),
    ("HTTP client (AsyncHTTPClient, swift-nio-http1/2, extras, transport services)",
     {"AsyncHTTPClient", "NIOHTTP1", "NIOHTTP2", "NIOHTTPCompression", "NIOExtras", "NIOHPACK",
      "NIOTransportServices", "NIOSOCKS", "CNIOExtrasZlib", "_NIOFileSystem", "NIOFileSystem",
      "_ConnectionPoolModule", "NIOHTTPTypes", "NIOHTTPTypesHTTP1", "HTTPTypes"}),
    ("TLS (swift-nio-ssl and its BoringSSL)", {"NIOSSL", "CNIOBoringSSL", "CNIOBoringSSLShims", "NIOTLS"}),
    ("NIO core (swift-nio: NIOCore, NIOPosix, NIOConcurrencyHelpers, atomics)",
     {"NIOCore", "NIOPosix", "NIOEmbedded", "NIOConcurrencyHelpers", "_NIOBase64", "_NIODataStructures",
      "CNIOPosix", "CNIOLinux", "CNIOAtomics", "CNIODarwin", "CNIOWindows", "CNIOLLHTTP", "Atomics",
      "_AtomicsShims", "NIOFoundationEssentialsCompat", "_NIOConcurrency"}),
    ("Crypto and JWTs (swift-crypto with its BoringSSL, jwt-kit)",
     {"Crypto", "CryptoExtras", "_CryptoExtras", "CCryptoBoringSSL", "CCryptoBoringSSLShims", "CryptoBoringWrapper",
      "JWTKit", "_CertificateInternals", "X509", "SwiftASN1", "_CryptoExtrasNoFoundation"}),
    ("Logging, tracing, collections, algorithms",
     {"Logging", "Tracing", "Instrumentation", "ServiceContextModule", "DequeModule", "InternalCollectionsUtilities",
      "Algorithms", "RealModule", "_NumericsShims", "OrderedCollections", "BasicContainers"}),
    ("Swift runtime, standard library and Foundation (static)",
     {"runtime", "Swift", "_Concurrency", "_StringProcessing", "_RegexParser", "FoundationEssentials",
      "FoundationInternationalization", "_FoundationCShims", "Synchronization", "Dispatch", "_FoundationCollections",
      "SwiftShims", "Glibc", "_Volatile"}),
]


def swift_module(name):
    """The module of a mangled Swift symbol, or None."""
    m = re.match(r"^\$s(?:(\d+)([A-Za-z_]\w*))", name)
    if not m:
        return None
    n = int(m.group(1))
    return m.group(2)[:n]


def owner(name):
    if name.startswith("$s"):
        module = swift_module(name)
        if module:
            return {"s": "Swift", "Sc": "_Concurrency"}.get(module, module)
        if name.startswith("$sS") or re.match(r"^\$s[A-Za-z]", name):
            return "Swift"  # standard-library substitutions ($sSS, $sSa, ...)
        return "Swift"
    if name.startswith("CNIOBoringSSL_") or "13CNIOBoringSSL" in name:
        return "CNIOBoringSSL"
    if name.startswith("CCryptoBoringSSL_") or "16CCryptoBoringSSL" in name:
        return "CCryptoBoringSSL"
    if "llhttp" in name:
        return "CNIOLLHTTP"
    if name.startswith("_dispatch") or name.startswith("dispatch_") or "swift_stdlib" in name or "swiftBacktrace" in name:
        return "runtime"
    if name.startswith("swift_") or name.startswith("_swift_") or name.startswith("__swift_") or \
            name.startswith("_ZN5swift") or name.startswith("_ZNK5swift") or "swift" in name.lower():
        return "runtime"
    if name.startswith("quire_"):
        return "Quire"
    if name.startswith("c_nio_") or name.startswith("CNIO"):
        return "CNIOPosix"
    if name.startswith("llhttp") or name.startswith("c_nio_llhttp"):
        return "CNIOLLHTTP"
    return "other C"


def main(argv):
    if len(argv) > 1:
        binary = argv[1]
    else:
        found = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "build", "lib", "libquire.so.*")))
        if not found:
            raise SystemExit("size_report: no build/lib/libquire.so.*: run make, or name a binary")
        binary = found[0]
    out = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    by_owner = defaultdict(int)
    seen = set()
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) != 4:
            continue
        address, size, kind, name = parts
        if kind in "bB":  # .bss: no bytes in the file
            continue
        key = (address, size)
        if key in seen:  # aliases of one symbol
            continue
        seen.add(key)
        by_owner[owner(name)] += int(size, 16)
    # The bytes the stripped binary holds: what is loaded (sections with an address) that
    # the file stores, without symbol tables and debug information.
    sections = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    loaded = 0
    for line in sections.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and int(m.group(3), 16) != 0 and m.group(2) != "NOBITS":
            loaded += int(m.group(4), 16)
    grouped = []
    used = set()
    for title, members in GROUPS:
        total = sum(v for k, v in by_owner.items() if k in members)
        used |= members
        grouped.append((title, total))
    rest = sum(v for k, v in by_owner.items() if k not in used)
    attributed = sum(by_owner.values())
    print("%s: %.1f MB loaded (code, data and metadata, as installed: no symbols, no debug information)"
          % (os.path.basename(binary), loaded / 1e6))
    print("%-78s %8s %6s" % ("part", "MB", "share"))
    for title, total in grouped + [("other (libraries not listed, C code without a prefix)", rest),
                                   ("unattributed (no symbol: section headers, padding, unnamed metadata)",
                                    max(0, loaded - attributed))]:
        print("%-78s %8.1f %5.0f%%" % (title, total / 1e6, 100.0 * total / loaded if loaded else 0))
    if "-v" in argv:
        for k, v in sorted(by_owner.items(), key=lambda kv: -kv[1])[:40]:
            print("  %-40s %8.2f MB" % (k, v / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main([a for a in sys.argv]))
