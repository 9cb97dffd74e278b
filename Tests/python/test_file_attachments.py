"""FileAttachment annotations (issue 39): a file embedded by Quire, read back by pikepdf,
PyMuPDF and PDFium, its icon drawn by Quire's generated appearance and rendered by PDFium
and poppler; the rules refuse what cannot be written.
"""

from __future__ import annotations

import io
from typing import Any, Dict, Tuple

import pytest

import quire
from test_annotation_styles import RENDERERS, SCALE, blank_pdf, ink_box, inside, px

pytest.importorskip("PIL.Image", reason="Pillow is needed to compare renders")

PAYLOAD = bytes(range(256)) * 40 + b"\x00 the end"
ICONS: Dict[str, Tuple[float, float, float, float]] = {
    "PushPin": (100.0, 100.0, 124.0, 130.0),
    "Paperclip": (200.0, 100.0, 224.0, 130.0),
    "Graph": (100.0, 200.0, 124.0, 230.0),
    "Tag": (200.0, 200.0, 224.0, 230.0),
}


@pytest.fixture(scope="module")
def made() -> bytes:
    with quire.Document.from_bytes(blank_pdf(1)) as doc:
        for icon, rect in ICONS.items():
            a = quire.Annotation.new("FileAttachment", 0, rect)
            a.icon = icon
            a.contents = "see the %s file" % icon
            a.set_file(PAYLOAD, "data-%s.bin" % icon, "application/octet-stream", "the %s payload" % icon)
            assert a.file_name == "data-%s.bin" % icon
            doc.add_annotation(a)
        return doc.save_to_bytes()


def test_quire_reads_the_file_back(made: bytes):
    with quire.Document.from_bytes(made) as doc:
        annotations = list(doc.pages[0].annotations)
        assert [a.subtype for a in annotations] == ["FileAttachment"] * 4
        for a, icon in zip(annotations, ICONS):
            assert a.icon == icon
            assert a.file_name == "data-%s.bin" % icon
            assert a.file_description == "the %s payload" % icon
            assert a.file_content_type == "application/octet-stream"
            assert doc.annotation_file(a) == PAYLOAD
            with pytest.raises(AttributeError):
                a.file_name = "other"  # type: ignore[misc]


def test_pikepdf_and_pymupdf_read_the_embedded_file(made: bytes):
    import pikepdf
    import pymupdf

    with pikepdf.open(io.BytesIO(made)) as pdf:
        for annot, icon in zip(pdf.pages[0].Annots, ICONS):
            assert annot.Subtype == "/FileAttachment" and annot.Name == "/" + icon
            spec = annot.FS
            assert spec.Type == "/Filespec" and str(spec.UF) == "data-%s.bin" % icon
            assert str(spec.Desc) == "the %s payload" % icon
            stream = spec.EF.F
            assert stream.Type == "/EmbeddedFile" and stream.Subtype == "/application/octet-stream"
            assert stream.read_bytes() == PAYLOAD and int(stream.Params.Size) == len(PAYLOAD)
            assert "/N" in annot.AP
    with pymupdf.open(stream=made, filetype="pdf") as doc:
        page = doc[0]
        annots = list(page.annots())
        assert [a.type[1] for a in annots] == ["FileAttachment"] * 4
        for annot, icon in zip(annots, ICONS):
            assert annot.get_file() == PAYLOAD
            info = annot.file_info
            assert info["filename"] == "data-%s.bin" % icon and info["description"] == "the %s payload" % icon


