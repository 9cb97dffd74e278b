"""The annotation API (quire.Annotation and the annotation methods of quire.Document):
replies and review states read back by the peers (pypdfium2, pikepdf, pymupdf), every
subtype Quire creates visible when rendered (pdftoppm, pypdfium2), corpus files with
replies and states counted as the manifest counts them, and lifetimes."""

from __future__ import annotations

import gc
import io
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, Tuple

import pytest

import quire
from conftest import REPO
from quire_testing.peers import peer, peer_program
from quire_testing.library import child_env
from pdfpeers import pdfium_module, pikepdf_module

REVIEW = REPO / "examples" / "python" / "review.py"

# Corpus files with replies (/IRT) and states (/State): the manifest's consensus counts.
CORPUS_THREADS = [
    "itext/forms/src/test/resources/com/itextpdf/forms/XfdfReaderTest/cmp_xfdfAnnotationArrow.pdf",
    "itext/forms/src/test/resources/com/itextpdf/forms/XfdfReaderTest/cmp_xfdfInReplyTo.pdf",
    "itext/forms/src/test/resources/com/itextpdf/forms/XfdfReaderTest/xfdfAnnotationTextBoxAllParams.pdf",
]


def pymupdf_module() -> Any:
    return peer("pymupdf")


def blank_pdf(width: float = 612, height: float = 792) -> bytes:
    """A one-page PDF with an empty page, written by hand (no peer needed)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << >> >>" % (width, height),
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


@pytest.fixture
def doc() -> Any:
    with quire.Document(blank_pdf()) as document:
        yield document


def build_thread(document: quire.Document) -> Dict[str, quire.Annotation]:
    note = quire.Annotation.new("Text", 0, (72, 700, 96, 724))
    note.author = "Ada"
    note.contents = "Please check"
    document.add_annotation(note)
    reply = document.add_reply(note, "Bob", "Totals are off")
    nested = document.add_reply(reply, "Ada", "Fixed")
    accepted = document.add_state_reply(note, "Ada", "Review", "Accepted")
    rejected = document.add_state_reply(note, "Bob", "Review", "Rejected")
    completed = document.add_state_reply(note, "Ada", "Review", "Completed")
    marked = document.add_state_reply(note, "Carol", "Marked", "Marked")
    return dict(
        note=note, reply=reply, nested=nested, accepted=accepted, rejected=rejected, completed=completed, marked=marked
    )


# ---------------------------------------------------------------------------------------
# The API itself
# ---------------------------------------------------------------------------------------


def test_new_annotation_fields_round_trip(doc: quire.Document):
    a = quire.Annotation.new("Square", 0, quire.Rect(100, 100, 200, 150))
    assert a.subtype == "Square" and a.page_index == 0 and a.id is None
    assert a.rect == quire.Rect(100, 100, 200, 150)
    assert a.contents is None and a.author is None and a.in_reply_to is None and not a.is_reply
    a.contents, a.author, a.subject = "Box", "Ada", "Subj"
    a.color, a.interior_color = (1, 0, 0), (0.5,)
    a.opacity, a.border_width, a.flags = 0.5, 3, 4
    a.custom_data = '{"k": 1}'
    a.created = "D:20240102030405Z"
    doc.add_annotation(a)
    assert isinstance(a.id, int) and a.name
    b = doc.annotation(a.id)
    assert (b.subtype, b.contents, b.author, b.subject) == ("Square", "Box", "Ada", "Subj")
    assert b.color == (1.0, 0.0, 0.0) and b.interior_color == (0.5,)
    assert b.opacity == pytest.approx(0.5) and b.border_width == pytest.approx(3) and b.flags == 4
    assert b.custom_data == '{"k": 1}'
    assert b.created == "D:20240102030405Z"
    assert b.created_datetime is not None and b.created_datetime.year == 2024
    assert b.modified is not None
    assert [x.id for x in doc.pages[0].annotations] == [a.id]
    b.contents = "Changed"
    b.color = None
    doc.update_annotation(b)
    c = doc.annotation(a.id)
    assert c.contents == "Changed" and c.color == ()
    doc.delete_annotation(c)
    assert doc.pages[0].annotations == []
    with pytest.raises(quire.NotFoundError):
        doc.annotation(a.id)


def test_geometry_fields():
    line = quire.Annotation.new("Line", 0, (0, 0, 100, 100))
    line.line = [10, 10, 90, 90]
    line.line_endings = ("None", "OpenArrow")
    assert line.line == [10, 10, 90, 90] and line.line_endings == ("None", "OpenArrow")
    poly = quire.Annotation.new("Polygon", 0, (0, 0, 100, 100))
    poly.vertices = [0, 0, 50, 100, 100, 0]
    assert poly.vertices == [0, 0, 50, 100, 100, 0]
    hl = quire.Annotation.new("Highlight", 0, (0, 0, 100, 20))
    hl.quad_points = [0, 20, 100, 20, 0, 0, 100, 0]
    assert len(hl.quad_points) == 8
    ink = quire.Annotation.new("Ink", 0, (0, 0, 100, 100))
    ink.ink = [[1, 2, 3, 4], [5, 6, 7, 8, 9, 10]]
    assert ink.ink == [[1, 2, 3, 4], [5, 6, 7, 8, 9, 10]]
    ink.ink = []
    assert ink.ink == []
    # A subtype Quire reads but does not create is refused where the value is made.
    with pytest.raises(quire.UnsupportedError):
        quire.Annotation.new("Sound", 0, (0, 0, 1, 1))


def test_thread_comments_and_review_summary(doc: quire.Document):
    t = build_thread(doc)
    note = t["note"]
    assert t["reply"].in_reply_to == note.id and t["nested"].in_reply_to == t["reply"].id
    assert t["accepted"].is_reply and t["accepted"].state == "Accepted" and t["accepted"].state_model == "Review"
    assert [(c.author, c.contents) for c in doc.comments(note)] == [
        ("Ada", "Please check"),
        ("Bob", "Totals are off"),
        ("Ada", "Fixed"),
    ]
    current, history = doc.review_summary(note.id)
    assert [(r.author, r.state) for r in current] == [("Ada", "Completed"), ("Bob", "Rejected"), ("Carol", "Marked")]
    assert [(r.author, r.state) for r in history] == [
        ("Ada", "Accepted"),
        ("Bob", "Rejected"),
        ("Ada", "Completed"),
        ("Carol", "Marked"),
    ]
    assert [a.contents for a in doc.search_annotations("TOTALS")] == ["Totals are off"]
    assert doc.search_annotations("") == []
    with pytest.raises(quire.InvalidArgumentError):
        doc.add_state_reply(note, "Ada", "Review", "Marked")


def test_set_in_reply_to_refreshes_and_refuses_cycles(doc: quire.Document):
    t = build_thread(doc)
    nested = t["nested"]
    doc.set_in_reply_to(nested, t["note"])
    assert nested.in_reply_to == t["note"].id
    doc.set_in_reply_to(nested, None)
    assert nested.in_reply_to is None and not nested.is_reply
    with pytest.raises(quire.InvalidArgumentError):
        doc.set_in_reply_to(t["note"], t["reply"])


def test_replies_switch_raises_disabled_error(doc: quire.Document):
    t = build_thread(doc)
    assert doc.replies_enabled is True
    doc.replies_enabled = False
    assert doc.replies_enabled is False
    for call in (
        lambda: doc.add_reply(t["note"], "X", "Y"),
        lambda: doc.add_state_reply(t["note"], "X", "Review", "Accepted"),
        lambda: doc.set_in_reply_to(t["nested"], None),
    ):
        with pytest.raises(quire.DisabledError) as info:
            call()
        assert info.value.code == quire._raw.QUIRE_EDISABLED
    # Reading still works.
    assert len(doc.comments(t["note"])) == 3 and t["reply"].is_reply
    doc.replies_enabled = True
    doc.add_reply(t["note"], "X", "Y")


def test_json_export_import_round_trip(doc: quire.Document):
    build_thread(doc)
    exported = doc.export_annotations_json()
    assert doc.export_annotations_json(0) == doc.export_annotations_json(doc.pages[0])
    assert '"pageIndex" : 0' in doc.export_annotations_json(0)
    with quire.Document(blank_pdf()) as other:
        assert other.import_annotations_json(exported) == 7
        assert other.export_annotations_json() == exported
        # Importing again updates by name: nothing new.
        assert other.import_annotations_json(exported.encode("utf-8")) == 7
        assert len(other.pages[0].annotations) == 7
        with pytest.raises(quire.FormatError):
            other.import_annotations_json("{not json")
    with pytest.raises(quire.IndexOutOfRangeError):
        doc.export_annotations_json(5)


# ---------------------------------------------------------------------------------------
# (a) Replies and state replies as the peers read them
# ---------------------------------------------------------------------------------------


@pytest.fixture
def thread_file(tmp_path: Path) -> Tuple[Path, Dict[str, Tuple[int, str, str, str, str]]]:
    """A saved file with a thread; {role: (number, parent number, author, contents, state)}."""
    path = tmp_path / "thread.pdf"
    with quire.Document(blank_pdf()) as document:
        t = build_thread(document)
        expected = {
            role: (a.id, a.in_reply_to, a.author, a.contents, a.state, a.state_model)
            for role, a in t.items()
            if role != "note"
        }
        path.write_bytes(document.save_to_bytes())
    return path, expected


def _pdfium_string(raw: Any, annot: Any, key: str) -> Any:
    size = raw.FPDFAnnot_GetStringValue(annot, key.encode(), None, 0)
    if size <= 2:
        return None
    buffer = (raw.FPDF_WCHAR * (size // 2))()
    raw.FPDFAnnot_GetStringValue(annot, key.encode(), buffer, size)
    return bytes(buffer)[: size - 2].decode("utf-16-le")


def test_pypdfium2_reads_replies_and_states(thread_file):
    pdfium = pdfium_module()
    raw = pdfium.raw
    path, expected = thread_file
    document = pdfium.PdfDocument(str(path))
    try:
        page = document[0]
        # PDFium has no object numbers for annotations: match them by /NM through the
        # index of each annotation, and parents by index too.
        annots = [raw.FPDFPage_GetAnnot(page.raw, i) for i in range(raw.FPDFPage_GetAnnotCount(page.raw))]
        by_index = {}
        for i, annot in enumerate(annots):
            by_index[i] = (
                _pdfium_string(raw, annot, "T"),
                _pdfium_string(raw, annot, "Contents"),
                _pdfium_string(raw, annot, "State"),
                _pdfium_string(raw, annot, "StateModel"),
            )
        with quire.Document(str(path)) as mine:
            ids = [a.id for a in mine.pages[0].annotations]
        seen = 0
        for i, annot in enumerate(annots):
            role = next((r for r, e in expected.items() if e[0] == ids[i]), None)
            if role is None:
                continue
            number, parent, author, contents, state, model = expected[role]
            linked = raw.FPDFAnnot_GetLinkedAnnot(annot, b"IRT")
            assert linked, role
            parent_index = raw.FPDFPage_GetAnnotIndex(page.raw, linked)
            raw.FPDFPage_CloseAnnot(linked)
            assert ids[parent_index] == parent, role
            assert by_index[i] == (author, contents, state, model), role
            seen += 1
        assert seen == len(expected)
        for annot in annots:
            raw.FPDFPage_CloseAnnot(annot)
        page.close()
    finally:
        document.close()


def test_pikepdf_reads_replies_and_states(thread_file):
    pikepdf = pikepdf_module()
    path, expected = thread_file
    with pikepdf.open(path) as pdf:
        annots = {a.objgen[0]: a for a in pdf.pages[0].Annots}
        for role, (number, parent, author, contents, state, model) in expected.items():
            a = annots[number]
            assert a.IRT.objgen[0] == parent, role
            assert str(a.T) == author and str(a.Contents) == contents, role
            if state is None:
                assert "/State" not in a and "/StateModel" not in a, role
            else:
                # ISO 32000-2 Table 172: /State and /StateModel are text strings.
                assert isinstance(a.State, pikepdf.String) and str(a.State) == state, role
                assert isinstance(a.StateModel, pikepdf.String) and str(a.StateModel) == model, role


def test_pymupdf_reads_replies_and_states(thread_file):
    pymupdf = pymupdf_module()
    path, expected = thread_file
    document = pymupdf.open(str(path))
    try:
        seen = {}
        for annot in document[0].annots():
            seen[annot.xref] = annot
        for role, (number, parent, author, contents, state, model) in expected.items():
            annot = seen.get(number)
            if annot is None:
                # MuPDF lists hidden annotations? Fall back to the raw object.
                kind, value = document.xref_get_key(number, "IRT")
                assert kind == "xref" and int(value.split()[0]) == parent, role
            else:
                assert annot.info["title"] == author and annot.info["content"] == contents, role
                irt = getattr(annot, "irt_xref", None)
                if irt is None:
                    kind, value = document.xref_get_key(number, "IRT")
                    irt = int(value.split()[0])
                assert irt == parent, role
            kind, value = document.xref_get_key(number, "State")
            if state is None:
                assert kind == "null", role
            else:
                assert kind == "string" and value == state, role
                assert document.xref_get_key(number, "StateModel") == ("string", model), role
    finally:
        document.close()


# ---------------------------------------------------------------------------------------
# (b) Every subtype Quire creates changes pixels inside its rect
# ---------------------------------------------------------------------------------------

RECT = (150.0, 400.0, 350.0, 520.0)


def make_annotation(subtype: str) -> quire.Annotation:
    left, bottom, right, top = RECT
    a = quire.Annotation.new(subtype, 0, RECT)
    a.color = (0.9, 0.1, 0.1)
    a.contents = "Quire %s" % subtype
    if subtype in ("Square", "Circle", "Polygon"):
        a.interior_color = (0.1, 0.3, 0.9)
    if subtype in ("Square", "Circle", "Line", "Polygon", "PolyLine", "Ink"):
        a.border_width = 3
    if subtype == "Line":
        a.line = [left + 10, bottom + 10, right - 10, top - 10]
    elif subtype in ("Polygon", "PolyLine"):
        a.vertices = [left + 10, bottom + 10, (left + right) / 2, top - 10, right - 10, bottom + 10]
    elif subtype in ("Highlight", "Underline", "Squiggly", "StrikeOut"):
        a.quad_points = [left, top, right, top, left, bottom, right, bottom]
    elif subtype == "Ink":
        a.ink = [[left + 10, bottom + 10, right - 10, top - 10], [left + 10, top - 10, right - 10, bottom + 10]]
    elif subtype == "Stamp":
        a.icon = "Approved"
    elif subtype == "FreeText":
        a.contents = "Quire FreeText annotation"
    elif subtype == "FileAttachment":
        a.set_file(b"attached", "attached.txt", "text/plain")
    return a


def annotated_pdf(subtype: str) -> Tuple[bytes, quire.Rect]:
    with quire.Document(blank_pdf()) as document:
        a = document.add_annotation(make_annotation(subtype))
        rect = a.rect
        return document.save_to_bytes(), rect


def pixel_box(rect: quire.Rect, height: float = 792) -> Tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of a PDF rect on a 72 dpi render of a page of ``height``."""
    return (int(rect.left), int(height - rect.top), int(rect.right + 0.999), int(height - rect.bottom + 0.999))


