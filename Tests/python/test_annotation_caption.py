"""Line captions (ISO 32000-2 Table 178: /Cap, /CP /Inline or /Top, /CO), issue 39.

A Line with a caption draws its /Contents in its appearance: inline (centred in the line,
which is broken around it) or on top of the line, moved by /CO. PDFium and poppler render
it and the test checks where the ink is: the line's row crossed by the gap and the text
for an inline caption, whole with the text above it for a top one. A measured distance
with a caption takes the caption's place instead of Quire's own label. pikepdf reads the
dictionary back; the annotation JSON (``quire.caption``, ``quire.captionPosition``,
``quire.captionOffset``) and XFDF (XFDF 3.0's ``caption``, ``caption-style``,
``caption-offset-h``, ``caption-offset-v``) carry it.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

import quire
from test_annotation_styles import RENDERERS, blank_pdf, ink_box, px, row, runs

pytest.importorskip("pikepdf", reason="pikepdf reads the dictionaries back")

TEXT = "Hello caption"


def line(y: float, **fields: Any) -> quire.Annotation:
    a = quire.Annotation.new("Line", 0, (50, y - 10, 250, y + 10))
    a.line = [60, y, 240, y]
    a.color = (0, 0, 0)
    a.contents = TEXT
    for key, value in fields.items():
        setattr(a, key, value)
    return a


def document(*annotations: quire.Annotation) -> bytes:
    with quire.Document.from_bytes(blank_pdf(1)) as doc:
        for a in annotations:
            doc.add_annotation(a)
        return doc.save_to_bytes(full=True)


def text_width() -> float:
    import pymupdf

    return pymupdf.get_text_length(TEXT, fontname="helv", fontsize=10)


def dark(image: Any, x: float, y: float) -> bool:
    return image.getpixel(px(x, y)) < 128


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_inline_caption_breaks_the_line(renderer: str):
    pytest.importorskip("pymupdf", reason="PyMuPDF measures the text")
    image = RENDERERS[renderer](document(line(150, caption=True), line(60)), 0)
    half = text_width() / 2
    # The line is there left and right of the caption, and broken around it: just outside
    # the text, on the line, the page shows through.
    assert dark(image, 100, 150) and dark(image, 200, 150)
    assert not dark(image, 150 - half - 1, 150) and not dark(image, 150 + half + 1, 150)
    # The text: ink across the middle, centred on the line, about the text's width.
    box = ink_box(image.crop((px(150 - half - 0.8, 0)[0], px(0, 160)[1], px(150 + half + 0.8, 0)[0], px(0, 140)[1])))
    assert box[2] - box[0] > 0.8 * 2 * half  # its width, in points
    # The row of the line crosses the left part, the glyphs and the right part.
    assert runs(row(image, 150, 60, 240)) >= 4
    # A line without a caption (y = 60): one run, no text.
    assert runs(row(image, 60, 60, 240)) == 1
    assert not dark(image, 150, 64) and not dark(image, 150, 56)


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_top_caption_sits_above_the_whole_line(renderer: str):
    pytest.importorskip("pymupdf", reason="PyMuPDF measures the text")
    a = line(150, caption=True, caption_position="Top", caption_offset=[20, 3])
    image = RENDERERS[renderer](document(a), 0)
    assert runs(row(image, 150, 60, 240)) == 1  # the whole line
    # The text above it: baseline 2 points over the line's edge (width 1) and 3 more
    # (155.5; the descender of "p" reaches 2 below, the ascenders 7 above), its middle 20
    # points right of the line's middle.
    above = ink_box(image.crop((0, 0, image.size[0], px(0, 151.5)[1])))
    left, bottom, right, top = above
    half = text_width() / 2
    assert abs((left + right) / 2 - 170) < 2, above
    assert 152.5 < bottom < 154.5 and 161.5 < top < 164, above
    assert abs((right - left) - 2 * half) < 3, above


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_a_measured_distance_with_a_caption_is_labelled_inline(renderer: str):
    plain = line(150)
    plain.measurement = quire.Measurement(1, "in", 1, "in", 2)
    captioned = line(60, caption=True)
    captioned.measurement = quire.Measurement(1, "in", 1, "in", 2)
    image = RENDERERS[renderer](document(plain, captioned), 0)
    # Quire's own label: above the unbroken line. The caption: in the broken line.
    assert runs(row(image, 150, 60, 240)) == 1
    assert ink_box(image.crop((0, px(0, 165)[1], image.size[0], px(0, 151.5)[1])))  # text above
    assert runs(row(image, 60, 60, 240)) >= 4
    assert not dark(image, 150, 50) and not dark(image, 150, 70)  # nothing above or below


def test_the_dictionary_and_both_formats_carry_the_caption():
    import pikepdf

    a = line(150, caption=True, caption_position="Top", caption_offset=[4.5, -2])
    data = document(a, line(60))
    with pikepdf.open(io.BytesIO(data)) as pdf:
        first, second = pdf.pages[0].Annots
        assert first.Cap is True and first.CP == "/Top" and [float(v) for v in first.CO] == [4.5, -2]
        assert "/Cap" not in second and "/CP" not in second and "/CO" not in second
    with quire.Document.from_bytes(data) as doc:
        record = json.loads(doc.export_annotations_json())["annotations"][0]
        assert record["quire"]["caption"] is True and record["quire"]["captionPosition"] == "Top"
        assert record["quire"]["captionOffset"] == [4.5, -2]
        xfdf = doc.export_xfdf()
        assert 'caption="yes" caption-style="Top" caption-offset-h="4.5" caption-offset-v="-2"' in xfdf
        for how in ("json", "xfdf"):
            with quire.Document.from_bytes(blank_pdf(1)) as other:
                if how == "json":
                    other.import_annotations_json(doc.export_annotations_json())
                else:
                    other.import_xfdf(xfdf)
                got = [(x.caption, x.caption_position, x.caption_offset) for x in other.annotations()]
                assert got == [(True, "Top", [4.5, -2]), (False, None, [])], how


def test_xfdf_3_caption_attributes_import():
    xfdf = (
        '<?xml version="1.0" encoding="UTF-8"?><xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve">'
        '<annots><line page="0" rect="50,140,250,160" name="l1" color="#FF0000" start="60,150" end="240,150" '
        'head="None" tail="OpenArrow" caption="yes" caption-style="Inline" caption-offset-h="0" '
        'caption-offset-v="6"><contents>3.5 m</contents></line>'
        '<line page="0" rect="50,40,250,60" name="l2" start="60,50" end="240,50" caption="no" '
        'caption-style="Sideways"><contents>x</contents></line></annots></xfdf>'
    )
    with quire.Document.from_bytes(blank_pdf(1)) as doc:
        assert doc.import_xfdf(xfdf) == 2
        first, second = doc.annotations()
        assert (first.caption, first.caption_position, first.caption_offset) == (True, "Inline", [0, 6])
        # "no" and a style XFDF does not have read as unset.
        assert (second.caption, second.caption_position) == (False, None)


def test_caption_rules():
    a = quire.Annotation.new("Line", 0, (0, 0, 10, 10))
    with pytest.raises(quire.InvalidArgumentError):
        a.caption_position = "Below"
    with pytest.raises(quire.InvalidArgumentError):
        a.caption_offset = [1, 2, 3]
    with pytest.raises(quire.InvalidArgumentError):
        a.caption_offset = [float("nan"), 0]
    a.caption = True
    a.caption_position = "Top"
    a.caption_offset = [1, 2]
    assert (a.caption, a.caption_position, a.caption_offset) == (True, "Top", [1, 2])
    a.caption_position = None
    a.caption_offset = []
    assert (a.caption_position, a.caption_offset) == (None, [])
    # The annotation JSON's fields follow the same rules.
    with quire.Document.from_bytes(blank_pdf(1)) as doc:
        record = {
            "v": 2,
            "type": "pspdfkit/shape/line",
            "id": "x",
            "pageIndex": 0,
            "bbox": [0, 0, 10, 10],
            "opacity": 1,
            "startPoint": [0, 0],
            "endPoint": [10, 10],
            "strokeWidth": 1,
            "createdAt": "2026-01-01T00:00:00Z",
            "updatedAt": "2026-01-01T00:00:00Z",
            "quire": {"captionPosition": "Middle"},
        }
        with pytest.raises(quire.FormatError) as caught:
            doc.import_annotations_json(
                json.dumps({"format": "https://pspdfkit.com/instant-json/v1", "annotations": [record]})
            )
        assert "captionPosition" in str(caught.value)