def test_pdfium_reads_the_embedded_file(made: bytes):
    import ctypes

    import pypdfium2
    import pypdfium2.raw as raw

    pdf = pypdfium2.PdfDocument(made)
    try:
        page = pdf[0]
        assert raw.FPDFPage_GetAnnotCount(page) == 4
        annot = raw.FPDFPage_GetAnnot(page, 0)
        try:
            assert raw.FPDFAnnot_GetSubtype(annot) == raw.FPDF_ANNOT_FILEATTACHMENT
            attachment = raw.FPDFAnnot_GetFileAttachment(annot)
            assert attachment
            size = raw.c_ulong(0)
            assert raw.FPDFAttachment_GetFile(attachment, None, 0, ctypes.byref(size))
            buffer = ctypes.create_string_buffer(size.value)
            assert raw.FPDFAttachment_GetFile(attachment, buffer, size.value, ctypes.byref(size))
            assert buffer.raw[: size.value] == PAYLOAD
        finally:
            raw.FPDFPage_CloseAnnot(annot)
    finally:
        pdf.close()


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
@pytest.mark.parametrize("icon", sorted(ICONS))
def test_icon_drawn_inside_its_rectangle(made: bytes, renderer: str, icon: str):
    image = RENDERERS[renderer](made, 0)
    rect = ICONS[icon]
    # The ink near this icon (its rectangle and 5 points around it), in page points.
    (x0, y0), (x1, y1) = px(rect[0] - 5, rect[3] + 5), px(rect[2] + 5, rect[1] - 5)
    box = image.crop((x0, y0, x1, y1)).point(lambda v: 255 if v < 200 else 0).getbbox()
    assert box is not None, "nothing drawn for %s" % icon
    left, top, right, bottom = box
    drawn = (
        rect[0] - 5 + left / SCALE,
        rect[3] + 5 - bottom / SCALE,
        rect[0] - 5 + right / SCALE,
        rect[3] + 5 - top / SCALE,
    )
    assert inside(drawn, rect, slack=1.5), (icon, drawn)
    assert (drawn[2] - drawn[0]) >= 8 and (drawn[3] - drawn[1]) >= 8, (icon, drawn)
    # Nothing outside the four icons.
    assert inside(ink_box(image), (100, 100, 224, 230), slack=1.5)


def test_updating_replaces_the_file(made: bytes):
    with quire.Document.from_bytes(made) as doc:
        a = list(doc.pages[0].annotations)[0]
        a.set_file(b"second version", "v2.txt", "text/plain")
        doc.update_annotation(a)
        assert doc.annotation_file(a) == b"second version"
        data = doc.save_to_bytes()
    with quire.Document.from_bytes(data) as doc:
        a = list(doc.pages[0].annotations)[0]
        assert (a.file_name, a.file_content_type, a.file_description) == ("v2.txt", "text/plain", None)
        assert doc.annotation_file(a) == b"second version"
        # Changing another field keeps the file.
        a.contents = "changed"
        doc.update_annotation(a)
        assert doc.annotation_file(a) == b"second version"


def test_the_rules_refuse_what_cannot_be_written():
    with quire.Document.from_bytes(blank_pdf(1)) as doc:
        bare = quire.Annotation.new("FileAttachment", 0, (10, 10, 30, 40))
        with pytest.raises(quire.InvalidArgumentError, match="needs a file"):
            doc.add_annotation(bare)
        square = quire.Annotation.new("Square", 0, (10, 10, 30, 40))
        square.set_file(b"x", "x.txt")
        with pytest.raises(quire.InvalidArgumentError, match="only a FileAttachment has a file"):
            doc.add_annotation(square)
        a = quire.Annotation.new("FileAttachment", 0, (10, 10, 30, 40))
        for name in ("", "dir/x.txt", "c:\\x.txt", "a\x00b"):
            with pytest.raises((quire.InvalidArgumentError, ValueError)):
                a.set_file(b"x", name)
        with pytest.raises(quire.InvalidArgumentError, match="media type"):
            a.set_file(b"x", "x.txt", "text")
        with pytest.raises(TypeError):
            a.set_file(b"x")
        a.set_file(b"", "empty.txt")  # an empty file is a file
        doc.add_annotation(a)
        assert doc.annotation_file(a) == b""
        with pytest.raises(quire.NotFoundError):
            doc.annotation_file(doc.add_annotation(quire.Annotation.new("Square", 0, (50, 50, 60, 60))))


def test_a_file_from_a_path(tmp_path: Any):
    source = tmp_path / "report.csv"
    source.write_bytes(b"a,b\n1,2\n")
    with quire.Document.from_bytes(blank_pdf(1)) as doc:
        a = quire.Annotation.new("FileAttachment", 0, (10, 10, 30, 40))
        a.set_file(source, content_type="text/csv")
        doc.add_annotation(a)
        assert a.file_name == "report.csv" and doc.annotation_file(a) == b"a,b\n1,2\n"


