"""The headless tool manager (issue 19) through the Python binding.

Expected values come from peers: PDFium (pypdfium2's raw FPDF_DeviceToPage /
FPDF_PageToDevice, FPDFAnnot_*), pikepdf reading the saved file, and poppler's pdftoppm
rendering it. Nothing is hard-coded that a peer could answer.
"""

from __future__ import annotations

import ctypes
import random
import shutil
import subprocess
from pathlib import Path

import pytest

import quire
from conftest import CORPUS
from quire_testing.peers import module_peer, peer_program
from quire_testing.library import child_env

pdfium = module_peer("pypdfium2")
pdfium_raw = module_peer("pypdfium2.raw")
pikepdf = module_peer("pikepdf")


# (file, page): every /Rotate, with and without a crop box that differs from the media
# box (found by scanning the corpus with pypdfium2).
GEOMETRY_PAGES = [
    ("itext/forms/src/test/resources/com/itextpdf/forms/XfdfReaderTest/cmp_xfdfAnnotationArrow.pdf", 0),
    ("ocrmypdf/tests/resources/rotated_skew.pdf", 0),
    ("ocrmypdf/tests/resources/type3_font_nomapping.pdf", 0),
    ("pdfbox/pdfbox/src/test/resources/input/PDFBOX-3110-poems-beads-cropbox.pdf", 0),
    ("pdf-annotate/tests/pdfs/rotated_180.pdf", 0),
    ("pdf-annotate/tests/pdfs/rotated_270.pdf", 0),
    ("pdfbox/pdfbox/src/test/resources/org/apache/pdfbox/multipdf/rot270.pdf", 0),
    ("pdfplumber/tests/pdfs/issue-1054-example.pdf", 0),
    ("qpdf/qpdf/qtest/qpdf/boxes.pdf", 1),
    ("qpdf/qpdf/qtest/qpdf/boxes.pdf", 2),
    ("pdfium/testing/resources/cropped_text.pdf", 0),
    ("pdfium/testing/resources/cropped_text.pdf", 1),
    ("pdfium/testing/resources/cropped_text.pdf", 3),
]

SAMPLE = CORPUS / "pdfium/testing/resources/page_labels.pdf"


def _available(rel: str) -> Path:
    path = CORPUS / rel
    if not path.exists():
        pytest.skip("corpus file %s is missing" % rel)
    return path


@pytest.mark.parametrize("rel,page_index", GEOMETRY_PAGES)
def test_coordinates_agree_with_pdfium(rel: str, page_index: int) -> None:
    path = _available(rel)
    pdoc = pdfium.PdfDocument(str(path))
    page = pdoc[page_index]
    rng = random.Random(rel + str(page_index))
    with quire.Document(str(path)) as doc:
        for rotate in range(4):
            for _ in range(12):
                view = (rng.randint(-50, 50), rng.randint(-50, 50), rng.randint(100, 2000), rng.randint(100, 2000), rotate)
                dx, dy = rng.randint(-100, 2100), rng.randint(-100, 2100)
                px, py = ctypes.c_double(), ctypes.c_double()
                ok = pdfium_raw.FPDF_DeviceToPage(page.raw, *view, dx, dy, ctypes.byref(px), ctypes.byref(py))
                assert ok
                qx, qy = quire.device_to_page(doc, page_index, view, (dx, dy))
                # PDFium computes in float: agree to float precision at these magnitudes.
                assert qx == pytest.approx(px.value, abs=0.05), (view, dx, dy)
                assert qy == pytest.approx(py.value, abs=0.05), (view, dx, dy)
                # And back: PDFium rounds device coordinates to integers.
                ix, iy = ctypes.c_int(), ctypes.c_int()
                ok = pdfium_raw.FPDF_PageToDevice(page.raw, *view, px.value, py.value, ctypes.byref(ix), ctypes.byref(iy))
                assert ok
                bx, by = quire.page_to_device(doc, page_index, view, (px.value, py.value))
                assert abs(bx - ix.value) <= 0.51 and abs(by - iy.value) <= 0.51, (view, bx, by, ix.value, iy.value)
    pdoc.close()


def test_coordinate_errors() -> None:
    with quire.Document(str(SAMPLE)) as doc:
        with pytest.raises(quire.InvalidArgumentError):
            quire.device_to_page(doc, 0, (0, 0, 100, 100, 4), (1, 1))
        with pytest.raises(quire.InvalidArgumentError):
            quire.device_to_page(doc, 0, (0, 0, 0, 0), (1, 1))
        with pytest.raises(quire.InvalidArgumentError):
            quire.page_to_device(doc, 0, (0, 0, 100, 100), (float("nan"), 1))
        with pytest.raises(quire.IndexOutOfRangeError):
            quire.device_to_page(doc, 99, (0, 0, 100, 100), (1, 1))
        with pytest.raises(quire.InvalidArgumentError):
            quire.hit_test(doc, 0, (1, 1), tolerance=-1)


