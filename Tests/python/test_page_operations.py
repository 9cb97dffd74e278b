"""Page operations and encryption (issue 36, docs/pages.md), checked by the peers: every
output opens in qpdf (``qpdf --check`` clean), PDFium and MuPDF with the expected page
count, order (each page's text, as PDFium extracts it, equals the source page's), rotation,
annotations per page, field names and values, outline targets and page labels. Expected
values are the peers' readings of the source files, moved as the operation moves pages,
never numbers written here. Encrypted outputs open with their passwords in pikepdf, PDFium
and MuPDF, and are refused without."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path
from typing import Any, Callable, List

import pytest

import quire

from conftest import pdf_from_objects
from pdfpeers import PeerMissing, PeerPages, outline_pypdf, pdfium_module, pikepdf_module, pymupdf_module

LABELS = "qpdf/qpdf/qtest/qpdf/11-pages-with-labels.pdf"  # "Original page N", labels pre-, iv...
FORMS = "qpdf/examples/qtest/overlay-page/annotations-out.pdf"  # 4 pages, a form on each
LINKS = "qpdf/qpdf/qtest/qpdf/link-annots.pdf"  # 4 pages, links between them
OUTLINE = "qpdf/qpdf/qtest/qpdf/outlines-split-01-10.pdf"  # 10 pages, an outline into them
ROTATED = "qpdf/qpdf/qtest/qpdf/fxo-green.pdf"  # 8 pages, some rotated


def peers(source: Any, password: Any = None) -> PeerPages:
    try:
        return PeerPages(source, password)
    except PeerMissing as error:
        pytest.skip(str(error))


def moved(values: List[Any], order: List[int]) -> List[Any]:
    """``values`` of the source pages in the order of the result (``order`` holds, for
    each result page, its source index)."""
    return [values[i] for i in order]


def test_delete_move_rotate(corpus: Callable[[str], Path]) -> None:
    path = corpus(ROTATED)
    source = peers(path)
    with quire.Document(path) as doc:
        report = doc.pages.delete([1, -1])  # the second page and the last
        assert report.renamed == []
        order = [0, 2, 3, 4, 5, 6]
        doc.pages.move(0, 5)  # the first page last
        order = order[1:] + order[:1]
        doc.pages.move([4, 0], 1)  # two pages, in the order given, from index 1 on
        order = [order[1], order[4], order[0], order[2], order[3], order[5]]
        doc.pages.rotate([0, 2], 1)
        doc.pages.rotate(2, -2)
        turns = [1, 0, -1, 0, 0, 0]
        expected_rotations = [(r + 90 * t) % 360 for r, t in zip(moved(source.rotations, order), turns)]
        assert [page.rotation for page in doc.pages] == expected_rotations
        incremental = doc.save_to_bytes()
        full = doc.save_to_bytes(full=True)
    for data in (incremental, full):
        result = peers(data)
        result.check_clean()
        assert result.count == 6
        assert result.texts == moved(source.texts, order)
        assert result.rotations == expected_rotations
        assert result.pdfium_rotations == expected_rotations
        assert result.annotation_counts == moved(source.annotation_counts, order)


def test_insert_and_boxes(corpus: Callable[[str], Path]) -> None:
    path = corpus(LABELS)
    source = peers(path)
    with quire.Document(path) as doc:
        doc.pages.insert(2, 2, media_box=(0, 0, 300, 400), rotation=90)
        doc.pages.insert(len(doc.pages))  # appends a US Letter page
        doc.pages.set_box([0, 1], quire.Box.CROP, (10, 10, 300, 400))
        assert doc.pages[3].media_box == quire.Rect(0, 0, 300, 400)
        assert doc.pages[0].crop_box == quire.Rect(10, 10, 300, 400)
        labels = [page.label for page in doc.pages]
        data = doc.save_to_bytes()
    result = peers(data)
    result.check_clean()
    assert result.count == 14
    assert result.texts == source.texts[:2] + ["", ""] + source.texts[2:] + [""]
    assert result.rotations == source.rotations[:2] + [90, 90] + source.rotations[2:] + [0]
    assert result.labels == labels
    pdfium = pdfium_module()
    pdf = pdfium.PdfDocument(data)
    try:
        assert tuple(pdf[2].get_mediabox()) == (0, 0, 300, 400)
        assert tuple(pdf[13].get_mediabox()) == (0, 0, 612, 792)
        assert tuple(pdf[0].get_cropbox()) == (10, 10, 300, 400)
    finally:
        pdf.close()


def test_page_labels_follow_positions(corpus: Callable[[str], Path]) -> None:
    """Page labels number the pages by position after a delete (docs/pages.md): Quire's
    labels are MuPDF's reading of the saved file, and the pages that did not move keep
    theirs."""
    path = corpus(LABELS)
    source = peers(path)
    with quire.Document(path) as doc:
        doc.pages.delete(range(0, 3))
        labels = [page.label for page in doc.pages]
        data = doc.save_to_bytes()
    result = peers(data)
    result.check_clean()
    assert result.labels == labels
    assert result.texts == source.texts[3:]
    # Pages 4... kept their labels (their range started before them).
    assert labels[1:] == source.labels[4:]


def test_merge_forms_and_annotations(corpus: Callable[[str], Path]) -> None:
    path = corpus(FORMS)
    source = peers(path)
    with quire.Document(path) as doc, quire.Document(path) as other:
        names = {field.name for field in doc.fields}
        report = doc.merge(other, at=2)
        renamed = dict(report.renamed)
        # Every top-level field of the copy clashed, and was renamed NAME_2.
        assert renamed and all(after == before + "_2" for before, after in report.renamed)
        assert {name.split(".")[0] for name in names} == set(renamed)
        assert other.page_count == 4  # the source is only read
        data = doc.save_to_bytes(full=True)
    order = [0, 1, 0, 1, 2, 3, 2, 3]
    result = peers(data)
    result.check_clean()
    assert result.count == 8
    assert result.texts == moved(source.texts, order)
    assert result.annotation_counts == moved(source.annotation_counts, order)

    def rename(name: str) -> str:
        head, dot, rest = name.partition(".")
        return renamed.get(head, head) + dot + rest

    # Field names: the original ones, and each once more under its new name; values kept.
    assert result.fields == sorted(source.fields + [(rename(name), value) for name, value in source.fields])


def test_merge_links(corpus: Callable[[str], Path]) -> None:
    """Links into copied pages go to the copies; links into pages left behind are dropped
    (docs/pages.md). Checked by MuPDF: each link's target page has the text of the page the
    source link went to."""
    links = corpus(LINKS)
    source = peers(links)
    assert any(source.goto_links), "link-annots.pdf has links between its pages"
    with quire.Document(corpus(LABELS)) as doc, quire.Document(links) as other:
        base = doc.page_count
        doc.merge(other, [3, 0])
        data = doc.save_to_bytes(full=True)
    result = peers(data)
    result.check_clean()
    copied = {3: base, 0: base + 1}
    for source_index, result_index in copied.items():
        assert result.texts[result_index] == source.texts[source_index]
        expected = [copied[target] for target in source.goto_links[source_index] if target in copied]
        assert result.goto_links[result_index] == expected


def test_extract_split_with_outline(corpus: Callable[[str], Path]) -> None:
    path = corpus(OUTLINE)
    source = peers(path)
    assert source.outline
    with quire.Document(path) as doc:
        parts = [doc.extract(range(0, 5)), doc.extract(range(5, 10))]
        assert doc.page_count == 10 and not doc.has_unsaved_changes
    for number, part in enumerate(parts):
        with part:
            data = part.save_to_bytes(full=True)
        result = peers(data)
        result.check_clean()
        assert result.count == 5
        offset = 5 * number
        assert result.texts == source.texts[offset : offset + 5]
        # The outline items into the part's pages came along, each to the same page (as pypdf
        # reads them: MuPDF reads a destination into a page the file lacks as page 1).
        kept = [
            (title, page - offset)
            for _, title, page in outline_pypdf(path)
            if page is not None and offset <= page < offset + 5
        ]
        assert kept, "the sample has outline items into both halves"
        assert [(title, page) for _, title, page in outline_pypdf(data) if page is not None] == kept
        assert all(item in result.outline for item in kept)


def test_extract_keeps_order_and_repeats(corpus: Callable[[str], Path]) -> None:
    path = corpus(LABELS)
    source = peers(path)
    with quire.Document(path) as doc, doc.extract([-1, 0, 0]) as part:
        data = part.save_to_bytes(full=True)
    result = peers(data)
    result.check_clean()
    assert result.texts == [source.texts[-1], source.texts[0], source.texts[0]]


# -- bad input: a clear error, nothing changed -------------------------------------------


def test_bad_input_changes_nothing(corpus: Callable[[str], Path]) -> None:
    path = corpus(LABELS)
    with quire.Document(path) as doc, quire.Document(path) as other:
        before = doc.save_to_bytes()
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.pages.delete(11)
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.pages.delete([0, 2**40])
        with pytest.raises(quire.InvalidArgumentError):
            doc.pages.delete([])  # an empty range
        with pytest.raises(quire.InvalidArgumentError):
            doc.pages.delete(range(5, 2))  # a reversed range is empty
        with pytest.raises(quire.InvalidArgumentError):
            doc.pages.delete([3, 3])
        with pytest.raises(quire.InvalidArgumentError):
            doc.pages.delete(range(11))  # every page
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.pages.move([0, 1], 10)
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.pages.rotate(-12)
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.pages.insert(12)
        with pytest.raises(quire.InvalidArgumentError):
            doc.pages.insert(0, rotation=45)
        with pytest.raises(quire.InvalidArgumentError):
            doc.pages.insert(0, media_box=(0, 0, 0, 100))
        with pytest.raises(quire.InvalidArgumentError):
            doc.pages.set_box(0, quire.Box.MEDIA, None)
        with pytest.raises(quire.InvalidArgumentError):
            doc.merge(doc)  # a document into itself
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.merge(other, [11])
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.merge(other, at=12)
        with pytest.raises(quire.InvalidArgumentError):
            doc.merge(other, [])
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.extract(range(10, 12))
        with pytest.raises(quire.InvalidArgumentError):
            doc.encrypt("u", method="RC4-128-ish")
        with pytest.raises(quire.UnsupportedError):
            doc.encrypt("u", method="RC4-128")
        with pytest.raises(TypeError):
            doc.pages.delete("1")  # type: ignore[arg-type]
        other.close()
        with pytest.raises(quire.StateError):
            doc.merge(other)  # a closed document
        assert not doc.has_unsaved_changes
        assert doc.page_count == 11
        assert doc.save_to_bytes() == before
    with pytest.raises(quire.StateError):
        doc.pages.delete(0)


# -- encryption ----------------------------------------------------------------------------


def refused_without_password(data: bytes) -> None:
    pikepdf = pikepdf_module()
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(data))
    pdfium = pdfium_module()
    with pytest.raises(pdfium.PdfiumError):
        pdfium.PdfDocument(data)
    with pymupdf_module().open(stream=data, filetype="pdf") as doc:
        assert doc.needs_pass
        assert not doc.authenticate("wrong")


@pytest.mark.parametrize("method,revision", [("AES-256", 6), ("AES-128", 4)])
def test_encrypt_peers(corpus: Callable[[str], Path], method: str, revision: int) -> None:
    path = corpus(OUTLINE)
    source = peers(path)
    with quire.Document(path) as doc:
        doc.encrypt("user", "owner", method=method, permissions=quire.Permissions.PRINT | quire.Permissions.COPY)
        assert doc.has_unsaved_changes
        with pytest.raises(quire.StateError):
            doc.save_to_bytes()  # an encryption change needs a full save
        data = doc.save_to_bytes(full=True)
        # The document continues from the encrypted bytes: an incremental save works on it.
        doc.pages.rotate(0)
        updated = doc.save_to_bytes()
        assert updated.startswith(data)
    for password in ("user", "owner"):
        result = peers(data, password)
        result.check_clean()
        assert result.texts == source.texts
        assert result.outline == source.outline
    result = peers(updated, "user")
    result.check_clean()
    assert result.rotations == [(source.rotations[0] + 90) % 360] + source.rotations[1:]
    refused_without_password(data)
    with quire.Document(data, "user") as reopened:
        encryption = reopened.encryption
        assert encryption is not None
        assert (encryption.method, encryption.revision, encryption.is_owner) == (method, revision, False)
        assert quire.Permissions.PRINT in encryption.permissions
        assert quire.Permissions.MODIFY not in encryption.permissions
    pikepdf = pikepdf_module()
    with pikepdf.open(io.BytesIO(data), password="user") as pdf:
        assert pdf.encryption.R == revision
        assert pdf.allow.print_highres is False and pdf.allow.extract is True


def test_decrypt_and_change_password(corpus: Callable[[str], Path]) -> None:
    path = corpus(OUTLINE)
    source = peers(path)
    with quire.Document(path) as doc:
        doc.encrypt("user", "owner")
        encrypted = doc.save_to_bytes(full=True)
    with quire.Document(encrypted, "user") as doc:
        with pytest.raises(quire.PasswordError):
            doc.decrypt()
        with pytest.raises(quire.PasswordError):
            doc.decrypt("wrong")
        with pytest.raises(quire.PasswordError):
            doc.encrypt("new", current_owner_password="user")
        assert not doc.has_unsaved_changes
        doc.encrypt("new", "newowner", current_owner_password="owner")
        changed = doc.save_to_bytes(full=True)
    result = peers(changed, "new")
    result.check_clean()
    assert result.texts == source.texts
    refused_without_password(changed)
    pikepdf = pikepdf_module()
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(changed), password="user")
    with quire.Document(changed, "newowner") as doc:
        doc.decrypt()  # opened with the owner password: none needed
        plain = doc.save_to_bytes(full=True)
    result = peers(plain)
    result.check_clean()
    assert result.texts == source.texts
    with quire.Document(plain) as doc:
        assert doc.encryption is None


# -- the command-line tool -------------------------------------------------------------------


def test_cli_pages_merge_split_encrypt(corpus: Callable[[str], Path], tmp_path: Path) -> None:
    from conftest import REPO

    cli = REPO / "build" / "bin" / "quire"
    if not cli.is_file():
        pytest.skip("build/bin/quire is not built (make all)")
    labels, rotated = corpus(LABELS), corpus(ROTATED)
    source, other = peers(labels), peers(rotated)

    def run(*args: Any) -> Any:
        return subprocess.run([str(cli)] + [str(a) for a in args], capture_output=True, timeout=120)

    for command in ("pages", "merge", "split", "encrypt", "decrypt"):
        done = run(command, "--help")
        assert done.returncode == 0 and done.stdout.startswith(b"usage: quire " + command.encode())
    assert run("pages", labels, "delete", "2,4-5", "-o", tmp_path / "a.pdf").returncode == 0
    assert peers(tmp_path / "a.pdf").texts == [t for i, t in enumerate(source.texts) if i not in (1, 3, 4)]
    assert run("pages", labels, "move", "3", "1", "-o", tmp_path / "b.pdf").returncode == 0
    assert peers(tmp_path / "b.pdf").texts == [source.texts[2]] + source.texts[:2] + source.texts[3:]
    assert run("pages", labels, "rotate", "1", "-1", "--full", "-o", tmp_path / "c.pdf").returncode == 0
    assert peers(tmp_path / "c.pdf").rotations[0] == (source.rotations[0] + 270) % 360
    # A reversed range is a usage error (2), a page out of range a status (1); nothing written.
    assert run("pages", labels, "delete", "5-3", "-o", tmp_path / "d.pdf").returncode == 2
    # Messages count pages from 1, as the command's user does.
    count = len(source.texts)
    failed = run("pages", labels, "delete", "2,%d" % (count + 1), "-o", tmp_path / "d.pdf")
    assert failed.returncode == 1 and b"QUIRE_ERANGE" in failed.stderr
    assert b"page %d is out of range (the document has %d pages)" % (count + 1, count) in failed.stderr
    failed = run("pages", labels, "move", "1-2", str(count), "-o", tmp_path / "d.pdf")
    assert failed.returncode == 1 and b"TO %d is out of range (1 to %d" % (count, count - 1) in failed.stderr
    failed = run("pages", labels, "insert", str(count + 2), "-o", tmp_path / "d.pdf")
    assert failed.returncode == 1 and b"AT %d is out of range (1 to %d" % (count + 2, count + 1) in failed.stderr
    assert not (tmp_path / "d.pdf").exists()
    assert run("merge", labels, rotated, "-o", tmp_path / "m.pdf").returncode == 0
    merged = peers(tmp_path / "m.pdf")
    merged.check_clean()
    assert merged.texts == source.texts + other.texts
    done = run("split", "-n", "4", labels, "-o", tmp_path / "part")
    assert done.returncode == 0 and len(done.stdout.split()) == 3
    assert peers(tmp_path / "part-003.pdf").texts == source.texts[8:]
    assert run("encrypt", "--user", "u", "--owner", "o", "--aes128", labels, "-o", tmp_path / "e.pdf").returncode == 0
    refused_without_password((tmp_path / "e.pdf").read_bytes())
    assert peers(tmp_path / "e.pdf", "u").texts == source.texts
    assert run("decrypt", "--password", "u", tmp_path / "e.pdf", "-o", tmp_path / "f.pdf").returncode == 1
    assert run("decrypt", "--password", "o", tmp_path / "e.pdf", "-o", tmp_path / "f.pdf").returncode == 0
    assert peers(tmp_path / "f.pdf").texts == source.texts


# -- the corpus sweep ----------------------------------------------------------------------


def test_dangling_contents_are_not_copied() -> None:
    """A page whose /Contents array holds a reference to no object (PDFium's
    bug_959274_1.pdf): the copy lists none of it, since qpdf calls a null among a page's
    content streams an error, and the page's text stays."""
    body = b"BT /F1 12 Tf 72 720 Td (kept) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Count 1 /Kids [3 0 R] >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [21 0 R 5 0 R 22 0 R]"
        b" /Resources << /Font << /F1 4 0 R >> >> >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(body), body),
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, value in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, value)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    with quire.Document(bytes(out)) as doc, doc.extract([0]) as part:
        data = part.save_to_bytes(full=True)
    from pdfpeers import qpdf_check

    status, report = qpdf_check(data)
    assert status == 0, report
    assert peers(data).texts == peers(bytes(out)).texts == ["kept"]


