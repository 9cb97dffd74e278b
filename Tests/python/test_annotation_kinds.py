"""Carets and image stamps (issue 39): made by Quire, drawn by its generated appearances and
rendered by PDFium (pypdfium2) and poppler (pdftoppm), read back by pikepdf and PyMuPDF,
and carried by annotation JSON and XFDF.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

import quire
from test_annotation_styles import RENDERERS, blank_pdf, ink_box, inside, px

pytest.importorskip("PIL.Image", reason="Pillow is needed to compare renders")

CARET = (100.0, 100.0, 140.0, 140.0)
STAMP = (50.0, 150.0, 250.0, 250.0)


def image_bytes(kind: str) -> bytes:
    """A 40 × 20 image: its left half black, its right half white (PNG with or without
    alpha, or JPEG), drawn by Pillow."""
    from PIL import Image

    mode = "RGBA" if kind == "png-alpha" else "RGB"
    image = Image.new(mode, (40, 20), (255, 255, 255, 255) if mode == "RGBA" else (255, 255, 255))
    for x in range(20):
        for y in range(20):
            image.putpixel((x, y), (0, 0, 0, 255) if mode == "RGBA" else (0, 0, 0))
    out = io.BytesIO()
    image.save(out, format="JPEG" if kind == "jpeg" else "PNG", quality=95)
    return out.getvalue()


@pytest.fixture(scope="module")
def made() -> bytes:
    with quire.Document.from_bytes(blank_pdf(4)) as doc:
        caret = quire.Annotation.new("Caret", 0, CARET)
        caret.symbol = "P"
        caret.color = (0, 0, 1)
        caret.contents = "insert a word"
        doc.add_annotation(caret)
        for page, kind in enumerate(("png", "png-alpha", "jpeg"), start=1):
            stamp = quire.Annotation.new("Stamp", page, STAMP)
            stamp.set_image(image_bytes(kind))
            doc.add_annotation(stamp)
        return doc.save_to_bytes()


def test_caret_read_back_by_pikepdf_and_pymupdf(made: bytes):
    import pikepdf
    import pymupdf

    with pikepdf.open(io.BytesIO(made)) as pdf:
        caret = pdf.pages[0].Annots[0]
        assert caret.Subtype == "/Caret" and caret.Sy == "/P" and str(caret.Contents) == "insert a word"
        assert "/N" in caret.AP
    with pymupdf.open(stream=made, filetype="pdf") as document:
        page = document[0]
        annot = page.first_annot
        assert annot.type[1] == "Caret" and annot.info["content"] == "insert a word"


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_caret_drawn_inside_its_rectangle(made: bytes, renderer: str):
    image = RENDERERS[renderer](made, 0)
    box = ink_box(image, 250)
    assert inside(box, CARET), box
    # A caret: wide at the bottom, a point at the top.
    assert box[2] - box[0] >= 35 and box[3] - box[1] >= 35, box
    assert image.getpixel(px(120, 102)) < 200  # the base, middle
    assert image.getpixel(px(120, 128)) < 200  # towards the apex
    assert image.getpixel(px(102, 138)) > 250 and image.getpixel(px(138, 138)) > 250  # top corners empty


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
@pytest.mark.parametrize("page", [1, 2, 3], ids=["png", "png-alpha", "jpeg"])
def test_image_stamp_drawn_scaled_to_its_rectangle(made: bytes, renderer: str, page: int):
    image = RENDERERS[renderer](made, page)
    box = ink_box(image)
    # The black half fills the left half of the rectangle; the white half draws nothing.
    assert abs(box[0] - 50) <= 1 and abs(box[1] - 150) <= 1 and abs(box[3] - 250) <= 1, box
    assert abs(box[2] - 150) <= 2, box
    assert image.getpixel(px(100, 200)) < 40 and image.getpixel(px(200, 200)) > 215


def test_image_stamp_read_back_by_pikepdf(made: bytes):
    import pikepdf

    with pikepdf.open(io.BytesIO(made)) as pdf:
        for page, filter_ in ((1, "/FlateDecode"), (2, "/FlateDecode"), (3, "/DCTDecode")):
            stamp = pdf.pages[page].Annots[0]
            assert stamp.Subtype == "/Stamp"
            xobject = stamp.AP.N.Resources.XObject.Im0
            assert xobject.Subtype == "/Image" and int(xobject.Width) == 40 and int(xobject.Height) == 20
            assert xobject.Filter == filter_
            assert ("/SMask" in xobject) == (page == 2)


def test_json_and_xfdf_round_trips(made: bytes):
    with quire.Document.from_bytes(made) as doc:
        exported = doc.export_annotations_json()
        xfdf = doc.export_xfdf()
    records = json.loads(exported)
    by_page = {r["pageIndex"]: r for r in records["annotations"]}
    assert by_page[0]["type"] == "quire/generic" and by_page[0]["quire"]["subtype"] == "Caret"
    assert by_page[0]["quire"]["symbol"] == "P"
    for page in (1, 2, 3):
        assert by_page[page]["type"] == "pspdfkit/image"
        assert records["attachments"][by_page[page]["imageAttachmentId"]]["contentType"] in ("image/png", "image/jpeg")
    assert '<caret ' in xfdf and 'symbol="paragraph"' in xfdf
    with quire.Document.from_bytes(blank_pdf(4)) as other:
        other.import_annotations_json(exported)
        caret = other.pages[0].annotations[0]
        assert caret.subtype == "Caret" and caret.symbol == "P" and caret.contents == "insert a word"
        again = other.save_to_bytes()
    image = RENDERERS["pdfium"](again, 1)
    assert image.getpixel(px(100, 200)) < 40 and image.getpixel(px(200, 200)) > 215
    with quire.Document.from_bytes(blank_pdf(4)) as other:
        other.import_xfdf(xfdf)
        caret = other.pages[0].annotations[0]
        assert caret.subtype == "Caret" and caret.symbol == "P"


def test_a_bad_image_and_a_symbol_are_refused():
    stamp = quire.Annotation.new("Stamp", 0, STAMP)
    with pytest.raises(quire.FormatError):
        stamp.set_image(b"GIF89a" + b"\0" * 20, "image/gif")
    with pytest.raises(quire.FormatError):
        stamp.set_image(image_bytes("png")[:-30])
    caret = quire.Annotation.new("Caret", 0, CARET)
    with pytest.raises(quire.InvalidArgumentError, match="symbol"):
        caret.symbol = "Q"
    square = quire.Annotation.new("Square", 0, STAMP)
    square.set_image(image_bytes("png"))
    with quire.Document.from_bytes(blank_pdf(1)) as doc:
        with pytest.raises(quire.InvalidArgumentError, match="only a Stamp"):
            doc.add_annotation(square)
        square.set_image(None)
        doc.add_annotation(square)


def test_replacing_a_stamps_image(made: bytes):
    with quire.Document.from_bytes(made) as doc:
        stamp = doc.pages[1].annotations[0]
        stamp.set_image(image_bytes("jpeg"))
        doc.update_annotation(stamp)
        data = doc.save_to_bytes()
    import pikepdf

    with pikepdf.open(io.BytesIO(data)) as pdf:
        assert pdf.pages[1].Annots[0].AP.N.Resources.XObject.Im0.Filter == "/DCTDecode"


# ----------------------------------------------------------------------------------------
# FreeText: callout, typewriter, alignment
# ----------------------------------------------------------------------------------------

FREE_TEXT = (40.0, 40.0, 260.0, 260.0)
CALLOUT = [60.0, 60.0, 100.0, 100.0, 140.0, 150.0]


@pytest.fixture(scope="module")
def free_text() -> bytes:
    with quire.Document.from_bytes(blank_pdf(3)) as doc:
        callout = quire.Annotation.new("FreeText", 0, FREE_TEXT)
        callout.contents = "Callout"
        callout.default_appearance = "/Helv 14 Tf 0 g"
        callout.color = (0, 0, 0)
        callout.border_width = 1
        callout.intent = "FreeTextCallout"
        callout.callout_line = CALLOUT
        callout.line_endings = ("OpenArrow", None)
        callout.rect_differences = [100, 100, 0, 0]  # the box: (140, 140, 260, 260)
        doc.add_annotation(callout)
        typewriter = quire.Annotation.new("FreeText", 1, FREE_TEXT)
        typewriter.contents = "Typed"
        typewriter.default_appearance = "/Helv 14 Tf 0 g"
        typewriter.color = (0, 0, 0)
        typewriter.intent = "FreeTextTypeWriter"
        doc.add_annotation(typewriter)
        for k in range(3):
            aligned = quire.Annotation.new("FreeText", 2, (50, 200 - 60 * k, 250, 230 - 60 * k))
            aligned.contents = "ABC"
            aligned.default_appearance = "/Helv 14 Tf 0 g"
            aligned.alignment = k
            doc.add_annotation(aligned)
        return doc.save_to_bytes()


def test_free_text_read_back_by_pikepdf_and_pymupdf(free_text: bytes):
    import pikepdf
    import pymupdf

    with pikepdf.open(io.BytesIO(free_text)) as pdf:
        callout = pdf.pages[0].Annots[0]
        assert callout.IT == "/FreeTextCallout" and [float(v) for v in callout.CL] == CALLOUT
        assert callout.LE == "/OpenArrow"  # one name for a FreeText (ISO 32000-2 §12.5.6.6)
        assert [float(v) for v in callout.RD] == [100, 100, 0, 0]
        assert pdf.pages[1].Annots[0].IT == "/FreeTextTypeWriter"
        assert [int(a.Q) for a in pdf.pages[2].Annots] == [0, 1, 2]
    with pymupdf.open(stream=free_text, filetype="pdf") as document:
        page = document[0]
        annot = page.first_annot
        assert annot.type[1] == "FreeText" and annot.info["content"] == "Callout"
        # (MuPDF reads line endings of lines and polylines only; pikepdf read /LE above.)
        assert tuple(annot.rect) == (40, 40, 260, 260)


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_callout_drawn_with_its_line_and_box(free_text: bytes, renderer: str):
    image = RENDERERS[renderer](free_text, 0)
    box = ink_box(image)
    assert inside(box, FREE_TEXT), box
    # The arrow's tip at (60, 60) and its wings reach a little further out (size 6).
    assert box[0] <= 61 and box[1] <= 61, box
    # The line through its knee, and the box's border (its left edge at x = 140.5).
    assert min(image.getpixel(px(x, 100)) for x in (99, 100, 101)) < 128
    assert image.getpixel(px(140.5, 200)) < 128 and image.getpixel(px(200, 259.5)) < 128
    # Nothing left of the box above the knee's end, and the text inside the box.
    assert image.getpixel(px(100, 200)) > 240
    text = image.crop((px(142, 258)[0], px(142, 258)[1], px(258, 200)[0], px(258, 200)[1]))
    assert text.point(lambda v: 255 if v < 128 else 0).getbbox() is not None


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_typewriter_draws_its_text_alone(free_text: bytes, renderer: str):
    image = RENDERERS[renderer](free_text, 1)
    box = ink_box(image)
    # No border: the ink is the one line of text at the top left, not the rectangle.
    assert box[0] >= 41 and box[3] <= 259 and box[2] < 120 and box[1] > 220, box


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_alignment_left_centre_right(free_text: bytes, renderer: str):
    image = RENDERERS[renderer](free_text, 2)
    for k in range(3):
        top = 230 - 60 * k
        band = image.crop((0, px(0, top)[1], image.width, px(0, top - 30)[1]))
        left, _, right, _ = band.point(lambda v: 255 if v < 128 else 0).getbbox()
        left, right = left / 2, right / 2  # points (SCALE 2)
        middle = (left + right) / 2
        # Within 4 points: poppler draws Helvetica with a substitute whose glyphs are narrower
        # than Helvetica's widths (measured: right-aligned text ends at 245.5, PDFium 247.5).
        if k == 0:
            assert abs(left - 52) <= 4, (k, left)
        elif k == 1:
            assert abs(middle - 150) <= 4, (k, middle)
        else:
            assert abs(right - 248) <= 4, (k, right)


def test_free_text_round_trips(free_text: bytes):
    def fields(a: quire.Annotation) -> Any:
        return (a.intent, a.callout_line, a.line_endings[0], a.rect_differences, a.alignment, a.contents)

    with quire.Document.from_bytes(free_text) as doc:
        before = [fields(a) for page in doc.pages for a in page.annotations]
        exported = doc.export_annotations_json()
        xfdf = doc.export_xfdf()
    records = json.loads(exported)["annotations"]
    callout = next(r for r in records if r["pageIndex"] == 0)
    # Nutrient's callout: flipped points (the page is 300 high), the cap, the inset.
    assert callout["callout"] == {
        "start": [60, 240],
        "knee": [100, 200],
        "end": [140, 150],
        "cap": "openArrow",
        "innerRectInset": [100, 0, 0, 100],
    }
    assert "intent" not in callout.get("quire", {})
    assert [r.get("horizontalAlign") for r in records if r["pageIndex"] == 2] == ["left", "center", "right"]
    assert 'intent="FreeTextCallout"' in xfdf and 'justification="centered"' in xfdf
    for how in ("json", "xfdf"):
        with quire.Document.from_bytes(blank_pdf(3)) as other:
            if how == "json":
                other.import_annotations_json(exported)
            else:
                other.import_xfdf(xfdf)
            after = [fields(a) for page in other.pages for a in page.annotations]
        assert after == before, how


def test_free_text_rules():
    a = quire.Annotation.new("FreeText", 0, FREE_TEXT)
    with pytest.raises(quire.InvalidArgumentError, match="alignment"):
        a.alignment = 3
    with pytest.raises(quire.InvalidArgumentError, match="callout line"):
        a.callout_line = [1, 2, 3, 4, 5, 6, 7, 8]
    with pytest.raises(quire.InvalidArgumentError, match="intent"):
        a.intent = ""
