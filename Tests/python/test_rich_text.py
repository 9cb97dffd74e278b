"""FreeText rich text (/RC) drawn in the generated appearance (issue 39): bold, italic,
colour, size, font family, underline and alignment.

Each styled word has a colour of its own. The test draws a reference page itself: each
word in the standard 14 font its style names (Helvetica-Bold, Helvetica-Oblique,
Times-Roman, Courier), at its size and in its colour, with its own content stream. PDFium
(pypdfium2) and poppler (pdftoppm) render Quire's appearance and the reference; the ink of
each colour is compared (size and shape, wherever it lies). PDFium and MuPDF extract the
flattened text; MuPDF reports each span's font, size and colour. Text no standard font
encodes (Cyrillic) is drawn with the Unicode fonts, bold by stroking the outlines: its ink
is heavier than the same word drawn plain.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import pytest

import quire
from conftest import pdf_from_objects

import pdfpeers

pytest.importorskip("PIL.Image", reason="Pillow is needed to compare renders")
pdfium = pytest.importorskip("pypdfium2", reason="pypdfium2 renders with PDFium")
pymupdf = pytest.importorskip("pymupdf", reason="PyMuPDF extracts the text")

PAGE = (400, 220)
SCALE = 3  # pixels per point
RECT = (10.0, 10.0, 390.0, 210.0)

# word, its standard font, size, colour (0-255), the style that asks for it
WORDS: List[Tuple[str, str, float, Tuple[int, int, int], str]] = [
    ("Bold", "Helvetica-Bold", 14, (255, 0, 0), '<b style="color:#FF0000">Bold</b>'),
    ("Tilted", "Helvetica-Oblique", 14, (0, 0, 255), '<i style="color:#0000FF">Tilted</i>'),
    (
        "Serif",
        "Times-Roman",
        24,
        (0, 160, 0),
        '<span style="font-family:\'Times New Roman\',serif;font-size:24pt;color:#00A000">Serif</span>',
    ),
    ("Mono", "Courier", 18, (255, 0, 255), '<span style="font:18pt Courier;color:#FF00FF">Mono</span>'),
]
RICH = (
    '<body xmlns="http://www.w3.org/1999/xhtml" style="font-size:14pt">'
    f"<p>Plain {WORDS[0][4]} {WORDS[1][4]}</p>"
    f"<p>{WORDS[2][4]} {WORDS[3][4]}</p>"
    "<p><b>Привет</b></p><p>Привет</p>"
    '<p style="text-align:right"><span style="text-decoration:underline">under</span></p>'
    "</body>"
)
PLAIN = "Plain Bold Tilted\nSerif Mono\nПривет\nПривет\nunder"


def blank_pdf(content: bytes = b"", fonts: bytes = b"") -> bytes:
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 4 0 R /Resources << /Font << %s >> >> >>"
        % (PAGE + (fonts,)),
        4: b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
    }
    return pdf_from_objects(objects)


def reference_pdf(words: List[Tuple[str, str, float, Tuple[int, int, int], str]] = WORDS) -> bytes:
    """Each word in its font, size and colour, drawn by the test at places of its own."""
    fonts = b" ".join(
        b"/F%d << /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding >>" % (i, w[1].encode())
        for i, w in enumerate(words)
    )
    ops = []
    for i, (word, _, size, rgb, _) in enumerate(words):
        r, g, b = (c / 255 for c in rgb)
        ops.append(
            b"BT /F%d %g Tf %g %g %g rg %d %d Td (%s) Tj ET" % (i, size, r, g, b, 30 + 90 * i, 100, word.encode())
        )
    return blank_pdf(b"\n".join(ops), fonts)


def quire_pdf() -> Tuple[bytes, quire.Document]:
    doc = quire.Document.from_bytes(blank_pdf())
    a = quire.Annotation.new("FreeText", 0, RECT)
    a.default_appearance = "/Helv 14 Tf 0 g"
    a.rich_text = RICH
    assert a.contents == PLAIN
    doc.add_annotation(a)
    return doc.save_to_bytes(full=True), doc


def render(data: bytes, renderer: str) -> Any:
    if renderer == "pdfium":
        document = pdfium.PdfDocument(data)
        try:
            return document[0].render(scale=SCALE, draw_annots=True).to_pil().convert("RGB")
        finally:
            document.close()
    return pdfpeers.render_poppler_rgb(data, 0, 72 * SCALE)


def mask(image: Any, rgb: Tuple[int, int, int]) -> Any:
    """The pixels of a colour: near it in hue (anti-aliased edges included), as an "L"
    image of 0 and 255, cropped to their bounds."""
    from functools import reduce

    from PIL import ImageChops

    channels = image.split()
    on = [channels[k] for k in range(3) if rgb[k] > 128]
    off = [channels[k] for k in range(3) if rgb[k] <= 128]
    low_on = reduce(ImageChops.darker, on)
    high_off = reduce(ImageChops.lighter, off)
    out = ImageChops.subtract(low_on, high_off).point(lambda v: 255 if v > 90 else 0)
    box = out.getbbox()
    assert box is not None, f"no ink of colour {rgb}"
    return out.crop(box)


def same_shape(got: Any, want: Any) -> bool:
    """The same size within 2 pixels, and an overlap of more than 0.7 (thin strokes, such
    as Courier's, lose the most to anti-aliasing: 0.78 for the same font and size)."""
    return abs(got.size[0] - want.size[0]) <= 2 and abs(got.size[1] - want.size[1]) <= 2 and overlap(got, want) > 0.7


def overlap(a: Any, b: Any) -> float:
    """Intersection over union of two masks laid top-left on top-left, at the best of the
    shifts of up to 1 pixel (sub-pixel placement differs)."""
    from PIL import Image, ImageChops

    size = (max(a.size[0], b.size[0]) + 2, max(a.size[1], b.size[1]) + 2)
    base = Image.new("L", size, 0)
    base.paste(a, (1, 1))
    best = 0.0
    for dx in (0, 1, 2):
        for dy in (0, 1, 2):
            other = Image.new("L", size, 0)
            other.paste(b, (dx, dy))
            inter = ImageChops.darker(base, other).histogram()[255]
            union = ImageChops.lighter(base, other).histogram()[255]
            best = max(best, inter / union if union else 0.0)
    return best


@pytest.mark.parametrize("renderer", ["pdfium", "poppler"])
def test_each_style_is_drawn_as_its_font_size_and_colour(renderer: str) -> None:
    data, _ = quire_pdf()
    drawn, reference = render(data, renderer), render(reference_pdf(), renderer)
    boxes: Dict[str, Tuple[int, int]] = {}
    for word, font, size, rgb, _ in WORDS:
        got, want = mask(drawn, rgb), mask(reference, rgb)
        assert same_shape(got, want), (word, font, got.size, want.size, overlap(got, want))
        boxes[word] = got.size
    # The comparison tells fonts apart: the bold word is not Helvetica's regular face, nor
    # the serif word Helvetica.
    wrong = render(
        reference_pdf([("Bold", "Helvetica", 14, (255, 0, 0), ""), ("Serif", "Helvetica", 24, (0, 160, 0), "")]),
        renderer,
    )
    assert not same_shape(mask(drawn, (255, 0, 0)), mask(wrong, (255, 0, 0)))
    assert not same_shape(mask(drawn, (0, 160, 0)), mask(wrong, (0, 160, 0)))
    # The 24-point serif word is taller than the 14-point ones.
    assert boxes["Serif"][1] > 1.4 * boxes["Bold"][1]


def test_lines_sizes_and_bold_unicode_text() -> None:
    from PIL import ImageOps

    data, _ = quire_pdf()
    image = render(data, "pdfium")
    # Rows of dark (black) ink in the left part of the box: the lines, top to bottom.
    gray = ImageOps.grayscale(image.crop((int(RECT[0] * SCALE), 0, int(200 * SCALE), image.size[1])))
    dark = gray.point(lambda v: 255 if v < 110 else 0)
    rows = [sum(1 for x in range(dark.size[0]) if dark.getpixel((x, y))) for y in range(dark.size[1])]
    bands: List[Tuple[int, int, int]] = []  # first row, last row, ink
    y = 0
    while y < len(rows):
        if rows[y]:
            start, ink = y, 0
            while y < len(rows) and rows[y]:
                ink += rows[y]
                y += 1
            bands.append((start, y - 1, ink))
        y += 1
    # Plain (with black), Привет bold, Привет plain (Serif and Mono are coloured).
    assert len(bands) >= 3, bands
    bold, plain = bands[1], bands[2]
    assert bold[2] > 1.15 * plain[2], (bold, plain)
    # The underlined word is right-aligned: its ink ends near the box's right edge.
    under = image.crop((int(300 * SCALE), 0, int(RECT[2] * SCALE), image.size[1]))
    box = ImageOps.invert(ImageOps.grayscale(under)).point(lambda v: 255 if v > 100 else 0).getbbox()
    assert box is not None
    assert (RECT[2] - 2) * SCALE - (300 * SCALE + box[2]) < 2 * SCALE


def test_flattened_rich_text_extracts_with_its_fonts() -> None:
    _, doc = quire_pdf()
    doc.flatten()
    data = doc.save_to_bytes(full=True)
    document = pdfium.PdfDocument(data)
    try:
        text = document[0].get_textpage().get_text_range()
    finally:
        document.close()
    assert text.replace("\r\n", "\n").split() == PLAIN.split()
    with pymupdf.open(stream=data, filetype="pdf") as mu:
        page = mu[0]
        assert page.get_text().split() == PLAIN.split()
        spans = {
            s["text"].strip(): s
            for block in page.get_text("dict")["blocks"]
            for line in block.get("lines", [])
            for s in line["spans"]
            if s["text"].strip()
        }
    for word, font, size, rgb, _ in WORDS:
        span = spans[word]
        assert span["font"] == font and span["size"] == pytest.approx(size), (word, span["font"], span["size"])
        assert span["color"] == (rgb[0] << 16) | (rgb[1] << 8) | rgb[2], (word, hex(span["color"]))


def test_rich_text_rules_and_round_trips() -> None:
    a = quire.Annotation.new("FreeText", 0, RECT)
    with pytest.raises(quire.FormatError):
        a.rich_text = "<p>not closed"
    a.rich_text = '<p>Hi <b>you</b><script>x</script></p>'
    assert "script" not in a.rich_text and a.contents == "Hi you"
    data, doc = quire_pdf()
    # Instant JSON and XFDF carry it; the imported annotation is drawn with its styles.
    exported = doc.export_annotations_json()
    xfdf = doc.export_xfdf()
    for kind, payload in (("json", exported), ("xfdf", xfdf)):
        other = quire.Document.from_bytes(blank_pdf())
        if kind == "json":
            other.import_annotations_json(payload)
        else:
            other.import_xfdf(payload)
        (b,) = list(other.annotations())
        assert b.rich_text is not None and "Serif" in b.rich_text, kind
        assert b.contents == PLAIN, kind
        image = render(other.save_to_bytes(full=True), "pdfium")
        for _, _, _, rgb, _ in WORDS:
            mask(image, rgb)  # each colour is drawn


def test_a_line_break_is_kept_and_drawn() -> None:
    """`<br/>` inside a paragraph survives the sanitizer, Instant JSON and XFDF, and breaks
    the line where it stands."""
    import json

    a = quire.Annotation.new("FreeText", 0, RECT)
    a.default_appearance = "/Helv 14 Tf 0 g"
    a.rich_text = "<p>one<br>two</br> three</p><p>four</p>"
    assert "<p>one<br/>two three</p>" in a.rich_text, a.rich_text
    assert a.contents == "one\ntwo three\nfour"
    doc = quire.Document.from_bytes(blank_pdf())
    doc.add_annotation(a)
    exported = doc.export_annotations_json()
    (record,) = json.loads(exported)["annotations"]
    assert "<br/>" in record["text"]["value"], record["text"]
    xfdf = doc.export_xfdf()
    assert "<br" in xfdf
    for kind, payload in (("json", exported), ("xfdf", xfdf)):
        other = quire.Document.from_bytes(blank_pdf())
        if kind == "json":
            other.import_annotations_json(payload)
        else:
            other.import_xfdf(payload)
        (b,) = list(other.annotations())
        assert b.rich_text is not None and "one<br/>two three" in b.rich_text, (kind, b.rich_text)
        assert b.contents == "one\ntwo three\nfour", kind
        other.flatten()
        document = pdfium.PdfDocument(other.save_to_bytes(full=True))
        try:
            textpage = document[0].get_textpage()
            # Each word's first character: "two" starts a line of its own, below "one".
            text = textpage.get_text_range()
            boxes = {w: textpage.get_charbox(text.index(w)) for w in ("one", "two", "three", "four")}
        finally:
            document.close()
        assert boxes["two"][1] < boxes["one"][1] - 10, (kind, boxes)
        assert abs(boxes["two"][0] - boxes["one"][0]) < 1, (kind, boxes)
        assert abs(boxes["three"][1] - boxes["two"][1]) < 1 and boxes["four"][1] < boxes["two"][1] - 10, (kind, boxes)


def flattened_chars(
    rich: str, rect: Tuple[float, float, float, float]
) -> Tuple[List[Tuple[str, float, int]], List[str]]:
    """A FreeText of `rich` in `rect` (/DA Helvetica 14), flattened: each character with its
    left edge and its rounded top as PyMuPDF reads them, and the page's words."""
    doc = quire.Document.from_bytes(blank_pdf())
    a = quire.Annotation.new("FreeText", 0, rect)
    a.default_appearance = "/Helv 14 Tf 0 g"
    a.rich_text = rich
    doc.add_annotation(a)
    doc.flatten()
    data = doc.save_to_bytes(full=True)
    with pymupdf.open(stream=data, filetype="pdf") as mu:
        chars = [
            (c["c"], c["bbox"][0], round(c["bbox"][1]))
            for block in mu[0].get_text("rawdict")["blocks"]
            for line in block.get("lines", [])
            for span in line["spans"]
            for c in span["chars"]
        ]
        return chars, mu[0].get_text().split()


@pytest.mark.parametrize("words", [("שלום", "עולם", "טוב"), ("سلام", "كبير", "جدا")])
def test_right_to_left_reads_right_to_left_across_styled_runs(words: Tuple[str, str, str]) -> None:
    """A Hebrew or Arabic sentence whose middle word is bold and red: the words stand right
    to left on the page (the first word rightmost), and the text extracts in its logical
    order. Drawn run by run, the first word stood leftmost."""
    first, middle, last = words
    rich = (
        '<body xmlns="http://www.w3.org/1999/xhtml"><p>%s <span style="font-weight:bold;color:#FF0000">%s</span>'
        " %s 123</p></body>" % (first, middle, last)
    )
    chars, logical = flattened_chars(rich, (20, 100, 380, 160))
    x = {c: left for c, left, _ in chars}
    # Each word's first letter: the first word rightmost, then the middle, then the last;
    # the number (left to right inside the sentence) is left of the last word.
    assert x[first[0]] > x[middle[0]] > x[last[0]] > x["1"], chars
    assert x["1"] < x["2"] < x["3"], chars
    assert set(logical) >= {first, middle, last}, logical


def test_a_wrapped_line_takes_its_paragraphs_direction() -> None:
    """A Hebrew paragraph whose second line starts with a Latin word: the line still runs
    right to left (UAX #9 sets the direction per paragraph), so "PDF", first in that line,
    stands right of the Hebrew word after it. A direction per line put it left."""
    rich = '<body xmlns="http://www.w3.org/1999/xhtml"><p>שלום <b>עולם</b> PDF טוב</p></body>'
    chars, _ = flattened_chars(rich, (20, 100, 100, 200))  # two Hebrew words a line
    where = {c: (x, y) for c, x, y in chars}
    assert where["P"][1] == where["ט"][1] != where["ש"][1], chars  # PDF and טוב share the second line
    assert where["P"][0] > where["ט"][0], chars
