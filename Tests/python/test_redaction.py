"""Redaction (issue 38): Redact annotations made, read back and carried by annotation JSON
and XFDF; applied, and checked by peers: PDFium's (pypdfium2) and MuPDF's (PyMuPDF) text
extraction no longer find what was in the regions, no decompressed stream of the output
holds it (pikepdf), the characters outside keep their text and positions (PDFium, before
and after), and PDFium's rendering shows the fill colour in the regions and the page as it
was outside them. On generated files (text in three fonts, a kerned TJ, a form XObject
shared by two pages, images, paths) and on real files of the corpus (TrueType, Type1,
Type0 with CMaps, Type3, forms, kerned TJ arrays).
"""

from __future__ import annotations

import functools
import io
import math
import re
import zlib
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

import pytest

import quire

pdfium = pytest.importorskip("pypdfium2")
pymupdf = pytest.importorskip("pymupdf")
pikepdf = pytest.importorskip("pikepdf")
np = pytest.importorskip("numpy")

Box = Tuple[float, float, float, float]

#: The render scale of the pixel checks (2: 144 dpi).
SCALE = 2.0
#: Pixels outside the regions (less the glyphs that went and a 2-pixel margin) that may
#: differ by more than 40 levels: antialiasing where a removed glyph's ink met a kept one.
OUTSIDE_TOLERANCE = 0.002


# -- files made here -----------------------------------------------------------------------


def content_pdf(pages: Sequence[bytes], form: Optional[bytes] = None, image: Optional[tuple] = None) -> bytes:
    """A PDF of `pages` content streams (Letter) with fonts /F1 Helvetica, /F2 Times-Roman,
    /F3 Courier (WinAnsi), an optional form XObject /Fm1 (drawn by the pages that name it,
    the same object for all) and an optional image /Im1 (width, height, data, filter, and
    a colour space, /DeviceRGB without one; 8 bits a component)."""
    pdf = pikepdf.new()
    fonts = pikepdf.Dictionary()
    for name, base in (("/F1", "/Helvetica"), ("/F2", "/Times-Roman"), ("/F3", "/Courier")):
        fonts[name] = pdf.make_indirect(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Font,
                Subtype=pikepdf.Name.Type1,
                BaseFont=pikepdf.Name(base),
                Encoding=pikepdf.Name.WinAnsiEncoding,
            )
        )
    xobjects = pikepdf.Dictionary()
    if form is not None:
        fm = pikepdf.Stream(pdf, form)
        fm.Type = pikepdf.Name.XObject
        fm.Subtype = pikepdf.Name.Form
        fm.BBox = [0, 0, 612, 792]
        fm.Resources = pikepdf.Dictionary(Font=fonts)
        xobjects["/Fm1"] = pdf.make_indirect(fm)
    if image is not None:
        w, h, data, filt = image[:4]
        space = image[4] if len(image) > 4 else "/DeviceRGB"
        im = pikepdf.Stream(pdf, data)
        im.Type = pikepdf.Name.XObject
        im.Subtype = pikepdf.Name.Image
        im.Width, im.Height, im.BitsPerComponent = w, h, 8
        im.ColorSpace = pikepdf.Name(space)
        if filt:
            im.Filter = pikepdf.Name(filt)
        xobjects["/Im1"] = pdf.make_indirect(im)
    for content in pages:
        page = pikepdf.Page(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Page,
                MediaBox=[0, 0, 612, 792],
                Resources=pikepdf.Dictionary(Font=fonts, XObject=xobjects),
                Contents=pdf.make_stream(content),
            )
        )
        pdf.pages.append(page)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


LINES = (
    b"BT /F1 12 Tf 72 700 Td (Public line one stays here.) Tj ET\n"
    b"BT /F2 12 Tf 72 670 Td [(Secret acc) -20 (ount 4417 1234 5678 9113) 15 ( must go.)] TJ ET\n"
    b"BT /F3 12 Tf 72 640 Td (Another public line after.) Tj ET\n"
)


