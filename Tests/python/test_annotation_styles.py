"""Border styles, cloudy borders and line endings (issue 39), drawn by Quire's generated
appearances and checked by the peers: PDFium (pypdfium2) and poppler (pdftoppm) render the
page, and the pixels are compared with what the test expects where (a shape present where
it should be, nothing outside the annotation's rectangle; for dashes, a reference drawn by
PyMuPDF with the same dash array); pikepdf and PyMuPDF read the dictionaries back.
"""

from __future__ import annotations

import io
from typing import Any, Callable, Dict, List, Tuple

import pytest

import quire
from conftest import pdf_from_objects

import pdfpeers

pytest.importorskip("PIL.Image", reason="Pillow is needed to compare renders")
pytest.importorskip("pypdfium2", reason="pypdfium2 renders with PDFium")
pytest.importorskip("pikepdf", reason="pikepdf reads the dictionaries back")
pytest.importorskip("pymupdf", reason="PyMuPDF reads the dictionaries back and draws references")

PAGE = (300, 300)
SCALE = 2  # pixels per point
RECT = (50.0, 50.0, 250.0, 250.0)


def blank_pdf(pages: int) -> bytes:
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (10 + i) for i in range(pages)), pages),
    }
    for i in range(pages):
        objects[10 + i] = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] >>" % PAGE
    return pdf_from_objects(objects)


def render_pdfium(data: bytes, page: int) -> Any:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    try:
        bitmap = document[page].render(scale=SCALE, draw_annots=True, grayscale=True)
        return bitmap.to_pil().convert("L")
    finally:
        document.close()


def render_poppler(data: bytes, page: int) -> Any:
    return pdfpeers.render_poppler_gray(data, page, 72 * SCALE)


RENDERERS: Dict[str, Callable[[bytes, int], Any]] = {"pdfium": render_pdfium, "poppler": render_poppler}


def px(x: float, y: float) -> Tuple[int, int]:
    """The pixel of page point (x, y) (PDF coordinates, y up)."""
    return int(round(x * SCALE)), int(round((PAGE[1] - y) * SCALE))


def ink_box(image: Any, threshold: int = 200) -> Tuple[float, float, float, float]:
    """The box of the pixels darker than `threshold`, in page points (left, bottom, right, top)."""
    box = image.point(lambda v: 255 if v < threshold else 0).getbbox()
    assert box is not None, "nothing drawn"
    left, top, right, bottom = box
    return left / SCALE, PAGE[1] - bottom / SCALE, right / SCALE, PAGE[1] - top / SCALE


def runs(values: List[int], threshold: int = 160) -> int:
    """The number of runs of dark pixels in a row or column of pixel values."""
    count, inside = 0, False
    for v in values:
        dark = v < threshold
        if dark and not inside:
            count += 1
        inside = dark
    return count


def row(image: Any, y: float, x0: float, x1: float) -> List[int]:
    a, py = px(x0, y)
    b, _ = px(x1, y)
    return [image.getpixel((x, py)) for x in range(a, b)]


def column(image: Any, x: float, y0: float, y1: float) -> List[int]:
    cx, top = px(x, y1)
    _, bottom = px(x, y0)
    return [image.getpixel((cx, y)) for y in range(top, bottom)]


def inside(box: Tuple[float, float, float, float], rect: Tuple[float, float, float, float], slack: float = 1.0) -> bool:
    return (
        box[0] >= rect[0] - slack
        and box[1] >= rect[1] - slack
        and box[2] <= rect[2] + slack
        and box[3] <= rect[3] + slack
    )


# ----------------------------------------------------------------------------------------
# The document: one annotation per page
# ----------------------------------------------------------------------------------------

ENDINGS = ["Square", "Circle", "Diamond", "OpenArrow", "ClosedArrow", "Butt", "ROpenArrow", "RClosedArrow", "Slash"]
POLYGON = [60.0, 60.0, 240.0, 60.0, 240.0, 200.0, 150.0, 240.0, 60.0, 200.0]


def make(a: quire.Annotation, **fields: Any) -> quire.Annotation:
    for key, value in fields.items():
        setattr(a, key, value)
    return a


