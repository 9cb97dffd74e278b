"""Every field of issue 39's kinds through Instant JSON and XFDF, and Nutrient's published
Instant JSON shapes for them (https://www.nutrient.io/guides/web/json/schema/annotations/).

One document holds each kind with every property set; its export imported into a blank
document gives back every field (compared field by field, as Quire reads them back), and
the drawing order. Records written the way Nutrient's schema describes them (a callout
with xhtml text, a rotation and a blend mode; a cloudy area measurement; a perimeter with
line caps; a dashed distance; an image with its attachment; a file with its attachment)
import with the properties they name.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from typing import Any, Dict, List, Tuple

import pytest

import quire
from test_annotation_styles import blank_pdf

pytest.importorskip("PIL.Image", reason="Pillow makes the stamp's image")

PAGE_HEIGHT = 300  # blank_pdf's pages are 300 x 300


def png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 4), (0, 128, 255)).save(out, format="PNG")
    return out.getvalue()


def fields(a: quire.Annotation) -> Tuple[Any, ...]:
    """What issue 39 added, as Quire reads it back."""
    return (
        a.subtype,
        a.border_style,
        a.dash_pattern,
        a.cloudy_intensity,
        a.rect_differences,
        a.line_endings,
        a.intent,
        a.callout_line,
        a.alignment,
        a.symbol,
        a.measurement,
        a.rotation,
        a.blend_mode,
        a.opacity,
        a.rich_text,
        a.contents,
        a.file_name,
        a.file_content_type,
        a.file_description,
    )


def every_kind() -> quire.Document:
    doc = quire.Document.from_bytes(blank_pdf(1))

    def add(subtype: str, rect: Tuple[float, float, float, float], **values: Any) -> None:
        a = quire.Annotation.new(subtype, 0, rect)
        for key, value in values.items():
            if key == "image":
                a.set_image(value)
            elif key == "file":
                a.set_file(value, "notes.txt", content_type="text/plain", description="the notes")
            else:
                setattr(a, key, value)
        doc.add_annotation(a)

    add(
        "Square",
        (20, 20, 80, 80),
        color=(1, 0, 0),
        border_style="D",
        dash_pattern=[4, 2],
        blend_mode="Multiply",
        opacity=0.5,
    )
    add("Circle", (90, 20, 150, 80), color=(0, 0, 1), cloudy_intensity=2, rect_differences=[9, 9, 9, 9])
    add(
        "Line",
        (10, 90, 150, 130),
        line=[20, 100, 140, 120],
        color=(0, 0, 0),
        line_endings=("Diamond", "RClosedArrow"),
        measurement=quire.Measurement(1, "in", 2, "ft", 3),
    )
    add(
        "PolyLine",
        (160, 20, 290, 80),
        vertices=[170, 30, 200, 70, 280, 40],
        color=(0, 0.5, 0),
        line_endings=("Circle", "Slash"),
        measurement=quire.Measurement(1, "cm", 1, "m", 1),
    )
    add(
        "Polygon",
        (160, 90, 290, 160),
        vertices=[170, 100, 280, 100, 230, 150],
        color=(0.5, 0, 0.5),
        cloudy_intensity=1,
        measurement=quire.Measurement(1, "pt", 1, "mm", 2),
    )
    add("Caret", (20, 140, 32, 156), symbol="P", color=(0, 0, 1))
    add(
        "FreeText",
        (40, 170, 200, 230),
        default_appearance="/Helv 12 Tf 0 g",
        color=(1, 0, 0),
        intent="FreeTextCallout",
        callout_line=[20, 290, 60, 260, 80, 230],
        line_endings=("OpenArrow", None),
        rect_differences=[40, 0, 0, 0],
        alignment=1,
        rich_text='<p>Rich <b style="color:#FF0000">bold</b> <i>tilted</i></p>',
    )
    add(
        "FreeText",
        (210, 170, 290, 290),
        default_appearance="/Helv 10 Tf 0 g",
        intent="FreeTextTypeWriter",
        rotation=90,
        contents="typed",
    )
    add("Stamp", (210, 250, 290, 290), image=png(), rotation=270)
    add("FileAttachment", (250, 10, 266, 30), file=b"notes of the meeting", icon="Paperclip")
    return doc


def by_position(doc: quire.Document) -> List[Tuple[Any, ...]]:
    return [fields(a) for a in doc.annotations()]


@pytest.mark.parametrize("how", ["json", "xfdf"])
def test_every_field_round_trips(how: str) -> None:
    source = every_kind()
    before = by_position(source)
    # Every property was set as asked (the file's fields come back from the document).
    assert before[0][1:4] == ("D", [4, 2], None) and before[0][12:14] == ("Multiply", 0.5)
    assert before[6][14] is not None and "bold" in before[6][14]
    payload = source.export_annotations_json() if how == "json" else source.export_xfdf()
    target = quire.Document.from_bytes(blank_pdf(1))
    if how == "json":
        target.import_annotations_json(payload)
    else:
        target.import_xfdf(payload)
    after = by_position(target)
    assert len(after) == len(before)
    for b, a in zip(before, after):
        assert a == b, (how, b[0], [(k, x, y) for k, (x, y) in enumerate(zip(b, a)) if x != y])
    # The files come back whole, and the stamp's image (XFDF: an <imagedata> data URL).
    (attachment,) = [a for a in target.annotations() if a.subtype == "FileAttachment"]
    assert target.annotation_file(attachment) == b"notes of the meeting"
    exported = json.loads(target.export_annotations_json())
    record = next(r for r in exported["annotations"] if r["type"] == "pspdfkit/image")
    assert record["imageAttachmentId"] == hashlib.sha256(png()).hexdigest()
    assert base64.b64decode(exported["attachments"][record["imageAttachmentId"]]["binary"]) == png()
    if how == "xfdf":
        assert "<imagedata>data:image/png;base64," + base64.b64encode(png()).decode() + "</imagedata>" in payload


def test_nutrient_instant_json_shapes_import() -> None:
    image = png()
    image_id = hashlib.sha256(image).hexdigest()
    notes = b"the minutes"
    notes_id = hashlib.sha256(notes).hexdigest()
    common: Dict[str, Any] = {
        "v": 2,
        "pageIndex": 0,
        "opacity": 1,
        "createdAt": "2026-01-01T00:00:00Z",
        "updatedAt": "2026-01-01T00:00:00Z",
    }
    records = [
        dict(
            common,
            type="pspdfkit/text",
            id="t1",
            name="t1",
            bbox=[40, 60, 160, 60],
            text={"format": "xhtml", "value": '<p>Hello <b>there</b></p>'},
            fontColor="#0000FF",
            fontSize=14,
            font="Helvetica",
            horizontalAlign="right",
            verticalAlign="top",
            rotation=0,
            blendMode="multiply",
            callout={
                "start": [10, 10],
                "knee": [25, 30],
                "end": [40, 60],
                "cap": "closedArrow",
                "innerRectInset": [0, 0, 0, 0],
            },
        ),
        dict(
            common,
            type="pspdfkit/shape/polygon",
            id="p1",
            name="p1",
            bbox=[100, 150, 120, 100],
            points=[[110, 160], [210, 160], [160, 240]],
            strokeColor="#FF0000",
            strokeWidth=2,
            cloudyBorderIntensity=2,
            measurementScale={"unitFrom": "in", "from": 1, "unitTo": "ft", "to": 10},
            measurementPrecision="oneDp",
        ),
        dict(
            common,
            type="pspdfkit/shape/polyline",
            id="l1",
            name="l1",
            bbox=[10, 200, 100, 60],
            points=[[20, 210], [60, 250], [100, 210]],
            strokeColor="#00FF00",
            strokeWidth=1,
            lineCaps={"start": "square", "end": "reverseOpenArrow"},
            measurementScale={"unitFrom": "cm", "from": 1, "unitTo": "m", "to": 1},
            measurementPrecision="twoDp",
        ),
        dict(
            common,
            type="pspdfkit/shape/line",
            id="d1",
            name="d1",
            bbox=[150, 20, 100, 20],
            startPoint=[155, 30],
            endPoint=[245, 30],
            strokeColor="#000000",
            strokeWidth=1,
            strokeDashArray=[3, 3],
            lineCaps={"start": "butt", "end": "butt"},
            measurementScale={"unitFrom": "pt", "from": 72, "unitTo": "in", "to": 1},
            measurementPrecision="whole",
        ),
        dict(
            common,
            type="pspdfkit/image",
            id="i1",
            name="i1",
            bbox=[200, 200, 80, 40],
            imageAttachmentId=image_id,
            contentType="image/png",
            rotation=90,
        ),
        dict(
            common,
            type="pspdfkit/file",
            id="f1",
            name="f1",
            bbox=[260, 260, 16, 20],
            fileAttachmentId=notes_id,
            fileName="minutes.txt",
            description="minutes",
            contentType="text/plain",
            iconName="graph",
        ),
    ]
    document = {
        "format": "https://pspdfkit.com/instant-json/v1",
        "annotations": records,
        "attachments": {
            image_id: {"binary": base64.b64encode(image).decode(), "contentType": "image/png"},
            notes_id: {"binary": base64.b64encode(notes).decode(), "contentType": "text/plain"},
        },
    }
    doc = quire.Document.from_bytes(blank_pdf(1))
    assert doc.import_annotations_json(json.dumps(document)) == len(records)
    got = {a.name: a for a in doc.annotations()}
    text = got["t1"]
    assert text.subtype == "FreeText" and text.intent == "FreeTextCallout" and text.alignment == 2
    assert text.rich_text is not None and "<b>there</b>" in text.rich_text and text.contents == "Hello there"
    assert text.blend_mode == "Multiply" and text.line_endings[0] == "ClosedArrow"
    # Nutrient's points are y-down from the page's top.
    assert text.callout_line == [10, PAGE_HEIGHT - 10, 25, PAGE_HEIGHT - 30, 40, PAGE_HEIGHT - 60]
    polygon = got["p1"]
    assert polygon.subtype == "Polygon" and polygon.cloudy_intensity == 2
    assert polygon.measurement == quire.Measurement(1, "in", 10, "ft", 1) and polygon.intent == "PolygonDimension"
    polyline = got["l1"]
    assert tuple(polyline.line_endings) == ("Square", "ROpenArrow") and polyline.measurement == quire.Measurement(
        1, "cm", 1, "m", 2
    )
    line = got["d1"]
    assert line.border_style == "D" and line.dash_pattern == [3, 3] and tuple(line.line_endings) == ("Butt", "Butt")
    assert line.measurement == quire.Measurement(72, "pt", 1, "in", 0) and line.contents == "1 in"
    stamp = got["i1"]
    assert stamp.subtype == "Stamp" and stamp.rotation == 90
    attached = got["f1"]
    assert attached.subtype == "FileAttachment" and attached.file_name == "minutes.txt"
    assert attached.file_description == "minutes" and doc.annotation_file(attached) == notes
    # Drawn: the imported rich text's bold word, the cloud and the label render with PDFium.
    pdfium = pytest.importorskip("pypdfium2")
    data = doc.save_to_bytes(full=True)
    pdf = pdfium.PdfDocument(data)
    try:
        assert pdf[0].render(scale=1, draw_annots=True).to_pil().convert("L").getextrema()[0] < 100
    finally:
        pdf.close()


# ----------------------------------------------------------------------------------------
# XFDF: a stamp's image (<imagedata>, as Apryse writes it)
# ----------------------------------------------------------------------------------------


def stamp_pixel(doc: quire.Document) -> Tuple[int, int, int]:
    """The colour PDFium draws at the middle of the page's one stamp (at 1 pixel a point)."""
    import pypdfium2 as pdfium

    (stamp,) = [a for a in doc.annotations() if a.subtype == "Stamp"]
    left, bottom, right, top = stamp.rect
    pdf = pdfium.PdfDocument(doc.save_to_bytes(full=True))
    try:
        image = pdf[0].render(scale=1, draw_annots=True).to_pil().convert("RGB")
        return image.getpixel((int((left + right) / 2), int(PAGE_HEIGHT - (bottom + top) / 2)))
    finally:
        pdf.close()