def rgb_image(w: int, h: int) -> bytes:
    """A `w` x `h` RGB image: a red and blue gradient, no pixel black."""
    return bytes(v for y in range(h) for x in range(w) for v in (200, 40 + (x * 150) // w, 60 + (y * 150) // h))


# -- the peers' view -----------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def pdfium_chars(data: bytes, index: int) -> Tuple[Tuple[str, Box], ...]:
    """Each character PDFium extracts from page `index`, with its box (no generated ones).
    Kept for the last few pages asked: the sweep and the checks ask for the same source
    page several times (a rectangle and a word on it, each checked against it)."""
    doc = pdfium.PdfDocument(data)
    try:
        text = doc[index].get_textpage()
        out = []
        for i in range(text.count_chars()):
            ch = text.get_text_range(i, 1)
            if not ch.strip():
                continue
            out.append((ch, text.get_charbox(i)))
        return tuple(out)
    finally:
        doc.close()


def pdfium_text(data: bytes, index: int) -> str:
    doc = pdfium.PdfDocument(data)
    try:
        return doc[index].get_textpage().get_text_range()
    finally:
        doc.close()


def mupdf_text(data: bytes, index: int, content_only: bool = False) -> str:
    """MuPDF's text of page `index`; `content_only`: without the text of the annotations'
    and form fields' appearances, which MuPDF adds (they are not page content: a search
    does not find text there, so neither does a redaction by search)."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        page = doc[index]
        if content_only:
            for widget in list(page.widgets()):
                page.delete_widget(widget)
            # One at a time from the first: deleting one also deletes its popup, which a
            # list made before would still hold, unbound ("Annot is not bound to a page").
            for _ in range(10000):
                annot = page.first_annot
                if annot is None:
                    break
                page.delete_annot(annot)
        return page.get_text()


@functools.lru_cache(maxsize=2)
def render(data: bytes, index: int):
    """PDFium's rendering of page `index` at SCALE (read-only, 16-bit: differences of
    8-bit samples fit, at a quarter of the memory and time of 64-bit), and the rects of
    its annotations; kept for the last pages asked, like `pdfium_chars`."""
    import ctypes

    raw = pdfium.raw
    doc = pdfium.PdfDocument(data)
    try:
        page = doc[index]
        image = np.asarray(page.render(scale=SCALE, may_draw_forms=True).to_pil().convert("RGB")).astype(np.int16)
        image.setflags(write=False)
        rects = []
        for k in range(raw.FPDFPage_GetAnnotCount(page.raw)):
            annot = raw.FPDFPage_GetAnnot(page.raw, k)
            r = raw.FS_RECTF()
            if raw.FPDFAnnot_GetRect(annot, ctypes.byref(r)):
                rects.append((min(r.left, r.right), min(r.bottom, r.top), max(r.left, r.right), max(r.bottom, r.top)))
            raw.FPDFPage_CloseAnnot(annot)
        return image, {"annots": rects}
    finally:
        doc.close()


def decompressed_streams(data: bytes) -> Iterable[bytes]:
    """Every stream of the file, its filters undone where pikepdf can (else raw)."""
    with pikepdf.open(io.BytesIO(data)) as pdf:
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Stream):
                try:
                    yield obj.read_bytes()
                except pikepdf.PdfError:
                    yield obj.read_raw_bytes()


def spellings(secret: str) -> List[bytes]:
    """The byte forms `secret` takes in a file: ASCII/Latin-1, hex (either case), UTF-16BE."""
    raw = secret.encode("latin-1", "replace")
    return [raw, raw.hex().encode(), raw.hex().upper().encode(), secret.encode("utf-16-be")]


#: Brackets PDFium may mirror when the bidi context of a line changes (a word of it gone).
MIRRORED = {"(": ")", ")": "(", "[": "]", "]": "[", "{": "}", "}": "{", "<": ">", ">": "<", "«": "»", "»": "«"}


#: The forms PDFium gives one hyphen glyph by its context: U+FFFE for a hyphen at a line's
#: end that it takes for a word broken there, U+00AD or "-" once the word is gone.
HYPHENS = {"-", "\xad", "\ufffe"}


def same_char(a: str, b: str) -> bool:
    return a == b or MIRRORED.get(a) == b or (a in HYPHENS and b in HYPHENS)


def overlaps(a: Box, b: Box, margin: float = 0.0) -> bool:
    return min(a[2], b[2]) + margin > max(a[0], b[0]) and min(a[3], b[3]) + margin > max(a[1], b[1])


def overlapping(boxes: Sequence[Box], regions: Sequence[Box], margin: float = 0.0) -> "np.ndarray":
    """For each of `boxes`, whether it `overlaps` one of `regions`: as `overlaps`, on all
    pairs at once (a page with thousands of characters and regions, such as every match of
    a common word, took a minute pair by pair), a few thousand boxes at a time."""
    out = np.zeros(len(boxes), dtype=bool)
    if not len(boxes) or not len(regions):
        return out
    r = np.asarray([tuple(x)[:4] for x in regions], dtype=float)
    for start in range(0, len(boxes), 4096):
        b = np.asarray([tuple(x)[:4] for x in boxes[start : start + 4096]], dtype=float)
        across = np.minimum(b[:, None, 2], r[None, :, 2]) + margin > np.maximum(b[:, None, 0], r[None, :, 0])
        up = np.minimum(b[:, None, 3], r[None, :, 3]) + margin > np.maximum(b[:, None, 1], r[None, :, 1])
        out[start : start + len(b)] = (across & up).any(axis=1)
    return out


class Region(tuple):
    """A region's box (x0, y0, x1, y1); `polygon`: the corners of a turned quadrilateral,
    which Quire redacts as itself (None: the region is its box)."""

    polygon: Optional[List[Tuple[float, float]]] = None


def region_of(quad: Sequence[float]) -> Region:
    xs, ys = list(quad[0::2]), list(quad[1::2])
    r = Region((min(xs), min(ys), max(xs), max(ys)))
    corners = list(zip(xs, ys))
    if not all(
        (abs(x - r[0]) < 1e-6 or abs(x - r[2]) < 1e-6) and (abs(y - r[1]) < 1e-6 or abs(y - r[3]) < 1e-6)
        for x, y in corners
    ):
        # The convex hull's order: by angle around the centre.
        cx, cy = sum(xs) / 4, sum(ys) / 4
        r.polygon = sorted(corners, key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
    return r


def depth_in(polygon: Sequence[Tuple[float, float]], x, y):
    """How far (x, y) lies inside the convex `polygon` (negative: outside); x and y may be
    numpy arrays."""
    area = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(polygon, list(polygon[1:]) + [polygon[0]]))
    turn = 1.0 if area > 0 else -1.0
    depth = None
    for a, b in zip(polygon, list(polygon[1:]) + [polygon[0]]):
        length = math.hypot(b[0] - a[0], b[1] - a[1]) or 1.0
        d = turn * ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])) / length
        depth = d if depth is None else np.minimum(depth, d)
    return depth


# -- the checks ----------------------------------------------------------------------------


#: The document warnings of the last `apply` (notes such as an image removed whole).
last_warnings: List[str] = []


def apply(
    data: bytes, mark: Callable[[quire.Document], None]
) -> Tuple[bytes, List[Tuple[int, Box]], quire.RedactionResult]:
    """Marks with `mark`, reads the regions back, applies, saves in full (the document's
    warnings after applying in `last_warnings`)."""
    with quire.Document.from_bytes(data) as doc:
        mark(doc)
        regions: List[Tuple[int, Box]] = []
        for page in doc.pages:
            for a in page.annotations:
                if a.subtype != "Redact":
                    continue
                q = a.quad_points
                for i in range(0, len(q) - 7, 8):
                    regions.append((page.index, region_of(q[i : i + 8])))
        before_warnings = len(doc.warnings)
        result = doc.apply_redactions()
        last_warnings[:] = doc.warnings[before_warnings:]
        if result.redactions:
            with pytest.raises(quire.StateError, match="full save"):
                doc.save_to_bytes()
        return doc.save_to_bytes(full=True), regions, result


def page_content(pdf, index: int) -> bytes:
    contents = pdf.pages[index].Contents
    return b"".join(c.read_bytes() for c in contents) if isinstance(contents, pikepdf.Array) else contents.read_bytes()


def check_page(
    before: bytes,
    after: bytes,
    index: int,
    regions: List[Box],
    fill=(0, 0, 0),
    secret: Optional[str] = None,
    overlay: str = "",
) -> dict:
    """The issue's checks on page `index` (`overlay`: the overlay text drawn in the
    regions, which PDFium extracts there); returns what was measured."""
    measured = {}
    # 1. The text in the regions is gone for PDFium and MuPDF; outside, every character
    #    stays with its position within 0.5 pt.
    # Both read now, one after the other, not from the cache: PDFium's character boxes of
    # one file change within a process once other files were loaded (its process-wide font
    # state: appearances-a-more.pdf's "abc" grew 0.58 pt wider after the sweep's rectangle
    # case), so a source read earlier is not comparable with an output read now.
    old = pdfium_chars.__wrapped__(before, index)
    new = pdfium_chars.__wrapped__(after, index)
    hit = overlapping([b for _, b in old], regions)
    inside = [ch for ch, near in zip(old, hit) if near]
    outside = [ch for ch, near in zip(old, overlapping([b for _, b in old], regions, margin=1.0)) if not near]
    # A character's centre more than 0.5 pt inside a region: as boxes, all at once; a
    # turned region by its polygon.
    centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 0.0, 0.0) for _, b in new]
    level = [r for r in regions if not getattr(r, "polygon", None)]
    shrunk = [(r[0] + 0.5, r[1] + 0.5, r[2] - 0.5, r[3] - 0.5) for r in level]
    strictly = overlapping([(x, y, x, y) for x, y, _, _ in centres], shrunk)
    for (c, b), (cx, cy, _, _), level_hit in zip(new, centres, strictly):
        if c in overlay:
            continue
        assert not level_hit and not any(
            depth_in(r.polygon, cx, cy) > 0.5 for r in regions if getattr(r, "polygon", None)
        ), "PDFium still extracts %r at %s, inside a region" % (c, b)
    # One to one, the first unmatched character of the same text in the same place (the
    # candidates looked up by their text, not scanned).
    unmatched: dict = {}
    for k, (c2, b2) in enumerate(new):
        unmatched.setdefault(c2, []).append((k, b2))
    moved = []
    for c, b in outside:
        keys = {c, MIRRORED.get(c, c)} | (HYPHENS if c in HYPHENS else set())
        best = None
        for key in keys:
            for pos, (k, b2) in enumerate(unmatched.get(key, ())):
                if all(abs(b[j] - b2[j]) <= 0.5 for j in range(4)):
                    if best is None or k < best[0]:
                        best = (k, key, pos)
                    break
        if best is None:
            moved.append((c, b))
        else:
            unmatched[best[1]].pop(best[2])

    # Overprinting (a fake bold: the same glyph drawn two to four times a fraction of a
    # point apart) is one character for PDFium when its copies are alike, and whether
    # they are depends on how the text objects around them split: a character whose
    # copy is still there, in the same place, stayed.
    def overprinted(c: str, b: Box) -> bool:
        twins = [b2 for c2, b2 in old if c2 == c and all(abs(b[j] - b2[j]) <= 0.5 for j in range(4))]
        return len(twins) >= 2 and any(c2 == c and all(abs(b[j] - b2[j]) <= 0.5 for j in range(4)) for c2, b2 in new)

    moved = [(c, b) for c, b in moved if not overprinted(c, b)]
    assert not moved, "%d of %d characters outside the regions moved or went: %s" % (
        len(moved),
        len(outside),
        moved[:5],
    )
    measured["chars_inside"] = len(inside)
    measured["chars_outside_kept"] = len(outside)
    if secret:
        assert secret.lower() not in pdfium_text(after, index).lower(), "PDFium extracts %r" % secret
        assert secret.lower() not in mupdf_text(after, index, content_only=True).lower(), "MuPDF extracts %r" % secret
    # 2. Pixels: the fill colour inside each region, the page as it was outside.
    doc = pdfium.PdfDocument(before)
    page = doc[index]
    a, seen_before = render(before, index)
    b, seen_after = render(after, index)
    assert a.shape == b.shape
    h, w, _ = a.shape
    mask = np.zeros((h, w), dtype=bool)

    def px(box: Box, grow: float) -> Tuple[int, int, int, int]:
        # Through PDFium's own page-to-device mapping (crop box, /Rotate).
        import ctypes

        xs, ys = [], []
        for x, y in ((box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])):
            ix, iy = ctypes.c_int(), ctypes.c_int()
            pdfium.raw.FPDF_PageToDevice(page.raw, 0, 0, w, h, 0, x, y, ctypes.byref(ix), ctypes.byref(iy))
            xs.append(ix.value)
            ys.append(iy.value)
        x0 = max(0, int(min(xs) - grow))
        x1 = min(w, int(max(xs) + grow + 1))
        y0 = max(0, int(min(ys) - grow))
        y1 = min(h, int(max(ys) + grow + 1))
        return x0, y0, x1, y1

    # Annotations that went (they intersect a region and go whole) are not compared.
    for r in seen_before["annots"]:
        if r not in seen_after["annots"]:
            x0, y0, x1, y1 = px(r, 2)
            mask[y0:y1, x0:x1] = True

    def device(x: float, y: float) -> Tuple[float, float]:
        import ctypes

        ix, iy = ctypes.c_int(), ctypes.c_int()
        pdfium.raw.FPDF_PageToDevice(page.raw, 0, 0, w, h, 0, x, y, ctypes.byref(ix), ctypes.byref(iy))
        return float(ix.value), float(iy.value)

    for r in regions:
        x0, y0, x1, y1 = px(r, -2)
        polygon = getattr(r, "polygon", None)
        if fill is not None and x1 > x0 and y1 > y0:
            want = np.array([round(255 * v) for v in (fill * 3 if len(fill) == 1 else fill)])
            off = np.abs(b[y0:y1, x0:x1] - want).max(axis=2)
            if polygon:
                # A turned region: the pixels 2 pixels or more inside its polygon.
                ys, xs = np.mgrid[y0:y1, x0:x1] + 0.5
                off = off[depth_in([device(*p) for p in polygon], xs, ys) >= 2]
                if off.size == 0:
                    off = np.zeros(1, dtype=int)
            if overlay:
                # The overlay text's glyphs cover some of it.
                assert (off <= 8).mean() >= 0.8, "region %s is not the fill colour" % (r,)
            else:
                assert off.max() <= 8, "region %s is not the fill colour (off by %d)" % (r, off.max())
        x0, y0, x1, y1 = px(r, 2)
        mask[y0:y1, x0:x1] = True
    # Glyphs that intersect a region go whole: their ink outside it is not compared.
    for (c, box), went in zip(old, hit):
        if went:
            x0, y0, x1, y1 = px(box, 2)
            mask[y0:y1, x0:x1] = True
    changed = (np.abs(a - b).max(axis=2) > 40) & ~mask
    # PDFium puts each glyph on a whole pixel: text that stays within the 0.5 pt of the
    # text check may still move a pixel (PDFium reads /Widths as integers, so a removed
    # glyph 394.4 wide moved what follows it by 0.4/1000 em in PDFium before and not
    # after). A pixel changed only when, one way or the other, no pixel next to it (one
    # device pixel each way, 0.5 pt) of the other rendering matches it: a line of one
    # pixel that went or came is still seen.
    ys, xs = np.nonzero(changed)
    for one, other in ((a, b), (b, a)):
        unmatched = np.ones(len(ys), dtype=bool)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                sy, sx = np.clip(ys + dy, 0, h - 1), np.clip(xs + dx, 0, w - 1)
                unmatched &= np.abs(other[sy, sx] - one[ys, xs]).max(axis=1) > 40
        if one is a:
            either = unmatched
        else:
            either |= unmatched
    changed[:] = False
    changed[ys[either], xs[either]] = True
    fraction = changed.sum() / max(1, (~mask).sum())
    measured["outside_changed_fraction"] = float(fraction)
    doc.close()
    assert fraction <= OUTSIDE_TOLERANCE, "%.4f of the page outside the regions changed" % fraction
    return measured


def check_file(after: bytes, secret: str) -> None:
    """No decompressed stream, and no byte of the file, holds `secret`; one revision."""
    for form in spellings(secret):
        assert form not in after, "the file's bytes hold %r" % form
        for data in decompressed_streams(after):
            assert form not in data, "a stream holds %r" % form
    assert after.count(b"%%EOF") == 1


# -- generated files -----------------------------------------------------------------------


def test_search_removes_kerned_text_keeps_the_rest():
    before = content_pdf([LINES])
    after, regions, result = apply(before, lambda doc: doc.add_redactions("4417 1234 5678 9113"))
    # 19 characters, and the space after them: the TJ's 15 pulls it 0.18 pt into the region.
    assert result.redactions == 1 and result.glyphs_removed == 20 and result.pages == 1
    check_page(before, after, 0, [r for _, r in regions], secret="4417 1234 5678 9113")
    check_file(after, "4417")
    assert "Secret acc" in pdfium_text(after, 0) and "must go." in mupdf_text(after, 0)
    with pikepdf.open(io.BytesIO(after)) as pdf:
        assert all(a.Subtype != "/Redact" for a in pdf.pages[0].get("/Annots", []))


def test_rect_removes_a_line_in_three_fonts_and_a_fill_and_overlay():
    before = content_pdf([LINES])
    region = (60.0, 660.0, 400.0, 690.0)  # the second line (baseline 670) alone

    def mark(doc):
        doc.pages[0].add_redaction(region, fill=(0.2, 0.4, 0.8), overlay_text="REMOVED")

    after, regions, result = apply(before, mark)
    check_page(before, after, 0, [region], fill=(0.2, 0.4, 0.8), secret="must go", overlay="REMOVED")
    assert "Public line one stays here." in pdfium_text(after, 0)
    assert "REMOVED" in mupdf_text(after, 0)


def one_font_page(pdf: "pikepdf.Pdf", font: "pikepdf.Object", content: bytes) -> bytes:
    """`pdf` with a Letter page of `content` whose one font, /F1, is `font`, saved."""
    pdf.pages.append(
        pikepdf.Page(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Page,
                MediaBox=[0, 0, 612, 792],
                Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font)),
                Contents=pdf.make_stream(content),
            )
        )
    )
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def vertical_pdf(w2: Optional[list] = None) -> bytes:
    """A page with a column of vertical text (Type0, Identity-V, a CID font of Adobe-Japan1
    that is not embedded): eight two-byte codes from (300, 700) down; `w2`: the CID font's
    /W2 (vertical metrics of each CID), if any."""
    pdf = pikepdf.new()
    cid = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.CIDFontType0,
            BaseFont=pikepdf.Name("/KozMinPr6N-Regular"),
            CIDSystemInfo=pikepdf.Dictionary(
                Registry=pikepdf.String("Adobe"), Ordering=pikepdf.String("Japan1"), Supplement=6
            ),
            FontDescriptor=pdf.make_indirect(
                pikepdf.Dictionary(
                    Type=pikepdf.Name.FontDescriptor,
                    FontName=pikepdf.Name("/KozMinPr6N-Regular"),
                    Flags=4,
                    FontBBox=[0, -120, 1000, 880],
                    ItalicAngle=0,
                    Ascent=880,
                    Descent=-120,
                    CapHeight=700,
                    StemV=80,
                )
            ),
            DW=1000,
        )
    )
    font = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.Type0,
            BaseFont=pikepdf.Name("/KozMinPr6N-Regular"),
            Encoding=pikepdf.Name("/Identity-V"),
            DescendantFonts=[cid],
            ToUnicode=pdf.make_stream(
                b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap "
                b"/CMapName /Q def 1 begincodespacerange <0000> <FFFF> endcodespacerange "
                b"1 beginbfrange <0021> <0028> <0041> endbfrange endcmap CMapName currentdict "
                b"/CMap defineresource pop end end"
            ),
        )
    )
    if w2 is not None:
        cid.W2 = w2
    content = b"BT /F1 20 Tf 300 700 Td <00210022002300240025002600270028> Tj ET\n"
    return one_font_page(pdf, font, content)


def mupdf_chars(data: bytes, index: int) -> List[Tuple[str, Box]]:
    """Each character MuPDF extracts from page `index`, with its box (PDF space, y up)."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        page = doc[index]
        h = page.rect.height
        out = []
        for block in page.get_text("rawdict")["blocks"]:
            for line in block.get("lines", []):
                for span in line["spans"]:
                    for ch in span["chars"]:
                        x0, y0, x1, y1 = ch["bbox"]
                        out.append((ch["c"], (x0, h - y1, x1, h - y0)))
        return out