def text_page_pdf(content: bytes, catalog: bytes = b"") -> bytes:
    """One page showing `content` (the stream object written as given) in Helvetica."""
    return pdf_from_objects(
        {
            1: b"<< /Type /Catalog /Pages 2 0 R %s >>" % catalog,
            2: b"<< /Type /Pages /Count 1 /Kids [3 0 R] >>",
            3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 5 0 R"
            b" /Resources << /Font << /F1 4 0 R >> >> >>",
            4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            5: content,
        }
    )


def test_stream_data_after_text_on_the_keyword_line() -> None:
    """Text after the `stream` keyword on its line (PDFium's bug_543018_2.pdf): the data
    starts on the next line, where /Length counted from there ends it at `endstream`, as
    PDFium reads it; a copy of the page shows both lines of text, the first of which holds
    `endstream` as text. Quire read the data from the keyword's line, found /Length wrong
    and cut it at that `endstream`."""
    body = b"BT 20 50 Td /F1 12 Tf (first) Tj\nendstream\n0 50 Td (second) Tj ET"
    source = text_page_pdf(b'<< /Length %d >>\nstream   "ignored"\n%s\nendstream' % (len(body), body))
    with quire.Document(source) as doc, doc.extract([0]) as part:
        data = part.save_to_bytes(full=True)
    assert peers(source).texts == ["first second"]
    assert peers(data).texts == peers(source).texts
    # Data that starts on the keyword's line, whose /Length counts from there (qpdf's
    # stream-line-enders.pdf), is read from there still.
    body = b" BT /F1 12 Tf 20 50 Td (Potato) Tj ET"
    source = text_page_pdf(b"<< /Length %d >>\nstream%s\nendstream" % (len(body), body))
    with quire.Document(source) as doc, doc.extract([0]) as part:
        assert peers(part.save_to_bytes(full=True)).texts == ["Potato"]


