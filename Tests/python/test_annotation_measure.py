"""Measurement annotations (distance, perimeter, area with /Measure), /Rotate of FreeText
and Stamp, z-order moves and blend modes (issue 39).

Measured values are checked against the formulas of the geometry computed here (length,
path length, shoelace area, times the scale's factor), never against text copied from
Quire's output; pikepdf and PyMuPDF read /IT and /Measure back. Rotation, z-order and blend
modes are checked in pixels rendered by PDFium (pypdfium2) and poppler (pdftoppm).
"""

from __future__ import annotations

import io
import json
import math
from typing import Any, Callable, List, Sequence, Tuple

import pytest

import quire
from conftest import pdf_from_objects

import pdfpeers

pikepdf = pytest.importorskip("pikepdf", reason="pikepdf reads the dictionaries back")
pymupdf = pytest.importorskip("pymupdf", reason="PyMuPDF reads the dictionaries back")
pytest.importorskip("PIL.Image", reason="Pillow is needed to compare renders")
pytest.importorskip("pypdfium2", reason="pypdfium2 renders with PDFium")

PAGE = (300, 300)
SCALE = 2  # pixels per point
POINTS_PER = {"pt": 1.0, "in": 72.0, "mm": 72 / 25.4, "cm": 72 / 2.54, "ft": 864.0, "m": 7200 / 2.54}


def blank_pdf(content: bytes = b"") -> bytes:
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 4 0 R >>" % PAGE,
        4: b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
    }
    return pdf_from_objects(objects)


def factor(m: quire.Measurement) -> float:
    """World units per point, from the scale (the formula, independent of Quire)."""
    return m.to_value / (m.from_value * POINTS_PER[m.from_unit])


def path_length(xy: Sequence[float]) -> float:
    return sum(math.hypot(xy[i + 2] - xy[i], xy[i + 3] - xy[i + 1]) for i in range(0, len(xy) - 2, 2))


def shoelace(xy: Sequence[float]) -> float:
    n = len(xy) // 2
    return abs(sum(xy[2 * k] * xy[2 * ((k + 1) % n) + 1] - xy[2 * ((k + 1) % n)] * xy[2 * k + 1] for k in range(n))) / 2


def shown(value: float, m: quire.Measurement, area: bool = False) -> str:
    return f"{value:.{m.precision}f}" + (" sq " if area else " ") + m.to_unit


# ----------------------------------------------------------------------------------------
# Measurement
# ----------------------------------------------------------------------------------------

LINE = [30.0, 40.0, 210.0, 280.0]
PATH = [20.0, 20.0, 120.0, 20.0, 120.0, 160.0, 260.0, 200.0]
POLYGON = [40.0, 40.0, 240.0, 60.0, 200.0, 220.0, 70.0, 180.0]

CASES = [
    # subtype, geometry field, points, scale, intent, expected value of the geometry
    (
        "Line",
        "line",
        LINE,
        quire.Measurement(1, "in", 2, "cm", 2),
        "LineDimension",
        lambda m: path_length(LINE) * factor(m),
        False,
    ),
    (
        "PolyLine",
        "vertices",
        PATH,
        quire.Measurement(1, "cm", 1, "m", 1),
        "PolyLineDimension",
        lambda m: path_length(PATH) * factor(m),
        False,
    ),
    (
        "Polygon",
        "vertices",
        POLYGON,
        quire.Measurement(1, "in", 10, "ft", 3),
        "PolygonDimension",
        lambda m: shoelace(POLYGON) * factor(m) ** 2,
        True,
    ),
]


def measured_document(
    subtype: str, field: str, points: List[float], scale: quire.Measurement
) -> Tuple[quire.Document, int]:
    doc = quire.Document.from_bytes(blank_pdf())
    a = quire.Annotation.new(subtype, 0, (10, 10, 290, 290))
    setattr(a, field, points)
    a.color = (1, 0, 0)
    a.measurement = scale
    doc.add_annotation(a)
    assert a.id is not None
    return doc, a.id