def pdftoppm_render(data: bytes) -> Any:
    Image = peer("PIL.Image", why="Pillow compares the renders")
    program = peer_program("pdftoppm")
    with tempfile.TemporaryDirectory() as directory:
        source = Path(directory) / "in.pdf"
        source.write_bytes(data)
        subprocess.run([program, "-r", "72", "-png", "-f", "1", "-l", "1", "-singlefile", str(source), str(Path(directory) / "out")], check=True, capture_output=True, timeout=60)
        with Image.open(Path(directory) / "out.png") as image:
            return image.convert("RGB").copy()


def pdfium_render(data: bytes) -> Any:
    pdfium = pdfium_module()
    peer("PIL.Image", why="Pillow compares the renders")
    document = pdfium.PdfDocument(data)
    try:
        page = document[0]
        bitmap = page.render(scale=1, draw_annots=True)
        image = bitmap.to_pil().convert("RGB").copy()
        page.close()
        return image
    finally:
        document.close()


def changed_pixels(before: Any, after: Any, box: Tuple[int, int, int, int]) -> int:
    from PIL import ImageChops

    diff = ImageChops.difference(before.crop(box), after.crop(box)).convert("L")
    return diff.point(lambda value: 255 if value > 32 else 0).histogram()[255]


@pytest.mark.parametrize("renderer", ["pdftoppm", "pypdfium2"])
@pytest.mark.parametrize("subtype", quire.SUBTYPES)
def test_every_subtype_renders_inside_its_rect(subtype: str, renderer: str):
    render = pdftoppm_render if renderer == "pdftoppm" else pdfium_render
    before = render(blank_pdf())
    data, rect = annotated_pdf(subtype)
    after = render(data)
    assert before.size == after.size == (612, 792)
    box = pixel_box(rect)
    assert changed_pixels(before, after, box) > 20, "%s drew nothing inside %r with %s" % (subtype, rect, renderer)


