"""Bulk reads of annotations (issue 17): :attr:`quire.Page.annotations` reads a page with
one ``quire_page_annotations`` and one ``quire_annotation_list_infos`` call, and its
annotations make their own handles only when a call needs one. What it gives must equal
what the per-field functions give for the same annotation, on the corpus, and the values
must behave as values (they outlive the document, change, close) as before."""

from __future__ import annotations

import gc
import json
from ctypes import byref
from typing import Any, Dict, List

import pytest

import quire
from quire import _raw
from quire._annotations import take_annotation
from quire._errors import check
from conftest import CORPUS, MANIFEST
from test_annotations import blank_pdf

# The fields quire_annotation_info holds, as Annotation properties.
FIELDS = ("id", "page_index", "subtype", "rect", "flags", "contents", "author", "name", "created",
          "modified", "in_reply_to", "is_reply", "state", "state_model", "is_state_reply")


def per_field(doc: quire.Document, page: int, index: int) -> Dict[str, Any]:
    """Annotation ``index`` of ``page`` read through ``quire_page_annotation`` and the
    per-field functions (an annotation with a handle of its own, no bulk read)."""
    out = _raw.quire_annotation_p()
    with doc._lock:
        check(_raw.lib.quire_page_annotation(byref(out), doc._read_handle(), page, index))
    with take_annotation(out) as a:
        assert a._info is None
        return {f: getattr(a, f) for f in FIELDS}


def corpus_sample() -> List[str]:
    """Every sixth file of the manifest that is not a duplicate (about 450 files)."""
    if not MANIFEST.exists():
        return []
    paths = []
    with open(MANIFEST) as f:
        for line in f:
            record = json.loads(line)
            if not record.get("duplicate_of"):
                paths.append(record["path"])
    return paths[::6]


def test_bulk_fields_equal_the_per_field_functions_on_the_corpus():
    files = corpus_sample()
    if not files:
        pytest.skip("the corpus manifest is not at %s" % MANIFEST)
    compared = opened = 0
    for relative in files:
        try:
            doc = quire.Document(CORPUS / relative)
        except quire.QuireError:
            continue  # encrypted, or damaged beyond repair: test_corpus.py covers those
        opened += 1
        with doc:
            for page in range(min(doc.page_count, 50)):
                try:
                    listed = doc.pages[page].annotations
                except quire.NotFoundError:
                    continue
                for index, a in enumerate(listed):
                    assert a._info is not None
                    assert {f: getattr(a, f) for f in FIELDS} == per_field(doc, page, index), (relative, page, index)
                    compared += 1
    assert opened > 300 and compared > 500, (opened, compared)


def thread_doc() -> quire.Document:
    doc = quire.Document(blank_pdf())
    note = quire.Annotation.new("Square", 0, (100, 100, 200, 200))
    note.contents = "Please check"
    note.author = "Ada"
    note.color = (1, 0, 0)
    note = doc.add_annotation(note)
    doc.add_reply(note, "Bob", "Totals are off")
    doc.add_state_reply(note, "Ada", "Review", "Accepted")
    return doc


def test_listed_annotations_are_values_that_outlive_the_document():
    doc = thread_doc()
    listed = doc.pages[0].annotations
    note, reply, state = listed[0], listed[1], listed[2]
    assert all(a._handle is quire._annotations._PENDING for a in listed)
    doc.close()
    del doc
    gc.collect()
    # Fields of the bulk read, and fields that need the annotation's own handle (made now,
    # from the page's snapshot, not from the closed document).
    assert (note.subtype, note.contents, note.author) == ("Square", "Please check", "Ada")
    assert note.color == (1.0, 0.0, 0.0) and note.opacity == 1.0
    assert note._handle is not quire._annotations._PENDING
    assert reply.in_reply_to == note.id and reply.contents == "Totals are off"
    assert (state.state_model, state.state, state.is_state_reply) == ("Review", "Accepted", True)


def test_a_change_replaces_what_the_bulk_read_gave():
    doc = thread_doc()
    note = doc.pages[0].annotations[0]
    note.contents = "Changed"
    note.rect = (10, 10, 50, 50)
    assert note._info is None
    assert note.contents == "Changed" and tuple(note.rect) == (10, 10, 50, 50)
    doc.update_annotation(note)
    again = doc.pages[0].annotations[0]
    assert again is not note and again.contents == "Changed" and tuple(again.rect) == (10, 10, 50, 50)
    # The listing was read again after the change, and its values are bulk reads again.
    assert again._info is not None


def test_a_closed_listed_annotation_raises():
    doc = thread_doc()
    note = doc.pages[0].annotations[0]
    note.close()
    note.close()
    with pytest.raises(quire.StateError):
        _ = note.subtype
    with pytest.raises(quire.StateError):
        _ = note.contents
    with pytest.raises(quire.StateError):
        _ = note.color
    doc.close()


def test_a_page_larger_than_the_first_buffer():
    # 40 notes of 4,000 characters: about 160 KB of infos, past the 64 KiB buffer the
    # binding tries first (QUIRE_EBUFS, then a buffer of the size asked).
    doc = quire.Document(blank_pdf())
    for k in range(40):
        note = quire.Annotation.new("Text", 0, (10 + k, 10, 30 + k, 30))
        note.contents = ("%02d" % k) + "é" * 3999
        doc.add_annotation(note)
    listed = doc.pages[0].annotations
    assert len(listed) == 40
    assert [a.contents[:2] for a in listed] == ["%02d" % k for k in range(40)]
    assert all(len(a.contents) == 4001 for a in listed)
    assert [a.contents for a in listed] == [per_field(doc, 0, k)["contents"] for k in range(40)]
    doc.close()


def test_document_annotations_and_comments_read_in_bulk():
    doc = thread_doc()
    everything = list(doc.annotations())
    assert [a.subtype for a in everything] == [a.subtype for a in doc.pages[0].annotations]
    comments = doc.comments(everything[0])
    assert [c.contents for c in comments] == ["Please check", "Totals are off"]
    assert all(c._info is not None for c in comments)
    doc.close()


def test_an_empty_page_lists_nothing():
    doc = quire.Document(blank_pdf())
    assert doc.pages[0].annotations == []
    doc.close()
