"""Documents: opening from a path or bytes, and the document-level properties, checked
against the corpus manifest (pikepdf, PDFium, MuPDF) and, for metadata, pypdfium2/pypdf."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import quire

from conftest import DAMAGED, ENCRYPTED, ESCAPED_METADATA, NO_MEDIABOX, OUTLINE, REPORTLAB, UTF8_METADATA, UTF16_METADATA


def test_version():
    version = quire.version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    major, minor, patch = (int(part) for part in version.split("."))
    assert quire.version_number() == major * 1000000 + minor * 1000 + patch
    assert major == quire._raw.QUIRE_VERSION_MAJOR


def _check_annots(document: quire.Document) -> None:
    assert document.page_count == 2
    assert document.pdf_version == "1.7"
    assert document.is_encrypted is False
    assert document.is_repaired is False
    assert document.warnings == []
    assert document.metadata == {}  # no /Info


def test_open_from_str_path(annots_pdf: Path):
    with quire.Document(str(annots_pdf)) as document:
        _check_annots(document)
        assert document.name == str(annots_pdf)


def test_open_from_pathlib_path(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        _check_annots(document)
    with quire.Document.open(annots_pdf) as document:
        _check_annots(document)


def test_open_from_bytes(annots_pdf: Path):
    data = annots_pdf.read_bytes()
    with quire.Document(data) as document:
        _check_annots(document)
        assert document.name is None
    with quire.Document.from_bytes(bytearray(data)) as document:
        _check_annots(document)
    with quire.Document.from_bytes(memoryview(data)) as document:
        _check_annots(document)


def test_bytes_are_copied(annots_pdf: Path):
    data = bytearray(annots_pdf.read_bytes())
    document = quire.Document(data)
    data[:] = b"\0" * len(data)
    assert document.page_count == 2
    assert document.pages[1].annotation_count == 3
    document.close()


def test_sample_pdf_opens(sample_pdf: Path, annots_pdf: Path):
    with quire.Document(sample_pdf) as document:
        if sample_pdf.read_bytes() == annots_pdf.read_bytes():
            _check_annots(document)
        else:  # examples/sample.pdf was changed: it must still open
            assert document.page_count >= 1


def test_outline_without_title(corpus):
    with quire.Document(corpus(OUTLINE)) as document:
        assert document.page_count == 4
        assert document.pdf_version == "1.5"
        assert not document.is_encrypted


def test_metadata_in_file_order(corpus):
    # Peers: pypdfium2 and pypdf give the same values (pypdf writes /False as "/False").
    with quire.Document(corpus(REPORTLAB)) as document:
        metadata = document.metadata
    assert list(metadata) == [
        "Author", "CreationDate", "Creator", "Keywords", "ModDate", "Producer", "Subject", "Title", "Trapped",
    ]
    assert metadata["Author"] == "anonymous"
    assert metadata["CreationDate"] == "D:20220415133024-01'00'"
    assert metadata["Creator"] == "ReportLab PDF Library - www.reportlab.com"
    assert metadata["Keywords"] == ""
    assert metadata["ModDate"] == "D:20220415133024-01'00'"
    assert metadata["Producer"] == "ReportLab PDF Library - www.reportlab.com"
    assert metadata["Subject"] == "unspecified"
    assert metadata["Title"] == "untitled"
    # A name, "as its PDF text" (the header): Quire gives "False" (pypdf writes "/False").
    assert metadata["Trapped"] == "False"


def test_metadata_utf16(corpus):
    with quire.Document(corpus(UTF16_METADATA)) as document:
        metadata = document.metadata
    assert metadata["Title"] == "The Title"
    assert metadata["Author"] == "Martin Thoma"
    assert metadata["Subject"] == "The Subject"
    assert metadata["Keywords"] == "Some Keywords, other keywords; more keywords"
    assert metadata["Creator"] == "pdflatex, or other tool"
    assert metadata["Producer"] == "Latex with hyperref, or other system"
    assert metadata["CreationDate"] == "D:20220415093243+02'00'"
    assert metadata["PTEX.Fullbanner"] == (
        "This is pdfTeX, Version 3.141592653-2.6-1.40.23 (TeX Live 2021) kpathsea version 6.3.3"
    )


def test_metadata_utf8_with_bom(corpus):
    with quire.Document(corpus(UTF8_METADATA)) as document:
        assert document.metadata == {"Producer": "Man\u00fcally Created"}


def test_metadata_escapes(corpus):
    with quire.Document(corpus(ESCAPED_METADATA)) as document:
        metadata = document.metadata
    assert metadata["Title"] == "about:blank"
    assert metadata["Producer"] == "Skia/PDF m135"
    assert metadata["Creator"] == (
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/135.0.0.0 Safari/537.36"
    )


def test_damaged_file_is_repaired_with_warnings(corpus):
    # bad2.pdf has "farbage 542" where "startxref 542" belongs; every peer repairs it.
    with quire.Document(corpus(DAMAGED)) as document:
        assert document.page_count == 1
        assert document.is_repaired is True
        warnings = document.warnings
        assert warnings and all(isinstance(w, str) and w for w in warnings)
        assert document.pages[0].media_box == (0, 0, 612, 792)


def test_missing_mediabox_is_letter_with_a_warning(corpus):
    with quire.Document(corpus(NO_MEDIABOX)) as document:
        page = document.pages[0]
        assert page.media_box == (0, 0, 612, 792)
        assert page.crop_box == (0, 0, 612, 792)
        assert document.warnings, "the header promises a warning for a missing /MediaBox"


def test_warnings_is_a_fresh_list(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        first = document.warnings
        first.append("mine")
        assert document.warnings == []


@pytest.mark.parametrize("password", ["view", "master", b"view"])
def test_encrypted_with_password(corpus, password):
    with quire.Document(corpus(ENCRYPTED), password=password) as document:
        assert document.is_encrypted is True
        assert document.page_count == 30
        assert document.pdf_version == "1.4"
    with quire.Document.from_bytes(corpus(ENCRYPTED).read_bytes(), password) as document:
        assert document.page_count == 30


def test_repr(annots_pdf: Path):
    document = quire.Document(annots_pdf)
    assert "open" in repr(document) and str(annots_pdf) in repr(document)
    document.close()
    assert "closed" in repr(document)
    assert "<bytes>" in repr(quire.Document(annots_pdf.read_bytes()))
