"""Lifetimes: context manager, idempotent close, use after close (a StateError, never a
crash), pages outliving their document's name, garbage collection in any order, threads."""

from __future__ import annotations

import gc
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
