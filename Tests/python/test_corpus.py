"""Every corpus file the binding's tests use opens with the page count its peers agree on.

The table's expected counts are not taken on trust: test_table_agrees_with_the_manifest
checks each against the manifest's consensus (the majority of pikepdf, PDFium and MuPDF),
or, for files that need a password (which the manifest's peers opened without one, and so
could not count), against the count pypdfium2 gives with the password.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import pytest

import quire

from conftest import (
    ANNOTS,
    BOXES,
    DAMAGED,
    ENCRYPTED,
    ESCAPED_METADATA,
    INHERITED_ROTATE,
    NEGATIVE_ROTATE,
    NO_MEDIABOX,
    OUTLINE,
    REPORTLAB,
    ROTATIONS,
    UTF8_METADATA,
    UTF16_METADATA,
)

# (corpus path, password, expected page count, expected annotations in total)
FILES = [
    (ANNOTS, None, 2, 12),
    (OUTLINE, None, 4, 9),
    (BOXES, None, 8, 0),
    (ROTATIONS, None, 16, 0),
    (INHERITED_ROTATE, None, 1, 0),
    (NEGATIVE_ROTATE, None, 1, 0),
    (NO_MEDIABOX, None, 1, 0),
    (REPORTLAB, None, 1, 0),
    (UTF16_METADATA, None, 1, 0),
    (UTF8_METADATA, None, 1, 0),
    (ESCAPED_METADATA, None, 1, 0),
    (DAMAGED, None, 1, 0),
    # Needs a password; pypdfium2 5.15 with "view" or "master": 30 pages. Its annotations
    # are not in the manifest (no peer opened it without the password): not checked.
    (ENCRYPTED, "view", 30, None),
]

# Checked by hand with pypdfium2, for the files the manifest's peers could not open.
PASSWORD_PAGE_COUNTS = {ENCRYPTED: 30}


def test_table_agrees_with_the_manifest(manifest: Dict[str, Dict[str, Any]]):
    for path, password, pages, annotation_total in FILES:
        row = manifest.get(path)
        assert row is not None, "%s is not in the manifest" % path
        consensus = row["consensus"]
        if password is None:
            assert consensus["opens_core_count"] == 3, path
            assert consensus["page_count_majority"] == pages, path
            assert consensus["annots_total_majority"] == annotation_total, path
        else:
            assert PASSWORD_PAGE_COUNTS[path] == pages


@pytest.mark.parametrize(("path", "password", "pages", "annotations"), FILES, ids=[f[0] for f in FILES])
def test_corpus_file_opens_with_expected_page_count(
    corpus, path: str, password: Optional[str], pages: int, annotations: Optional[int]
):
    with quire.Document(corpus(path), password=password) as document:
        assert document.page_count == pages
        assert len(document.pages) == pages
        if annotations is not None:
            assert sum(page.annotation_count for page in document.pages) == annotations
    # The same from memory.
    with quire.Document.from_bytes(corpus(path).read_bytes(), password) as document:
        assert document.page_count == pages