def test_all_sixteen_subtypes_are_listed():
    assert len(quire.SUBTYPES) == 16 and {"Caret", "Redact", "FileAttachment"} <= set(quire.SUBTYPES)


# ---------------------------------------------------------------------------------------
# (c) Corpus files with replies and states: the counts of the manifest
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("relative", CORPUS_THREADS)
def test_corpus_reply_and_state_counts_match_the_manifest(relative: str, corpus, manifest):
    path = corpus(relative)
    consensus = manifest[relative]["consensus"]
    assert consensus["annots_irt_majority"] > 0 and consensus["annots_state_majority"] > 0
    with quire.Document(path) as document:
        annotations = [a for page in document.pages for a in page.annotations]
        assert len(annotations) == consensus["annots_total_majority"]
        assert sum(a.is_reply for a in annotations) == consensus["annots_irt_majority"]
        assert sum(a.state is not None for a in annotations) == consensus["annots_state_majority"]
        states: Dict[str, int] = {}
        for a in annotations:
            if a.state is not None:
                key = "%s:%s" % (a.state_model, a.state)
                states[key] = states.get(key, 0) + 1
        assert states == manifest[relative]["pdfium"]["annots_state_values"]
        # Every reply's parent is an annotation of the same document.
        for a in annotations:
            if a.in_reply_to is not None:
                assert document.annotation(a.in_reply_to).page_index == a.page_index