@pytest.mark.parametrize("subtype,field,points,scale,intent,expected,area", CASES, ids=[c[0] for c in CASES])
def test_measurement_is_written_and_computed(
    subtype: str,
    field: str,
    points: List[float],
    scale: quire.Measurement,
    intent: str,
    expected: Callable[[quire.Measurement], float],
    area: bool,
) -> None:
    doc, number = measured_document(subtype, field, points, scale)
    value = expected(scale)
    a = doc.annotation(number)
    assert a.measurement == scale
    assert a.intent == intent
    assert a.measured_value == pytest.approx(value, rel=1e-9)
    assert a.contents == shown(value, scale, area)
    data = doc.save_to_bytes(full=True)

    # pikepdf: /IT and the measure dictionary as set.
    with pikepdf.open(io.BytesIO(data)) as pdf:
        annot = pdf.pages[0].Annots[0]
        assert annot.IT == pikepdf.Name("/" + intent)
        m = annot.Measure
        assert m.Type == pikepdf.Name.Measure and m.Subtype == pikepdf.Name.RL
        assert str(m.R) == f"{scale.from_value:g} {scale.from_unit} = {scale.to_value:g} {scale.to_unit}"
        x, d, a_ = m.X[0], m.D[0], m.A[0]
        assert str(x.U) == scale.to_unit and float(x.C) == pytest.approx(factor(scale), rel=1e-9)
        assert int(x.D) == 10**scale.precision
        assert str(d.U) == scale.to_unit and float(d.C) == 1
        assert str(a_.U) == "sq " + scale.to_unit and float(a_.C) == 1
        assert str(annot.Contents) == shown(value, scale, area)
    # PyMuPDF: the same entries and contents.
    with pymupdf.open(stream=data, filetype="pdf") as mu:
        annot = next(mu[0].annots())
        assert annot.info["content"] == shown(value, scale, area)
        assert mu.xref_get_key(annot.xref, "IT") == ("name", "/" + intent)
        assert mu.xref_get_key(annot.xref, "Measure/R")[1] == str(m_ratio(scale))
        assert mu.xref_get_key(annot.xref, "Measure/Subtype") == ("name", "/RL")
    # Read back by Quire from the saved bytes.
    again = list(quire.Document.from_bytes(data).annotations())[0]
    assert again.measurement == scale and again.measured_value == pytest.approx(value, rel=1e-9)


@pytest.mark.parametrize(
    "subtype,field,points,centre,angle",
    [
        # a distance: the label centred above the line's middle, along it
        ("Line", "line", [60, 100, 240, 100], (150, 100), 0.0),
        # a slanted distance drawn right to left: the label still reads left to right
        ("Line", "line", [240, 240, 60, 60], (150, 150), 45.0),
        # a perimeter: the middle of its longest segment
        ("PolyLine", "vertices", [40, 40, 60, 60, 260, 60], (160, 60), 0.0),
        # an area: the centroid of the polygon
        ("Polygon", "vertices", [50, 50, 250, 50, 250, 150, 50, 150], (150, 100), None),
    ],
)
def test_measured_value_is_drawn_with_the_shape(
    subtype: str, field: str, points: List[float], centre: Tuple[float, float], angle: Any
) -> None:
    doc = quire.Document.from_bytes(blank_pdf())
    a = quire.Annotation.new(subtype, 0, (points[0], points[1], points[0] + 1, points[1] + 1))
    setattr(a, field, points)
    a.color = (1, 0, 0)
    a.measurement = quire.Measurement(1, "in", 1, "in", 2)
    doc.add_annotation(a)
    a = doc.annotation(a.id)
    label = a.contents
    assert label and label.endswith("in")
    # Helvetica's widths of the label at 10 points (the standard 14 metrics, from PyMuPDF).
    width = pymupdf.get_text_length(label, fontname="helv", fontsize=10)
    # The label's box on the page: centred on `centre`, above the segment (or centred on
    # the centroid), turned by `angle`; /Rect grew to hold it.
    if angle is None:
        local = [(-width / 2, -3.5 - 2.5), (width / 2, -3.5 - 2.5), (width / 2, -3.5 + 10), (-width / 2, -3.5 + 10)]
        angle = 0.0
    else:
        local = [(-width / 2, 2 - 2.5), (width / 2, 2 - 2.5), (width / 2, 12), (-width / 2, 12)]
    c, s_ = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    corners = [(centre[0] + c * x - s_ * y, centre[1] + s_ * x + c * y) for x, y in local]
    r = a.rect
    for x, y in corners:
        assert r.left - 0.01 <= x <= r.right + 0.01 and r.bottom - 0.01 <= y <= r.top + 0.01, (corners, r)
    doc.flatten()
    data = doc.save_to_bytes(full=True)
    # The text is the measured value, where it should be, for PDFium and MuPDF.
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        textpage = pdf[0].get_textpage()
        assert label in textpage.get_text_range()
    finally:
        pdf.close()
    with pymupdf.open(stream=data, filetype="pdf") as mu:
        page = mu[0]
        assert label in page.get_text()
        (hit,) = page.search_for(label)
        # MuPDF's box (y down) of the label holds the expected centre of the label.
        mid_x, mid_y = (hit.x0 + hit.x1) / 2, PAGE[1] - (hit.y0 + hit.y1) / 2
        ex = sum(x for x, _ in corners) / 4
        ey = sum(y for _, y in corners) / 4
        assert abs(mid_x - ex) < 4 and abs(mid_y - ey) < 4, (mid_x, mid_y, ex, ey)
    # Rendered: the label adds red ink (it is drawn in /C) around its middle, against the
    # same shape without a measurement, for both renderers.
    plain = quire.Document.from_bytes(blank_pdf())
    b = quire.Annotation.new(subtype, 0, tuple(r))
    setattr(b, field, points)
    b.color = (1, 0, 0)
    plain.add_annotation(b)
    bare = plain.save_to_bytes(full=True)

    def red(image: Any) -> int:
        return sum(
            1
            for dx in range(-int(width / 2) + 1, int(width / 2))
            for dy in (-2, -1, 0, 1, 2)
            if (lambda p: p[0] > 150 and p[1] < 120)(pixel(image, ex + c * dx - s_ * dy, ey + s_ * dx + c * dy))
        )

    for renderer in RENDERERS:
        assert red(render(data, renderer, "RGB")) >= red(render(bare, renderer, "RGB")) + 20, renderer


