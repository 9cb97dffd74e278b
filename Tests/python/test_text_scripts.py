"""Text in any script in generated appearances (issue 39): field values and FreeText
contents in Latin, Cyrillic, Greek, Hebrew, Arabic, CJK and symbols, set through the Python
API, flattened, then

- extracted by PDFium (pypdfium2) and MuPDF (PyMuPDF): the same characters, in logical
  order (right-to-left text included);
- rendered by pdftoppm and compared with a rendering of the same text drawn by the test
  with PyMuPDF's HTML layout (its own HarfBuzz shaping and bidi, the same font files): the
  ink of Quire's drawing matches the reference far better than it matches the same
  number of "?" drawn the same way.

The fonts are those scripts/install-deps.sh installs (fonts-dejavu-core,
fonts-droid-fallback); docs/forms.md, "Text in any script", gives the fallback order.
"""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path
from typing import Any, List, Tuple

import pytest

import quire
from conftest import pdf_from_objects

import pdfpeers

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
DROID = Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf")

pytestmark = pytest.mark.skipif(
    not (DEJAVU.exists() and DROID.exists()),
    reason="the Unicode fonts are missing: scripts/install-deps.sh installs fonts-dejavu-core and fonts-droid-fallback",
)

SCRIPTS: List[Tuple[str, str]] = [
    ("latin", "Ünïcödé café"),
    ("cyrillic", "Привет мир"),
    ("greek", "Καλημέρα κόσμε"),
    ("hebrew", "שלום עולם"),
    ("arabic", "مرحبا بالعالم السلام"),  # the last word has a lam-alef ligature
    ("cjk", "你好世界"),
    ("symbols", "★☺→✓€"),
    ("mixed", "Привет 你好 שלום Ünïcödé"),
]
SIZE = 14
RECT = (50.0, 40.0, 450.0, 70.0)  # each field or FreeText, on a page of 500 x 100
PAGE = (500, 100)


def form_pdf() -> bytes:
    """One page per script, each with one text field named for it (/DA Helvetica 14)."""
    n = len(SCRIPTS)
    fields = b" ".join(b"%d 0 R" % (10 + i) for i in range(n))
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [%s] /DA (/Helv %d Tf 0 g)"
        b" /DR << /Font << /Helv 9 0 R >> >> >> >>" % (fields, SIZE),
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (30 + i) for i in range(n)), n),
        9: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    }
    for i, (name, _) in enumerate(SCRIPTS):
        objects[30 + i] = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Annots [%d 0 R] >>" % (PAGE + (10 + i,))
        objects[10 + i] = b"<< /FT /Tx /T (%s) /Subtype /Widget /Rect [%d %d %d %d] /P %d 0 R /F 4 >>" % (
            (name.encode(),) + tuple(int(v) for v in RECT) + (30 + i,)
        )
    return pdf_from_objects(objects)


def blank_pages_pdf() -> bytes:
    n = len(SCRIPTS)
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (30 + i) for i in range(n)), n),
    }
    for i in range(n):
        objects[30 + i] = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] >>" % PAGE
    return pdf_from_objects(objects)


@pytest.fixture(scope="module")
def flattened_fields() -> bytes:
    with quire.Document.from_bytes(form_pdf()) as doc:
        for name, text in SCRIPTS:
            doc.field(name).value = text
            assert doc.field(name).value == text
        doc.flatten()
        return doc.save_to_bytes()


@pytest.fixture(scope="module")
def flattened_free_text() -> bytes:
    with quire.Document.from_bytes(blank_pages_pdf()) as doc:
        for page, (_, text) in enumerate(SCRIPTS):
            a = quire.Annotation.new("FreeText", page, RECT)
            a.contents = text
            a.default_appearance = "/Helv %d Tf 0 g" % SIZE
            doc.add_annotation(a)
        doc.flatten()
        return doc.save_to_bytes()


def pdfium_text(data: bytes) -> List[str]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    try:
        return [document[k].get_textpage().get_text_range().strip() for k in range(len(document))]
    finally:
        document.close()


def mupdf_text(data: bytes) -> List[str]:
    import pymupdf

    with pymupdf.open(stream=data, filetype="pdf") as document:
        return [page.get_text().strip() for page in document]


