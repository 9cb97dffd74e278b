"""Shared fixtures of the Python binding's tests.

Run from the repository root, after `make`:

    PYTHONPATH=bindings/python python3 -m pytest -q Tests/python

or against a library outside the repository (Tests/README.md):

    QUIRE_LIBRARY=/path/to/libquire.so.0.5 PYTHONPATH=bindings/python python3 -m pytest Tests/python
    python3 -m pytest Tests/python      # with a quire wheel installed and no PYTHONPATH

The tests use real PDFs from the shared corpus at ``<repo>/../shared/corpus`` (tests that
need it are skipped, with the reason, when it is absent) and ``examples/sample.pdf`` when
the repository ships it. Expected values were checked against the corpus manifest (the
consensus of pikepdf, PDFium and MuPDF) and, for boxes and metadata that the manifest does
not record, against pypdfium2 and pypdf; test_corpus.py re-checks the page counts against
the manifest on every run. What the suites share (paths, the package under test, the rule
for a missing peer, tokens, servers) is in Tests/support/quire_testing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Dict

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from quire_testing.library import import_quire  # noqa: E402
from quire_testing.paths import BINDING_DIR, CORPUS, HEADER, MANIFEST, REPO, SAMPLE  # noqa: E402,F401
from quire_testing.paths import corpus_file, read_manifest  # noqa: E402
from quire_testing.plugin import pytest_report_header, pytest_runtest_call, pytest_runtest_setup  # noqa: E402,F401

# The package under test: PYTHONPATH's, else an installed one, else the repository's (a
# missing library fails here, once, with the loader's message).
import_quire()

# The fonts that poppler (pdftoppm) substitutes for fonts a PDF does not embed: the
# DejaVu families of Debian's fonts-dejavu-core only (scripts/install-deps.sh installs it),
# through a fontconfig file of their own, whatever else the machine has. The renderings
# the tests compare (flattened pages, generated appearances) used to depend on the fonts
# installed: on a machine with a Hebrew font, poppler drew the Hebrew value of
# bug_725389.pdf's field, which Quire's appearance draws as '?', and the page differed by
# 0.51% where the tolerance is 0.5% (issue 40); with these fonts, 0.37% (Debian 12's poppler).
# pypdfium2 and PyMuPDF carry their own fonts and do not read fontconfig.
PINNED_FONTS = Path("/usr/share/fonts/truetype/dejavu")


def _pin_fonts() -> None:
    import os
    import tempfile

    if not PINNED_FONTS.is_dir():
        return  # the rendering tests then fail with the reason (pinned_fonts below)
    directory = Path(tempfile.mkdtemp(prefix="quire-fonts-"))
    conf = directory / "fonts.conf"
    # The system's rules (aliases such as ZapfDingbats, the families' fallbacks: without
    # them poppler drew no check marks), the pinned directory as the only system one.
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        '  <include ignore_missing="yes">/etc/fonts/conf.d</include>\n'
        "  <dir>%s</dir>\n  <cachedir>%s</cachedir>\n</fontconfig>\n" % (PINNED_FONTS, directory / "cache")
    )
    os.environ["FONTCONFIG_FILE"] = str(conf)


_pin_fonts()


def pinned_fonts() -> None:
    """Fails the calling test unless the pinned fonts are there (poppler's renderings are
    then the same on every machine)."""
    if not PINNED_FONTS.is_dir():
        pytest.fail("%s is missing: install fonts-dejavu-core (scripts/install-deps.sh test), whose fonts "
                    "the rendering tests pin" % PINNED_FONTS)

# The corpus files the tests use (paths relative to the corpus).
ANNOTS = "pdfium/testing/resources/annots.pdf"  # 2 pages, 9 + 3 annotations, PDF 1.7
OUTLINE = "pypdf/resources/outline-without-title.pdf"  # 4 pages, A4, PDF 1.5
BOXES = "qpdf/qpdf/qtest/qpdf/boxes.pdf"  # 8 pages with crop, bleed and trim boxes
ROTATIONS = "qpdf/qpdf/qtest/qpdf/fxo-red-rotate.pdf"  # 16 pages, /Rotate 540, -450, 990...
INHERITED_ROTATE = "qpdf/qpdf/qtest/qpdf/inherited-rotate.pdf"  # page /Rotate 90 over 270
NEGATIVE_ROTATE = "pdfium/testing/resources/bug_713197.pdf"  # /Rotate -90, inherited 600x800
NO_MEDIABOX = "pdfium/testing/resources/viewer_pref_types.pdf"  # a page without /MediaBox
REPORTLAB = "pypdf/resources/reportlab-inline-image.pdf"  # /Info with 9 entries
UTF16_METADATA = "pypdf/resources/metadata.pdf"  # /Info in UTF-16BE
UTF8_METADATA = "pdfium/testing/resources/utf-8.pdf"  # /Producer in UTF-8 with a BOM
ESCAPED_METADATA = "qpdf/qpdf/qtest/qpdf/empty-stream-uncompressed.pdf"  # \( \) in /Creator
DAMAGED = "qpdf/qpdf/qtest/qpdf/bad2.pdf"  # "farbage" instead of startxref: must be repaired
ENCRYPTED = "qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf"  # RC4 128, 30 pages




@pytest.fixture(scope="session")
def corpus() -> Callable[[str], Path]:
    """``corpus(relative_path)`` -> the absolute path of a corpus file; skips the test
    when the corpus, or that file, is absent."""
    if not CORPUS.is_dir():
        pytest.skip("the PDF corpus is not at %s (it ships beside the repository as shared/corpus)" % CORPUS)
    return corpus_file


@pytest.fixture(scope="session")
def manifest() -> Dict[str, Dict[str, Any]]:
    """The corpus manifest, by path."""
    return read_manifest()


@pytest.fixture(scope="session")
def annots_pdf(corpus: Callable[[str], Path]) -> Path:
    """annots.pdf: 2 pages of 612x792, with 9 and 3 annotations, PDF 1.7, no /Info."""
    return corpus(ANNOTS)


@pytest.fixture(scope="session")
def sample_pdf() -> Path:
    """examples/sample.pdf (a copy of annots.pdf) when the repository ships it, else
    annots.pdf from the corpus."""
    if SAMPLE.is_file():
        return SAMPLE
    fallback = CORPUS / ANNOTS
    if not fallback.is_file():
        pytest.skip("neither %s nor %s exists" % (SAMPLE, fallback))
    return fallback


def pdf_from_objects(objects: Dict[int, bytes], trailer: bytes = b"/Root 1 0 R") -> bytes:
    """A PDF written by hand from ``{number: body}``, with a correct classic xref table (a
    number without a body is free)."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets: Dict[int, int] = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    size = max(objects) + 1
    xref = len(out)
    out += b"xref\n0 %d\n" % size
    for number in range(size):
        out += b"%010d 00000 n \n" % offsets[number] if number in offsets else b"0000000000 65535 f \n"
    out += b"trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n" % (size, trailer, xref)
    return bytes(out)


def page_tree_pdf(count: bytes, pages: int, annotated: int = -1, extra_catalog: bytes = b"") -> bytes:
    """A PDF whose page tree root has ``/Count <count>`` (raw PDF syntax; empty: no /Count)
    over ``pages`` pages of 612x792. Page ``annotated`` has one Text annotation."""
    kids = b" ".join(b"%d 0 R" % (10 + i) for i in range(pages))
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R %s >>" % extra_catalog,
        2: b"<< /Type /Pages /Kids [%s] %s /MediaBox [0 0 612 792] >>" % (kids, b"/Count " + count if count else b""),
        3: b"<< /Type /Annot /Subtype /Text /Rect [72 700 96 724] /Contents (hello) /NM (n1) >>",
    }
    for i in range(pages):
        annots = b" /Annots [3 0 R]" if i == annotated else b""
        objects[10 + i] = b"<< /Type /Page /Parent 2 0 R%s >>" % annots
    return pdf_from_objects(objects)