def specs() -> List[Tuple[str, Callable[[int], quire.Annotation]]]:
    out: List[Tuple[str, Callable[[int], quire.Annotation]]] = [
        (
            "dashed",
            lambda p: make(
                quire.Annotation.new("Square", p, RECT),
                border_width=4,
                border_style="D",
                dash_pattern=[12, 6],
                color=(0, 0, 0),
            ),
        ),
        (
            "beveled",
            lambda p: make(
                quire.Annotation.new("Square", p, RECT),
                border_width=6,
                border_style="B",
                color=(0, 0, 0),
                interior_color=(0.2, 0.2, 0.2),
            ),
        ),
        (
            "inset",
            lambda p: make(
                quire.Annotation.new("Square", p, RECT),
                border_width=6,
                border_style="I",
                color=(0, 0, 0),
                interior_color=(1, 1, 1),
            ),
        ),
        (
            "underline",
            lambda p: make(quire.Annotation.new("Square", p, RECT), border_width=4, border_style="U", color=(0, 0, 0)),
        ),
        (
            "cloudy square",
            lambda p: make(
                quire.Annotation.new("Square", p, RECT), border_width=2, cloudy_intensity=2, color=(0, 0, 0)
            ),
        ),
        (
            "cloudy circle",
            lambda p: make(
                quire.Annotation.new("Circle", p, RECT), border_width=2, cloudy_intensity=2, color=(0, 0, 0)
            ),
        ),
        (
            "cloudy polygon",
            lambda p: make(
                quire.Annotation.new("Polygon", p, (60, 60, 240, 240)),
                border_width=2,
                cloudy_intensity=1,
                color=(0, 0, 0),
                vertices=POLYGON,
            ),
        ),
        (
            "polyline",
            lambda p: make(
                quire.Annotation.new("PolyLine", p, (20, 20, 280, 280)),
                border_width=2,
                color=(0, 0, 0),
                vertices=[60, 150, 150, 200, 240, 150],
                line_endings=("ClosedArrow", "Circle"),
            ),
        ),
    ]
    for ending in ENDINGS:
        out.append(
            (
                "line " + ending,
                lambda p, e=ending: make(
                    quire.Annotation.new("Line", p, (20, 100, 280, 200)),
                    border_width=2,
                    color=(0, 0, 0),
                    line=[60, 150, 240, 150],
                    line_endings=("None", e),
                ),
            )
        )
    return out


SPECS = specs()
INDEX = {name: k for k, (name, _) in enumerate(SPECS)}


@pytest.fixture(scope="module")
def styled() -> bytes:
    with quire.Document.from_bytes(blank_pdf(len(SPECS))) as doc:
        for page, (_, build) in enumerate(SPECS):
            doc.add_annotation(build(page))
        return doc.save_to_bytes()


def page_of(name: str) -> int:
    return INDEX[name]


# ----------------------------------------------------------------------------------------
# Read back by the peers
# ----------------------------------------------------------------------------------------


def test_pikepdf_reads_back_what_was_set(styled: bytes):
    import pikepdf

    with pikepdf.open(io.BytesIO(styled)) as pdf:

        def annot(name: str) -> Any:
            return pdf.pages[page_of(name)].Annots[0]

        dashed = annot("dashed")
        assert dashed.BS.S == "/D" and [float(v) for v in dashed.BS.D] == [12, 6] and float(dashed.BS.W) == 4
        assert annot("beveled").BS.S == "/B"
        assert annot("inset").BS.S == "/I"
        assert annot("underline").BS.S == "/U"
        for name in ("cloudy square", "cloudy circle", "cloudy polygon"):
            be = annot(name).BE
            assert be.S == "/C", name
        assert float(annot("cloudy square").BE.I) == 2 and float(annot("cloudy polygon").BE.I) == 1
        assert [str(v) for v in annot("polyline").LE] == ["/ClosedArrow", "/Circle"]
        for ending in ENDINGS:
            assert [str(v) for v in annot("line " + ending).LE] == ["/None", "/" + ending]
        # The cloudy polygon's rectangle grew to hold its scallops (radius 4 + 1, width 2).
        rect = [float(v) for v in annot("cloudy polygon").Rect]
        assert rect[0] <= 60 - 5 and rect[2] >= 240 + 5 and rect[3] >= 240 + 5