def jpeg() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 30, 30)).save(out, format="JPEG", quality=95)
    return out.getvalue()


APRYSE_STAMP = (
    '<?xml version="1.0" encoding="UTF-8" ?>\n'
    '<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve"><annots>'
    '<stamp page="0" rect="100,100,180,180" flags="print" name="apryse-stamp-1" title="Guest" '
    'subject="Stamp" date="D:20260101000000Z" creationdate="D:20260101000000Z" icon="Draft">'
    "<imagedata>%s</imagedata></stamp></annots><pages><defmtx matrix=\"1,0,0,-1,0,300\" /></pages></xfdf>"
)


@pytest.mark.parametrize("kind", ["png", "jpeg", "bare"])
def test_xfdf_stamp_image_from_apryse_imports(kind: str) -> None:
    pytest.importorskip("pypdfium2", reason="PDFium draws the stamp")
    data = jpeg() if kind == "jpeg" else png()
    url = base64.b64encode(data).decode()
    if kind != "bare":
        url = "data:image/%s;base64,%s" % (kind, url)
    doc = quire.Document.from_bytes(blank_pdf(1))
    assert doc.import_xfdf(APRYSE_STAMP % url) == 1
    r, g, b = stamp_pixel(doc)
    expected = (200, 30, 30) if kind == "jpeg" else (0, 128, 255)
    assert abs(r - expected[0]) < 24 and abs(g - expected[1]) < 24 and abs(b - expected[2]) < 24, (r, g, b)
    # The image is kept as given, and exported again.
    assert base64.b64encode(data).decode() in doc.export_xfdf()
    # Importing the same XFDF again updates the stamp and stores no second copy.
    size = len(doc.save_to_bytes(full=True))
    doc.import_xfdf(APRYSE_STAMP % url)
    assert len(doc.save_to_bytes(full=True)) < size + len(data)


@pytest.mark.parametrize(
    "payload,error,words",
    [
        ("data:image/png;base64,!!!!", quire.FormatError, "not base64"),
        ("data:image/gif;base64," + base64.b64encode(b"GIF89a....").decode(), quire.FormatError, "image/gif"),
        ("data:image/png," + "AAAA", quire.FormatError, "not base64"),
        (base64.b64encode(b"plain text, no image").decode(), quire.FormatError, "neither PNG nor JPEG"),
        ("data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n broken").decode(), quire.FormatError, "PNG"),
        ("data:image/png;base64," + "A" * (24 << 20), quire.LimitError, "at most"),
    ],
    ids=["not-base64", "gif", "not-base64-url", "not-an-image", "broken-png", "too-long"],
)
def test_xfdf_stamp_image_hostile(payload: str, error: type, words: str) -> None:
    doc = quire.Document.from_bytes(blank_pdf(1))
    with pytest.raises(error) as caught:
        doc.import_xfdf(APRYSE_STAMP % payload)
    assert "imagedata" in str(caught.value) and words in str(caught.value), str(caught.value)
    assert list(doc.annotations()) == []  # all or nothing
