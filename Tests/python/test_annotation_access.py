"""Reading annotations the convenient way (issue 24): document-wide annotations, threads,
replies, popups and their parents; Page.annotations read once per state of the document;
Annotation.new refusing what add_annotation would refuse; text markup without quad points.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

import quire
from conftest import page_tree_pdf, pdf_from_objects
from test_annotations import blank_pdf, build_thread


@pytest.fixture
def doc() -> Any:
    with quire.Document(blank_pdf()) as document:
        yield document


def ids(annotations: List[quire.Annotation]) -> List[Any]:
    return [a.id for a in annotations]


# ---------------------------------------------------------------------------------------
# Annotation.new and text markup
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("subtype", quire.SUBTYPES)
def test_new_makes_every_subtype_quire_creates(subtype: str, doc: quire.Document):
    annotation = quire.Annotation.new(subtype, 0, (10, 10, 60, 40))
    assert annotation.subtype == subtype
    if subtype == "FileAttachment":
        annotation.set_file(b"attached", "attached.txt")
    doc.add_annotation(annotation)
    assert annotation.id is not None


@pytest.mark.parametrize("subtype", ["Link", "Popup", "Widget", "Sound"])
def test_new_refuses_a_subtype_quire_only_reads(subtype: str):
    with pytest.raises(quire.UnsupportedError) as info:
        quire.Annotation.new(subtype, 0, (0, 0, 10, 10))
    assert subtype in info.value.message and "Square" in info.value.message


@pytest.mark.parametrize("subtype", ["Bogus", "", "square", "TEXT"])
def test_new_refuses_a_name_that_is_no_subtype(subtype: str):
    with pytest.raises(quire.InvalidArgumentError) as info:
        quire.Annotation.new(subtype, 0, (0, 0, 10, 10))
    assert "not an annotation subtype" in info.value.message
    if subtype == "square":
        assert "case-sensitive: 'Square'" in info.value.message


@pytest.mark.parametrize("subtype", quire.TEXT_MARKUP)
def test_text_markup_without_quad_points_gets_its_rectangle(subtype: str, doc: quire.Document):
    markup = quire.Annotation.new(subtype, 0, (100, 500, 300, 520))
    assert markup.quad_points == []
    doc.add_annotation(markup)
    expected = [100, 520, 300, 520, 100, 500, 300, 500]  # upper left, upper right, lower left, lower right
    assert markup.quad_points == expected
    assert doc.get_object(markup.id)["QuadPoints"] == expected  # written to the object
    # Given quad points are kept as they are.
    given = quire.Annotation.new(subtype, 0, (100, 500, 300, 520))
    given.quad_points = [110, 515, 200, 515, 110, 505, 200, 505]
    doc.add_annotation(given)
    assert given.quad_points == [110, 515, 200, 515, 110, 505, 200, 505]
    # An update that clears them gets the rectangle again.
    given.quad_points = None
    doc.update_annotation(given)
    assert doc.annotation(given.id).quad_points == expected


def test_other_subtypes_get_no_quad_points(doc: quire.Document):
    square = doc.add_annotation(quire.Annotation.new("Square", 0, (10, 10, 60, 40)))
    assert square.quad_points == [] and "QuadPoints" not in doc.get_object(square.id)


# ---------------------------------------------------------------------------------------
# Document-wide annotations, threads, replies, popups
# ---------------------------------------------------------------------------------------


def test_document_annotations_are_every_page_in_order(sample_pdf: Path):
    with quire.Document(sample_pdf) as document:
        every = list(document.annotations())
        by_page = [a for page in document.pages for a in page.annotations]
        assert [(a.page_index, a.id) for a in every] == [(a.page_index, a.id) for a in by_page]
        assert [len(page.annotations) for page in document.pages] == [9, 3]
        assert len(every) == 12


def test_document_annotations_skip_a_missing_page():
    # /Count says 3, the tree holds 2 pages; the second has the one annotation.
    with quire.Document(page_tree_pdf(b"3", 2, annotated=1)) as document:
        assert len(document.pages) == 3
        assert [(a.page_index, a.contents) for a in document.annotations()] == [(1, "hello")]
        assert [t.root.contents for t in document.threads()] == ["hello"]


def test_threads_are_roots_with_their_replies_flattened(doc: quire.Document):
    t = build_thread(doc)
    other = doc.add_annotation(quire.Annotation.new("Square", 0, (200, 200, 300, 300)))
    threads = doc.threads()
    assert [thread.root.id for thread in threads] == [t["note"].id, other.id]
    root, replies = threads[0]
    # Depth first: the reply, its nested reply, then the state replies, in /Annots order.
    assert ids(replies) == ids([t["reply"], t["nested"], t["accepted"], t["rejected"], t["completed"], t["marked"]])
    assert [r.is_state_reply for r in replies] == [False, False, True, True, True, True]
    assert threads[1].replies == []
    # Every annotation is in exactly one thread.
    seen = [thread.root.id for thread in threads] + [r.id for thread in threads for r in thread.replies]
    assert sorted(seen) == sorted(ids(doc.pages[0].annotations))


def test_replies_are_the_direct_ones(doc: quire.Document):
    t = build_thread(doc)
    note = doc.annotation(t["note"].id)
    assert ids(note.replies) == ids([t["reply"], t["accepted"], t["rejected"], t["completed"], t["marked"]])
    assert ids(t["reply"].replies) == [t["nested"].id]
    assert t["nested"].replies == []
    # An annotation in no document has none.
    assert quire.Annotation.new("Text", 0, (0, 0, 10, 10)).replies == []
    # Lists of the thread functions know their document too.
    assert ids(doc.comments(note)[1].replies) == [t["nested"].id]


def test_replies_after_the_document_is_closed_raise(doc: quire.Document):
    note = doc.add_annotation(quire.Annotation.new("Text", 0, (0, 0, 10, 10)))
    doc.close()
    with pytest.raises(quire.StateError):
        note.replies
    with pytest.raises(quire.StateError):
        note.popup


def test_replies_after_the_document_is_collected_raise():
    document = quire.Document(blank_pdf())
    note = document.add_annotation(quire.Annotation.new("Text", 0, (0, 0, 10, 10)))
    del document
    gc.collect()
    with pytest.raises(quire.StateError, match="closed"):
        note.replies
    assert note.contents is None  # the value itself stays readable


def test_threads_of_orphans_and_cycles():
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>",
        3: b"<< /Type /Page /Parent 2 0 R /Annots [4 0 R 5 0 R 6 0 R 7 0 R] >>",
        # 4 replies to an object that is no annotation; 5 and 6 reply to each other; 7 to itself.
        4: b"<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /IRT 1 0 R /Contents (orphan) >>",
        5: b"<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /IRT 6 0 R /Contents (a) >>",
        6: b"<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /IRT 5 0 R /Contents (b) >>",
        7: b"<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /IRT 7 0 R /Contents (self) >>",
    }
    with quire.Document(pdf_from_objects(objects)) as document:
        threads = [(t.root.contents, [r.contents for r in t.replies]) for t in document.threads()]
    assert threads == [("orphan", []), ("self", []), ("a", ["b"])]


def test_popup_and_parent(sample_pdf: Path):
    with quire.Document(sample_pdf) as document:
        page = document.pages[0]
        [note] = [a for a in page.annotations if a.popup is not None]
        popup = note.popup
        assert popup is not None and popup.subtype == "Popup"
        assert popup.parent is note  # the same object as listed on the page
        assert note.parent is None
        assert document.get_object(note.id)["Popup"].number == popup.id
        # Popups are reached through their parent, not as threads of their own.
        assert popup.id not in [t.root.id for t in document.threads()]
        # A new annotation has neither.
        fresh = quire.Annotation.new("Text", 0, (0, 0, 10, 10))
        assert fresh.popup is None and fresh.parent is None


def test_a_popup_not_listed_on_the_page_is_none():
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>",
        3: b"<< /Type /Page /Parent 2 0 R /Annots [4 0 R] >>",
        4: b"<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /Popup 5 0 R >>",
        5: b"<< /Type /Annot /Subtype /Popup /Rect [0 0 99 99] /Parent 4 0 R >>",
    }
    with quire.Document(pdf_from_objects(objects)) as document:
        [note] = document.pages[0].annotations
        assert note.popup is None


# ---------------------------------------------------------------------------------------
# Page.annotations: read once per state of the document
# ---------------------------------------------------------------------------------------


def test_the_page_is_read_once(sample_pdf: Path, monkeypatch: pytest.MonkeyPatch):
    with quire.Document(sample_pdf) as document:
        page = document.pages[0]
        calls: List[int] = []
        # The page is read in bulk (issue 17): one quire_page_annotations call per read of
        # the page, and no call per annotation.
        original = quire._raw.lib.quire_page_annotations
        per_annotation = quire._raw.lib.quire_page_annotation

        def counting(*args: Any) -> int:
            calls.append(1)
            return int(original(*args))

        def refused(*args: Any) -> int:
            raise AssertionError("a page listing read an annotation at a time")

        monkeypatch.setattr(quire._raw.lib, "quire_page_annotations", counting)
        monkeypatch.setattr(quire._raw.lib, "quire_page_annotation", refused)
        picked = [page.annotations[i] for i in range(page.annotation_count)]
        assert len(picked) == 9 and len(calls) == 1  # once, not once per access
        # Reads elsewhere keep it.
        document.page_count, document.metadata, document.trailer, document.get_object(1)
        document.export_annotations_json(), document.comments(picked[-1].id) if picked[-1].id else None
        assert all(a is b for a, b in zip(document.pages[0].annotations, picked))
        assert len(calls) == 1
        monkeypatch.setattr(quire._raw.lib, "quire_page_annotation", per_annotation)


def test_each_access_gives_a_new_list_of_the_same_objects(doc: quire.Document):
    doc.add_annotation(quire.Annotation.new("Square", 0, (10, 10, 60, 40)))
    first = doc.pages[0].annotations
    first.append("not an annotation")  # type: ignore[arg-type]
    second = doc.pages[0].annotations
    assert len(second) == 1 and second[0] is first[0]


def test_a_changed_annotation_is_read_again(doc: quire.Document):
    doc.add_annotation(quire.Annotation.new("Square", 0, (10, 10, 60, 40)))
    [changed] = doc.pages[0].annotations
    changed.contents = "not written back"
    [fresh] = doc.pages[0].annotations
    assert fresh is not changed and fresh.contents is None  # what the document holds
    fresh.contents = "written back"
    doc.update_annotation(fresh)
    assert doc.pages[0].annotations[0].contents == "written back"


def test_a_closed_annotation_is_read_again(doc: quire.Document):
    doc.add_annotation(quire.Annotation.new("Square", 0, (10, 10, 60, 40)))
    [closed] = doc.pages[0].annotations
    closed.close()
    [fresh] = doc.pages[0].annotations
    assert fresh is not closed and fresh.subtype == "Square"


def _note(document: quire.Document) -> quire.Annotation:
    return document.add_annotation(quire.Annotation.new("Text", 0, (300, 300, 320, 320)))


# Every call that may change the document, with what it needs.
MUTATIONS: Dict[str, Callable[[quire.Document, quire.Annotation, Path], Any]] = {
    "set_object": lambda d, a, t: d.set_object(a.id, {**d.get_object(a.id), "Contents": quire.String(b"x")}),
    "set_dict_value": lambda d, a, t: d.set_dict_value(a.id, "Contents", quire.String(b"x")),
    "add_object": lambda d, a, t: d.add_object(1),
    "add_stream": lambda d, a, t: d.add_stream({}, b"x"),
    "delete_object": lambda d, a, t: d.delete_object(d.add_object(1)),
    "add_annotation": lambda d, a, t: _note(d),
    "update_annotation": lambda d, a, t: d.update_annotation(d.annotation(a.id)),
    "delete_annotation": lambda d, a, t: d.delete_annotation(_note(d)),
    "add_reply": lambda d, a, t: d.add_reply(a, "Bob", "ok"),
    "add_state_reply": lambda d, a, t: d.add_state_reply(a, "Bob", "Review", "Accepted"),
    "set_in_reply_to": lambda d, a, t: d.set_in_reply_to(_note(d), a),
    "replies_enabled": lambda d, a, t: setattr(d, "replies_enabled", False),
    "import_annotations_json": lambda d, a, t: d.import_annotations_json(
        json.dumps({"annotations": [json.loads(d.export_annotations_json())["annotations"][0]]})
    ),
    "save": lambda d, a, t: d.save(t / "incremental.pdf"),
    "save full": lambda d, a, t: d.save(t / "full.pdf", full=True),
    "save_to_bytes": lambda d, a, t: d.save_to_bytes(full=True),
    "bookmarks.add": lambda d, a, t: d.bookmarks.add(quire.Bookmark.for_page(0)),
    "start_checkpoints": lambda d, a, t: (d.start_checkpoints(directory=t / "cp", uid="u"), d.stop_checkpoints(remove=True)),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_every_change_of_the_document_reads_the_page_again(mutation: str, tmp_path: Path):
    with quire.Document(blank_pdf()) as document:
        note = _note(document)
        before = document.pages[0].annotations
        assert document.pages[0].annotations[0] is before[0]
        MUTATIONS[mutation](document, note, tmp_path)
        after = document.pages[0].annotations
        assert all(a is not b for a, b in zip(after, before)), mutation
        assert after[0].id is not None and after[0].subtype == "Text"


def test_a_walk_over_many_pages_keeps_a_bounded_number_of_them():
    with quire.Document(page_tree_pdf(b"", 150, annotated=7)) as document:
        assert [a.contents for a in document.annotations()] == ["hello"]
        assert len(document._listings) == quire._document._LISTED_PAGES
        # The page read first was let go, and reads again (the same content).
        assert [a.contents for a in document.pages[7].annotations] == ["hello"]