def test_pymupdf_reads_back_what_was_set(styled: bytes):
    import pymupdf

    with pymupdf.open(stream=styled, filetype="pdf") as document:
        pages = [document[k] for k in range(len(document))]  # alive while their annotations are read

        def annot(name: str) -> Any:
            return pages[page_of(name)].first_annot

        border = annot("dashed").border
        assert border["width"] == 4 and list(border["dashes"]) == [12, 6] and border["style"] == "D"
        assert annot("beveled").border["style"] == "B"
        assert annot("underline").border["style"] == "U"
        assert annot("cloudy square").border["clouds"] == 2
        assert annot("cloudy circle").border["clouds"] == 2
        assert annot("cloudy polygon").border["clouds"] == 1
        assert annot("polyline").line_ends == (pymupdf.PDF_ANNOT_LE_CLOSED_ARROW, pymupdf.PDF_ANNOT_LE_CIRCLE)
        assert annot("line Slash").line_ends == (pymupdf.PDF_ANNOT_LE_NONE, pymupdf.PDF_ANNOT_LE_SLASH)
        assert annot("line RClosedArrow").line_ends == (pymupdf.PDF_ANNOT_LE_NONE, pymupdf.PDF_ANNOT_LE_R_CLOSED_ARROW)


# ----------------------------------------------------------------------------------------
# Drawn: PDFium and poppler
# ----------------------------------------------------------------------------------------


def dashed_reference() -> bytes:
    """The dashed square drawn by PyMuPDF: the same path (`re` from the lower left), width
    and dash array."""
    import pymupdf

    with pymupdf.open() as document:
        page = document.new_page(width=PAGE[0], height=PAGE[1])
        w = 4
        left, bottom, right, top = RECT
        shape = page.new_shape()
        shape.draw_rect(pymupdf.Rect(left + w / 2, PAGE[1] - top + w / 2, right - w / 2, PAGE[1] - bottom - w / 2))
        shape.finish(color=(0, 0, 0), width=w, dashes="[12 6] 0", closePath=False)
        shape.commit()
        return document.tobytes()