def _script(tools: quire.ToolManager) -> None:
    """The scripted session: a square, an arrow, two ink strokes, a note with text, a
    free text; then the square is selected and moved by (20, -10)."""
    tools.set_style(color=(0, 0, 1), border_width=3, author="Ada")
    tools.tool = quire.Tool.SQUARE
    tools.drag(0, (100, 500), (250, 600), (180, 560))
    tools.tool = quire.Tool.ARROW
    tools.drag(0, (300, 300), (450, 400))
    tools.tool = quire.Tool.INK
    tools.drag(0, (100, 100), (200, 200), (150, 160))
    tools.drag(0, (100, 200), (200, 100), (150, 140))
    tools.tool = quire.Tool.STICKY_NOTE
    tools.tap(0, (500, 700))
    tools.set_selection_contents("Check this")
    tools.tool = quire.Tool.FREE_TEXT
    tools.drag(0, (300, 650), (500, 700))
    tools.tool = quire.Tool.PAN
    tools.drag(0, (175, 550), (195, 540))  # Pan -> AnnotEdit moves the square


def _pdfium_annots(path: Path, page_index: int):
    pdoc = pdfium.PdfDocument(str(path))
    page = pdoc[page_index]
    out = []
    for i in range(pdfium_raw.FPDFPage_GetAnnotCount(page.raw)):
        annot = pdfium_raw.FPDFPage_GetAnnot(page.raw, i)
        subtype = pdfium_raw.FPDFAnnot_GetSubtype(annot)
        rect = pdfium_raw.FS_RECTF()
        assert pdfium_raw.FPDFAnnot_GetRect(annot, ctypes.byref(rect))
        strokes = []
        for s in range(pdfium_raw.FPDFAnnot_GetInkListCount(annot)):
            n = pdfium_raw.FPDFAnnot_GetInkListPath(annot, s, None, 0)
            buf = (pdfium_raw.FS_POINTF * n)()
            pdfium_raw.FPDFAnnot_GetInkListPath(annot, s, buf, n)
            strokes.append([(p.x, p.y) for p in buf])
        out.append((subtype, (rect.left, rect.bottom, rect.right, rect.top), strokes))
        pdfium_raw.FPDFPage_CloseAnnot(annot)
    pdoc.close()
    return out


def test_scripted_session_reads_back_in_peers(tmp_path: Path) -> None:
    src = tmp_path / "in.pdf"
    shutil.copy(SAMPLE, src)
    out = tmp_path / "out.pdf"
    with quire.Document(str(src)) as doc:
        before = doc.pages[0].annotation_count if hasattr(doc.pages[0], "annotation_count") else 0
        tools = quire.ToolManager(doc)
        _script(tools)
        kinds = [e.kind for e in tools.events]
        assert kinds.count(quire.ToolEventKind.ANNOTATION_ADDED) == 5
        assert quire.ToolEventKind.ANNOTATION_MODIFIED in kinds
        doc.save(str(out))
    annots = _pdfium_annots(out, 0)[before:]
    subtype = {getattr(pdfium_raw, "FPDF_ANNOT_" + n): n for n in ("SQUARE", "LINE", "INK", "TEXT", "FREETEXT")}
    assert [subtype.get(a[0]) for a in annots] == ["SQUARE", "LINE", "INK", "TEXT", "FREETEXT"]
    # The square, moved by (20, -10).
    assert annots[0][1] == pytest.approx((120, 490, 270, 590))
    # The ink: two strokes, through the points the drags sent.
    assert annots[2][2] == [[(100, 100), (150, 160), (200, 200)], [(100, 200), (150, 140), (200, 100)]]
    with pikepdf.open(out) as pdf:
        objs = [a for a in pdf.pages[0].Annots][before:]
        assert [str(a.Subtype) for a in objs] == ["/Square", "/Line", "/Ink", "/Text", "/FreeText"]
        assert [float(v) for v in objs[1].L] == [300, 300, 450, 400]
        assert [str(v) for v in objs[1].LE] == ["/None", "/OpenArrow"]
        assert str(objs[3].Contents) == "Check this"
        assert str(objs[0].T) == "Ada"
        assert [float(c) for c in objs[0].C] == [0, 0, 1]


def test_rendering_shows_the_events(tmp_path: Path) -> None:
    """pdftoppm draws the square's blue border where the drag put it (after the move), and
    nothing there before."""
    peer_program("pdftoppm")
    src = tmp_path / "in.pdf"
    shutil.copy(SAMPLE, src)
    out = tmp_path / "out.pdf"
    with quire.Document(str(src)) as doc:
        tools = quire.ToolManager(doc)
        _script(tools)
        doc.save(str(out))
    with quire.Document(str(out)) as doc:
        height = doc.pages[0].media_box.height

    def pixel(pdf: Path, x: float, y: float):
        prefix = tmp_path / pdf.stem
        subprocess.run(["pdftoppm", "-r", "72", "-f", "1", "-l", "1", "-png", "-singlefile", str(pdf), str(prefix)], check=True)
        from PIL import Image

        with Image.open(str(prefix) + ".png") as im:
            return im.convert("RGB").getpixel((int(round(x)), int(round(height - y))))

    # The left edge of the moved square (x = 120 + half the 3-point border) at mid height.
    r, g, b = pixel(out, 121.5, 540)
    assert b > 150 and r < 100 and g < 100, (r, g, b)
    r0, g0, b0 = pixel(src, 121.5, 540)
    assert not (b0 > 150 and r0 < 100 and g0 < 100)
    # Where the square was before the move, its old left edge, is not blue.
    r, g, b = pixel(out, 101.5, 590)
    assert not (b > 150 and r < 100 and g < 100)