#: /W2 for the CIDs 0x21 to 0x28 of vertical_pdf: displacements of 600 to 950 thousandths
#: (not the 1000 of /DW2), position vectors (500, 880).
W2 = [0x21, [v for k in range(8) for v in (-600 - 50 * k, 500, 880)]]


@pytest.mark.parametrize("w2", [None, W2], ids=["DW2", "W2"])
def test_vertical_text_keeps_its_positions(w2):
    """Vertical writing: the glyphs after removed ones stay where they were (the TJ number
    moves down by the removed glyphs' vertical displacement, each glyph's /W2 one when it
    has one). PDFium extracts no text of a CID font it cannot load, so MuPDF's characters
    are compared."""
    before = vertical_pdf(w2)
    chars = mupdf_chars(before, 0)
    assert "".join(c for c, _ in chars) == "ABCDEFGH"
    # From the centre of "D" to the centre of "C": two glyphs (which two depends on the box
    # model: MuPDF and Quire place a vertical glyph of a font they cannot load apart).
    c, d = (dict(chars)[k] for k in "CD")
    region = (c[0] + 1, (d[1] + d[3]) / 2, c[2] - 1, (c[1] + c[3]) / 2)
    after, _, result = apply(before, lambda doc: doc.pages[0].add_redaction(region))
    assert result.glyphs_removed == 2
    kept = mupdf_chars(after, 0)
    assert len(kept) == 6 and "H" in [c for c, _ in kept]
    old = {c: box for c, box in chars}
    for c, box in kept:
        assert all(abs(box[j] - old[c][j]) <= 0.5 for j in range(4)), (c, box, old[c])