def overlap(a: Any, b: Any) -> float:
    from PIL import ImageChops, ImageFilter

    def mask(image: Any) -> Any:
        return image.point(lambda v: 255 if v < 128 else 0).filter(ImageFilter.MaxFilter(3))

    ma, mb = mask(a), mask(b)
    inter = ImageChops.multiply(ma, mb).histogram()[255]
    union = ImageChops.lighter(ma, mb).histogram()[255]
    return inter / union if union else 0.0


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_dashed_border(styled: bytes, renderer: str):
    render = RENDERERS[renderer]
    image = render(styled, page_of("dashed"))
    assert inside(ink_box(image), RECT)
    # The top edge (y = 248, the stroke's middle): 200 points of 12 on, 6 off.
    dashes = runs(row(image, 248, 52, 248))
    assert 9 <= dashes <= 13, dashes
    # Like PyMuPDF's drawing of the same dashed square (a solid square gives about 0.5).
    similar = overlap(image, render(dashed_reference(), 0))
    assert similar >= 0.8, similar


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_beveled_and_inset_borders(styled: bytes, renderer: str):
    render = RENDERERS[renderer]
    # Width 6: the border's outer band, then the light band (top and left) and the dark band
    # (bottom and right) from 6 to 12 points inside.
    beveled = render(styled, page_of("beveled"))
    inset = render(styled, page_of("inset"))
    for image in (beveled, inset):
        assert inside(ink_box(image, 250), RECT)
        assert image.getpixel(px(53, 150)) < 40  # the border, black
    assert beveled.getpixel(px(150, 150)) < 80  # its fill, 20% gray
    assert inset.getpixel(px(150, 150)) > 230  # its fill, white
    # Beveled: white top-left band, 50% gray bottom-right band.
    assert beveled.getpixel(px(59, 150)) > 230 and beveled.getpixel(px(150, 241)) > 230
    assert 100 < beveled.getpixel(px(241, 150)) < 160 and 100 < beveled.getpixel(px(150, 59)) < 160
    # Inset: 50% gray top-left, 75% gray bottom-right.
    assert 100 < inset.getpixel(px(59, 150)) < 160 and 100 < inset.getpixel(px(150, 241)) < 160
    assert 165 < inset.getpixel(px(241, 150)) < 220 and 165 < inset.getpixel(px(150, 59)) < 220


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_underline_border_draws_the_bottom_edge_only(styled: bytes, renderer: str):
    image = RENDERERS[renderer](styled, page_of("underline"))
    left, bottom, right, top = ink_box(image)
    assert abs(left - 50) <= 1 and abs(right - 250) <= 1 and abs(bottom - 50) <= 1
    assert top <= 55, top  # 4 points high: nothing on the sides or the top


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
@pytest.mark.parametrize("name", ["cloudy square", "cloudy circle"])
def test_cloudy_borders_stay_inside_the_rectangle_with_scallops(styled: bytes, renderer: str, name: str):
    image = RENDERERS[renderer](styled, page_of(name))
    box = ink_box(image)
    assert inside(box, RECT), box
    # Radius 4 × 2 + 1 = 9: the cloud reaches the rectangle (within the width), and is hollow.
    assert box[0] <= 52 and box[2] >= 248 and box[1] <= 52 and box[3] >= 248, box
    assert image.getpixel(px(150, 150)) > 240
    # Scallops: a row 3 points inside the outer edge crosses the bulges one by one (a solid
    # border would be one run), on the top edge and the left edge.
    if name == "cloudy square":
        assert runs(row(image, 246, 70, 230)) >= 6
        assert runs(column(image, 54, 70, 230)) >= 6
    else:
        assert runs(row(image, 246, 120, 180)) >= 2


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_cloudy_polygon_scallops_around_its_vertices(styled: bytes, renderer: str):
    image = RENDERERS[renderer](styled, page_of("cloudy polygon"))
    box = ink_box(image)
    # Radius 4 + 1 = 5 outside the vertices' box (60..240 by 60..240), not more.
    assert 52 <= box[0] <= 58 and box[2] <= 248 and 52 <= box[1] <= 58, box
    assert image.getpixel(px(150, 130)) > 240
    # The bottom edge (y = 60, 180 points long): 18 scallops of 10 points bulging down to
    # y = 55; 3 points below the edge, a row crosses each one twice.
    assert runs(row(image, 57, 70, 230)) >= 10


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_line_endings_are_drawn_at_the_end(styled: bytes, renderer: str):
    render = RENDERERS[renderer]
    # The line from (60, 150) to (240, 150), width 2: each ending is 8 points across at
    # (240, 150); the start (None) stays 2 points wide.
    for ending in ENDINGS:
        image = render(styled, page_of("line " + ending))
        left, bottom, right, top = ink_box(image)
        assert abs(left - 59) <= 1.5, (ending, left)  # round caps reach 1 point past the start
        assert top >= 152.5 and bottom <= 147.5, (ending, bottom, top)
        start = column(image, 65, 140, 160)
        assert sum(1 for v in start if v < 128) <= 2 * SCALE + 1, ending
        # Reversed arrows open past the end: their back is 8 points beyond it.
        if ending.startswith("R"):
            assert right >= 246, (ending, right)
        else:
            assert right <= 246, (ending, right)
    # Without a fill colour (/IC) a closed ending is an outline: inside the square ending
    # (236..244 by 146..154), off the line, the page shows through.
    image = render(styled, page_of("line Square"))
    assert image.getpixel(px(242, 147.8)) > 128


@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_polyline_endings(styled: bytes, renderer: str):
    image = RENDERERS[renderer](styled, page_of("polyline"))
    # A closed arrow at (60, 150), pointing back along the first segment, and a circle of
    # diameter 8 at (240, 150).
    left, bottom, right, top = ink_box(image)
    assert 54 <= left <= 60 and 243 <= right <= 246, (left, right)
    # 1.5 points right of the circle's centre (where the last segment ends), left of its
    # stroked right side: its two arcs, hollow between them.
    circle = column(image, 241.5, 140, 160)
    assert runs(circle) == 2


# ----------------------------------------------------------------------------------------
# Round trips: annotation JSON and XFDF
# ----------------------------------------------------------------------------------------


def fields(a: quire.Annotation) -> Tuple[Any, ...]:
    return (
        a.subtype,
        a.border_style,
        a.dash_pattern,
        a.cloudy_intensity,
        a.rect_differences,
        a.line_endings,
        a.border_width,
    )