def test_walkthrough_and_undo_through_python() -> None:
    with quire.Document(str(SAMPLE)) as doc:
        tools = quire.ToolManager(doc)
        assert tools.tool == quire.Tool.PAN
        tools.tool = quire.Tool.SQUARE
        tools.drag(0, (100, 100), (200, 200))
        number = tools.events[-1].object_number
        tools.tool = quire.Tool.PAN
        tools.events.clear()
        assert tools.tap(0, (150, 150))
        assert tools.tool == quire.Tool.ANNOT_EDIT and tools.selection == number
        assert [e.kind for e in tools.events] == [quire.ToolEventKind.TOOL_CHANGED, quire.ToolEventKind.SELECTION_CHANGED]
        assert tools.events[0].from_tool == quire.Tool.PAN and tools.events[0].to_tool == quire.Tool.ANNOT_EDIT
        assert quire.hit_test(doc, 0, (150, 150)) == (quire.HitKind.ANNOTATION, number)
        tools.delete_selection()
        assert quire.hit_test(doc, 0, (150, 150)) == (quire.HitKind.NONE, None)
        assert tools.undo()
        kind, again = quire.hit_test(doc, 0, (150, 150))
        assert kind == quire.HitKind.ANNOTATION and again is not None
        with pytest.raises(quire.StateError):
            tools.tap(0, (10, 10))  # AnnotEdit hands back to Pan: nothing selected now
            tools.delete_selection()
        with pytest.raises(quire.InvalidArgumentError):
            tools.tool = quire.Tool.CUSTOM
        with pytest.raises(quire.IndexOutOfRangeError):
            tools.tap(99, (1, 1))


def test_callback_exception_is_raised_after_the_call() -> None:
    with quire.Document(str(SAMPLE)) as doc:
        def boom(event: quire.ToolEvent) -> None:
            raise RuntimeError("from the callback")

        tools = quire.ToolManager(doc, on_event=boom)
        with pytest.raises(RuntimeError):
            tools.tool = quire.Tool.INK
        assert tools.tool == quire.Tool.INK


def test_random_event_sequences_keep_the_document_valid(tmp_path: Path) -> None:
    rng = random.Random(19)
    with quire.Document(str(SAMPLE)) as doc:
        pages = doc.page_count
        tools = quire.ToolManager(doc)
        built_in = [t for t in quire.Tool if t != quire.Tool.CUSTOM]
        for _ in range(1500):
            roll = rng.random()
            try:
                if roll < 0.05:
                    tools.tool = rng.choice(built_in)
                elif roll < 0.08:
                    tools.undo()
                elif roll < 0.10:
                    tools.redo()
                elif roll < 0.12:
                    tools.delete_selection()
                elif roll < 0.14:
                    tools.set_selection_contents("note %d" % rng.randint(0, 99))
                else:
                    kind = rng.choice(list(quire.PointerKind))
                    tools.send(kind, rng.randrange(pages), (rng.uniform(-50, 700), rng.uniform(-50, 850)))
            except quire.StateError:
                pass  # nothing selected
        tools.commit()
        out = tmp_path / "random.pdf"
        doc.save(str(out))
    with pikepdf.open(out) as pdf:
        for page in pdf.pages:
            for a in page.get("/Annots", []):
                assert len(a.Rect) == 4
    pdoc = pdfium.PdfDocument(str(out))
    assert len(pdoc) == pages
    pdoc.close()
    subprocess.run(["qpdf", "--check", str(out)], check=True, stdout=subprocess.DEVNULL)


FORMS_PDF = CORPUS / "pdfium/testing/resources/multiple_form_types.pdf"


