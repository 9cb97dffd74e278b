"""Damaged cross-references that PDFium and MuPDF open (issue 17): the files of
Tests/QuireDocumentTests/DamagedXRefTests.swift, built again here byte for byte in the same
way, opened by Quire and by PDFium (pypdfium2), and by MuPDF (pymupdf) where it is
installed. Quire must count the pages the file was built with, and so must PDFium; MuPDF
counts 0 for two of them (noted below), which is not held against Quire."""

from __future__ import annotations

import zlib
from typing import Callable, Dict, List, Optional, Tuple

import pytest

import quire

from pdfpeers import PeerMissing, pdfium_module


class Builder:
    """The Swift tests' PDFBuilder: objects appended with their offsets recorded."""

    def __init__(self) -> None:
        self.bytes = bytearray(b"%PDF-1.7\n%\xe2\xe3\n")
        self.offsets: Dict[int, int] = {}

    def append(self, text: str) -> None:
        self.bytes += text.encode("latin-1")

    def object(self, number: int, body: str) -> None:
        self.offsets[number] = len(self.bytes)
        self.append("%d 0 obj\n%s\nendobj\n" % (number, body))

    def stream(self, number: int, entries: str, data: bytes) -> None:
        self.offsets[number] = len(self.bytes)
        self.append("%d 0 obj\n<< %s /Length %d >>\nstream\n" % (number, entries, len(data)))
        self.bytes += data
        self.append("\nendstream\nendobj\n")


def entry(offset: Optional[int]) -> str:
    return "0000000000 65535 f \n" if offset is None else "%010d 00000 n \n" % offset


# Rows of an xref stream with /W [1 4 2]: ("f",), ("n", offset), ("c", stream, index).
Row = Tuple


def row_bytes(row: Row) -> bytes:
    if row[0] == "f":
        return bytes([0]) + (0).to_bytes(4, "big") + (65535).to_bytes(2, "big")
    if row[0] == "n":
        return bytes([1]) + row[1].to_bytes(4, "big") + (0).to_bytes(2, "big")
    return bytes([2]) + row[1].to_bytes(4, "big") + row[2].to_bytes(2, "big")