def test_json_and_xfdf_carry_the_file(made: bytes):
    """Instant JSON (`pspdfkit/file` with `fileAttachmentId` and the document's
    `attachments`) and XFDF (`<fileattachment file=... desc=...>` with a hexadecimal
    `<data>`) carry the embedded file: imported into a blank PDF, pikepdf reads the same
    bytes, name and description."""
    import base64
    import hashlib
    import json

    import pikepdf

    with quire.Document.from_bytes(made) as doc:
        exported = doc.export_annotations_json()
        xfdf = doc.export_xfdf()
    records = json.loads(exported)
    sha = hashlib.sha256(PAYLOAD).hexdigest()
    files = [r for r in records["annotations"] if r["type"] == "pspdfkit/file"]
    assert len(files) == 4 and {r["fileAttachmentId"] for r in files} == {sha}
    assert {r["iconName"] for r in files} == set(ICONS)
    assert {r["fileName"] for r in files} == {"data-%s.bin" % icon for icon in ICONS}
    assert base64.b64decode(records["attachments"][sha]["binary"]) == PAYLOAD
    assert xfdf.count("<fileattachment ") == 4 and 'encoding="hex"' in xfdf and 'length="%d"' % len(PAYLOAD) in xfdf
    for how in ("json", "xfdf"):
        with quire.Document.from_bytes(blank_pdf(1)) as other:
            if how == "json":
                other.import_annotations_json(exported)
            else:
                other.import_xfdf(xfdf)
            data = other.save_to_bytes()
        with pikepdf.open(io.BytesIO(data)) as p:
            annots = [a for a in p.pages[0].Annots if a.get("/Subtype") == "/FileAttachment"]
            assert len(annots) == 4, how
            for a in annots:
                icon = str(a.Name)[1:]
                assert str(a.FS.UF) == "data-%s.bin" % icon and str(a.FS.Desc) == "the %s payload" % icon, how
                assert a.FS.EF.F.read_bytes() == PAYLOAD, how


def _file_json(binary: str, key: str, name: str = "x.txt") -> str:
    import json

    record = {
        "v": 1,
        "type": "pspdfkit/file",
        "id": "f",
        "pageIndex": 0,
        "bbox": [10, 10, 20, 20],
        "fileAttachmentId": key,
        "fileName": name,
        "contentType": "text/plain",
    }
    return json.dumps({"annotations": [record], "attachments": {key: {"binary": binary, "contentType": "text/plain"}}})


def _file_xfdf(data: str, **attrs: str) -> str:
    extra = "".join(' %s="%s"' % (k, v) for k, v in attrs.items())
    return (
        '<?xml version="1.0" encoding="UTF-8"?><xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>'
        '<fileattachment page="0" rect="10,10,30,30" name="f" file="x.txt"><data MODE="raw"%s>%s</data>'
        '</fileattachment></annots></xfdf>' % (extra, data)
    )


def test_hostile_files_are_refused_and_change_nothing():
    import base64
    import hashlib
    import zlib

    good = b"attached bytes"
    sha = hashlib.sha256(good).hexdigest()
    with quire.Document.from_bytes(blank_pdf(1)) as doc:
        before = doc.save_to_bytes()
        cases = [
            (_file_json("not base64!!", sha), "not base64"),
            (_file_json(base64.b64encode(b"other bytes").decode(), sha), "SHA-256"),
            (_file_json(base64.b64encode(good).decode(), sha, name="../x.txt"), "fileName"),
            (_file_json("A" * (90 << 20), sha), "characters of base64"),
        ]
        for text, expected in cases:
            with pytest.raises(quire.QuireError, match=expected):
                doc.import_annotations_json(text)
        xfdf_cases = [
            (_file_xfdf("4G", encoding="hex"), "not a hexadecimal digit"),
            (_file_xfdf("ABC", encoding="hex"), "odd number"),
            (_file_xfdf("!!!", encoding="base64"), "not base64"),
            (_file_xfdf(good.hex(), encoding="hex", length="3"), "length"),
            (_file_xfdf(good.hex(), encoding="ascii85"), "not hex or base64"),
            (
                _file_xfdf(zlib.compress(b"\0" * (65 << 20)).hex(), encoding="hex", filter="FlateDecode"),
                "attached_file_max_bytes|64",
            ),
        ]
        for text, expected in xfdf_cases:
            with pytest.raises(quire.QuireError, match=expected):
                doc.import_xfdf(text)
        assert doc.save_to_bytes() == before
        # The same data, well formed, imports: hex, base64 and Flate-compressed hex.
        for data, attrs in (
            (good.hex().upper(), {"encoding": "hex", "length": str(len(good))}),
            (base64.b64encode(good).decode(), {"encoding": "base64"}),
            (zlib.compress(good).hex(), {"encoding": "hex", "filter": "FlateDecode"}),
        ):
            with quire.Document.from_bytes(blank_pdf(1)) as other:
                other.import_xfdf(_file_xfdf(data, **attrs))
                [a] = list(other.pages[0].annotations)
                assert other.annotation_file(a) == good and a.file_name == "x.txt"