def m_ratio(scale: quire.Measurement) -> str:
    return f"{scale.from_value:g} {scale.from_unit} = {scale.to_value:g} {scale.to_unit}"


def test_changed_geometry_is_measured_again_and_an_unrelated_change_keeps_contents() -> None:
    scale = quire.Measurement(1, "in", 1, "in", 1)
    doc, number = measured_document("Line", "line", LINE, scale)
    a = doc.annotation(number)
    a.line = [0, 0, 144, 0]  # two inches
    doc.update_annotation(a)
    assert doc.annotation(number).contents == "2.0 in"
    # A producer's own text stays while neither scale nor geometry changes.
    a = doc.annotation(number)
    a.contents = "2 inches"
    doc.update_annotation(a)
    a = doc.annotation(number)
    a.color = (0, 0, 1)
    doc.update_annotation(a)
    assert doc.annotation(number).contents == "2 inches"
    # Removing the scale removes /Measure.
    a.measurement = None
    doc.update_annotation(a)
    with pikepdf.open(io.BytesIO(doc.save_to_bytes(full=True))) as pdf:
        assert "/Measure" not in pdf.pages[0].Annots[0]


@pytest.mark.parametrize(
    "subtype,scale",
    [
        ("Square", quire.Measurement(1, "in", 1, "in", 2)),  # only Line, PolyLine, Polygon measure
        ("Line", quire.Measurement(0, "in", 1, "in", 2)),
        ("Line", quire.Measurement(1, "in", -1, "in", 2)),
        ("Line", quire.Measurement(1, "ft", 1, "in", 2)),  # ft is a world unit only
        ("Line", quire.Measurement(1, "in", 1, "furlong", 2)),
        ("Line", quire.Measurement(1, "in", 1, "in", 5)),
        ("Line", quire.Measurement(1, "in", math.inf, "in", 2)),
    ],
)
def test_invalid_scales_are_refused(subtype: str, scale: quire.Measurement) -> None:
    a = quire.Annotation.new(subtype, 0, (10, 10, 100, 100))
    with pytest.raises(quire.InvalidArgumentError):
        a.measurement = scale
    assert a.measurement is None


def test_a_measure_dictionary_of_another_producer_reads() -> None:
    # A ratio Quire does not parse ("1:100"): the scale is /X's factor from points.
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Annots [5 0 R] >>",
        5: b"<< /Type /Annot /Subtype /Line /Rect [0 0 300 300] /L [0 0 100 0] /IT /LineDimension"
        b" /Measure << /Type /Measure /Subtype /RL /R (1:100)"
        b" /X [<< /Type /NumberFormat /U (m) /C 0.0352778 /D 1000 >>] >> >>",
    }
    doc = quire.Document.from_bytes(pdf_from_objects(objects))
    a = doc.annotation(5)
    assert a.measurement == quire.Measurement(1, "pt", 0.0352778, "m", 3)
    assert a.measured_value == pytest.approx(100 * 0.0352778)