def _pdfium_form_values(path: Path):
    """{field name: (value, checked)} of page 0's widgets as PDFium's form fill reads them."""
    pdoc = pdfium.PdfDocument(str(path))
    pdoc.init_forms()
    page = pdoc[0]
    out = {}
    for i in range(pdfium_raw.FPDFPage_GetAnnotCount(page.raw)):
        annot = pdfium_raw.FPDFPage_GetAnnot(page.raw, i)
        def read(fn):
            n = fn(pdoc.formenv.raw, annot, None, 0)
            buf = (ctypes.c_ushort * max(1, n // 2))()
            fn(pdoc.formenv.raw, annot, buf, n)
            return bytes(buf)[: max(0, n - 2)].decode("utf-16-le")
        name = read(pdfium_raw.FPDFAnnot_GetFormFieldName)
        value = read(pdfium_raw.FPDFAnnot_GetFormFieldValue)
        checked = bool(pdfium_raw.FPDFAnnot_IsChecked(pdoc.formenv.raw, annot))
        out[name] = (value, checked)
        pdfium_raw.FPDFPage_CloseAnnot(annot)
    pdoc.close()
    return out


def test_form_filling_through_the_tools(tmp_path: Path) -> None:
    """A scripted session fills the text field and ticks the check box through the tools;
    PDFium reads the values back. Undo unticks it."""
    path = _available("pdfium/testing/resources/multiple_form_types.pdf")
    src = tmp_path / "form.pdf"
    shutil.copy(path, src)
    before = _pdfium_form_values(src)
    assert before["Checkbox"][1] is False
    out = tmp_path / "filled.pdf"
    with quire.Document(str(src)) as doc:
        tools = quire.ToolManager(doc)
        assert tools.tap(0, (150, 315))  # the text field: Pan -> form filling selects it
        assert tools.tool == quire.Tool.FORM_FILL
        kind, widget = quire.hit_test(doc, 0, (150, 315))
        assert kind == quire.HitKind.WIDGET and tools.selection == widget
        tools.set_field_value("Filled by a tool")
        tools.tap(0, (145, 260))  # the check box: ticked by the tap
        kinds = [e.kind for e in tools.events]
        assert kinds.count(quire.ToolEventKind.FIELD_CHANGED) == 2
        assert kinds.count(quire.ToolEventKind.FIELD_ACTIVATED) == 2
        doc.save(str(out))
        # Undo unticks it; redo ticks it again.
        assert tools.undo()
        undone = tmp_path / "undone.pdf"
        doc.save(str(undone))
    after = _pdfium_form_values(out)
    assert after["Text Box"][0] == "Filled by a tool"
    assert after["Checkbox"][1] is True
    assert _pdfium_form_values(undone)["Checkbox"][1] is False
    assert _pdfium_form_values(undone)["Text Box"][0] == "Filled by a tool"


@pytest.mark.parametrize("tool,subtype", [
    (quire.Tool.HIGHLIGHT, "HIGHLIGHT"), (quire.Tool.UNDERLINE, "UNDERLINE"),
    (quire.Tool.STRIKEOUT, "STRIKEOUT"), (quire.Tool.SQUIGGLY, "SQUIGGLY"),
])
def test_text_markup_from_a_drag(tmp_path: Path, tool: quire.Tool, subtype: str) -> None:
    """A drag from the "H" to the last "d" of PDFium's hello_world.pdf's first line (char
    boxes from pypdfium2: H [20.2 50 28.4 57.9], d [75 49.9 80.6 58.2]) marks "Hello,
    world": PDFium reads the annotation's subtype and quad points, and its own text
    extraction inside those quads gives that text."""
    path = _available("pdfium/testing/resources/hello_world.pdf")
    out = tmp_path / "marked.pdf"
    with quire.Document(str(path)) as doc:
        tools = quire.ToolManager(doc)
        tools.tool = tool
        tools.drag(0, (22, 53), (78, 53), (50, 53))
        assert tools.events[-1].kind == quire.ToolEventKind.ANNOTATION_ADDED
        doc.save(str(out))
    pdoc = pdfium.PdfDocument(str(out))
    page = pdoc[0]
    assert pdfium_raw.FPDFPage_GetAnnotCount(page.raw) == 1
    annot = pdfium_raw.FPDFPage_GetAnnot(page.raw, 0)
    assert pdfium_raw.FPDFAnnot_GetSubtype(annot) == getattr(pdfium_raw, "FPDF_ANNOT_" + subtype)
    n = pdfium_raw.FPDFAnnot_CountAttachmentPoints(annot)
    assert n >= 1
    textpage = page.get_textpage()
    marked = ""
    for i in range(n):
        q = pdfium_raw.FS_QUADPOINTSF()
        assert pdfium_raw.FPDFAnnot_GetAttachmentPoints(annot, i, ctypes.byref(q))
        xs, ys = [q.x1, q.x2, q.x3, q.x4], [q.y1, q.y2, q.y3, q.y4]
        marked += textpage.get_text_bounded(min(xs), min(ys), max(xs), max(ys))
    pdfium_raw.FPDFPage_CloseAnnot(annot)
    pdoc.close()
    assert marked.strip() == "Hello, world"


def test_tool_replay_example(tmp_path: Path) -> None:
    """examples/python/tool_replay.py replays examples/scripts/review_session.jsonl: it
    prints the tool and annotation changes, and pikepdf reads the annotations back."""
    import sys

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "replayed.pdf"
    env = child_env()
    run = subprocess.run([sys.executable, str(root / "examples/python/tool_replay.py"), str(root / "examples/sample.pdf"),
                          str(root / "examples/scripts/review_session.jsonl"), str(out)],
                         check=True, capture_output=True, text=True, env=env)
    lines = run.stdout.splitlines()
    assert "tool pan -> square" in lines and "tool pan -> annot_edit" in lines
    assert sum(1 for ln in lines if ln.startswith("annotation_added")) == 4
    with pikepdf.open(out) as pdf, pikepdf.open(root / "examples/sample.pdf") as original:
        before = len(original.pages[0].get("/Annots", []))
        added = list(pdf.pages[0].Annots)[before:]
        assert [str(a.Subtype) for a in added] == ["/Square", "/Line", "/Ink", "/Text"]
        assert [float(v) for v in added[0].Rect] == [120, 490, 270, 590]
        assert [[float(v) for v in s] for s in added[2].InkList] == [[100, 100, 150, 160, 200, 200], [100, 200, 150, 140, 200, 100]]
        assert str(added[3].Contents) == "Check this"


def test_tool_replay_c_example_prints_what_python_prints(tmp_path: Path) -> None:
    """examples/c/tool_replay (built with its Makefile, Jansson for JSON) replays the same
    script and prints the same tool and annotation changes as the Python example."""
    import sys

    root = Path(__file__).resolve().parents[2]
    build = subprocess.run(["make", "-C", str(root / "examples/c"), "tool_replay"], capture_output=True, text=True)
    if build.returncode != 0 and "jansson" in (build.stderr + build.stdout):
        pytest.skip("Jansson (libjansson-dev) is not installed: scripts/install-deps.sh test")
    assert build.returncode == 0, build.stderr
    args = [str(root / "examples/sample.pdf"), str(root / "examples/scripts/review_session.jsonl")]
    c = subprocess.run([str(root / "examples/c/tool_replay"), *args, str(tmp_path / "c.pdf")],
                       check=True, capture_output=True, text=True)
    env = child_env()
    py = subprocess.run([sys.executable, str(root / "examples/python/tool_replay.py"), *args, str(tmp_path / "py.pdf")],
                        check=True, capture_output=True, text=True, env=env)
    assert c.stdout.splitlines()[:-1] == py.stdout.splitlines()[:-1]
    with pikepdf.open(tmp_path / "c.pdf") as a, pikepdf.open(tmp_path / "py.pdf") as b:
        assert [str(x.Subtype) for x in a.pages[0].Annots] == [str(x.Subtype) for x in b.pages[0].Annots]


class _Stamper(quire.CustomTool):
    """Hands taps to the sticky-note tool, after noting them; drags it keeps."""

    name = "stamper"

    def __init__(self) -> None:
        self.seen = []
        self.finished = 0

    def handle(self, event: quire.PointerEvent) -> bool:
        self.seen.append(event)
        return event.kind != quire.PointerKind.TAP

    def next_tool(self):
        return quire.Tool.STICKY_NOTE

    def finish(self) -> None:
        self.finished += 1


class _Stubborn(quire.CustomTool):
    name = "stubborn"

    def next_tool(self):
        return "stubborn"


class _Broken(quire.CustomTool):
    name = "broken"

    def handle(self, event: quire.PointerEvent) -> bool:
        raise KeyError("from the tool")


def test_custom_tools_in_the_loop() -> None:
    with quire.Document(str(SAMPLE)) as doc:
        tools = quire.ToolManager(doc)
        stamper = _Stamper()
        tools.register(stamper)
        tools.register(_Stubborn())
        tools.register(_Broken())
        tools.tool = "stamper"
        assert tools.tool == quire.Tool.CUSTOM
        assert tools.events[-1].to_name == "stamper"
        assert tools.send(quire.PointerKind.DRAG_BEGIN, 0, (10, 10))
        assert tools.tap(0, (300, 300))
        assert [e.kind for e in stamper.seen] == [quire.PointerKind.DRAG_BEGIN, quire.PointerKind.TAP]
        assert stamper.seen[1].point == (300, 300) and stamper.finished == 1
        assert tools.tool == quire.Tool.STICKY_NOTE
        assert tools.events[-2].kind == quire.ToolEventKind.ANNOTATION_ADDED or tools.events[-1].kind == quire.ToolEventKind.SELECTION_CHANGED
        # The guard.
        tools.tool = "stubborn"
        assert tools.tap(0, (5, 5)) is False
        assert tools.tool == quire.Tool.PAN
        assert tools.events[-1].kind == quire.ToolEventKind.UNHANDLED and tools.events[-1].point == (5, 5)
        # An exception in a tool: UserAbortError chained to it.
        tools.tool = "broken"
        with pytest.raises(quire.UserAbortError) as info:
            tools.tap(0, (5, 5))
        assert isinstance(info.value.__cause__, KeyError)
        with pytest.raises(quire.NotFoundError):
            tools.tool = "missing"


def test_text_hit_test_agrees_with_pdfium_characters() -> None:
    """At the centre of every character box PDFium reports on hello_world.pdf,
    ``quire.hit_test_text`` hits a character with the same text; the point halfway between
    the two lines, and a corner of the page, are on no text; the tolerance grows the boxes."""
    path = _available("pdfium/testing/resources/hello_world.pdf")
    pdoc = pdfium.PdfDocument(str(path))
    textpage = pdoc[0].get_textpage()
    pdfium_chars = []
    for i in range(textpage.count_chars()):
        text = chr(pdfium_raw.FPDFText_GetUnicode(textpage.raw, i))
        if text.isspace():
            continue
        left, bottom, right, top = textpage.get_charbox(i)
        pdfium_chars.append((text, (left + right) / 2, (bottom + top) / 2))
    pdoc.close()
    assert len(pdfium_chars) > 20
    with quire.Document(str(path)) as doc:
        chars = doc.pages[0].chars()
        for text, x, y in pdfium_chars:
            index = quire.hit_test_text(doc, 0, (x, y))
            assert index is not None, (text, x, y)
            assert chars[index].text == text and not chars[index].generated
            box = chars[index].box
            assert box.left <= x <= box.right and box.bottom <= y <= box.top
        # No text at the page's lower-left corner, nor above the first line's boxes.
        assert quire.hit_test_text(doc, 0, (1, 1)) is None
        first = chars[0].box
        above = (first.left + first.right) / 2, first.top + 1.5
        assert quire.hit_test_text(doc, 0, above) is None
        assert quire.hit_test_text(doc, 0, above, tolerance=2) == 0
        with pytest.raises(quire.InvalidArgumentError):
            quire.hit_test_text(doc, 0, (float("nan"), 1))
        with pytest.raises(quire.InvalidArgumentError):
            quire.hit_test_text(doc, 0, (1, 1), tolerance=-1)
        with pytest.raises(quire.IndexOutOfRangeError):
            quire.hit_test_text(doc, 5, (1, 1))


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm is not installed")
def test_rendering_shows_every_annotation_where_the_events_were(tmp_path: Path) -> None:
    """Every annotation of the scripted session, rendered by poppler's pdftoppm (72 dpi: a
    pixel per point), is drawn where its events were: the moved square's four edges, the
    arrow along its drag, the ink through each stroke's points, in the style's blue; the
    note's icon at its tap and the free text in its drag's box change the page there; and
    nothing changes anywhere else."""
    from PIL import Image, ImageChops

    src = tmp_path / "in.pdf"
    shutil.copy(SAMPLE, src)
    out = tmp_path / "out.pdf"
    with quire.Document(str(src)) as doc:
        tools = quire.ToolManager(doc)
        _script(tools)
        doc.save(str(out))
        added = doc.pages[0].annotations[-5:]
        assert [a.subtype for a in added] == ["Square", "Line", "Ink", "Text", "FreeText"]
        rects = [a.rect for a in added]
        height = doc.pages[0].media_box.height

    def render(pdf: Path) -> "Image.Image":
        prefix = tmp_path / pdf.stem
        subprocess.run(["pdftoppm", "-r", "72", "-f", "1", "-l", "1", "-png", "-singlefile", str(pdf), str(prefix)], check=True)
        with Image.open(str(prefix) + ".png") as im:
            return im.convert("RGB")

    after, before = render(out), render(src)
    assert after.size == before.size

    def blue_at(x: float, y: float) -> bool:
        px, py = int(round(x)), int(round(height - y))
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                r, g, b = after.getpixel((px + dx, py + dy))
                if b > 150 and r < 100 and g < 100:
                    return True
        return False

    def changed_inside(rect: "quire.Rect") -> int:
        box = (int(rect.left), int(height - rect.top), int(rect.right) + 1, int(height - rect.bottom) + 1)
        diff = ImageChops.difference(after.crop(box), before.crop(box)).convert("L")
        return sum(1 for v in diff.tobytes() if v > 40)

    # The square, moved by (20, -10) to [120 490 270 590], with a 3-point border.
    for x, y in [(121.5, 540), (268.5, 540), (195, 588.5), (195, 491.5)]:
        assert blue_at(x, y), ("square edge", x, y)
    assert not blue_at(195, 540)  # its inside is not filled
    # The arrow from (300, 300) to (450, 400), and each ink stroke through its points.
    for t in (0.1, 0.5, 0.9):
        assert blue_at(300 + 150 * t, 300 + 100 * t), ("arrow", t)
    for stroke in ([(100, 100), (150, 160), (200, 200)], [(100, 200), (150, 140), (200, 100)]):
        for (ax, ay), (bx, by) in zip(stroke, stroke[1:]):
            for t in (0.25, 0.5, 0.75):
                assert blue_at(ax + (bx - ax) * t, ay + (by - ay) * t), ("ink", stroke, t)
    # The note at its tap (500, 700), the free text in [300 650 500 700]: drawn there.
    note, free_text = rects[3], rects[4]
    assert note.left - 1 <= 500 <= note.right + 1 and note.bottom - 1 <= 700 <= note.top + 1
    assert changed_inside(note) > 20
    assert changed_inside(free_text) > 20
    # Nothing else changed: every changed pixel is inside an added annotation's rect (grown
    # by 2 points for anti-aliasing).
    diff = ImageChops.difference(after, before).convert("L")
    width = after.size[0]
    for i, v in enumerate(diff.tobytes()):
        if v <= 40:
            continue
        x, y = i % width + 0.5, height - (i // width + 0.5)
        assert any(r.left - 2 <= x <= r.right + 2 and r.bottom - 2 <= y <= r.top + 2 for r in rects), (x, y)


# -- Issue 31 ------------------------------------------------------------------------------


def _two_squares(doc: "quire.Document", tools: quire.ToolManager):
    """Squares A (100..200) and B (150..250, over A) on page 0, drawn by the manager; their
    object numbers."""
    tools.tool = quire.Tool.SQUARE
    tools.drag(0, (100, 100), (200, 200))
    a = tools.events[-1].object_number
    tools.drag(0, (150, 150), (250, 250))
    b = tools.events[-1].object_number
    tools.tool = quire.Tool.PAN
    return a, b


def test_undo_refuses_what_was_changed_outside_the_manager() -> None:
    """Defect 1: a move, then /Contents set through Document.update_annotation (as a synced
    collaborator's change or a script would): undo raises StateError and keeps the
    contents; the step is dropped."""
    with quire.Document(str(SAMPLE)) as doc:
        tools = quire.ToolManager(doc)
        a, _ = _two_squares(doc, tools)
        tools.drag(0, (110, 110), (120, 130))  # Pan -> AnnotEdit moves A
        annotation = doc.annotation(a)
        annotation.contents = "a collaborator's comment"
        doc.update_annotation(annotation)
        with pytest.raises(quire.StateError, match="changed outside the tool manager"):
            tools.undo()
        assert doc.annotation(a).contents == "a collaborator's comment"
        assert doc.annotation(a).rect.left == 110
        assert tools.undo_steps == ["Add Square", "Add Square"]  # the move's step is gone


def test_redo_never_loses_a_step() -> None:
    """Defect 2, the issue's sequence: draw, undo, redo, set contents, undo, undo, redo, redo."""
    with quire.Document(str(SAMPLE)) as doc:
        before = doc.pages[0].annotation_count
        tools = quire.ToolManager(doc)
        tools.tool = quire.Tool.SQUARE
        tools.drag(0, (100, 100), (200, 200))
        number = tools.events[-1].object_number
        assert tools.undo() and tools.redo()
        assert doc.pages[0].annotations[-1].id == number  # the same object
        tools.select(number)
        tools.set_selection_contents("hello")
        assert tools.undo() and tools.undo()
        assert doc.pages[0].annotation_count == before
        assert tools.redo() and tools.redo()
        assert doc.annotation(number).contents == "hello"
        assert tools.redo() is False


def test_undoing_a_deletion_keeps_the_stacking_order() -> None:
    """Defect 3: A under B; delete A; undo: A is under B again (and the same object)."""
    with quire.Document(str(SAMPLE)) as doc:
        tools = quire.ToolManager(doc)
        a, b = _two_squares(doc, tools)
        order = [x.id for x in doc.pages[0].annotations]
        tools.tap(0, (110, 110))
        assert tools.selection == a
        tools.delete_selection()
        assert tools.undo()
        assert [x.id for x in doc.pages[0].annotations] == order
        assert quire.hit_test(doc, 0, (175, 175)) == (quire.HitKind.ANNOTATION, b)


def test_locked_annotations_are_not_deleted(tmp_path: Path) -> None:
    """Defect 4: /F 128 (Locked) refuses deletion, /F 512 (LockedContents) a contents
    change; both stay selected and unchanged."""
    with quire.Document(str(SAMPLE)) as doc:
        tools = quire.ToolManager(doc)
        a, b = _two_squares(doc, tools)
        for number, flags in ((a, 4 | 128), (b, 4 | 512)):
            x = doc.annotation(number)
            x.flags = flags
            doc.update_annotation(x)
        tools.select(a)
        with pytest.raises(quire.StateError, match="locked"):
            tools.delete_selection()
        assert doc.annotation(a) is not None
        tools.select(b)
        with pytest.raises(quire.StateError, match="locked"):
            tools.set_selection_contents("no")
        assert doc.annotation(b).contents is None


@pytest.mark.parametrize("page", [2**32, 2**32 + 1, -(2**31) - 1, 2**31])
def test_page_indexes_do_not_wrap(page: int) -> None:
    """Defect 5: a page index beyond 32 bits raises, never acts on page (index mod 2**32)."""
    with quire.Document(str(SAMPLE)) as doc:
        tools = quire.ToolManager(doc)
        tools.tool = quire.Tool.STICKY_NOTE
        count = doc.pages[0].annotation_count
        with pytest.raises(quire.IndexOutOfRangeError):
            tools.tap(page, (100, 100))
        assert doc.pages[0].annotation_count == count and not tools.can_undo
        with pytest.raises(quire.IndexOutOfRangeError):
            quire.hit_test(doc, page, (100, 100))
        with pytest.raises(quire.IndexOutOfRangeError):
            quire.hit_test_text(doc, page, (100, 100))
        with pytest.raises(quire.IndexOutOfRangeError):
            quire.device_to_page(doc, page, (0, 0, 100, 100), (1, 1))
        with pytest.raises(quire.IndexOutOfRangeError):
            quire.page_to_device(doc, page, (0, 0, 100, 100), (1, 1))
        with pytest.raises(quire.IndexOutOfRangeError):
            tools.select_rect(page, (0, 0, 10, 10))


def test_set_style_keeps_what_it_is_not_given() -> None:
    """Defect 6: set_style(tolerance=1) after colour, author and width keeps them; the style
    reads back; the next square has them."""
    with quire.Document(str(SAMPLE)) as doc:
        tools = quire.ToolManager(doc)
        assert tools.style == quire.ToolStyle()
        tools.set_style(color=(0, 0, 1), author="Ada", border_width=5)
        tools.set_style(tolerance=1)
        assert tools.style == quire.ToolStyle(color=(0, 0, 1), border_width=5, author="Ada", tolerance=1)
        tools.tool = quire.Tool.SQUARE
        tools.drag(0, (100, 100), (200, 200))
        square = doc.annotation(tools.events[-1].object_number)
        assert square.author == "Ada" and square.border_width == 5
        assert tuple(square.color) == (0, 0, 1)
        tools.set_style(author=None)
        assert tools.style.author is None and tools.style.border_width == 5
        with pytest.raises(quire.InvalidArgumentError):
            tools.set_style(opacity=2)
        assert tools.style.opacity == 1  # unchanged


def test_undo_restores_exactly(tmp_path: Path) -> None:
    """Defect 7: undo gives back the annotation exactly (an annotation without /M gains
    none), read back by pikepdf from the saved file."""
    src = tmp_path / "src.pdf"
    with pikepdf.new() as pdf:
        pdf.add_blank_page(page_size=(612, 792))
        annot = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Square,
                                                     Rect=[100, 100, 200, 200], F=4))
        pdf.pages[0].Annots = pdf.make_indirect(pikepdf.Array([annot]))
        pdf.save(src)
    out = tmp_path / "out.pdf"
    with quire.Document(str(src)) as doc:
        tools = quire.ToolManager(doc)
        tools.drag(0, (150, 150), (170, 160))
        assert doc.pages[0].annotations[0].rect.left == 120
        assert tools.undo()
        doc.save(str(out))
    with pikepdf.open(src) as a, pikepdf.open(out) as b:
        before, after = a.pages[0].Annots[0], b.pages[0].Annots[0]
        assert "/M" not in after and "/AP" not in after
        assert sorted(before.keys()) == sorted(after.keys())
        assert [float(v) for v in after.Rect] == [100, 100, 200, 200]


def test_what_a_viewer_needs() -> None:
    """can_undo/can_redo and the steps' descriptions, the preview of a drag, the handles,
    multiple selection (Shift-tap, rubber band) with group move and delete, replies and
    review states from the manager."""
    with quire.Document(str(SAMPLE)) as doc:
        tools = quire.ToolManager(doc)
        assert not tools.can_undo and not tools.can_redo and tools.preview is None
        tools.set_style(author="Ada")
        tools.tool = quire.Tool.SQUARE
        tools.send(quire.PointerKind.DRAG_BEGIN, 0, (100, 100))
        tools.send(quire.PointerKind.DRAG_MOVE, 0, (200, 150))
        preview = tools.preview
        assert preview is not None and preview.kind == quire.PreviewKind.RECT and preview.tool == quire.Tool.SQUARE
        assert preview.rect == quire.Rect(100, 100, 200, 150) and preview.page_index == 0
        tools.send(quire.PointerKind.DRAG_END, 0, (200, 200))
        a = tools.events[-1].object_number
        tools.drag(0, (150, 150), (250, 250))
        b = tools.events[-1].object_number
        tools.tool = quire.Tool.INK
        tools.drag(0, (300, 300), (320, 320))
        tools.send(quire.PointerKind.DRAG_BEGIN, 0, (400, 400))
        ink = tools.preview
        assert ink.kind == quire.PreviewKind.INK and ink.paths == ((300, 300, 320, 320), (400, 400))
        tools.tool = quire.Tool.PAN  # commits the ink
        ink_number = [e.object_number for e in tools.events if e.kind == quire.ToolEventKind.ANNOTATION_ADDED][-1]
        assert tools.can_undo and tools.undo_steps[:3] == ["Add Ink", "Add Square", "Add Square"]
        tools.tap(0, (110, 110))
        assert tools.selected == [a]
        assert tools.selection_handles[0] == (100, 100) and len(tools.selection_handles) == 8
        tools.tap(0, (240, 240), shift=True)
        assert tools.selected == [a, b] and tools.selection_handles == []
        tools.drag(0, (110, 110), (130, 120))  # both move
        assert doc.annotation(a).rect.left == 120 and doc.annotation(b).rect.left == 170
        assert tools.undo_steps[0] == "Move 2 annotations"
        tools.select(None)
        tools.drag(0, (50, 50), (400, 400), shift=True)  # a rubber band over all three
        assert sorted(tools.selected) == sorted([a, b, ink_number])
        assert tools.select_rect(0, (0, 0, 1, 1)) == 0 and tools.selected == []
        tools.select([a, b])
        tools.delete_selection()
        numbers = [x.id for x in doc.pages[0].annotations]
        assert a not in numbers and b not in numbers
        assert tools.undo()
        numbers = [x.id for x in doc.pages[0].annotations]
        assert a in numbers and b in numbers
        tools.select(a)
        reply = tools.reply("I agree")
        state = tools.set_state("Accepted")
        assert [c.contents for c in doc.comments(a)][1:] == ["I agree"]
        current, _ = doc.review_summary(a)
        assert [s.state for s in current] == ["Accepted"] and current[0].author == "Ada"
        assert doc.annotation(reply).author == "Ada" and state != reply
        assert tools.undo_steps[:2] == ["Set state Accepted", "Reply to Square"]
        with pytest.raises(quire.InvalidArgumentError):
            tools.set_state("Maybe")
        assert tools.undo() and tools.undo()
        assert doc.comments(a)[1:] == []
        assert tools.redo_steps[:2] == ["Reply to Square", "Set state Accepted"]
        assert tools.can_redo and tools.redo() and tools.redo()
        with pytest.raises(quire.NotFoundError):
            tools.select(999999)