# ---------------------------------------------------------------------------------------
# Lifetimes
# ---------------------------------------------------------------------------------------


def test_annotations_outlive_their_document():
    document = quire.Document(blank_pdf())
    t = build_thread(document)
    listed = document.pages[0].annotations
    document.close()
    del document
    gc.collect()
    assert t["reply"].contents == "Totals are off" and t["note"].author == "Ada"
    assert len(listed) == 7 and listed[0].subtype == "Text"


def test_list_items_outlive_the_list(doc: quire.Document):
    t = build_thread(doc)
    comments = doc.comments(t["note"])
    current, history = doc.review_summary(t["note"])
    first = comments[0]
    last = history[-1]
    del comments, current, history
    gc.collect()
    assert first.contents == "Please check" and last.state == "Marked"


def test_closing_the_document_under_annotations(doc: quire.Document):
    t = build_thread(doc)
    doc.close()
    doc.close()
    note = t["note"]
    assert note.id is not None and note.contents == "Please check"
    with pytest.raises(quire.StateError):
        doc.add_reply(note, "A", "B")
    with pytest.raises(quire.StateError):
        doc.comments(note)
    with pytest.raises(quire.StateError):
        _ = doc.replies_enabled


def test_annotation_close_is_idempotent():
    a = quire.Annotation.new("Text", 0, (0, 0, 10, 10))
    with a:
        assert not a.closed
    assert a.closed
    a.close()
    with pytest.raises(quire.StateError):
        _ = a.contents
    with pytest.raises(TypeError):
        quire.Annotation()