def test_form_xobject_shared_by_two_pages_is_copied():
    form = b"BT /F1 14 Tf 72 500 Td (Shared form secret 98765 text) Tj ET\n"
    page = b"q /Fm1 Do Q\nBT /F1 12 Tf 72 300 Td (Page text) Tj ET\n"
    before = content_pdf([page, page], form=form)
    after, regions, result = apply(before, lambda doc: doc.pages[0].add_redaction((150, 490, 260, 520)))
    check_page(before, after, 0, [r for _, r in regions], secret="98765")
    # The other page draws the original form: its text is all there.
    assert "Shared form secret 98765 text" in pdfium_text(after, 1)
    assert "98765" not in pdfium_text(after, 0) and "Shared form" in pdfium_text(after, 0)
    assert check_page(before, after, 1, [])["chars_inside"] == 0


def test_form_xobject_text_gone_from_every_stream():
    form = b"BT /F2 14 Tf 72 500 Td [(Form secret) -250 (SESAME) -300 (open)] TJ ET\n"
    before = content_pdf([b"q /Fm1 Do Q\n"], form=form)
    after, _, _ = apply(before, lambda doc: doc.add_redactions("SESAME"))
    assert "SESAME" not in pdfium_text(after, 0) and "SESAME" not in mupdf_text(after, 0)
    assert "Form secret" in pdfium_text(after, 0) and "open" in pdfium_text(after, 0)
    check_file(after, "SESAME")