def test_measurement_json_round_trip_and_nutrient_records() -> None:
    scale = quire.Measurement(1, "in", 2, "cm", 2)
    doc, number = measured_document("Line", "line", LINE, scale)
    exported = json.loads(doc.export_annotations_json())
    record = exported["annotations"][0]
    assert record["type"] == "pspdfkit/shape/line"
    assert record["measurementScale"] == {"unitFrom": "in", "from": 1, "unitTo": "cm", "to": 2}
    assert record["measurementPrecision"] == "twoDp"
    other = quire.Document.from_bytes(blank_pdf())
    other.import_annotations_json(json.dumps(exported))
    back = list(other.annotations())[0]
    assert back.measurement == scale
    assert back.contents == shown(path_length(LINE) * factor(scale), scale)

    # A record shaped as Nutrient's schema (a polygon area, a fractional precision).
    nutrient = {
        "format": "https://pspdfkit.com/instant-json/v1",
        "annotations": [
            {
                "v": 1,
                "type": "pspdfkit/shape/polygon",
                "id": "area-1",
                "pageIndex": 0,
                "bbox": [40, 80, 200, 180],
                "strokeColor": "#FF0000",
                "strokeWidth": 2,
                "points": [[40, 260], [240, 240], [200, 80], [70, 120]],
                "measurementScale": {"unitFrom": "cm", "from": 1, "unitTo": "m", "to": 2},
                "measurementPrecision": "1/8",
            }
        ],
    }
    fresh = quire.Document.from_bytes(blank_pdf())
    fresh.import_annotations_json(json.dumps(nutrient))
    a = list(fresh.annotations())[0]
    assert a.measurement == quire.Measurement(1, "cm", 2, "m", 3)
    assert a.intent == "PolygonDimension"
    assert a.contents == shown(shoelace(POLYGON) * factor(a.measurement) ** 2, a.measurement, area=True)
    nutrient["annotations"][0]["measurementPrecision"] = "tenths"
    with pytest.raises(quire.FormatError, match="measurementPrecision"):
        quire.Document.from_bytes(blank_pdf()).import_annotations_json(json.dumps(nutrient))


def test_measurement_xfdf_round_trip() -> None:
    scale = quire.Measurement(1, "cm", 1, "m", 1)
    doc, number = measured_document("PolyLine", "vertices", PATH, scale)
    xfdf = doc.export_xfdf()
    assert '<measure rateValue="1 cm = 1 m">' in xfdf
    assert 'intent="PolyLineDimension"' in xfdf
    other = quire.Document.from_bytes(blank_pdf())
    other.import_xfdf(xfdf)
    a = list(other.annotations())[0]
    assert a.measurement == scale
    assert a.contents == shown(path_length(PATH) * factor(scale), scale)
    # Acrobat's precision is the distance format's d (10 to the decimals).
    acrobat = xfdf.replace('<distance d="10"', '<distance d="1000"')
    third = quire.Document.from_bytes(blank_pdf())
    third.import_xfdf(acrobat)
    assert list(third.annotations())[0].measurement.precision == 3


# ----------------------------------------------------------------------------------------
# Rendering helpers
# ----------------------------------------------------------------------------------------


def render(data: bytes, renderer: str, mode: str = "L") -> Any:
    if renderer == "pdfium":
        import pypdfium2 as pdfium

        document = pdfium.PdfDocument(data)
        try:
            bitmap = document[0].render(scale=SCALE, draw_annots=True, grayscale=(mode == "L"))
            return bitmap.to_pil().convert(mode)
        finally:
            document.close()
    if mode == "L":
        return pdfpeers.render_poppler_gray(data, 0, 72 * SCALE)
    return pdfpeers.render_poppler_rgb(data, 0, 72 * SCALE)


def ink_box(image: Any, threshold: int = 200) -> Tuple[float, float, float, float]:
    box = image.point(lambda v: 255 if v < threshold else 0).getbbox()
    assert box is not None, "nothing drawn"
    left, top, right, bottom = box
    return left / SCALE, PAGE[1] - bottom / SCALE, right / SCALE, PAGE[1] - top / SCALE


def pixel(image: Any, x: float, y: float) -> Any:
    return image.getpixel((int(round(x * SCALE)), int(round((PAGE[1] - y) * SCALE))))


RENDERERS = ["pdfium", "poppler"]


# ----------------------------------------------------------------------------------------
# Rotation
# ----------------------------------------------------------------------------------------


def inside(box: Tuple[float, float, float, float], rect: Tuple[float, float, float, float], slack: float = 1.5) -> bool:
    return (
        box[0] >= rect[0] - slack
        and box[1] >= rect[1] - slack
        and box[2] <= rect[2] + slack
        and box[3] <= rect[3] + slack
    )