def test_json_round_trip_keeps_every_style(styled: bytes):
    with quire.Document.from_bytes(styled) as doc:
        before = [fields(a) for page in doc.pages for a in page.annotations]
        exported = doc.export_annotations_json()
    import json

    records = {r["pageIndex"]: r for r in json.loads(exported)["annotations"]}
    dashed = records[page_of("dashed")]
    assert dashed["strokeDashArray"] == [12, 6] and "quire" not in dashed or "borderStyle" not in dashed["quire"]
    assert records[page_of("cloudy square")]["cloudyBorderIntensity"] == 2
    assert records[page_of("beveled")]["quire"]["borderStyle"] == "B"
    with quire.Document.from_bytes(blank_pdf(len(SPECS))) as other:
        other.import_annotations_json(exported)
        after = [fields(a) for page in other.pages for a in page.annotations]
    assert after == before


def test_instant_json_shapes_import():
    """Nutrient's published shapes: strokeDashArray, cloudyBorderIntensity and
    cloudyBorderInset ([left, top, right, bottom])."""
    import json

    document = {
        "format": "https://pspdfkit.com/instant-json/v1",
        "annotations": [
            {
                "v": 1,
                "type": "pspdfkit/shape/ellipse",
                "pageIndex": 0,
                "bbox": [50, 50, 200, 200],
                "strokeWidth": 5,
                "strokeColor": "#0000ff",
                "cloudyBorderIntensity": 1,
                "cloudyBorderInset": [10, 11, 12, 13],
                "id": "e1",
                "name": "e1",
            },
            {
                "v": 1,
                "type": "pspdfkit/shape/rectangle",
                "pageIndex": 0,
                "bbox": [20, 20, 100, 100],
                "strokeWidth": 2,
                "strokeColor": "#000000",
                "strokeDashArray": [4, 2],
                "id": "r1",
                "name": "r1",
            },
        ],
    }
    with quire.Document.from_bytes(blank_pdf(1)) as doc:
        doc.import_annotations_json(json.dumps(document))
        by_name = {a.name: a for a in doc.pages[0].annotations}
        ellipse, rectangle = by_name["e1"], by_name["r1"]
        assert ellipse.cloudy_intensity == 1
        # /RD is left, bottom, right, top.
        assert ellipse.rect_differences == [10, 13, 12, 11]
        assert rectangle.border_style == "D" and rectangle.dash_pattern == [4, 2]
        data = doc.save_to_bytes()
    image = render_pdfium(data, 0)
    # The ellipse's cloud lies inside its inset box (flipped: y from 300 - 200 + 11 ...).
    assert image.getpixel(px(125, 300 - 125)) > 240


def test_xfdf_round_trip_keeps_every_style(styled: bytes):
    with quire.Document.from_bytes(styled) as doc:
        before = [fields(a) for page in doc.pages for a in page.annotations]
        xfdf = doc.export_xfdf()
    assert 'style="dash"' in xfdf and 'dashes="12,6"' in xfdf and 'style="cloudy"' in xfdf
    assert 'style="bevelled"' in xfdf and 'head="ClosedArrow"' in xfdf
    with quire.Document.from_bytes(blank_pdf(len(SPECS))) as other:
        other.import_xfdf(xfdf)
        after = [fields(a) for page in other.pages for a in page.annotations]
    assert after == before


# ----------------------------------------------------------------------------------------
# Rules
# ----------------------------------------------------------------------------------------


def test_values_outside_the_rules_are_refused():
    a = quire.Annotation.new("Square", 0, RECT)
    with pytest.raises(quire.InvalidArgumentError, match="border style"):
        a.border_style = "X"
    with pytest.raises(quire.InvalidArgumentError, match="dash pattern"):
        a.dash_pattern = [0, 0]
    with pytest.raises(quire.InvalidArgumentError, match="dash pattern"):
        a.dash_pattern = [-1]
    with pytest.raises(quire.InvalidArgumentError, match="cloudy intensity"):
        a.cloudy_intensity = 11
    with pytest.raises(quire.InvalidArgumentError, match="rect differences"):
        a.rect_differences = [1, 2, 3, 4, 5, 6]
    a.dash_pattern = [5]  # one length: as long on as off (an odd count is allowed)
    assert a.dash_pattern == [5]
    a.cloudy_intensity = 1.5
    assert a.cloudy_intensity == 1.5
    a.cloudy_intensity = 0  # removes the effect
    assert a.cloudy_intensity is None