@pytest.mark.parametrize("which", ["fields", "free_text"])
def test_pdfium_and_mupdf_extract_the_same_characters_in_logical_order(which: str, request: Any):
    data = request.getfixturevalue("flattened_" + which)
    pdfium, mupdf = pdfium_text(data), mupdf_text(data)
    for k, (name, text) in enumerate(SCRIPTS):
        assert pdfium[k] == text, "%s: PDFium extracted %r" % (name, pdfium[k])
        if name == "mixed":
            # MuPDF moves the space after a right-to-left word before it ("你好  שלוםÜnïcödé"),
            # as it does for any PDF that draws such a line in visual order: the same
            # characters in the same order, spaces aside.
            assert mupdf[k].split() != [] and "".join(mupdf[k].split()) == "".join(text.split()), (name, mupdf[k])
        else:
            assert mupdf[k] == text, "%s: MuPDF extracted %r" % (name, mupdf[k])


def test_fields_embed_subset_cid_fonts_read_back_by_pikepdf(flattened_fields: bytes):
    import io

    import pikepdf

    with pikepdf.open(io.BytesIO(flattened_fields)) as pdf:
        for k, (name, _) in enumerate(SCRIPTS):
            fonts = []
            for xobject in pdf.pages[k].Resources.XObject.values():
                resources = xobject.get("/Resources")
                if resources is not None and "/Font" in resources:
                    fonts += list(resources.Font.values())
            if name == "latin":
                # WinAnsiEncoding has every character: Helvetica, nothing embedded.
                assert [str(f.BaseFont) for f in fonts] == ["/Helvetica"]
                continue
            assert fonts, name
            for f in fonts:
                assert f.Subtype == "/Type0" and f.Encoding == "/Identity-H", name
                assert "/ToUnicode" in f, name
                descendant = f.DescendantFonts[0]
                assert descendant.Subtype == "/CIDFontType2" and descendant.CIDToGIDMap == "/Identity"
                program = descendant.FontDescriptor.FontFile2.read_bytes()
                assert program[:4] == b"\x00\x01\x00\x00"
                # A subset: far smaller than the font files (DejaVu Sans 740 KB, Droid 4 MB).
                assert len(program) < 200_000, (name, len(program))
                assert str(f.BaseFont)[7] == "+"


def render_gray(data: bytes, page: int, dpi: int = 150) -> Any:
    return pdfpeers.render_poppler_gray(data, page, dpi)


def reference_pdf(text: str, helvetica: bool = False) -> bytes:
    """`text` drawn by PyMuPDF's HTML layout at the same size in the same box, in DejaVu Sans
    and, for CJK, Droid Sans Fallback: its own shaping and bidirectional ordering. With
    `helvetica`, drawn in PyMuPDF's Helvetica instead (text the field's /DA font, Helvetica,
    has every character of: Quire draws it in Helvetica, at Helvetica's widths, narrower than
    DejaVu Sans's by 8 to 10 %)."""
    import pymupdf

    if helvetica:
        with pymupdf.open() as document:
            page = document.new_page(width=PAGE[0], height=PAGE[1])
            page.insert_text((RECT[0], PAGE[1] - RECT[1] - 10), text, fontname="helv", fontsize=SIZE)
            return document.tobytes()
    archive = pymupdf.Archive()
    archive.add(str(DEJAVU.parent))
    archive.add(str(DROID.parent))
    css = (
        "@font-face {font-family: dv; src: url(%s);} @font-face {font-family: dr; src: url(%s);}"
        " * {font-size: %dpt; margin: 0; padding: 0}" % (DEJAVU.name, DROID.name, SIZE)
    )

    def family(c: str) -> str:
        return "dr" if 0x3000 <= ord(c) <= 0x9FFF else "dv"

    html = "".join(
        '<span style="font-family: %s">%s</span>' % (f, "".join(g)) for f, g in itertools.groupby(text, key=family)
    )
    with pymupdf.open() as document:
        page = document.new_page(width=PAGE[0], height=PAGE[1])
        left, bottom, right, top = RECT
        page.insert_htmlbox(
            pymupdf.Rect(left, PAGE[1] - top, right, PAGE[1] - bottom),
            '<p dir="auto">%s</p>' % html,
            css=css,
            archive=archive,
        )
        return document.tobytes()


