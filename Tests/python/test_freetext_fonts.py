"""FreeText text in the font its /DA names (issue 39), not always Helvetica: Acrobat's
names of the standard fonts (/TiRo, /Cour), a simple TrueType font of the form's /DR, and a
composite (Type0, Identity-H) font of /DR whose CIDFontType2 embeds DejaVu Sans, which the
test makes with pikepdf and fontTools; and rich text runs in the system family their
`font-family` names (DejaVu Sans Mono, regular and bold, found through fontconfig).

After flattening: PyMuPDF's `page.get_fonts()` names the expected font, PDFium extracts the
characters, and pdftoppm's rendering matches a reference the test draws with PyMuPDF in the
same font far better than one drawn in the wrong face (Helvetica, Quire's old fallback).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest

import quire

import pdfpeers
from test_text_scripts import ink

pikepdf = pytest.importorskip("pikepdf", reason="pikepdf builds the form's fonts")
pymupdf = pytest.importorskip("pymupdf", reason="PyMuPDF lists fonts and draws the references")
pdfium = pytest.importorskip("pypdfium2", reason="PDFium extracts the text")
pytest.importorskip("PIL.Image", reason="Pillow compares renders")
ttLib = pytest.importorskip("fontTools.ttLib", reason="fontTools reads the widths of the /DR TrueType font")

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
DEJAVU_SERIF = Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf")
MONO = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
MONO_BOLD = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf")

pytestmark = pytest.mark.skipif(
    not (DEJAVU.exists() and DEJAVU_SERIF.exists() and MONO.exists() and MONO_BOLD.exists()),
    reason="DejaVu is missing: scripts/install-deps.sh installs fonts-dejavu-core",
)

PAGE = (500, 100)
RECT = (20.0, 30.0, 480.0, 80.0)
SIZE = 20
TEXT = "Hamburgefonstiv Quxz"

# /DA's font, the rich text (None: plain /Contents), the font PyMuPDF should name (a
# suffix of the base name), how the reference draws it and the wrong face (PyMuPDF's font
# name, or a font file)
CASES: List[Tuple[str, Optional[str], str, str, str]] = [
    ("TiRo", None, "Times-Roman", "tiro", "helv"),
    ("Cour", None, "Courier", "cour", "helv"),
    ("TT", None, "DejaVuSerif", str(DEJAVU_SERIF), str(DEJAVU)),
    ("Comp", None, "+DejaVuSans", str(DEJAVU), "helv"),
    # A family found through fontconfig (Tests/python/conftest.py pins the DejaVu fonts),
    # after one that is not; in its own bold face, not the regular one stroked. (DejaVu
    # Serif would be the form's /TT: a /DR font of the family comes first.)
    (
        "Helv",
        "<p><span style=\"font-family:'No Such Family','DejaVu Sans Mono'\">%s</span></p>",
        "+DejaVuSansMono",
        str(MONO),
        str(DEJAVU),
    ),
    (
        "Helv",
        "<p><b style=\"font-family:DejaVu Sans Mono\">%s</b></p>",
        "+DejaVuSansMono-Bold",
        str(MONO_BOLD),
        str(MONO),
    ),
]
IDS = ["TiRo", "Cour", "dr-truetype", "dr-type0", "rich-dejavu-sans-mono", "rich-dejavu-sans-mono-bold"]


def winansi_widths(path: Path) -> List[int]:
    """The advance widths of codes 32 to 255 (WinAnsiEncoding as cp1252) in thousandths of
    an em."""
    font = ttLib.TTFont(str(path))
    cmap, hmtx, upem = font.getBestCmap(), font["hmtx"], font["head"].unitsPerEm
    widths = []
    for code in range(32, 256):
        try:
            ch = bytes([code]).decode("cp1252")
        except UnicodeDecodeError:
            widths.append(0)
            continue
        glyph = cmap.get(ord(ch))
        widths.append(round(hmtx[glyph][0] * 1000 / upem) if glyph else 0)
    return widths


def form_pdf() -> bytes:
    """Pages of PAGE, and a form whose /DR holds /TT (DejaVu Serif, a simple TrueType font
    in WinAnsiEncoding with its program) and /Comp (DejaVu Sans as a Type0 font with
    Identity-H over a CIDFontType2 with /CIDToGIDMap /Identity and its program)."""
    pdf = pikepdf.new()
    for _ in CASES:
        pdf.add_blank_page(page_size=PAGE)

    def descriptor(name: str, path: Path, flags: int) -> Any:
        program = pdf.make_stream(path.read_bytes())
        program.Length1 = len(path.read_bytes())
        return pdf.make_indirect(
            pikepdf.Dictionary(
                Type=pikepdf.Name.FontDescriptor,
                FontName=pikepdf.Name("/" + name),
                Flags=flags,
                FontBBox=[-1000, -400, 2000, 1200],
                ItalicAngle=0,
                Ascent=928,
                Descent=-236,
                CapHeight=729,
                StemV=80,
                FontFile2=program,
            )
        )

    simple = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.TrueType,
            BaseFont=pikepdf.Name.DejaVuSerif,
            FirstChar=32,
            LastChar=255,
            Widths=winansi_widths(DEJAVU_SERIF),
            Encoding=pikepdf.Name.WinAnsiEncoding,
            FontDescriptor=descriptor("DejaVuSerif", DEJAVU_SERIF, 32),
        )
    )
    cid = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.CIDFontType2,
            BaseFont=pikepdf.Name.DejaVuSans,
            CIDSystemInfo=pikepdf.Dictionary(
                Registry=pikepdf.String("Adobe"), Ordering=pikepdf.String("Identity"), Supplement=0
            ),
            FontDescriptor=descriptor("DejaVuSans", DEJAVU, 4),
            CIDToGIDMap=pikepdf.Name.Identity,
            DW=600,
        )
    )
    composite = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.Type0,
            BaseFont=pikepdf.Name.DejaVuSans,
            Encoding=pikepdf.Name("/Identity-H"),
            DescendantFonts=[cid],
        )
    )
    pdf.Root.AcroForm = pikepdf.Dictionary(
        Fields=[],
        DA=pikepdf.String("/Helv 0 Tf 0 g"),
        DR=pikepdf.Dictionary(Font=pikepdf.Dictionary(TT=simple, Comp=composite)),
    )
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def flattened() -> bytes:
    with quire.Document.from_bytes(form_pdf()) as doc:
        for page, (name, rich, _, _, _) in enumerate(CASES):
            a = quire.Annotation.new("FreeText", page, RECT)
            a.default_appearance = "/%s %d Tf 0 g" % (name, SIZE)
            if rich:
                a.rich_text = rich % TEXT
            else:
                a.contents = TEXT
            doc.add_annotation(a)
        doc.flatten()
        return doc.save_to_bytes(full=True)


def pdfium_font_names(data: bytes, page: int) -> List[str]:
    """The base font name of each text object PDFium finds on `page` (the flattened
    appearance's form XObject's included)."""
    import ctypes

    raw = pdfium.raw
    document = pdfium.PdfDocument(data)
    names: List[str] = []
    try:
        for obj in document[page].get_objects(filter=[raw.FPDF_PAGEOBJ_TEXT], max_depth=4):
            font = raw.FPDFTextObj_GetFont(obj.raw)
            size = raw.FPDFFont_GetBaseFontName(font, None, 0)
            buffer = ctypes.create_string_buffer(size)
            raw.FPDFFont_GetBaseFontName(font, buffer, size)
            names.append(buffer.value.decode("latin-1"))
    finally:
        document.close()
    return names


def reference_pdf(font: str) -> bytes:
    """TEXT at SIZE in `font` (PyMuPDF's name of a standard font, or a font file)."""
    with pymupdf.open() as document:
        page = document.new_page(width=PAGE[0], height=PAGE[1])
        if font.startswith("/"):
            page.insert_text((30, 60), TEXT, fontsize=SIZE, fontname="F0", fontfile=font)
        else:
            page.insert_text((30, 60), TEXT, fontsize=SIZE, fontname=font)
        return document.tobytes()


def overlap(ours: Any, other: Any) -> float:
    """Intersection over union of two ink masks laid top-left on top-left, at the best of
    the shifts of up to 2 pixels (sub-pixel placement differs)."""
    from PIL import Image, ImageChops

    size = (max(ours.size[0], other.size[0]) + 4, max(ours.size[1], other.size[1]) + 4)
    base = Image.new("L", size, 0)
    base.paste(ours, (2, 2))
    best = 0.0
    for dx in range(5):
        for dy in range(5):
            moved = Image.new("L", size, 0)
            moved.paste(other, (dx, dy))
            inter = ImageChops.darker(base, moved).histogram()[255]
            union = ImageChops.lighter(base, moved).histogram()[255]
            best = max(best, inter / union if union else 0.0)
    return best


@pytest.mark.parametrize("case", range(len(CASES)), ids=IDS)
def test_the_font_is_named_extracted_and_drawn(flattened: bytes, case: int) -> None:
    name, _, base, reference, other = CASES[case]
    with pymupdf.open(stream=flattened) as document:
        fonts = [f[3] for f in document[case].get_fonts(full=True)]
    assert any(f.endswith(base) for f in fonts), (name, fonts)
    assert fonts == [f for f in fonts if f.endswith(base)], (name, fonts)
    # PDFium's text objects name it too.
    names = pdfium_font_names(flattened, case)
    assert names and all(n.endswith(base) for n in names), (name, names)
    document = pdfium.PdfDocument(flattened)
    try:
        text = document[case].get_textpage().get_text_range()
    finally:
        document.close()
    assert text.strip() == TEXT, (name, text)
    ours = ink(pdfpeers.render_poppler_gray(flattened, case, 150))
    want = ink(pdfpeers.render_poppler_gray(reference_pdf(reference), 0, 150))
    wrong = ink(pdfpeers.render_poppler_gray(reference_pdf(other), 0, 150))
    similar, unlike = overlap(ours, want), overlap(ours, wrong)
    # The same extent as the reference within 2 pixels, and the same glyphs.
    assert abs(ours.width - want.width) <= 2 and abs(ours.height - want.height) <= 2, (name, ours.size, want.size)
    assert similar >= 0.8 and unlike < similar - 0.2, "%s: overlap %.2f with its font, %.2f with the wrong one" % (
        name,
        similar,
        unlike,
    )


def pdfium_chars(data: bytes, page: int) -> List[Tuple[str, float, float, float]]:
    """Each character PDFium reads on `page`: its text, origin (x, y) and font size."""
    import ctypes

    raw = pdfium.raw
    document = pdfium.PdfDocument(data)
    try:
        textpage = document[page].get_textpage()
        out = []
        for i in range(raw.FPDFText_CountChars(textpage)):
            x, y = ctypes.c_double(), ctypes.c_double()
            raw.FPDFText_GetCharOrigin(textpage, i, ctypes.byref(x), ctypes.byref(y))
            ch = chr(raw.FPDFText_GetUnicode(textpage, i))
            out.append((ch, x.value, y.value, raw.FPDFText_GetFontSize(textpage, i)))
        return out
    finally:
        document.close()


def test_vertical_align_and_font_stretch_move_and_scale_the_glyphs() -> None:
    """In Courier (each glyph 0.6 em across): super and sub at 58% of the size, raised by
    33% or lowered by 14% of it, a length raising by itself; condensed at 75% of the
    width, expanded at 125%."""
    rich = (
        '<p style="font-family:Courier;font-size:20pt">aaa<span style="vertical-align:super">bb</span>'
        '<span style="font-stretch:condensed">ccc</span><span style="vertical-align:sub">dd</span>'
        '<span style="font-stretch:expanded;vertical-align:4pt">ee</span>f</p>'
    )
    with quire.Document.from_bytes(form_pdf()) as doc:
        a = quire.Annotation.new("FreeText", 0, RECT)
        a.default_appearance = "/Helv 20 Tf 0 g"
        a.rich_text = rich
        doc.add_annotation(a)
        doc.flatten()
        data = doc.save_to_bytes(full=True)
    chars = [c for c in pdfium_chars(data, 0) if c[0].strip()]
    assert "".join(c[0] for c in chars) == "aaabbcccddeef"
    base_y = chars[0][2]

    def step(k: int) -> float:
        return chars[k + 1][1] - chars[k][1]

    assert abs(step(0) - 12) < 0.05  # a: 0.6 x 20
    b, c, d, e = chars[3], chars[5], chars[8], chars[10]
    assert abs(b[3] - 11.6) < 0.05 and abs(d[3] - 11.6) < 0.05, (b, d)
    assert abs(b[2] - (base_y + 6.6)) < 0.05, (b, base_y)
    assert abs(step(3) - 0.6 * 11.6) < 0.05  # b to b
    assert abs(c[2] - base_y) < 0.05 and abs(step(5) - 9) < 0.05  # condensed: 0.75 x 12
    assert abs(d[2] - (base_y - 2.8)) < 0.05, (d, base_y)
    assert abs(e[2] - (base_y + 4)) < 0.05 and abs(step(10) - 15) < 0.05  # expanded: 1.25 x 12
    assert abs(chars[12][2] - base_y) < 0.05  # f, back on the baseline


def ds_pdf() -> bytes:
    """Two FreeText annotations without appearances, styled only by /DS (font, size,
    colour): one with plain /Contents, one with /RC of no style of its own."""
    pdf = pikepdf.new()
    for _ in range(2):
        pdf.add_blank_page(page_size=PAGE)
    ds = pikepdf.String("font: 18pt 'DejaVu Sans Mono',monospace; color:#FF0000")
    for k, page in enumerate(pdf.pages):
        annot = pikepdf.Dictionary(
            Type=pikepdf.Name.Annot,
            Subtype=pikepdf.Name.FreeText,
            Rect=list(RECT),
            DA=pikepdf.String("/Helv 10 Tf 0 g"),
            DS=ds,
            Contents=pikepdf.String(TEXT),
        )
        if k == 1:
            annot.RC = pikepdf.String('<body xmlns="http://www.w3.org/1999/xhtml"><p>%s</p></body>' % TEXT)
        page.Annots = pdf.make_indirect([pdf.make_indirect(annot)])
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def test_a_default_style_string_alone_styles_the_text() -> None:
    with quire.Document.from_bytes(ds_pdf()) as doc:
        doc.flatten()
        data = doc.save_to_bytes(full=True)
    for page in range(2):
        chars = [c for c in pdfium_chars(data, page) if c[0].strip()]
        assert "".join(c[0] for c in chars) == TEXT.replace(" ", ""), (page, chars)
        assert all(abs(c[3] - 18) < 0.05 for c in chars), (page, chars)
        with pymupdf.open(stream=data) as document:
            fonts = [f[3] for f in document[page].get_fonts(full=True)]
            spans = [s for b in document[page].get_text("dict")["blocks"] for li in b["lines"] for s in li["spans"]]
        assert fonts and all(f.endswith("+DejaVuSansMono") for f in fonts), (page, fonts)
        assert spans and all(s["color"] == 0xFF0000 for s in spans), (page, spans)


def test_a_default_style_set_through_the_api() -> None:
    with quire.Document.from_bytes(form_pdf()) as doc:
        a = quire.Annotation.new("FreeText", 0, RECT)
        a.default_appearance = "/Helv 10 Tf 0 g"
        a.contents = TEXT
        assert a.default_style is None
        a.default_style = "font: bold 16pt Courier; color:#0000FF"
        doc.add_annotation(a)
        (b,) = list(doc.annotations())
        assert b.default_style == "font: bold 16pt Courier; color:#0000FF"
        doc.flatten()
        data = doc.save_to_bytes(full=True)
    assert pdfium_font_names(data, 0) == ["Courier-Bold"]
    chars = [c for c in pdfium_chars(data, 0) if c[0].strip()]
    assert chars and all(abs(c[3] - 16) < 0.05 for c in chars), chars


def test_a_default_style_string_travels_through_json_and_xfdf() -> None:
    import json

    with quire.Document.from_bytes(ds_pdf()) as doc:
        exported = doc.export_annotations_json()
        xfdf = doc.export_xfdf()
    records = json.loads(exported)["annotations"]
    assert [r["quire"]["defaultStyle"] for r in records] == [
        "font: 18pt 'DejaVu Sans Mono',monospace; color:#FF0000"
    ] * 2
    assert "<defaultstyle>font: 18pt &apos;DejaVu Sans Mono&apos;,monospace; color:#FF0000</defaultstyle>" in xfdf or (
        "<defaultstyle>font: 18pt 'DejaVu Sans Mono',monospace; color:#FF0000</defaultstyle>" in xfdf
    ), xfdf
    blank = pikepdf.new()
    for _ in range(2):
        blank.add_blank_page(page_size=PAGE)
    out = io.BytesIO()
    blank.save(out)
    for kind, payload in (("json", exported), ("xfdf", xfdf)):
        with quire.Document.from_bytes(out.getvalue()) as other:
            if kind == "json":
                other.import_annotations_json(payload)
            else:
                other.import_xfdf(payload)
            other.flatten()
            data = other.save_to_bytes(full=True)
        with pymupdf.open(stream=data) as document:
            for page in range(2):
                fonts = [f[3] for f in document[page].get_fonts(full=True)]
                assert fonts and all(f.endswith("+DejaVuSansMono") for f in fonts), (kind, page, fonts)