def xref_stream(b: Builder, number: int, rows: List[Row], extra: str = "") -> None:
    start = len(b.bytes)
    b.offsets[number] = start
    data = zlib.compress(b"".join(row_bytes(r) for r in rows))
    size = "" if "/Size" in extra else "/Size %d " % len(rows)
    b.append("%d 0 obj\n<< /Type /XRef %s%s /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length %d >>\nstream\n"
             % (number, size, extra, len(data)))
    b.bytes += data
    b.append("\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % start)


def page_objects(b: Builder, pages: int = 1) -> None:
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join("%d 0 R" % (3 + p) for p in range(pages))
    b.object(2, "<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages))
    for p in range(pages):
        b.object(3 + p, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")


def packed_tree(b: Builder, pages: int, stream: int) -> None:
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join("%d 0 R" % (3 + p) for p in range(pages))
    bodies = ["<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages)]
    bodies += ["<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>"] * pages
    header, data = "", ""
    for k, body in enumerate(bodies):
        header += "%d %d " % (2 + k, len(data))
        data += body + " "
    b.stream(stream, "/Type /ObjStm /N %d /First %d /Filter /FlateDecode" % (len(bodies), len(header)),
             zlib.compress((header + data).encode()))


def table_subsection_at_2_to_32() -> bytes:
    b = Builder()
    page_objects(b)
    start = len(b.bytes)
    b.append("xref\n0 4\n" + entry(None) + "".join(entry(b.offsets[n]) for n in (1, 2, 3)))
    b.append("4294967296 2\n" + entry(9) + entry(9))
    b.append("trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % start)
    return bytes(b.bytes)


def xref_stream_absurd(extra: str) -> Callable[[], bytes]:
    def build() -> bytes:
        b = Builder()
        page_objects(b)
        rows = [("f",), ("n", b.offsets[1]), ("n", b.offsets[2]), ("n", b.offsets[3]), ("n", len(b.bytes))]
        xref_stream(b, 4, rows, extra)
        return bytes(b.bytes)
    return build


def absurd_section_older_in_the_chain() -> bytes:
    b = Builder()
    page_objects(b)
    old = len(b.bytes)
    b.append("xref\n4294967296 1\n" + entry(9) + "trailer\n<< /Size 4 /Root 1 0 R >>\n")
    new = len(b.bytes)
    b.append("xref\n0 4\n" + entry(None) + "".join(entry(b.offsets[n]) for n in (1, 2, 3)))
    b.append("trailer\n<< /Size 4 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (old, new))
    return bytes(b.bytes)


def every_entry_points_at_the_table() -> bytes:
    b = Builder()
    page_objects(b, 3)
    start = len(b.bytes)
    b.append("xref\n0 6\n" + entry(None) + entry(start) * 5)
    b.append("trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % start)
    return bytes(b.bytes)


def every_entry_points_at_the_xref_stream() -> bytes:
    b = Builder()
    page_objects(b, 2)
    at = len(b.bytes)
    xref_stream(b, 5, [("f",)] + [("n", at)] * 5)
    return bytes(b.bytes)


def entries_point_at_garbage_and_each_other() -> bytes:
    b = Builder()
    page_objects(b, 2)
    garbage = len(b.bytes)
    b.append("garbage that is not an object\n")
    table = len(b.bytes)
    entries = [None, garbage, b.offsets[3], b.offsets[2], b.offsets[1]]
    b.append("xref\n0 5\n" + "".join(entry(e) for e in entries))
    b.append("trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % table)
    return bytes(b.bytes)


def update_pointing_at_the_sections() -> bytes:
    b = Builder()
    page_objects(b)
    older = len(b.bytes)
    b.append("xref\n0 4\n" + entry(None) + "".join(entry(b.offsets[n]) for n in (1, 2, 3)))
    b.append("trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % older)
    newer = len(b.bytes)
    b.append("xref\n1 2\n" + entry(older) + entry(newer))
    b.append("trailer\n<< /Size 4 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (older, newer))
    return bytes(b.bytes)


def tree_in_itself_packed() -> bytes:
    b = Builder()
    packed_tree(b, 3, 6)
    at = len(b.bytes)
    xref_stream(b, 7, [("f",), ("n", b.offsets[1]), ("c", 2, 0), ("c", 6, 1), ("c", 6, 2), ("c", 6, 3),
                       ("n", b.offsets[6]), ("n", at)])
    return bytes(b.bytes)


def tree_in_itself_plain() -> bytes:
    b = Builder()
    page_objects(b)
    at = len(b.bytes)
    xref_stream(b, 4, [("f",), ("n", b.offsets[1]), ("c", 2, 0), ("n", b.offsets[3]), ("n", at)])
    return bytes(b.bytes)


def object_streams_that_loop() -> bytes:
    b = Builder()
    page_objects(b)
    at = len(b.bytes)
    xref_stream(b, 7, [("f",), ("n", b.offsets[1]), ("c", 5, 0), ("n", b.offsets[3]), ("f",), ("c", 6, 0),
                       ("c", 5, 0), ("n", at)])
    return bytes(b.bytes)


def tree_in_a_stream_that_is_not_one() -> bytes:
    b = Builder()
    page_objects(b, 2)
    at = len(b.bytes)
    xref_stream(b, 5, [("f",), ("n", b.offsets[1]), ("c", 1, 0), ("c", 1, 1), ("n", b.offsets[4]), ("n", at)])
    return bytes(b.bytes)


def object_missing_from_its_stream() -> bytes:
    b = Builder()
    packed_tree(b, 2, 6)
    at = len(b.bytes)
    xref_stream(b, 7, [("f",), ("n", b.offsets[1]), ("c", 6, 0), ("c", 8, 7), ("c", 8, 8), ("f",),
                       ("n", b.offsets[6]), ("n", at)])
    return bytes(b.bytes)


def free_page_tree_root() -> bytes:
    b = Builder()
    page_objects(b)
    table = len(b.bytes)
    b.append("xref\n0 4\n" + "".join(entry(e) for e in [None, b.offsets[1], None, b.offsets[3]]))
    b.append("trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % table)
    return bytes(b.bytes)


def prev_loop_through_self_entries() -> bytes:
    b = Builder()
    page_objects(b)
    section_b = len(b.bytes)

    def b_text(a: int) -> str:
        return ("xref\n2 2\n" + entry(section_b) + entry(section_b)
                + "trailer\n<< /Size 4 /Root 1 0 R /Prev %s >>\n" % entry(a)[:10])

    section_a = section_b + len(b_text(0))
    b.append(b_text(section_a))
    b.append("xref\n0 2\n" + entry(None) + entry(b.offsets[1]))
    b.append("trailer\n<< /Size 4 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (section_b, section_a))
    return bytes(b.bytes)


def prev_is_itself() -> bytes:
    b = Builder()
    page_objects(b)
    at = len(b.bytes)
    b.append("xref\n0 2\n" + entry(None) + entry(b.offsets[1]))
    b.append("trailer\n<< /Size 4 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (at, at))
    return bytes(b.bytes)


# (name, builder, pages, whether MuPDF reads the pages too)
CASES = [
    ("table subsection at 2^32", table_subsection_at_2_to_32, 1, True),
    ("xref stream /Size 3e14", xref_stream_absurd("/Size 300000000000000"), 1, True),
    ("xref stream /Index [0 3e14]", xref_stream_absurd("/Size 5 /Index [0 300000000000000]"), 1, True),
    ("xref stream /Index past 2^32", xref_stream_absurd("/Size 5 /Index [0 5 4294967296 1]"), 1, True),
    ("absurd /Prev section", absurd_section_older_in_the_chain, 1, True),
    ("entries at the table", every_entry_points_at_the_table, 3, True),
    ("entries at the xref stream", every_entry_points_at_the_xref_stream, 2, True),
    ("entries at garbage and each other", entries_point_at_garbage_and_each_other, 2, True),
    ("update at the sections", update_pointing_at_the_sections, 1, True),
    ("tree in itself, packed", tree_in_itself_packed, 3, True),
    ("tree in itself, plain", tree_in_itself_plain, 1, True),
    ("object streams that loop", object_streams_that_loop, 1, True),
    # MuPDF counts 0 pages for these two: it does not scan for an object the
    # cross-reference names as free or as in a non-stream.
    ("tree in a non-stream", tree_in_a_stream_that_is_not_one, 2, False),
    ("free page tree root", free_page_tree_root, 1, False),
    ("object missing from its stream", object_missing_from_its_stream, 2, True),
    ("/Prev loop through self entries", prev_loop_through_self_entries, 1, True),
    # MuPDF counts 0 here: it reads only the newest section of a /Prev loop.
    ("/Prev is itself", prev_is_itself, 1, False),
]


def pdfium_pages(data: bytes) -> Tuple[int, int]:
    """(pages counted, pages that load) as PDFium sees them."""
    pdfium = pdfium_module()
    document = pdfium.PdfDocument(data)
    try:
        loaded = 0
        for index in range(len(document)):
            try:
                document[index].close()
                loaded += 1
            except pdfium.PdfiumError:
                pass
        return len(document), loaded
    finally:
        document.close()


def mupdf_pages(data: bytes) -> int:
    try:
        import pymupdf  # type: ignore[import-not-found]
    except ImportError as error:
        raise PeerMissing("pymupdf is not installed: %s" % error)
    pymupdf.TOOLS.mupdf_display_errors(False)
    with pymupdf.open(stream=data, filetype="pdf") as document:
        return sum(1 for _ in document)


@pytest.mark.parametrize("name,build,pages,mupdf_reads", CASES, ids=[c[0] for c in CASES])
def test_quire_and_pdfium_count_the_pages_built(name: str, build: Callable[[], bytes], pages: int,
                                                 mupdf_reads: bool) -> None:
    data = build()
    with quire.Document.from_bytes(data) as document:
        assert document.page_count == pages
        assert [p.media_box for p in document.pages] == [(0, 0, 200, 300)] * pages
        assert document.is_repaired
    counted, loaded = pdfium_pages(data)
    assert counted == pages
    # PDFium counts the pages of an object stream that does not exist (/Count) but does
    # not look for them elsewhere; MuPDF and Quire do.
    assert loaded == (0 if name == "object missing from its stream" else pages)


@pytest.mark.parametrize("name,build,pages,mupdf_reads", [c for c in CASES if c[3]], ids=[c[0] for c in CASES if c[3]])
def test_mupdf_counts_the_same(name: str, build: Callable[[], bytes], pages: int, mupdf_reads: bool) -> None:
    assert mupdf_pages(build()) == pages


def test_the_limit_holds_for_what_repair_finds() -> None:
    b = Builder()
    page_objects(b)
    b.object(20, "(twenty)")
    start = len(b.bytes)
    b.append("xref\n4294967296 1\n" + entry(9) + "trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % start)
    with pytest.raises(quire.LimitError):
        quire.Document.from_bytes(bytes(b.bytes), max_objects=10)
    with quire.Document.from_bytes(bytes(b.bytes)) as document:
        assert document.page_count == 1