@pytest.mark.parametrize("filt", [None, "/FlateDecode"])
def test_image_partly_covered_is_blanked_there(filt):
    w = h = 100
    raw = rgb_image(w, h)
    data = zlib.compress(raw) if filt else raw
    before = content_pdf([b"q 200 0 0 200 100 100 cm /Im1 Do Q\n"], image=(w, h, data, filt))
    region = (150.0, 150.0, 250.0, 250.0)  # pixels 25..75 of the image, exactly
    after, _, result = apply(before, lambda doc: doc.pages[0].add_redaction(region))
    assert result.images_blanked == 1 and result.images_removed == 0
    check_page(before, after, 0, [region])
    with pikepdf.open(io.BytesIO(after)) as pdf:
        (im,) = [x for x in pdf.pages[0].Resources.XObject.values() if x.Subtype == "/Image"]
        pixels = np.frombuffer(im.read_bytes(), dtype=np.uint8).reshape(h, w, 3)
        assert (pixels[25:75, 25:75] == 0).all()
        assert (pixels[:25] == np.frombuffer(raw, dtype=np.uint8).reshape(h, w, 3)[:25]).all()


def test_image_covered_is_removed_and_jpx_partly_covered_is_removed_with_a_note():
    from PIL import Image

    w = h = 64
    buf = io.BytesIO()
    Image.frombytes("RGB", (w, h), rgb_image(w, h)).save(buf, format="JPEG")
    before = content_pdf([b"q 100 0 0 100 100 100 cm /Im1 Do Q\n"], image=(w, h, buf.getvalue(), "/DCTDecode"))
    after, _, result = apply(before, lambda doc: doc.pages[0].add_redaction((90, 90, 210, 210)))
    assert result.images_removed == 1
    with pikepdf.open(io.BytesIO(after)) as pdf:
        assert b"/Im1 Do" not in page_content(pdf, 0)
        # Nothing draws it any more: it left the resources, and the file.
        assert "/Im1" not in pdf.pages[0].Resources.XObject
        assert not [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"]
    # JPEG 2000 is not re-encoded (Quire links no JPX codec): the image goes whole, said.
    jpx = content_pdf([b"q 100 0 0 100 100 100 cm /Im1 Do Q\n"], image=(w, h, b"\0" * 64, "/JPXDecode"))
    _, _, result = apply(jpx, lambda doc: doc.pages[0].add_redaction((120, 120, 150, 150)))
    assert result.images_removed == 1 and result.images_blanked == 0
    assert any("JPXDecode" in w and "removed whole" in w for w in last_warnings)


@pytest.mark.parametrize("mode", ["RGB", "L", "CMYK"])
def test_jpeg_partly_covered_is_blanked_and_stays_a_jpeg(mode):
    """A JPEG partly in a region keeps its filter: decoded, blanked and encoded again by
    libjpeg with its own tables, so the pixels outside change by one more round of the
    same quantization only."""
    from PIL import Image

    w = h = 64
    source = Image.frombytes("RGB", (w, h), rgb_image(w, h)).convert(mode)
    buf = io.BytesIO()
    source.save(buf, format="JPEG", quality=90)
    space = {"RGB": "/DeviceRGB", "L": "/DeviceGray", "CMYK": "/DeviceCMYK"}[mode]
    before = content_pdf([b"q 128 0 0 128 100 100 cm /Im1 Do Q\n"], image=(w, h, buf.getvalue(), "/DCTDecode", space))
    region = (132.0, 132.0, 164.0, 164.0)  # image pixels 16 to 32 each way (2 pt a pixel)
    after, _, result = apply(before, lambda doc: doc.pages[0].add_redaction(region))
    assert result.images_blanked == 1 and result.images_removed == 0
    assert not [w for w in last_warnings if "removed whole" in w]
    check_page(before, after, 0, [region])
    with pikepdf.open(io.BytesIO(after)) as pdf:
        (im,) = [x for x in pdf.pages[0].Resources.XObject.values() if x.Subtype == "/Image"]
        assert im.Filter == "/DCTDecode"
        out = Image.open(io.BytesIO(im.read_raw_bytes()))
        assert out.format == "JPEG" and out.mode == mode and out.size == (w, h)
        old = np.asarray(source).astype(int).reshape(h, w, -1)
        new = np.asarray(out).astype(int).reshape(h, w, -1)
    # Rows from the top: the region is rows 32 to 48. Its samples are 0 as stored (PIL
    # reads an Adobe CMYK JPEG inverted), away from the ringing at its edges.
    blank = 255 if mode == "CMYK" else 0
    assert np.abs(new[35:45, 19:29] - blank).max() <= 12
    assert np.abs(new[:24] - old[:24]).mean() < 2 and np.abs(new[:24] - old[:24]).max() <= 24


def test_inline_image_partly_covered_is_blanked_there():
    w = h = 20
    raw = rgb_image(w, h)
    image = b"BI /W 20 /H 20 /BPC 8 /CS /RGB /F /AHx ID " + raw.hex().encode() + b"> EI"
    before = content_pdf([b"q 200 0 0 200 100 100 cm " + image + b" Q\n"])
    region = (150.0, 150.0, 250.0, 250.0)  # image pixels 5 to 15, exactly
    after, _, result = apply(before, lambda doc: doc.pages[0].add_redaction(region))
    assert result.images_blanked == 1 and result.images_removed == 0
    check_page(before, after, 0, [region])
    with pikepdf.open(io.BytesIO(after)) as pdf:
        (inline,) = [
            op for op in pikepdf.parse_content_stream(pdf.pages[0]) if op.operator == pikepdf.Operator("INLINE IMAGE")
        ]
        pixels = np.frombuffer(inline.operands[0].read_bytes(), dtype=np.uint8).reshape(h, w, 3)
    assert (pixels[5:15, 5:15] == 0).all()
    assert (pixels[:5] == np.frombuffer(raw, dtype=np.uint8).reshape(h, w, 3)[:5]).all()


def test_form_drawn_twice_loses_its_content_at_the_placement_in_a_region_only():
    form = b"BT /F1 14 Tf 72 500 Td (Twice drawn secret words) Tj ET\n"
    content = b"q /Fm1 Do Q q 1 0 0 1 0 -200 cm /Fm1 Do Q q 100 0 0 100 300 100 cm /Im1 Do Q q 100 0 0 100 300 300 cm /Im1 Do Q\n"
    before = content_pdf([content], form=form, image=(10, 10, rgb_image(10, 10), None))
    regions = [(70.0, 495.0, 300.0, 515.0), (290.0, 290.0, 350.0, 350.0)]  # the first form, half an image

    def mark(doc):
        doc.pages[0].add_redaction(regions[0])
        doc.pages[0].add_redaction(regions[1])

    after, _, result = apply(before, mark)
    assert result.images_blanked == 1
    check_page(before, after, 0, regions)
    text = pdfium_text(after, 0)
    assert "Twice drawn secret words" in text and text.count("secret") == 1


def test_search_matches_ligatures_and_skips_white_space_of_no_width():
    """A search for "buffer" marks "bu\ufb00er" drawn with a ligature glyph (pdfbox
    cweb.pdf), and one for BUTTON the word that a space drawn with a text matrix of no
    width stands in (pdfminer AcroForm_TEST_compiled.pdf): PDFium and MuPDF read both."""
    pdf = pikepdf.new()
    font = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.Type1,
            BaseFont=pikepdf.Name.Helvetica,
            Encoding=pikepdf.Name.WinAnsiEncoding,
            ToUnicode=pdf.make_stream(
                b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /L def "
                b"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <AE> <FB00> endbfchar "
                b"1 beginbfrange <20> <7E> <0020> endbfrange endcmap CMapName currentdict /CMap defineresource pop end end"
            ),
        )
    )
    content = (
        b"BT /F1 12 Tf 72 700 Td (Empty the bu\256er array) Tj ET\n"  # \256: a glyph read as U+FB00
        b"BT /F1 12 Tf 1 0 0 1 0 0 Tm 40 660 TD (BUTTO) Tj 0 0 0 1 0 0 Tm 81.3 660 TD ( ) Tj "
        b"1 0 0 1 0 0 Tm 81.3 660 TD (N) Tj ET\n"
    )
    before = one_font_page(pdf, font, content)
    after, regions, result = apply(before, lambda doc: doc.add_redactions("buffer"))
    assert result.redactions == 1 and result.glyphs_removed == 5
    check_page(before, after, 0, [r for _, r in regions], secret="buffer")
    after, regions, result = apply(before, lambda doc: doc.add_redactions("BUTTON"))
    assert result.redactions == 1 and result.glyphs_removed == 6
    check_page(before, after, 0, [r for _, r in regions], secret="BUTTON")