# ---------------------------------------------------------------------------------------
# The example
# ---------------------------------------------------------------------------------------


def test_review_example(tmp_path: Path, sample_pdf: Path):
    out = tmp_path / "reviewed.pdf"
    # The package and library under test, wherever they came from (Tests/support).
    env = child_env()
    result = subprocess.run(
        [sys.executable, str(REVIEW), str(sample_pdf), str(out)], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    before, marker, after = result.stdout.partition("-- reopened %s --\n" % out)
    assert marker and before == after
    assert "    Bob: The totals in table 2 do not add up." in before
    assert "      Ada: Fixed in the next revision." in before
    assert "Review (current):\n  Ada: Completed (Review)\n  Bob: Rejected (Review)\n" in before
    assert "Review (history, oldest first):\n  Ada: Accepted\n  Bob: Rejected\n  Ada: Completed\n" in before
    # Saved incrementally: the source's bytes come first, unchanged.
    assert out.read_bytes().startswith(sample_pdf.read_bytes())


def test_record_ids_are_the_exports_and_find_their_annotation(sample_pdf: Path):
    import json

    with quire.Document(sample_pdf) as d:
        listed = [a for page in d.pages for a in page.annotations]
        exported = [r["id"] for r in json.loads(d.export_annotations_json())["annotations"]]
        # The export's ids, in its order (pages, then /Annots), one per listing.
        assert [d.annotation_record_id(a) for a in listed] == exported
        for a, rid in zip(listed, exported):
            found = d.annotation_by_record_id(rid)
            assert (found.id, found.page_index) == (a.id, a.page_index)
        # sample.pdf lists link object 15 on both pages: two records, one per page.
        assert "15" in exported and "15#1" in exported
        assert d.annotation_by_record_id("15#1").page_index == 1
        assert d.annotation_by_record_id("15").page_index == 0
        # A new annotation's record id is its /NM; one not added yet, or deleted, has none.
        note = quire.Annotation.new("Square", 1, (100, 100, 200, 200))
        with pytest.raises(quire.NotFoundError):
            d.annotation_record_id(note)
        d.add_annotation(note)
        assert d.annotation_record_id(note) == note.name
        assert d.annotation_by_record_id(note.name).id == note.id
        d.delete_annotation(note)
        with pytest.raises(quire.NotFoundError):
            d.annotation_record_id(note)
        with pytest.raises(quire.NotFoundError):
            d.annotation_by_record_id(note.name)
        with pytest.raises(quire.InvalidArgumentError):
            d.annotation_by_record_id("")
        with pytest.raises(quire.InvalidArgumentError):
            d.annotation_by_record_id("a\0b")
        with pytest.raises(TypeError):
            d.annotation_record_id(15)  # type: ignore[arg-type]
