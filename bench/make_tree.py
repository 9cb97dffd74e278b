#!/usr/bin/env python3
"""Writes balanced.pdf: 3,000 pages in a balanced page tree (the root over 10 nodes, each
over 10 nodes, each over 30 pages), as LaTeX and Acrobat write trees, for profiling the
page lookup (bench/PROFILE.md). Plain objects and a cross-reference table; each page has
a /MediaBox of its own and no content.

    bench/make_tree.py OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path


def build() -> bytes:
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\n")
    offsets = {}

    def obj(number: int, body: str) -> None:
        offsets[number] = len(out)
        out.extend(b"%d 0 obj\n%s\nendobj\n" % (number, body.encode()))

    obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, "<< /Type /Pages /Kids [%s] /Count 3000 >>" % " ".join("%d 0 R" % n for n in range(3, 13)))
    for a in range(10):
        kids = " ".join("%d 0 R" % (13 + a * 10 + k) for k in range(10))
        obj(3 + a, "<< /Type /Pages /Parent 2 0 R /Kids [%s] /Count 300 >>" % kids)
    for n in range(100):
        kids = " ".join("%d 0 R" % (113 + n * 30 + k) for k in range(30))
        obj(13 + n, "<< /Type /Pages /Parent %d 0 R /Kids [%s] /Count 30 >>" % (3 + n // 10, kids))
    for p in range(3000):
        obj(113 + p, "<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] >>" % (13 + p // 30))
    size = 113 + 3000
    start = len(out)
    out.extend(b"xref\n0 %d\n0000000000 65535 f \n" % size)
    for n in range(1, size):
        out.extend(b"%010d 00000 n \n" % offsets[n])
    out.extend(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, start))
    return bytes(out)


if __name__ == "__main__":
    directory = Path(sys.argv[1] if len(sys.argv) > 1 else "build/bench")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "balanced.pdf").write_bytes(build())
    print(directory / "balanced.pdf")