def test_extract_keeps_the_reading_direction() -> None:
    """A document that reads right to left (/ViewerPreferences /Direction /R2L, by which
    PDFium orders a page's text: PDFium's viewer_ref.pdf reads '1Page'): its extracted
    pages read so too, and the other viewer preferences (a print range that names the
    source's pages) stay behind."""
    body = b"BT /F1 20 Tf 20 100 Td (Page1) Tj ET"
    preferences = b"/ViewerPreferences << /Direction /R2L /PrintPageRange [0 0] /NumCopies 2 >>"
    source = text_page_pdf(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(body), body), preferences)
    with quire.Document(source) as doc, doc.extract([0]) as part:
        data = part.save_to_bytes(full=True)
    assert peers(source).texts == ["1Page"]
    assert peers(data).texts == ["1Page"]
    pikepdf = pikepdf_module()
    with pikepdf.open(io.BytesIO(data)) as pdf:
        assert dict(pdf.Root.ViewerPreferences) == {"/Direction": pikepdf.Name.R2L}


def test_corpus_sweep(corpus: Callable[[str], Path]) -> None:
    """Tests/python/page_sweep.py on a quarter of the corpus (every fourth file that the
    peers open, from a seeded offset: 433 files, about 4 minutes on two busy cores);
    QUIRE_PAGES_CORPUS=all (`make test-pages-sweep`) is the long run over all of it: each
    file's pages deleted, moved, rotated, merged with the next file, split in two and half
    encrypted, on two long-lived child processes; no crash, no hang, and every output read
    by the peers as expected."""
    corpus("manifest.jsonl")  # skips without the corpus
    for module in ("pikepdf", "pypdfium2", "pymupdf"):
        pytest.importorskip(module)
    import page_sweep

    whole = os.environ.get("QUIRE_PAGES_CORPUS") == "all"
    files = page_sweep.sweep_files(whole=whole)
    assert len(files) > 200
    reports = page_sweep.sweep(files)
    assert [r["file"] for r in reports if r.get("crashed")] == []
    assert [r["file"] for r in reports if r.get("hung")] == []
    assert [(r["file"], r["failures"]) for r in reports if r["failures"]] == []
    checked = [r for r in reports if not r.get("skipped")]
    assert len(checked) >= 0.9 * len(files), [r["skipped"] for r in reports if r.get("skipped")][:5]