def test_predefined_cmap_v_is_vertical(corpus):
    """The predefined CMap named `V` (Adobe-Japan1, pdfminer simple3.pdf) writes
    vertically: the glyphs after a removed one stay below it, where they were."""
    before = corpus("pdfminer/samples/simple3.pdf").read_bytes()
    box = next(b for c, b in pdfium_chars(before, 0) if c == "\u3042")  # the first column's first
    after, _, result = apply(before, lambda doc: doc.pages[0].add_redaction(box))
    assert result.glyphs_removed == 1
    check_page(before, after, 0, [box])


def test_tf_without_a_font_name_sets_the_size():
    """`14 Tf` without the font's name (pdfium annots_action_handling.pdf): the size still
    applies, in Helvetica, as PDFium and MuPDF read it."""
    content = b"BT 70 340 Td 14 Tf (External Link) Tj 0 -35 Td 14 Tf (Internal Link) Tj ET\n"
    before = content_pdf([content])
    after, regions, result = apply(before, lambda doc: doc.add_redactions("Internal"))
    assert result.glyphs_removed == 8
    check_page(before, after, 0, [r for _, r in regions], secret="Internal")
    assert "External Link" in pdfium_text(after, 0)


def test_paths_inside_go_crossing_paths_stay():
    content = (
        b"q 0 0 1 rg 100 100 50 50 re f Q\n"  # inside the region
        b"q 1 0 0 RG 4 w 80 300 m 400 300 l S Q\n"  # crosses it
        b"q 0 1 0 rg 300 500 40 40 re f Q\n"
    )  # outside
    before = content_pdf([content])
    region = (90.0, 90.0, 200.0, 320.0)
    after, _, result = apply(before, lambda doc: doc.pages[0].add_redaction(region, fill=None))
    assert result.paths_removed == 1
    with pikepdf.open(io.BytesIO(after)) as pdf:
        data = page_content(pdf, 0)
        assert b"100 100 50 50 re" not in data and b"400 300 l" in data and b"300 500 40 40 re" in data


def test_annotations_in_a_region_go_others_stay():
    before = content_pdf([LINES])
    with quire.Document.from_bytes(before) as doc:
        doc.add_annotation(quire.Annotation.new("Square", 0, (100, 650, 150, 700)))
        doc.add_annotation(quire.Annotation.new("Square", 0, (300, 100, 350, 150)))
        doc.pages[0].add_redaction((90, 660, 160, 690))
        result = doc.apply_redactions()
        assert result.annotations_removed == 1
        kinds = [a.subtype for a in doc.pages[0].annotations]
        assert kinds == ["Square"]


def test_annotation_drawn_from_its_points_in_a_region_goes():
    """An underline and an ink line without appearances whose /Rect lies elsewhere (iText's
    cmp_xfdfAnnotationUnderlineTextRectWithTwoCoords.pdf has such an underline): PDFium and
    MuPDF draw them from their /QuadPoints and /InkList, over the words in the region, so
    they go; one whose points lie outside stays. The region is the fill colour in PDFium."""
    pdf = pikepdf.open(io.BytesIO(content_pdf([LINES])))
    elsewhere = [0, 0, 20, 20]
    pdf.pages[0].Annots = pdf.make_indirect(
        pikepdf.Array(
            [
                pdf.make_indirect(pikepdf.Dictionary(d))
                for d in (
                    {
                        "/Subtype": pikepdf.Name.Underline,
                        "/Rect": elsewhere,
                        "/C": [0, 1, 0],
                        "/QuadPoints": [100, 684, 160, 684, 100, 666, 160, 666],
                    },
                    {
                        "/Subtype": pikepdf.Name.Ink,
                        "/Rect": elsewhere,
                        "/C": [1, 0, 0],
                        "/InkList": [[95, 675, 165, 675]],
                    },
                    {
                        "/Subtype": pikepdf.Name.Underline,
                        "/Rect": elsewhere,
                        "/C": [0, 0, 1],
                        "/QuadPoints": [72, 714, 120, 714, 72, 698, 120, 698],
                    },
                )
            ]
        )
    )
    out = io.BytesIO()
    pdf.save(out)
    before = out.getvalue()
    region = (90.0, 660.0, 170.0, 690.0)
    after, _, result = apply(before, lambda doc: doc.pages[0].add_redaction(region))
    assert result.annotations_removed == 2
    with quire.Document.from_bytes(after) as doc:
        assert [(a.subtype, a.quad_points[:2]) for a in doc.pages[0].annotations] == [("Underline", [72, 714])]
    check_page(before, after, 0, [region])


