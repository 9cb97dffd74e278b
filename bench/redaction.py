#!/usr/bin/env python3
"""Redaction beside PyMuPDF (issue 38): the same word redacted on the same files by Quire
(`Document.add_redactions` + `apply_redactions` + a full save) and by PyMuPDF
(`Page.search_for` + `add_redact_annot` + `apply_redactions` + `tobytes(garbage=3)`),
each on every page. For each file and library: the median time of `--runs` runs (in this
process, alternating), and what the output leaves: whether PDFium and MuPDF still extract
the word, whether a decompressed stream holds it (pikepdf), and how many characters that
PDFium extracted away from the word's boxes before moved by more than 0.5 pt or went.

Usage: PYTHONPATH=bindings/python python3 bench/redaction.py [--runs N] [FILE...]
(default: the corpus files of Tests/python/test_redaction.py). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import io
import re
import statistics
import sys
import time
from pathlib import Path

import pikepdf
import pymupdf
import pypdfium2 as pdfium

import quire

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
FILES = [
    "pypdf/resources/issue-301.pdf",
    "pdfplumber/tests/pdfs/issue-842-example.pdf",
    "pdfminer/samples/contrib/issue-598-cmap-other-fonts.pdf",
    "pypdf/resources/example.pdf",
    "pdfbox/pdfbox/src/test/resources/input/rendering/source.pdf",
    "pdfannots/tests/issue61.pdf",
]


def chars(data: bytes):
    doc = pdfium.PdfDocument(data)
    try:
        out = []
        for p in range(len(doc)):
            t = doc[p].get_textpage()
            for i in range(t.count_chars()):
                c = t.get_text_range(i, 1)
                if c.strip():
                    out.append((p, c, t.get_charbox(i)))
        return out, "".join(doc[p].get_textpage().get_text_range() for p in range(len(doc)))
    finally:
        doc.close()


def with_quire(data: bytes, word: str) -> bytes:
    with quire.Document.from_bytes(data) as doc:
        doc.add_redactions(word)
        doc.apply_redactions()
        return doc.save_to_bytes(full=True)


def with_mupdf(data: bytes, word: str) -> bytes:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for page in doc:
            for r in page.search_for(word):
                page.add_redact_annot(r, fill=(0, 0, 0))
            page.apply_redactions()
        return doc.tobytes(garbage=3, deflate=True)


def boxes_of(data: bytes, word: str):
    """The word's boxes by PDFium, per page: what each library had to remove."""
    out = []
    doc = pdfium.PdfDocument(data)
    try:
        for p in range(len(doc)):
            t = doc[p].get_textpage()
            s = t.search(word, match_case=False)
            while True:
                m = s.get_next()
                if m is None:
                    break
                first, count = m
                for i in range(first, first + count):
                    out.append((p, t.get_charbox(i)))
    finally:
        doc.close()
    return out


def leaves(before: bytes, after: bytes, word: str) -> dict:
    old, _ = chars(before)
    new, text = chars(after)
    regions = boxes_of(before, word)

    def near(p, b):
        return any(
            q == p and min(b[2], r[2]) + 1 > max(b[0], r[0]) and min(b[3], r[3]) + 1 > max(b[1], r[1])
            for q, r in regions
        )

    pool = list(new)
    moved = 0
    for p, c, b in old:
        if near(p, b):
            continue
        k = next(
            (
                i
                for i, (p2, c2, b2) in enumerate(pool)
                if p2 == p and c2 == c and all(abs(b[j] - b2[j]) <= 0.5 for j in range(4))
            ),
            None,
        )
        if k is None:
            moved += 1
        else:
            pool.pop(k)
    with pymupdf.open(stream=after, filetype="pdf") as doc:
        mupdf_text = "".join(p.get_text() for p in doc)
    in_stream = False
    with pikepdf.open(io.BytesIO(after)) as pdf:
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Stream):
                try:
                    data = obj.read_bytes()
                except pikepdf.PdfError:
                    continue
                raw = word.encode("latin-1", "replace")
                if raw in data or raw.hex().encode() in data.lower():
                    in_stream = True
    return {
        "pdfium": word.lower() in text.lower(),
        "mupdf": word.lower() in mupdf_text.lower(),
        "stream": in_stream,
        "moved": moved,
        "outside": sum(1 for p, c, b in old if not near(p, b)),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = [Path(f) for f in args.files] or [CORPUS / f for f in FILES]
    print(
        "| file | word | library | median time | ratio to Quire | PDFium finds it | MuPDF finds it | in a stream | chars outside moved or gone |"
    )
    print("| --- | --- | --- | ---: | ---: | --- | --- | --- | ---: |")
    for path in files:
        data = path.read_bytes()
        _, text = chars(data)
        words = re.findall(r"[A-Za-z]{5,}", text)
        if not words:
            continue
        word = max(words, key=len)
        times = {"Quire": [], "PyMuPDF": []}
        outputs = {}
        for _ in range(args.runs):
            for name, fn in (("Quire", with_quire), ("PyMuPDF", with_mupdf)):
                t0 = time.perf_counter()
                outputs[name] = fn(data, word)
                times[name].append(time.perf_counter() - t0)
        base = statistics.median(times["Quire"])
        for name in ("Quire", "PyMuPDF"):
            m = statistics.median(times[name])
            left = leaves(data, outputs[name], word)
            rel = path.relative_to(CORPUS) if CORPUS in path.parents else path
            print(
                "| %s | %s | %s | %.1f ms | %.2f | %s | %s | %s | %d of %d |"
                % (
                    rel,
                    word,
                    name,
                    m * 1000,
                    m / base,
                    "yes" if left["pdfium"] else "no",
                    "yes" if left["mupdf"] else "no",
                    "yes" if left["stream"] else "no",
                    left["moved"],
                    left["outside"],
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