@pytest.mark.parametrize("renderer", RENDERERS)
@pytest.mark.parametrize("subtype,rotation", [("FreeText", 90), ("Stamp", 270), ("FreeText", 180), ("Stamp", 0)])
def test_rotated_appearance_stays_in_the_turned_box(renderer: str, subtype: str, rotation: int) -> None:
    # The unturned box is 200 wide and 50 high; turned a quarter, /Rect is 50 wide, 200 high.
    quarter = rotation in (90, 270)
    rect = (125.0, 50.0, 175.0, 250.0) if quarter else (50.0, 125.0, 250.0, 175.0)
    doc = quire.Document.from_bytes(blank_pdf())
    a = quire.Annotation.new(subtype, 0, rect)
    a.color = (0, 0, 0)
    if subtype == "FreeText":
        a.contents = "WWWWWWWWWWWWWWWW"
        a.default_appearance = "/Helv 20 Tf 0 g"
        a.border_width = 2
    else:
        a.icon = "Approved"
    a.rotation = rotation
    doc.add_annotation(a)
    data = doc.save_to_bytes(full=True)
    with pikepdf.open(io.BytesIO(data)) as pdf:
        annot = pdf.pages[0].Annots[0]
        assert int(annot.get("/Rotate", 0)) == rotation
        assert [float(v) for v in annot.Rect] == list(rect)
    image = render(data, renderer)
    box = ink_box(image)
    assert inside(box, rect), (box, rect)
    width, height = box[2] - box[0], box[3] - box[1]
    # Turned a quarter, the drawing is tall (the text runs up or down); else wide.
    assert (height > 2.5 * width) if quarter else (width > 2.5 * height), (box, rotation)


def test_rotated_image_stamp_turns_counterclockwise() -> None:
    from PIL import Image

    # An image whose left half is black: turned 90 degrees counterclockwise, the black half
    # is the bottom half of the turned box; at 270, the top half.
    picture = Image.new("RGB", (200, 50), (255, 255, 255))
    picture.paste((0, 0, 0), (0, 0, 100, 50))
    png = io.BytesIO()
    picture.save(png, format="PNG")
    for rotation, black_low in ((90, True), (270, False)):
        doc = quire.Document.from_bytes(blank_pdf())
        a = quire.Annotation.new("Stamp", 0, (125, 50, 175, 250))
        a.set_image(png.getvalue())
        a.rotation = rotation
        doc.add_annotation(a)
        data = doc.save_to_bytes(full=True)
        for renderer in RENDERERS:
            image = render(data, renderer)
            low, high = pixel(image, 150, 100), pixel(image, 150, 200)
            assert (low < 60 and high > 200) if black_low else (low > 200 and high < 60), (
                renderer,
                rotation,
                low,
                high,
            )
            assert inside(ink_box(image, 128), (125, 50, 175, 250))


def test_rotation_rules_json_and_xfdf() -> None:
    a = quire.Annotation.new("Square", 0, (10, 10, 50, 50))
    with pytest.raises(quire.InvalidArgumentError):
        a.rotation = 90
    b = quire.Annotation.new("FreeText", 0, (10, 10, 50, 210))
    with pytest.raises(quire.InvalidArgumentError):
        b.rotation = 45
    b.rotation = 90
    b.contents = "turned"
    doc = quire.Document.from_bytes(blank_pdf())
    doc.add_annotation(b)
    record = json.loads(doc.export_annotations_json())["annotations"][0]
    assert record["rotation"] == 90
    other = quire.Document.from_bytes(blank_pdf())
    other.import_annotations_json(doc.export_annotations_json())
    assert list(other.annotations())[0].rotation == 90
    xfdf = doc.export_xfdf()
    assert 'rotation="90"' in xfdf
    third = quire.Document.from_bytes(blank_pdf())
    third.import_xfdf(xfdf)
    assert list(third.annotations())[0].rotation == 90


# ----------------------------------------------------------------------------------------
# Z-order
# ----------------------------------------------------------------------------------------


def squares() -> Tuple[quire.Document, List[int]]:
    doc = quire.Document.from_bytes(blank_pdf())
    ids = []
    for k, gray in enumerate((0.0, 0.5)):
        a = quire.Annotation.new("Square", 0, (50 + 60 * k, 50, 190 + 60 * k, 250))
        a.color = (gray,)
        a.interior_color = (gray,)
        doc.add_annotation(a)
        ids.append(a.id)
    return doc, ids


def order(data: bytes) -> List[int]:
    with pikepdf.open(io.BytesIO(data)) as pdf:
        return [a.objgen[0] for a in pdf.pages[0].Annots]