def test_turned_quad_is_redacted_as_itself_not_its_box():
    """A Redact annotation whose quadrilateral is turned (a diamond: a square turned 45
    degrees, as text selected on a turned line gives): the glyphs, paths and image pixels
    in the diamond go; those in its box but outside the diamond stay; the diamond alone is
    filled."""
    w = h = 120
    raw = rgb_image(w, h)
    content = (
        b"q 120 0 0 120 240 340 cm /Im1 Do Q\n"  # the image fills the diamond's box
        b"BT /F1 10 Tf 285 396 Td (GONE) Tj ET\n"  # in the diamond
        b"BT /F1 8 Tf 242 448 Td (KEEP) Tj ET\n"  # in the box's top-left corner, outside it
        b"0 0 1 rg 296 396 8 8 re f\n"  # a path in the diamond
        b"0 1 0 rg 250 350 8 8 re f\n"  # a path in the box's bottom-left corner
    )
    pdf = pikepdf.open(io.BytesIO(content_pdf([content], image=(w, h, zlib.compress(raw), "/FlateDecode"))))
    diamond = [300, 460, 360, 400, 240, 400, 300, 340]  # Z order: top, right, left, bottom
    pdf.pages[0].Annots = pdf.make_indirect(
        pikepdf.Array(
            [
                pdf.make_indirect(
                    pikepdf.Dictionary(
                        {
                            "/Subtype": pikepdf.Name.Redact,
                            "/Rect": [240, 340, 360, 460],
                            "/QuadPoints": diamond,
                            "/IC": [0, 0, 0],
                        }
                    )
                )
            ]
        )
    )
    out = io.BytesIO()
    pdf.save(out)
    before = out.getvalue()
    after, regions, result = apply(before, lambda doc: None)
    assert [r.polygon for _, r in regions] == [[(300, 340), (360, 400), (300, 460), (240, 400)]]
    check_page(before, after, 0, [r for _, r in regions])
    assert result.redactions == 1 and result.images_blanked == 1 and result.paths_removed == 1
    assert result.glyphs_removed == 4
    text = pdfium_text(after, 0)
    assert "GONE" not in text and "KEEP" in text
    with pikepdf.open(io.BytesIO(after)) as out_pdf:
        data = page_content(out_pdf, 0)
        assert b"250 350 8 8 re" in data and b"296 396 8 8 re" not in data
        (im,) = [x for x in out_pdf.pages[0].Resources.XObject.values() if x.Subtype == "/Image"]
        pixels = np.frombuffer(im.read_bytes(), dtype=np.uint8).reshape(h, w, 3)
    original = np.frombuffer(raw, dtype=np.uint8).reshape(h, w, 3)
    # Row 0 is the image's top (y 460): the centre is blanked, the box's corners kept.
    assert (pixels[50:70, 50:70] == 0).all()
    for rows, cols in ((slice(0, 20), slice(0, 20)), (slice(100, 120), slice(100, 120))):
        assert (pixels[rows, cols] == original[rows, cols]).all()
    # PDFium: black at the diamond's centre, the image at the box's corners.
    image, _ = render(after, 0)
    page_h = image.shape[0]

    def at(x: float, y: float) -> np.ndarray:
        return image[int(page_h - y * SCALE), int(x * SCALE)]

    assert at(300, 400).max() <= 8 and at(330, 400).max() <= 8
    assert at(245, 345).max() > 100 and at(355, 455).max() > 100


def test_search_marks_text_of_no_size_and_text_off_the_crop_box():
    """A search finds text in a font of size 0 (glyph boxes of no size: PDFium's
    font_size.pdf) and text outside the crop box (cropped_text.pdf): both are in the
    content, so both are marked (a region of at least a point around a glyph of no size)
    and removed, where the marking refused the whole search before."""
    content = (
        b"BT /F1 12 Tf 72 100 Td (Public words) Tj ET\n"
        b"BT /F1 0 Tf 72 150 Td (Hidden) Tj ET\n"
        b"BT /F1 12 Tf 72 700 Td (Hidden far) Tj ET\n"
    )
    pdf = pikepdf.open(io.BytesIO(content_pdf([content])))
    pdf.pages[0].CropBox = [0, 0, 300, 300]
    out = io.BytesIO()
    pdf.save(out)
    with quire.Document.from_bytes(out.getvalue()) as doc:
        assert doc.add_redactions("Hidden") == 2
        result = doc.apply_redactions()
        after = doc.save_to_bytes(full=True)
    assert result.glyphs_removed == 12
    with pikepdf.open(io.BytesIO(after)) as out_pdf:
        data = page_content(out_pdf, 0)
    assert b"Hidden" not in data and b"(Public words) Tj" in data and b"far" in data


def test_redact_annotation_read_edit_json_xfdf():
    before = content_pdf([LINES])
    with quire.Document.from_bytes(before) as doc:
        a = doc.pages[0].add_redaction([(70, 660, 200, 685), (70, 630, 120, 655)], fill=(1, 0, 0), overlay_text="X")
        assert a.subtype == "Redact" and a.interior_color == (1.0, 0.0, 0.0) and a.overlay_text == "X"
        assert len(a.quad_points) == 16
        a.repeat_overlay_text = True
        a.alignment = 1
        doc.update_annotation(a)
        data = doc.save_to_bytes()
        js = doc.export_annotations_json()
        xfdf = doc.export_xfdf()
    import json

    record = [r for r in json.loads(js)["annotations"] if r["type"] == "pspdfkit/markup/redaction"][0]
    assert record["overlayText"] == "X" and record["repeatOverlayText"] is True and record["fillColor"] == "#FF0000"
    assert len(record["rects"]) == 2
    assert "<redact " in xfdf and 'overlay-text="X"' in xfdf
    with pikepdf.open(io.BytesIO(data)) as pdf:
        r = [x for x in pdf.pages[0].Annots if x.Subtype == "/Redact"][0]
        assert str(r.OverlayText) == "X" and r.Repeat is True and int(r.Q) == 1 and "/N" in r.AP
    for payload, importer in ((js, "import_annotations_json"), (xfdf, "import_xfdf")):
        with quire.Document.from_bytes(before) as doc:
            getattr(doc, importer)(payload)
            (back,) = [x for x in doc.pages[0].annotations if x.subtype == "Redact"]
            assert back.overlay_text == "X" and back.repeat_overlay_text and back.interior_color == (1.0, 0.0, 0.0)
            assert len(back.quad_points) == 16


