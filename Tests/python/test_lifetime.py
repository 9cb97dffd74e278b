"""Lifetimes: context manager, idempotent close, use after close (a StateError, never a
crash), pages outliving their document's name, garbage collection in any order, threads."""

from __future__ import annotations

import gc
import itertools
import threading
import weakref
from pathlib import Path
from typing import List

import pytest

import quire


def test_context_manager_closes(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        assert not document.closed
        assert document.page_count == 2
    assert document.closed


def test_context_manager_closes_on_exception(annots_pdf: Path):
    with pytest.raises(RuntimeError):
        with quire.Document(annots_pdf) as document:
            raise RuntimeError("boom")
    assert document.closed


def test_close_twice(annots_pdf: Path):
    document = quire.Document(annots_pdf)
    document.close()
    document.close()
    assert document.closed
    with document.__class__(annots_pdf) as other:
        other.close()  # closing inside the with block, then __exit__ closes again
    assert other.closed


@pytest.mark.parametrize(
    "use",
    [
        lambda d: d.page_count,
        lambda d: d.pdf_version,
        lambda d: d.is_encrypted,
        lambda d: d.is_repaired,
        lambda d: d.warnings,
        lambda d: d.metadata,
        lambda d: d.pages,
        lambda d: d.__enter__(),
    ],
    ids=["page_count", "pdf_version", "is_encrypted", "is_repaired", "warnings", "metadata", "pages", "enter"],
)
def test_use_after_close_raises_state_error(annots_pdf: Path, use):
    document = quire.Document(annots_pdf)
    document.close()
    with pytest.raises(quire.StateError) as info:
        use(document)
    assert isinstance(info.value, ValueError)
    assert info.value.code == quire._raw.QUIRE_ESTATE
    assert "closed" in info.value.message


@pytest.mark.parametrize(
    "use",
    [
        lambda p: p.media_box,
        lambda p: p.crop_box,
        lambda p: p.bleed_box,
        lambda p: p.trim_box,
        lambda p: p.art_box,
        lambda p: p.box(quire.Box.MEDIA),
        lambda p: p.rotation,
        lambda p: p.annotation_count,
    ],
    ids=["media_box", "crop_box", "bleed_box", "trim_box", "art_box", "box", "rotation", "annotation_count"],
)
def test_pages_after_document_closed_raise_state_error(annots_pdf: Path, use):
    document = quire.Document(annots_pdf)
    page = document.pages[1]
    assert use(page) is not None
    document.close()
    with pytest.raises(quire.StateError):
        use(page)
    assert page.index == 1  # what needs no handle still works
    assert page.document is document


def test_page_list_after_document_closed(annots_pdf: Path):
    document = quire.Document(annots_pdf)
    pages = document.pages
    iterator = iter(pages)
    next(iterator)
    document.close()
    with pytest.raises(quire.StateError):
        len(pages)
    with pytest.raises(quire.StateError):
        pages[0]
    with pytest.raises(quire.StateError):
        list(pages)
    with pytest.raises(quire.StateError):
        next(iterator).media_box


def test_page_keeps_its_document_alive(annots_pdf: Path):
    page = quire.Document(annots_pdf).pages[1]
    gc.collect()
    assert not page.document.closed
    assert page.media_box == (0, 0, 612, 792)
    assert page.annotation_count == 3
    assert page.document.page_count == 2


def test_dropping_everything_closes_the_document(annots_pdf: Path):
    document = quire.Document(annots_pdf)
    page = document.pages[0]
    pages = document.pages
    finalizer = document._finalizer
    assert finalizer is not None and finalizer.alive
    reference = weakref.ref(document)
    del document
    gc.collect()
    assert reference() is not None and finalizer.alive  # the page and the list hold it
    del page
    gc.collect()
    assert finalizer.alive
    del pages
    gc.collect()
    assert reference() is None
    assert not finalizer.alive, "the handle was released by the finalizer"


def test_drop_document_then_page_in_a_cycle(annots_pdf: Path):
    """A document and its page in a reference cycle are collected, in whatever order the
    collector picks, without using the freed handle."""

    class Holder:
        pass

    holder = Holder()
    holder.document = quire.Document(annots_pdf)  # type: ignore[attr-defined]
    holder.page = holder.document.pages[0]  # type: ignore[attr-defined]
    holder.self = holder  # type: ignore[attr-defined]
    finalizer = holder.document._finalizer  # type: ignore[attr-defined]
    del holder
    gc.collect()
    assert not finalizer.alive


def test_many_documents_left_to_the_collector(annots_pdf: Path):
    data = annots_pdf.read_bytes()
    finalizers = []
    for _ in range(300):
        document = quire.Document(data)
        finalizers.append(document._finalizer)
        assert document.pages[-1].annotation_count == 3
    del document
    gc.collect()
    assert not any(f.alive for f in finalizers)


def test_failed_open_leaves_nothing_behind(tmp_path: Path):
    for _ in range(50):
        with pytest.raises(quire.NotFoundError):
            quire.Document(tmp_path / "missing.pdf")
    gc.collect()


def test_documents_in_parallel_threads(annots_pdf: Path, corpus):
    from conftest import BOXES

    boxes_pdf = corpus(BOXES)
    failures: List[BaseException] = []

    def work(path: Path) -> None:
        try:
            for _ in range(30):
                with quire.Document(path) as document:
                    summary = [(p.media_box, p.rotation, p.annotation_count) for p in document.pages]
                    assert len(summary) == document.page_count
        except BaseException as error:  # noqa: B902
            failures.append(error)

    threads = [threading.Thread(target=work, args=(p,)) for p in [annots_pdf, boxes_pdf] * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures


def test_one_document_shared_by_threads_and_closed_under_them(annots_pdf: Path):
    """The binding serialises calls on a document, so sharing one is safe, and closing it
    while other threads use it gives them StateError, not a use-after-free."""
    document = quire.Document(annots_pdf)
    pages = list(document.pages)
    unexpected: List[BaseException] = []
    start = threading.Barrier(5)

    def reader() -> None:
        start.wait()
        try:
            for _ in range(2000):
                for page in pages:
                    page.media_box, page.annotation_count
        except quire.StateError:
            pass
        except BaseException as error:  # noqa: B902
            unexpected.append(error)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for thread in threads:
        thread.start()
    start.wait()
    document.close()
    for thread in threads:
        thread.join()
    assert not unexpected, unexpected


# -- Every handle, in every order: close twice, use after close, children after their
# parent closed, garbage collection in any order. Each must raise a clean error (or keep
# working, for values that own their data), never crash the interpreter.


def _first_stream(document: "quire.Document") -> "quire.Stream":
    for number in range(1, document.object_count + 1):
        try:
            value = document.get_object(number)
        except quire.QuireError:
            continue
        if isinstance(value, quire.Stream):
            return value
    raise AssertionError("no stream in the document")


@pytest.mark.parametrize(
    "use",
    [
        lambda d: d.outline,
        lambda d: d.outline_items,
        lambda d: d.trailer,
        lambda d: d.get_object(1),
        lambda d: d.resolve(quire.Reference(1, 0)),
        lambda d: d.xref_form,
        lambda d: d.object_count,
        lambda d: d.is_linearized,
        lambda d: d.encryption,
        lambda d: d.has_unsaved_changes,
        lambda d: d.set_dict_value(1, "Quire", 1),
        lambda d: d.add_object(quire.Name("X")),
        lambda d: d.add_stream({}, b"x"),
        lambda d: d.delete_object(3),
        lambda d: d.annotation(3),
        lambda d: d.add_annotation(quire.Annotation.new("Square", 0, (0, 0, 9, 9))),
        lambda d: d.comments(3),
        lambda d: d.review_summary(3),
        lambda d: d.search_annotations("a"),
        lambda d: d.export_annotations_json(),
        lambda d: d.import_annotations_json('{"annotations": []}'),
        lambda d: d.replies_enabled,
        lambda d: d.save_to_bytes(),
        lambda d: d.save_to_bytes(full=True),
    ],
    ids=[
        "outline", "outline_items", "trailer", "get_object", "resolve", "xref_form",
        "object_count", "is_linearized", "encryption", "has_unsaved_changes", "set_dict_value",
        "add_object", "add_stream", "delete_object", "annotation", "add_annotation", "comments",
        "review_summary", "search_annotations", "export_json", "import_json", "replies_enabled",
        "save_to_bytes", "save_full",
    ],
)
def test_every_document_call_after_close_raises_state_error(annots_pdf: Path, use):
    document = quire.Document(annots_pdf)
    document.close()
    with pytest.raises(quire.StateError):
        use(document)
    document.close()  # and closing again is still fine


def test_save_to_a_path_after_close(annots_pdf: Path, tmp_path: Path):
    document = quire.Document(annots_pdf)
    document.close()
    with pytest.raises(quire.StateError):
        document.save(tmp_path / "out.pdf")
    assert not (tmp_path / "out.pdf").exists()


def test_page_children_after_close(annots_pdf: Path):
    document = quire.Document(annots_pdf)
    page = document.pages[0]
    document.close()
    with pytest.raises(quire.StateError):
        page.annotations
    with pytest.raises(quire.StateError):
        page.label


def test_annotations_outlive_their_document(annots_pdf: Path):
    """Annotations are values that own their data: reading them after their document is
    closed (or collected) works, and they can be added to another document."""
    document = quire.Document(annots_pdf)
    annotations = document.pages[1].annotations  # Link, Link, Square
    expected = [(a.subtype, a.rect, a.contents) for a in annotations]
    document.close()
    assert [(a.subtype, a.rect, a.contents) for a in annotations] == expected
    del document
    gc.collect()
    assert [(a.subtype, a.rect, a.contents) for a in annotations] == expected
    square = next(a for a in annotations if a.subtype == "Square")
    with quire.Document(annots_pdf) as other:
        added = other.add_annotation(square)
        assert added.subtype == "Square"
        assert other.annotation(added.id).rect == square.rect


def test_annotation_close_twice_and_use_after_close(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        annotation = document.pages[0].annotations[0]
        annotation.close()
        annotation.close()
        assert annotation.closed
        for use in (
            lambda: annotation.subtype,
            lambda: annotation.rect,
            lambda: annotation.contents,
            lambda: setattr(annotation, "contents", "x"),
            lambda: document.add_annotation(annotation),
            lambda: document.update_annotation(annotation),
            lambda: document.comments(annotation),
        ):
            with pytest.raises(quire.StateError):
                use()
        assert document.page_count == 2  # the document is unharmed


def test_annotation_as_context_manager(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        with document.pages[1].annotations[0] as annotation:
            assert annotation.subtype
        assert annotation.closed
        with pytest.raises(quire.StateError):
            with annotation:
                pass


def test_outline_items_outlive_their_document(corpus):
    from conftest import OUTLINE

    document = quire.Document(corpus(OUTLINE))
    items = document.outline_items
    expected = [(item.title, item.page_index) for item in items]
    assert expected
    document.close()
    assert [(item.title, item.page_index) for item in items] == expected
    assert list(items[0].walk())


def test_objects_after_document_closed(annots_pdf: Path):
    """Plain values read from a document are Python values; a stream holds the library's
    copy and its document: reading it after the document closed raises StateError."""
    document = quire.Document(annots_pdf)
    catalog = document.get_object(1)
    stream = _first_stream(document)
    data = stream.read()
    document.close()
    assert catalog == dict(catalog)  # still a plain mapping
    assert dict(stream)  # its dictionary was copied
    with pytest.raises(quire.StateError):
        stream.read()
    with pytest.raises(quire.StateError):
        stream.read(decoded=False)
    with pytest.raises(quire.StateError):
        document.stream_data(stream)
    # A stream of a closed document, given to another document: refused, not followed.
    with quire.Document(annots_pdf) as other:
        with pytest.raises((quire.StateError, quire.InvalidArgumentError)):
            other.stream_data(stream)
        with pytest.raises((quire.StateError, quire.InvalidArgumentError)):
            other.set_object(1, stream)
        assert _first_stream(other).read() == data


def test_stream_keeps_its_document_alive(annots_pdf: Path):
    document = quire.Document(annots_pdf)
    stream = _first_stream(document)
    finalizer = document._finalizer
    data = stream.read()
    del document
    gc.collect()
    assert finalizer.alive
    assert stream.read() == data
    del stream
    gc.collect()
    assert not finalizer.alive


@pytest.mark.parametrize("order", list(itertools.permutations(range(5))))
def test_collection_in_every_order(annots_pdf: Path, order):
    """A document, a page, its page list, an annotation and a stream, dropped in every
    order, with and without an explicit close first: no crash, and the document's handle is
    released exactly when the last holder goes."""
    for close_first in (False, True):
        document = quire.Document(annots_pdf)
        finalizer = document._finalizer
        objects: List[object] = [
            document,
            document.pages[0],
            document.pages,
            document.pages[1].annotations[0],
            _first_stream(document),
        ]
        if close_first:
            document.close()
        del document
        for k in order:
            objects[k] = None  # reference counting releases it here; no cycles involved
            holders = [o for o in objects if o is not None and not isinstance(o, quire.Annotation)]
            if not close_first:
                assert finalizer.alive == bool(holders)
        gc.collect()
        assert not finalizer.alive