def test_z_order_moves_are_drawn_and_saved_incrementally() -> None:
    doc, _ = squares()
    base = doc.save_to_bytes(full=True)
    doc = quire.Document.from_bytes(base)  # (a full save may renumber objects)
    black, gray = [a.id for a in doc.annotations()]
    # The overlap (110..190) shows the later annotation: gray first.
    for renderer in RENDERERS:
        assert 100 < pixel(render(base, renderer), 150, 150) < 160
    assert doc.move_annotation(black, quire.AnnotationOrder.TO_FRONT)
    assert not doc.move_annotation(black, "to_front")  # already there: nothing written
    data = doc.save_to_bytes()
    assert data.startswith(base) and len(data) > len(base)  # incremental
    assert order(data) == [gray, black]
    for renderer in RENDERERS:
        assert pixel(render(data, renderer), 150, 150) < 40
    assert doc.move_annotation(black, "backward") and order(doc.save_to_bytes()) == [black, gray]
    assert doc.move_annotation(black, "forward") and order(doc.save_to_bytes()) == [gray, black]
    assert doc.move_annotation(black, "to_back") and order(doc.save_to_bytes()) == [black, gray]
    with pytest.raises(quire.NotFoundError):
        doc.move_annotation(9999, "forward")


def test_z_order_through_the_tool_manager_is_one_undo_step() -> None:
    doc, (black, gray) = squares()
    with quire.ToolManager(doc) as manager:
        with pytest.raises(quire.StateError):
            manager.move_selection("to_front")
        manager.select(black)
        assert manager.move_selection(quire.AnnotationOrder.TO_FRONT) == 1
        assert manager.undo_steps[0] == "Bring to Front Square"
        assert [a.id for a in doc.annotations()] == [gray, black]
        assert manager.undo()
        assert [a.id for a in doc.annotations()] == [black, gray]
        assert manager.redo()
        assert [a.id for a in doc.annotations()] == [gray, black]


def test_z_order_and_blend_mode_through_xfdf() -> None:
    # XFDF lists a page's annotations in its drawing order; an import puts the
    # annotations it lists in that order (in the places they hold), and carries /BM as
    # Quire's blend-mode attribute.
    doc, (black, gray) = squares()
    for a in doc.annotations():
        a.name = f"sq{a.id}"
        a.blend_mode = "Multiply" if a.id == gray else None
        doc.update_annotation(a)
    assert doc.move_annotation(black, "to_front")
    xfdf = doc.export_xfdf()
    assert xfdf.index(f'name="sq{gray}"') < xfdf.index(f'name="sq{black}"') and 'blend-mode="Multiply"' in xfdf
    # Into a document with the same two, in the other order: reordered, blend mode set.
    target, (black2, gray2) = squares()
    for a, b in zip(target.annotations(), (black, gray)):
        a.name = f"sq{b}"
        target.update_annotation(a)
    assert target.import_xfdf(xfdf) == 2
    names = [a.name for a in target.annotations()]
    assert names == [f"sq{gray}", f"sq{black}"]
    assert [a.blend_mode for a in target.annotations()] == ["Multiply", None]
    data = target.save_to_bytes(full=True)
    with pikepdf.open(io.BytesIO(data)) as pdf:
        assert [str(a.NM) for a in pdf.pages[0].Annots] == names
    for renderer in RENDERERS:
        assert pixel(render(data, renderer), 150, 150) < 40  # black on top in the overlap
    # Into an empty document: added in the XFDF's order.
    fresh = quire.Document.from_bytes(blank_pdf())
    fresh.import_xfdf(xfdf)
    assert [a.name for a in fresh.annotations()] == [f"sq{gray}", f"sq{black}"]
    # An unknown blend mode in XFDF reads as none.
    bad = quire.Document.from_bytes(blank_pdf())
    bad.import_xfdf(xfdf.replace('blend-mode="Multiply"', 'blend-mode="Burn"'))
    assert [a.blend_mode for a in bad.annotations()] == [None, None]


# ----------------------------------------------------------------------------------------
# Blend mode and opacity
# ----------------------------------------------------------------------------------------

RED_PAGE = b"1 0 0 rg 0 0 300 300 re f"


