"""Pages: the sequence, boxes, rotation and annotation counts. Boxes and rotations were
checked against pypdfium2 (and pypdf, for inherited boxes, which PDFium's
FPDFPage_GetMediaBox does not inherit), annotation counts against the corpus manifest.
The page count follows the page tree root's /Count as PDFium does (files built here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import quire

from conftest import BOXES, INHERITED_ROTATE, NEGATIVE_ROTATE, OUTLINE, ROTATIONS, page_tree_pdf

LETTER = quire.Rect(0, 0, 612, 792)


def test_pages_sequence(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        pages = document.pages
        assert len(pages) == 2
        assert [page.index for page in pages] == [0, 1]
        assert pages[0].index == 0 and pages[1].index == 1
        assert pages[-1].index == 1 and pages[-2].index == 0
        assert pages[-1] == pages[1] and pages[0] != pages[1]
        assert hash(pages[-1]) == hash(pages[1])
        assert len({pages[0], pages[0], pages[1]}) == 2
        assert [page.index for page in pages[::-1]] == [1, 0]
        assert [page.index for page in pages[1:]] == [1]
        assert pages[5:] == []
        assert [page.index for page in reversed(pages)] == [1, 0]
        assert pages[0] in pages
        assert all(page.document is document for page in pages)
        for bad in (2, -3, 100):
            with pytest.raises(IndexError) as info:
                pages[bad]
            assert isinstance(info.value, quire.IndexOutOfRangeError)
        with pytest.raises(TypeError):
            pages["0"]  # type: ignore[index]


def test_annots_pages(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        pages = list(document.pages)
        # /MediaBox and /CropBox are inherited from the page tree root.
        for page in pages:
            assert page.media_box == LETTER
            assert page.crop_box == LETTER
            assert page.bleed_box == LETTER
            assert page.trim_box == LETTER
            assert page.art_box == LETTER
            assert page.rotation == 0
        # Manifest: annots_per_page {"0": 9, "1": 3}, annots_total 12 (every peer).
        assert [page.annotation_count for page in pages] == [9, 3]
        assert sum(page.annotation_count for page in pages) == 12


def test_boxes(corpus):
    with quire.Document(corpus(BOXES)) as document:
        assert document.page_count == 8
        for page in document.pages:
            expected_media = (0, 0, 612, 792) if page.index < 4 else (-10, -20, 642, 832)
            assert page.media_box == expected_media
            assert page.crop_box == (10, 20, 582, 752)
            assert page.bleed_box == (20, 40, 552, 712)
            assert page.trim_box == (30, 60, 522, 672)
            assert page.art_box == page.crop_box  # no /ArtBox: the crop box
            assert page.rotation == [0, 90, 180, 270][page.index % 4]
            assert page.box(quire.Box.TRIM) == page.trim_box
            assert page.box(int(quire.Box.TRIM)) == page.trim_box  # the C value, 0x0603
            assert page.box() == page.media_box


def test_rect():
    with_size = quire.Rect(10, 20, 582, 752)
    assert (with_size.width, with_size.height) == (572, 732)
    left, bottom, right, top = with_size
    assert (left, bottom, right, top) == (10, 20, 582, 752)
    assert with_size._fields == ("left", "bottom", "right", "top")
    assert with_size == (10, 20, 582, 752)


def test_unknown_box_is_invalid_argument(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        with pytest.raises(quire.InvalidArgumentError) as info:
            document.pages[0].box(99)
        assert info.value.code == quire._raw.QUIRE_EINVAL and info.value.message


def test_a4_float_boxes(corpus):
    with quire.Document(corpus(OUTLINE)) as document:
        for page in document.pages:
            box = page.media_box
            assert box[:2] == (0, 0)
            # /MediaBox [0 0 595.276 841.89]; pypdfium2 reports it as float32.
            assert box.right == pytest.approx(595.276, abs=1e-3)
            assert box.top == pytest.approx(841.89, abs=1e-3)
            assert page.crop_box == box


def test_rotations_are_normalised(corpus):
    # /Rotate 90, 540, -450, 990, -90, -270, ... with inheritance; pypdfium2 gives these.
    with quire.Document(corpus(ROTATIONS)) as document:
        assert [page.rotation for page in document.pages] == [0] * 4 + [90] * 4 + [180] * 4 + [270] * 4


def test_inherited_rotate_is_overridden_by_the_page(corpus):
    with quire.Document(corpus(INHERITED_ROTATE)) as document:
        assert document.pages[0].rotation == 90


def test_negative_rotate_and_inherited_media_box(corpus):
    with quire.Document(corpus(NEGATIVE_ROTATE)) as document:
        page = document.pages[0]
        assert page.rotation == 270  # /Rotate -90
        assert page.media_box == (0, 0, 600, 800)  # from the /Pages node (pypdf agrees)
        assert page.crop_box == (0, 0, 600, 800)


def test_page_repr(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        assert "Page 1" in repr(document.pages[1])
        assert "PageList" in repr(document.pages)


# -- The page count: the root's /Count when it is usable, as in PDFium -----------------------


def test_count_larger_than_the_tree_counts_missing_pages():
    # /Count 5 over a tree of 2 pages: PDFium and MuPDF report 5 pages, and cannot load the
    # last 3. So does Quire: the missing pages are in doc.pages, and reading them raises.
    labels = b"/PageLabels << /Nums [0 << /S /r >>] >>"
    with quire.Document.from_bytes(page_tree_pdf(b"5", 2, annotated=1, extra_catalog=labels)) as document:
        assert document.page_count == 5
        pages = document.pages
        assert len(pages) == 5
        assert [page.index for page in pages] == [0, 1, 2, 3, 4]  # iterating never raises
        assert [page.label for page in pages] == ["i", "ii", "iii", "iv", "v"]
        assert pages[0].media_box == LETTER and pages[1].annotation_count == 1
        for page in (pages[2], pages[-1]):
            for read in (lambda: page.media_box, lambda: page.rotation, lambda: page.annotation_count,
                         lambda: page.annotations, lambda: page.box(quire.Box.TRIM)):
                with pytest.raises(quire.NotFoundError) as info:
                    read()
                assert info.value.code == quire.NotFoundError.status
                assert "counted by the page tree's /Count (5) but the tree holds only 2 pages" in info.value.message
        with pytest.raises(quire.IndexOutOfRangeError):
            pages[5]
        assert any("/Count says 5" in w for w in document.warnings)
        # Whole-document operations read the pages that exist.
        assert [a.contents for a in document.search_annotations("hello")] == ["hello"]
        exported = json.loads(document.export_annotations_json())
        assert exported["quire"]["pageCount"] == 5
        assert [r["pageIndex"] for r in exported["annotations"]] == [1]
        with pytest.raises(quire.NotFoundError):
            document.export_annotations_json(3)
        # A bookmark to a missing page is refused like one past the last page.
        with pytest.raises(quire.IndexOutOfRangeError, match="holds only 2 pages"):
            document.bookmarks.add(quire.Bookmark.for_page(2))
        with pytest.raises(quire.IndexOutOfRangeError):
            document.bookmarks.add(quire.Bookmark.for_page(5))
        document.bookmarks.add(quire.Bookmark.for_page(1))
        # Nor can an annotation go to a missing page.
        with pytest.raises(quire.NotFoundError):
            document.add_annotation(quire.Annotation.new("Text", 3, (72, 700, 96, 724)))


def test_count_smaller_than_the_tree_hides_the_rest():
    # /Count 1 over 3 pages: PDFium shows 1 page, and so does Quire (with a warning).
    with quire.Document.from_bytes(page_tree_pdf(b"1", 3, annotated=2)) as document:
        assert document.page_count == 1
        assert len(list(document.pages)) == 1
        with pytest.raises(quire.IndexOutOfRangeError):
            document.pages[1]
        assert document.search_annotations("hello") == []  # on the third page: unreachable
        assert any("not reachable" in w for w in document.warnings)


@pytest.mark.parametrize("count", [b"", b"0", b"-2", b"2000000", b"(3)", b"3.5", b"[3]"])
def test_count_that_cannot_be_used_is_replaced_by_the_tree(count: bytes):
    with quire.Document.from_bytes(page_tree_pdf(count, 3)) as document:
        assert document.page_count == 3
        assert [page.media_box for page in document.pages] == [LETTER] * 3
        assert any("/Count" in w for w in document.warnings) == (count != b"")


def test_count_past_max_pages_is_not_trusted():
    data = page_tree_pdf(b"5", 2)
    with quire.Document.from_bytes(data, max_pages=4) as document:
        assert document.page_count == 2  # 5 > max_pages: the tree's pages
    with quire.Document.from_bytes(data, max_pages=5) as document:
        assert document.page_count == 5
