"""The outline (bookmarks) and page labels, against pypdf (and pikepdf for whether a
document has page labels at all)."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import pytest

import quire
from quire import Action, OutlineItem

from conftest import ANNOTS, OUTLINE
from pdfpeers import outline_pypdf, pikepdf_module, pypdf_module

PAGELABELS = "pdfminer/samples/contrib/pagelabels.pdf"  # 5 pages: iii iv 1 2 1, 4 bookmarks
ENC_R2 = "qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf"  # nested outline, labels, RC4
ENC_R6 = "qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf"  # the same, AES-256, UTF-16

FILES = [(OUTLINE, None), (PAGELABELS, None), (ENC_R2, "view"), (ENC_R6, "master"), (ANNOTS, None)]


@pytest.fixture(scope="module")
def pypdf() -> Any:
    return pypdf_module()


@pytest.fixture(scope="module")
def pikepdf() -> Any:
    return pikepdf_module()


def _flat(items: List[OutlineItem]) -> List[Tuple[int, str, Optional[int]]]:
    return [(item.depth, item.title, item.page_index) for item in items]


@pytest.mark.parametrize(("path", "password"), FILES, ids=[f[0] for f in FILES])
def test_outline_is_what_pypdf_reads(corpus, pypdf, path: str, password: Optional[str]):
    file = corpus(path)
    with quire.Document(file, password) as document:
        items = document.outline_items
        assert _flat(items) == outline_pypdf(file, password)


def test_the_outline_tree(corpus):
    with quire.Document(corpus(ENC_R2), "view") as document:
        items = document.outline_items
        assert [item.index for item in document.outline] == [0, 10]
    tree = [item for item in items if item.parent is None]
    assert [item.title for item in tree] == [
        "Isis 1 -> 5: /XYZ null null null",
        "Trepak 2 -> 15: /XYZ 66 756 3",
    ]
    # Every item once, in reading order, from walking the tree.
    walked = [item for top in tree for item in top.walk()]
    assert [item.index for item in walked] == list(range(len(items)))
    for item in items:
        if item.parent is None:
            assert item.depth == 0 and item.parent_index is None and item in tree
        else:
            assert item.parent_index == item.parent.index < item.index
            assert item.depth == item.parent.depth + 1
            assert item in item.parent.children
        assert all(child.parent is item for child in item.children)
        assert item.action is Action.GOTO and item.target is None
    first = tree[0]
    assert first.is_open and [child.title for child in first.children] == [
        "Amanda 1.1 -> 11: /Fit",
        "Sandy 1.2 -> 13: /FitH 792",
    ]
    assert not first.children[0].is_open
    # Every title says which page it goes to; the page index agrees.
    for item in items:
        assert item.page_index == int(item.title.split("-> ")[1].split(":")[0])
    assert "OutlineItem 0" in repr(first)


def test_outline_titles_are_decoded(corpus):
    with quire.Document(corpus(ENC_R6), "view") as document:
        titles = [item.title for item in document.outline_items]
    assert "Isís 1 -> 5: /XYZ null null null" in titles  # PDFDocEncoding
    assert "Sandy ÷Σανδι÷ 1.2 -> 13: /FitH 792" in titles  # UTF-16BE


def test_an_item_without_a_title(corpus):
    with quire.Document(corpus(OUTLINE)) as document:
        items = document.outline_items
        assert len(items) == len(document.outline) == 9  # all at the top level
    assert items[0].title == "" and items[0].page_index == 1


def test_no_outline(annots_pdf):
    with quire.Document(annots_pdf) as document:
        assert document.outline == [] and document.outline_items == []


def test_outline_actions_and_targets(corpus, pikepdf):
    # bookmarks.pdf mixes a URI action, a GoTo, and items whose named destinations are
    # not defined (GoTo, no page). pypdf drops actions, so pikepdf's outline is the
    # peer here.
    file = corpus("pdfium/testing/resources/bookmarks.pdf")
    with quire.Document(file) as document:
        items = document.outline_items
    with pikepdf.open(file) as pdf, pdf.open_outline() as outline:
        theirs: List[Any] = []

        def walk(entries: List[Any], depth: int) -> None:
            for entry in entries:
                theirs.append((depth, entry))
                walk(entry.children, depth + 1)

        walk(outline.root, 0)
        assert len(theirs) == len(items) == 6
        for ours, (depth, entry) in zip(items, theirs):
            assert (ours.depth, ours.title) == (depth, entry.title)
            if entry.children:  # open or closed says something only for a parent
                assert ours.is_open == (not entry.is_closed)
            action = entry.action
            if action is not None and action.get("/S") == "/URI":
                assert ours.action is Action.URI and ours.target == str(action.URI)
            elif entry.destination is not None and isinstance(entry.destination, pikepdf.Array):
                assert ours.action is Action.GOTO and ours.target is None
                page = entry.destination[0]
                assert ours.page_index == [p.objgen for p in pdf.pages].index(page.objgen)
            else:
                # A named destination that the document does not define: a GoTo whose
                # page is unknown.
                assert ours.action is Action.GOTO and ours.page_index is None and ours.target is None
    assert [item.action for item in items] == [Action.GOTO, Action.URI] + [Action.GOTO] * 4
    assert [item.page_index for item in items] == [None, None, 0, None, None, None]
    assert [item.is_open for item in items if item.children] == [True, False]


@pytest.mark.parametrize("name", ["uri_action.pdf", "launch_action.pdf"])
def test_documents_without_an_outline_have_none(corpus, name: str):
    # These files hold actions in annotations, not in an outline.
    with quire.Document(corpus("pdfium/testing/resources/" + name)) as document:
        assert document.outline_items == []


def test_a_cycle_in_the_outline_is_cut_with_a_warning(corpus):
    with quire.Document(corpus("pdfium/testing/resources/bookmarks_circular.pdf")) as document:
        titles = [item.title for item in document.outline_items]
        assert titles == ["A Good Beginning", "A Good Ending"]
        assert any("cycle" in warning for warning in document.warnings)


# ----------------------------------------------------------------------------------------
# Page labels
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "password"), FILES, ids=[f[0] for f in FILES])
def test_page_labels_are_what_pypdf_reads(corpus, pypdf, pikepdf, path: str, password: Optional[str]):
    file = corpus(path)
    with quire.Document(file, password) as document:
        labels = [page.label for page in document.pages]
    with pikepdf.open(file, password=password or "") as pdf:
        has_labels = "/PageLabels" in pdf.Root
    if not has_labels:
        # pypdf makes up decimal labels; Quire says there are none.
        assert labels == [None] * len(labels)
        return
    reader = pypdf.PdfReader(str(file))
    if password:
        reader.decrypt(password)
    assert labels == list(reader.page_labels)


def test_page_labels_of_pagelabels_pdf(corpus):
    with quire.Document(corpus(PAGELABELS)) as document:
        assert [page.label for page in document.pages] == ["iii", "iv", "1", "2", "1"]
        assert document.pages[-1].label == "1"