@pytest.mark.parametrize("renderer", RENDERERS)
@pytest.mark.parametrize(
    "mode,opacity,expected",
    [
        (None, 1.0, (0, 255, 0)),  # green over red
        ("Multiply", 1.0, (0, 0, 0)),  # red × green
        ("Screen", 1.0, (255, 255, 0)),  # 1 - (1 - red)(1 - green)
        ("Lighten", 1.0, (255, 255, 0)),
        (None, 0.5, (128, 128, 0)),  # half green over red
        ("Multiply", 0.5, (128, 0, 0)),  # half of black over red
    ],
)
def test_blend_mode_and_opacity_over_a_coloured_page(
    renderer: str, mode: Any, opacity: float, expected: Tuple[int, int, int]
) -> None:
    doc = quire.Document.from_bytes(blank_pdf(RED_PAGE))
    a = quire.Annotation.new("Square", 0, (50, 50, 250, 250))
    a.color = (0, 1, 0)
    a.interior_color = (0, 1, 0)
    a.blend_mode = mode
    a.opacity = opacity
    doc.add_annotation(a)
    data = doc.save_to_bytes(full=True)
    image = render(data, renderer, "RGB")
    got = pixel(image, 150, 150)
    assert all(abs(g - e) <= 12 for g, e in zip(got, expected)), (renderer, mode, opacity, got)
    assert pixel(image, 20, 20)[:3] == (255, 0, 0)  # the page around it stays red
    if mode is not None:
        with pikepdf.open(io.BytesIO(data)) as pdf:
            annot = pdf.pages[0].Annots[0]
            assert annot.BM == pikepdf.Name("/" + mode)
            assert annot.AP.N.Resources.ExtGState.GS0.BM == pikepdf.Name("/" + mode)


def test_blend_mode_rules_and_json() -> None:
    a = quire.Annotation.new("Ink", 0, (10, 10, 100, 100))
    with pytest.raises(quire.InvalidArgumentError):
        a.blend_mode = "Burn"
    a.blend_mode = "ColorDodge"
    a.ink = [[20, 20, 80, 80]]
    doc = quire.Document.from_bytes(blank_pdf())
    doc.add_annotation(a)
    record = json.loads(doc.export_annotations_json())["annotations"][0]
    assert record["blendMode"] == "colorDodge"
    other = quire.Document.from_bytes(blank_pdf())
    other.import_annotations_json(doc.export_annotations_json())
    assert list(other.annotations())[0].blend_mode == "ColorDodge"
    record["blendMode"] = "burn"
    with pytest.raises(quire.FormatError, match="blendMode"):
        quire.Document.from_bytes(blank_pdf()).import_annotations_json(
            json.dumps({"format": "https://pspdfkit.com/instant-json/v1", "annotations": [record]})
        )


# ----------------------------------------------------------------------------------------
# The tool manager's tools for these kinds
# ----------------------------------------------------------------------------------------


def test_measurement_tools_measure_at_the_managers_scale() -> None:
    doc = quire.Document.from_bytes(blank_pdf())
    with quire.ToolManager(doc) as tools:
        scale = quire.Measurement(1, "in", 2, "ft", 1)
        tools.set_measurement(scale)
        with pytest.raises(quire.InvalidArgumentError):
            tools.set_measurement(quire.Measurement(1, "ft", 1, "in", 1))
        tools.tool = quire.Tool.DISTANCE
        tools.drag(0, (20, 30), (200, 270))
        tools.tool = quire.Tool.PERIMETER
        points = [(PATH[i], PATH[i + 1]) for i in range(0, len(PATH), 2)]
        for p in points[:-1]:
            tools.tap(0, p)
        tools.double_tap(0, points[-1])
        tools.tool = quire.Tool.AREA
        polygon = [(POLYGON[i], POLYGON[i + 1]) for i in range(0, len(POLYGON), 2)]
        for p in polygon[:-1]:
            tools.tap(0, p)
        tools.double_tap(0, polygon[-1])
        tools.set_measurement(None)
        tools.tool = quire.Tool.DISTANCE
        tools.drag(0, (0, 10), (144, 10))
    distance, perimeter, area, default = list(doc.annotations())
    assert distance.subtype == "Line" and distance.intent == "LineDimension"
    assert distance.contents == shown(math.hypot(180, 240) * factor(scale), scale)
    assert perimeter.subtype == "PolyLine" and perimeter.contents == shown(path_length(PATH) * factor(scale), scale)
    assert area.subtype == "Polygon" and area.contents == shown(
        shoelace(POLYGON) * factor(scale) ** 2, scale, area=True
    )
    assert default.measurement == quire.Measurement(1, "in", 1, "in", 2) and default.contents == "2.00 in"