def ink(image: Any) -> Any:
    """The dark pixels of `image` (255), cropped to their bounding box."""
    mask = image.point(lambda v: 255 if v < 128 else 0)
    box = mask.getbbox()
    assert box is not None, "nothing drawn"
    return mask.crop(box)


def overlap(ours: Any, other: Any) -> float:
    """Intersection over union of two ink masks, `other` scaled to `ours`' box, both
    widened by a pixel (a glyph drawn half a pixel off still overlaps)."""
    from PIL import ImageChops, ImageFilter

    def widen(mask: Any) -> Any:
        return mask.filter(ImageFilter.MaxFilter(3)).point(lambda v: 255 if v > 127 else 0)

    a, b = widen(ours), widen(other.resize(ours.size))
    inter = ImageChops.multiply(a, b).histogram()[255]
    union = ImageChops.lighter(a, b).histogram()[255]
    return inter / union if union else 0.0


@pytest.mark.parametrize("which", ["fields", "free_text"])
def test_pdftoppm_draws_glyphs_like_a_reference_not_question_marks(which: str, request: Any):
    pytest.importorskip("PIL.Image", reason="Pillow is needed to compare renders")
    data = request.getfixturevalue("flattened_" + which)
    for k, (name, text) in enumerate(SCRIPTS):
        ours = ink(render_gray(data, k))
        # Latin: the field's Helvetica has every character, so the reference is Helvetica too.
        helvetica = name == "latin"
        reference = ink(render_gray(reference_pdf(text, helvetica), 0))
        questions = ink(render_gray(reference_pdf("?" * len(text), helvetica), 0))
        # Same extent as the reference within 6% (width) and 4 px (height at 150 dpi).
        assert abs(ours.width - reference.width) <= 0.06 * reference.width, (name, ours.size, reference.size)
        assert abs(ours.height - reference.height) <= 4, (name, ours.size, reference.size)
        similar, unlike = overlap(ours, reference), overlap(ours, questions)
        # Measured: 0.82 to 0.91 for the scripts drawn with the Unicode fonts, 0.98 for Latin
        # (Helvetica in both, not embedded: poppler draws both with the same substitute);
        # 0.17 to 0.33 against the question marks.
        floor = 0.75
        assert similar >= floor and similar >= 2 * unlike, "%s: overlap %.2f with the reference, %.2f with '?'" % (
            name,
            similar,
            unlike,
        )


def test_add_font_and_a_character_no_font_has(tmp_path: Path):
    with quire.Document.from_bytes(form_pdf()) as doc:
        with pytest.raises(quire.QuireIOError):
            doc.add_font("/nonexistent/quire-font.ttf")
        with pytest.raises(quire.FormatError):
            doc.add_font(Path(__file__))  # not a font
        doc.add_font(DEJAVU)
        doc.field("latin").value = "before"
        with pytest.raises(quire.UnsupportedError, match=r"U\+10FFFD"):
            doc.field("latin").value = "ok \U0010fffd"
        assert doc.field("latin").value == "before"
        a = quire.Annotation.new("FreeText", 0, RECT)
        a.contents = "\U0010fffd"
        with pytest.raises(quire.UnsupportedError, match=r"U\+10FFFD"):
            doc.add_annotation(a)


def test_cli_fill_takes_fonts(tmp_path: Path):
    from conftest import REPO

    cli = REPO / "build" / "bin" / "quire"
    if not cli.exists():
        pytest.skip("build/bin/quire is not built (make)")
    source, out = tmp_path / "form.pdf", tmp_path / "out.pdf"
    source.write_bytes(form_pdf())
    done = subprocess.run(
        [str(cli), "fill", "--font", str(DEJAVU), str(source), "hebrew=שלום", "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    with quire.Document(str(out)) as doc:
        assert doc.field("hebrew").value == "שלום"
    done = subprocess.run(
        [str(cli), "fill", "--font", "/nonexistent/f.ttf", str(source), "hebrew=x", "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "/nonexistent/f.ttf" in done.stderr
    done = subprocess.run(
        [str(cli), "fill", str(source), "hebrew=\U0010fffd", "-o", str(tmp_path / "no.pdf")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "U+10FFFD" in done.stderr and not (tmp_path / "no.pdf").exists()
