"""User bookmarks from Python: values, sort orders, the provider chain, persistence, and
lifetimes of providers and callbacks."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List

import pytest

import quire
from quire_testing.library import child_env
from pdfpeers import pdfium_module, qpdf_check

REPO = Path(__file__).resolve().parents[2]
SORT = quire.BookmarkSortOrder


class Memory(quire.BookmarkProvider):
    """Keeps bookmarks in a dict; takes only those ``accept`` lets through; records calls."""

    def __init__(self, stored: Iterable[quire.Bookmark] = (), accept=lambda b: True) -> None:
        self.items: Dict[str, quire.Bookmark] = {b.identifier: b for b in stored}
        self.accept = accept
        self.calls: List[str] = []
        self.saves = 0

    def load(self):
        self.calls.append("load")
        return list(self.items.values())

    def add(self, bookmark):
        self.calls.append("add")
        if not self.accept(bookmark):
            return False
        self.items[bookmark.identifier] = bookmark
        return True

    def remove(self, bookmark):
        self.calls.append("remove")
        return self.items.pop(bookmark.identifier, None) is not None

    def save(self):
        self.saves += 1


def ids(bookmarks):
    return [b.identifier for b in bookmarks]


@pytest.fixture
def doc(corpus):
    # 5 pages, no bookmarks, no outline.
    with quire.Document(corpus("pdfium/testing/resources/rectangles_multi_pages.pdf")) as document:
        yield document


def test_values_and_constructors():
    a = quire.Bookmark.for_page(2, name="A")
    b = quire.Bookmark.for_page(2, name="A")
    assert a.identifier != b.identifier and len(a.identifier) == 36
    assert (a.kind, a.page_index, a.target, a.name, a.sort_key) == (quire.BookmarkKind.GOTO, 2, None, "A", None)
    u = quire.Bookmark.for_uri("https://example.com/ü")
    assert (u.kind, u.page_index, u.target) == (quire.BookmarkKind.URI, None, "https://example.com/ü")
    n = quire.Bookmark.for_named_action("LastPage")
    assert (n.kind, n.target) == (quire.BookmarkKind.NAMED, "LastPage")
    o = quire.Bookmark.for_action("<< /S /JavaScript /JS (app.alert\\(1\\)) >>")
    assert o.kind == quire.BookmarkKind.OTHER and "/JavaScript" in o.target
    with pytest.raises(quire.FormatError):
        quire.Bookmark.for_action("[1 2 3]")
    with pytest.raises(quire.InvalidArgumentError):
        quire.Bookmark.for_page(-1)
    with pytest.raises(quire.InvalidArgumentError):
        quire.Bookmark.for_uri("")
    changed = a.replace(name="B")
    assert changed.identifier == a.identifier and changed.name == "B" and a.name == "A"
    with pytest.raises(Exception):
        a.name = "no"  # frozen


def test_sort_orders_replace_and_move(doc):
    bm = doc.bookmarks
    link = quire.Bookmark.for_uri("https://example.com/")
    p3 = quire.Bookmark.for_page(3, name="3a")
    p0 = quire.Bookmark.for_page(0)
    p3b = quire.Bookmark.for_page(3, name="3b")
    named = quire.Bookmark.for_named_action("NextPage")
    for b in (link, p3, p0, p3b, named):
        bm.add(b)
    assert len(bm) == 5
    assert ids(bm.sorted(SORT.CUSTOM)) == ids([link, p3, p0, p3b, named])
    assert ids(bm.sorted(SORT.PAGE)) == ids([p0, p3, p3b, link, named])
    # Moves change the custom order, and the page order's ties with it.
    bm.move(p3b, 0)
    bm.move(named.identifier, 1)
    assert ids(bm) == ids([p3b, named, link, p3, p0])
    assert ids(bm.sorted(SORT.PAGE)) == ids([p0, p3b, p3, named, link])
    with pytest.raises(quire.IndexOutOfRangeError):
        bm.move(p0, 5)
    with pytest.raises(quire.NotFoundError):
        bm.move("nope", 0)
    # Re-adding replaces in place.
    bm.add(p3.replace(name="renamed", page_index=4))
    assert len(bm) == 5
    assert ids(bm) == ids([p3b, named, link, p3, p0])
    assert bm.get(p3.identifier).name == "renamed" and bm.get(p3.identifier).page_index == 4
    bm.remove(link)
    assert bm.get(link.identifier) is None and len(bm) == 4
    with pytest.raises(quire.NotFoundError):
        bm.remove(link)
    with pytest.raises(quire.IndexOutOfRangeError):
        bm.add(quire.Bookmark.for_page(5))


def test_sort_order_setting_and_change_callback(doc):
    bm = doc.bookmarks
    assert bm.sort_order == SORT.CUSTOM
    bm.sort_order = SORT.PAGE
    assert bm.sort_order == SORT.PAGE
    seen = []
    bm.on_change = lambda manager: seen.append(len(manager))
    b = quire.Bookmark.for_page(1)
    bm.add(b)
    bm.add(b.replace(name="x"))
    bm.remove(b)
    assert seen == [1, 1, 0]
    bm.on_change = None
    bm.add(b)
    assert seen == [1, 1, 0]


def test_a_failing_change_callback_raises_after_the_change(doc):
    def fail(manager):
        raise RuntimeError("listener broke")

    doc.bookmarks.on_change = fail
    with pytest.raises(RuntimeError, match="listener broke"):
        doc.bookmarks.add(quire.Bookmark.for_page(0))
    assert len(doc.bookmarks) == 1


def test_the_chain_routes_adds_and_removes(doc):
    stored = quire.Bookmark(identifier="mem-1", kind=quire.BookmarkKind.GOTO, page_index=4, name="stored", sort_key=7)
    pages_only = Memory([stored], accept=lambda b: b.page_index is not None)
    doc.bookmarks.providers = [pages_only, quire.BUILTIN_PROVIDER]
    assert pages_only.calls == []  # loaded on first use
    assert ids(doc.bookmarks) == ["mem-1"]
    assert pages_only.calls == ["load"]
    page = quire.Bookmark.for_page(1)
    link = quire.Bookmark.for_uri("https://example.com/")
    doc.bookmarks.add(page)
    doc.bookmarks.add(link)
    assert set(pages_only.items) == {"mem-1", page.identifier}
    assert doc.has_unsaved_changes  # the link went to the built-in provider, in the PDF
    # A changed bookmark its provider declines moves down the chain.
    doc.bookmarks.add(page.replace(kind=quire.BookmarkKind.NAMED, page_index=None, target="FirstPage"))
    assert set(pages_only.items) == {"mem-1"}
    assert doc.bookmarks.get(page.identifier).kind == quire.BookmarkKind.NAMED
    pages_only.calls = []
    doc.bookmarks.remove(link)
    assert pages_only.calls == ["remove"]
    data = doc.save_to_bytes()
    assert pages_only.saves == 1
    # Reopened with only the built-in provider: what it stored is there, the rest is not.
    with quire.Document(data) as reopened:
        assert ids(reopened.bookmarks) == [page.identifier]


def test_provider_exceptions_become_errors_chained(doc):
    class Broken(Memory):
        def add(self, bookmark):
            raise KeyError("storage is gone")

    doc.bookmarks.providers = [Broken()]
    with pytest.raises(quire.UserAbortError) as caught:
        doc.bookmarks.add(quire.Bookmark.for_page(0))
    assert isinstance(caught.value.__cause__, KeyError)
    assert "bookmark provider 1's add callback" in str(caught.value)
    assert len(doc.bookmarks) == 0

    class BadLoad(Memory):
        def load(self):
            return ["not a bookmark"]

    doc.bookmarks.providers = [BadLoad()]
    with pytest.raises(quire.UserAbortError) as caught:
        len(doc.bookmarks)
    assert isinstance(caught.value.__cause__, TypeError)

    class FailingSave(Memory):
        def save(self):
            raise OSError("disk full")

    doc.bookmarks.providers = [FailingSave()]
    doc.bookmarks.add(quire.Bookmark.for_page(0))
    with pytest.raises(quire.UserAbortError) as caught:
        doc.save_to_bytes()
    assert isinstance(caught.value.__cause__, OSError)
    # The error does not linger: the next call is clean.
    assert len(doc.bookmarks) == 1


def test_nobody_accepting_and_reentry(doc):
    doc.bookmarks.providers = [Memory(accept=lambda b: False)]
    with pytest.raises(quire.UnsupportedError):
        doc.bookmarks.add(quire.Bookmark.for_page(0))

    errors = []

    class Reentrant(Memory):
        def add(self, bookmark):
            try:
                doc.bookmarks.add(quire.Bookmark.for_page(1))
            except quire.StateError as error:
                errors.append(error)
            return super().add(bookmark)

    doc.bookmarks.providers = [Reentrant()]
    doc.bookmarks.add(quire.Bookmark.for_page(0))
    assert len(errors) == 1 and len(doc.bookmarks) == 1
    doc.bookmarks.providers = []
    assert len(doc.bookmarks) == 0
    with pytest.raises(TypeError):
        doc.bookmarks.providers = [object()]


def test_every_property_survives_save_and_reopen_in_peers(doc, tmp_path):
    bookmarks = [
        quire.Bookmark.for_page(4, name="Résumé ✓"),
        quire.Bookmark.for_uri("https://example.com/a?b=c", name="link"),
        quire.Bookmark.for_named_action("PrevPage"),
        quire.Bookmark.for_action("<< /S /JavaScript /JS (1+1) >>", name="script"),
    ]
    for b in bookmarks:
        doc.bookmarks.add(b)
    doc.bookmarks.move(bookmarks[3], 0)
    before = list(doc.bookmarks)
    for full in (False, True):
        out = tmp_path / ("full.pdf" if full else "incremental.pdf")
        doc.save(out, full=full)
        with quire.Document(out) as reopened:
            assert list(reopened.bookmarks) == before
        status, output = qpdf_check(out)
        assert status == 0, output
        pdfium = pdfium_module()
        pdf = pdfium.PdfDocument(str(out))
        assert len(pdf) == 5
        pdf.close()


def test_export_to_outline_is_seen_by_pdfium(doc, tmp_path):
    doc.bookmarks.add(quire.Bookmark.for_page(4, name="Four"))
    doc.bookmarks.add(quire.Bookmark.for_page(1, name="One"))
    doc.bookmarks.sort_order = SORT.PAGE
    assert doc.bookmarks.export_to_outline() == 2
    assert doc.bookmarks.export_to_outline() == 2  # replaces, does not duplicate
    out = tmp_path / "outline.pdf"
    doc.save(out)
    with quire.Document(out) as reopened:
        assert [(i.title, i.page_index) for i in reopened.outline] == [("One", 1), ("Four", 4)]
    pdfium = pdfium_module()
    pdf = pdfium.PdfDocument(str(out))
    titles = [(item.get_title(), item.get_dest().get_index()) for item in pdf.get_toc()]
    pdf.close()
    assert titles == [("One", 1), ("Four", 4)]


def test_lifetimes(corpus):
    released = []

    class Tracked(Memory):
        pass

    document = quire.Document(corpus("pdfium/testing/resources/rectangles_multi_pages.pdf"))
    manager = document.bookmarks
    provider = Tracked()
    manager.providers = [provider]
    manager.add(quire.Bookmark.for_page(0))
    document.close()
    document.close()
    with pytest.raises(quire.StateError):
        len(manager)
    with pytest.raises(quire.StateError):
        document.bookmarks
    # Dropped without close: the finalizer closes the document and releases the provider's
    # callbacks only then; nothing crashes whatever the collection order.
    for _ in range(20):
        d = quire.Document(corpus("pdfium/testing/resources/rectangles_multi_pages.pdf"))
        d.bookmarks.providers = [Tracked(), quire.BUILTIN_PROVIDER]
        d.bookmarks.on_change = lambda m: released.append(1)
        d.bookmarks.add(quire.Bookmark.for_page(1))
        del d
        gc.collect()
    assert len(released) == 20


def test_csv_example_survives_closing_and_reopening(corpus, tmp_path):
    script = REPO / "examples" / "python" / "csv_bookmarks.py"
    # The package and library under test, wherever they came from (Tests/support).
    env = child_env()
    source = corpus("pdfium/testing/resources/rectangles_multi_pages.pdf")
    csv_path = tmp_path / "bookmarks.csv"
    first = subprocess.run([sys.executable, str(script), str(source), str(tmp_path / "a.pdf"), str(csv_path)],
                           env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0].endswith(": 3 bookmarks, in page order")
    assert [line.split()[0] for line in lines[1:]] == ["[csv]", "[csv]", "[pdf]"]
    assert "page 5" in lines[2] and "https://example.com/quire" in lines[3]
    rows = csv_path.read_text().splitlines()
    assert rows[0] == "identifier,page,name,sort_key" and len(rows) == 3
    # A second run on the saved file sees the first run's bookmarks, from both stores.
    second = subprocess.run([sys.executable, str(script), str(tmp_path / "a.pdf"), str(tmp_path / "b.pdf"), str(csv_path)],
                            env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert second.stdout.splitlines()[0].endswith(": 6 bookmarks, in page order")
    assert len(csv_path.read_text().splitlines()) == 5
    with quire.Document(tmp_path / "b.pdf") as saved:
        assert [b.target for b in saved.bookmarks] == ["https://example.com/quire"] * 2