def test_caret_cloud_and_callout_tools() -> None:
    doc = quire.Document.from_bytes(blank_pdf())
    with quire.ToolManager(doc) as tools:
        tools.tool = quire.Tool.CARET
        tools.tap(0, (100, 100))
        caret = doc.annotation(tools.selection)
        tools.tool = quire.Tool.CLOUD
        for p in [(60, 60), (240, 60), (240, 200)]:
            tools.tap(0, p)
        tools.double_tap(0, (60, 200))
        tools.tool = quire.Tool.CALLOUT
        tools.drag(0, (50, 250), (120, 200))
        callout = doc.annotation(tools.selection)
    _, cloud, _ = list(doc.annotations())
    assert caret.subtype == "Caret" and caret.rect.left < 100 < caret.rect.right and caret.rect.bottom == 100
    assert cloud.subtype == "Polygon" and cloud.cloudy_intensity == 1 and cloud.intent == "PolygonCloud"
    # The cloud's rectangle grew to hold its scallops.
    assert cloud.rect.left < 60 and cloud.rect.top > 200
    assert callout.subtype == "FreeText" and callout.intent == "FreeTextCallout"
    assert callout.callout_line == [50, 250, 120, 200] and callout.line_endings[0] == "OpenArrow"
    # The box (/Rect less /RD) starts at the drag's end, away from the point it points at.
    rd = callout.rect_differences
    assert callout.rect.left + rd[0] == pytest.approx(120)
    data = doc.save_to_bytes(full=True)
    with pymupdf.open(stream=data, filetype="pdf") as mu:
        kinds = [a.type[1] for a in mu[0].annots()]
        assert kinds == ["Caret", "Polygon", "FreeText"]
    image = render(data, "pdfium")
    assert pixel(image, 50, 250) < 200  # the callout's line reaches the point it points at


def test_image_stamp_and_file_attachment_tools(tmp_path: Any) -> None:
    from PIL import Image

    # A 100 by 40 picture, black: a tap places it at its size centred there; a drag fits it
    # into the dragged rectangle keeping its proportions (a 50 by 20 box centred in 50 by 50).
    picture = Image.new("RGB", (100, 40), (0, 0, 0))
    png = io.BytesIO()
    picture.save(png, format="PNG")
    minutes = tmp_path / "minutes.txt"
    minutes.write_bytes(b"the minutes of the meeting")
    doc = quire.Document.from_bytes(blank_pdf())
    with quire.ToolManager(doc) as tools:
        tools.tool = quire.Tool.IMAGE_STAMP
        with pytest.raises(quire.StateError):
            tools.tap(0, (150, 250))
        tools.set_stamp_image(png.getvalue())
        tools.tap(0, (150, 250))
        tapped = doc.annotation(tools.selection)
        tools.drag(0, (20, 20), (70, 70))
        dragged = doc.annotation(tools.selection)
        tools.tool = quire.Tool.FILE_ATTACHMENT
        with pytest.raises(quire.StateError):
            tools.tap(0, (200, 150))
        tools.set_attachment(minutes, content_type="text/plain", description="notes")
        tools.tap(0, (200, 150))
        attached = doc.annotation(tools.selection)
        assert tools.undo_steps[:3] == ["Add File attachment", "Add Stamp", "Add Stamp"]
    assert tapped.subtype == "Stamp" and tuple(tapped.rect) == (100, 230, 200, 270)
    assert dragged.subtype == "Stamp" and tuple(dragged.rect) == (20, 35, 70, 55)
    assert attached.subtype == "FileAttachment" and tuple(attached.rect) == (200, 130, 216, 150)
    assert attached.file_name == "minutes.txt" and attached.file_content_type == "text/plain"
    assert doc.annotation_file(attached) == b"the minutes of the meeting"
    data = doc.save_to_bytes(full=True)
    with pymupdf.open(stream=data, filetype="pdf") as mu:
        page = mu[0]
        annots = list(page.annots())
        assert [a.type[1] for a in annots] == ["Stamp", "Stamp", "FileAttachment"]
        assert annots[2].get_file() == b"the minutes of the meeting"
    for renderer in RENDERERS:
        image = render(data, renderer)
        # Each image is drawn black where it was placed, and nothing past it.
        assert pixel(image, 150, 250) < 60 and pixel(image, 45, 45) < 60, renderer
        assert pixel(image, 150, 275) > 200 and pixel(image, 45, 60) > 200, renderer
        # The icon is drawn inside its rectangle.
        icon = image.crop((200 * SCALE, (PAGE[1] - 150) * SCALE, 216 * SCALE, (PAGE[1] - 130) * SCALE))
        assert min(icon.getdata()) < 160, renderer