def test_bad_input_changes_nothing():
    before = content_pdf([LINES])
    with quire.Document.from_bytes(before) as doc:
        with pytest.raises(quire.InvalidArgumentError, match="off page"):
            doc.pages[0].add_redaction((1000, 1000, 1100, 1100))
        with pytest.raises(quire.InvalidArgumentError):
            doc.pages[0].add_redaction((10, 10, 10, 20))
        with pytest.raises(quire.InvalidArgumentError):
            doc.pages[0].add_redaction((10, 10, 20, 20), fill=(2, 0, 0))
    # A content stream broken in the middle: refused, nothing applied.
    broken = content_pdf([b"BT /F1 12 Tf 72 700 Td (Secret here) Tj ET\nBT [(unterminated <<>> ] ] TJ\n(((\n"])
    with quire.Document.from_bytes(broken) as doc:
        doc.pages[0].add_redaction((60, 690, 300, 720))
        count = len(doc.pages[0].annotations)
        with pytest.raises(quire.FormatError, match="nothing changed"):
            doc.apply_redactions()
        assert len(doc.pages[0].annotations) == count
        assert any(a.subtype == "Redact" for a in doc.pages[0].annotations)


def test_encrypted_without_owner_password_is_refused():
    before = content_pdf([LINES])
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(before)) as pdf:
        pdf.save(out, encryption=pikepdf.Encryption(user="", owner="owner", R=6))
    with quire.Document.from_bytes(out.getvalue()) as doc:
        doc.pages[0].add_redaction((60, 660, 300, 690))
        with pytest.raises(quire.PasswordError):
            doc.apply_redactions()
    with quire.Document.from_bytes(out.getvalue(), password="owner") as doc:
        doc.pages[0].add_redaction((60, 660, 300, 690))
        assert doc.apply_redactions().glyphs_removed > 0


def test_cleanup_removes_metadata_and_javascript():
    before = content_pdf([LINES])
    with pikepdf.open(io.BytesIO(before)) as pdf:
        pdf.docinfo["/Title"] = "Secret title 31337"
        pdf.Root.OpenAction = pikepdf.Dictionary(S=pikepdf.Name.JavaScript, JS=pikepdf.String("app.alert(1)"))
        out = io.BytesIO()
        pdf.save(out)
    with quire.Document.from_bytes(out.getvalue()) as doc:
        doc.add_redactions("4417")
        doc.apply_redactions(remove_metadata=True, remove_javascript=True)
        after = doc.save_to_bytes(full=True)
    assert b"31337" not in after and b"app.alert" not in after


def test_redact_tool_marks_a_drag_text_or_rectangle(corpus):
    """The tool manager's Redact tool: a drag over "Hello, world" on PDFium's
    hello_world.pdf marks that text; a drag over empty space marks its rectangle; applied,
    the text is gone for PDFium and the rest of the page is as it was."""
    before = corpus("pdfium/testing/resources/hello_world.pdf").read_bytes()

    def mark(doc):
        tools = quire.ToolManager(doc)
        tools.tool = quire.Tool.REDACT
        tools.drag(0, (22, 53), (78, 53), (50, 53))
        tools.drag(0, (100, 150), (150, 180), (120, 160))
        kinds = [(a.subtype, len(a.quad_points)) for a in doc.pages[0].annotations]
        assert kinds == [("Redact", 8), ("Redact", 8)]

    after, regions, result = apply(before, mark)
    assert result.redactions == 2
    assert "world" not in pdfium_text(after, 0) and "Goodbye" in pdfium_text(after, 0)
    check_page(before, after, 0, [r for _, r in regions])


# -- the corpus ----------------------------------------------------------------------------

#: Text files of the corpus, one per kind of font and layout: (path, why).
CORPUS_FILES = [
    ("pypdf/resources/issue-301.pdf", "Type0 and TrueType, kerned TJ"),
    ("pdfplumber/tests/pdfs/issue-842-example.pdf", "Type0 and Type1, kerned TJ"),
    ("pdfminer/samples/contrib/issue-598-cmap-other-fonts.pdf", "Type0 with CMaps"),
    ("pypdf/resources/example.pdf", "Type0 and Type3"),
    ("pdfbox/pdfbox/src/test/resources/input/rendering/source.pdf", "text in a form XObject"),
    ("pdfannots/tests/issue61.pdf", "TrueType in a form XObject"),
]


def longest_word(data: bytes) -> Optional[str]:
    words = re.findall(r"[A-Za-z]{5,}", pdfium_text(data, 0))
    return max(words, key=len) if words else None


@pytest.mark.parametrize("path,why", CORPUS_FILES, ids=[p for p, _ in CORPUS_FILES])
def test_corpus_word(corpus, path, why):
    before = corpus(path).read_bytes()
    word = longest_word(before)
    if word is None:
        pytest.skip("no word of 5 letters on page 1")
    after, regions, result = apply(before, lambda doc: doc.add_redactions(word))
    assert result.redactions >= 1
    page_regions = [r for p, r in regions if p == 0]
    check_page(before, after, 0, page_regions, secret=word)
    assert word.lower() not in mupdf_text(after, 0).lower()


@pytest.mark.parametrize("path,why", CORPUS_FILES, ids=[p for p, _ in CORPUS_FILES])
def test_corpus_rect(corpus, path, why):
    before = corpus(path).read_bytes()
    chars = pdfium_chars(before, 0)
    if len(chars) < 20:
        pytest.skip("too little text")
    # A rectangle over the 10th to 14th characters' boxes.
    boxes = [b for _, b in chars[10:15]]
    region = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    after, _, result = apply(before, lambda doc: doc.pages[0].add_redaction(region))
    measured = check_page(before, after, 0, [region])
    assert measured["chars_inside"] >= 1


def test_corpus_sweep_sample(corpus):
    """Tests/python/redaction_sweep.py on a thirty-second of the corpus (every 32nd file that
    the peers open, from a seeded offset; `--every 1` is the long run): a random word and a
    random rectangle on a random page with text, each applied in a child process and
    checked as above; no crash, no hang, and no failure but the known ones
    (redaction_sweep.KNOWN, each explained in docs/redaction.md, reported apart)."""
    corpus("manifest.jsonl")  # skips without the corpus
    import redaction_sweep

    reports = redaction_sweep.sweep(redaction_sweep.files(32))
    assert [r["file"] for r in reports if r.get("crashed")] == []
    assert [r["file"] for r in reports if r.get("hung")] == []
    failures = {(r["file"], case) for r in reports for case, _ in r["failures"]}
    assert failures == set(), [r for r in reports if r["failures"]]
    assert sum(r.get("checked", 0) for r in reports) >= 20
