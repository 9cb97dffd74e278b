"""The web review page (examples/web) in a real headless Chromium (issue 19).

The server runs as its own process on a free loopback port; Debian's Chromium is driven by
Selenium through Debian's chromedriver (/usr/bin/chromedriver: nothing is downloaded). The
session: draw a square, add a note with a comment, select the square and move it, undo;
then two ink strokes, and a form field's value.
After each step the document is checked through the server's state AND in the file its
Save button writes, read by pikepdf and by PDFium (pypdfium2). Where the pointer events
should have landed in PDF user space is PDFium's own answer (FPDF_DeviceToPage on the page
image's pixels), not Quire's. A screenshot of the page after the session is written to
build/web-review.png, and its pixels show the square where the document has it.

Never skipped: `make test` installs Chromium, its driver and Selenium first
(scripts/install-deps.sh, group test); without them this fails, saying what to run.
"""

from __future__ import annotations

import ctypes
import json
import select
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pikepdf
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_raw
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from quire_testing.library import child_env  # noqa: E402
from quire_testing.paths import REPO as ROOT  # noqa: E402
from quire_testing.paths import SAMPLE  # noqa: E402

SERVER = ROOT / "examples/web/server.py"
SCREENSHOT = ROOT / "build/web-review.png"
WAIT = 20  # seconds any one step may take before the test fails

try:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - reported by the browser fixture (conftest.py), as a failure
    pass


# ---- the server and the browser -----------------------------------------------------------------

class Server:
    def __init__(self, tmp: Path, pdf: Path = SAMPLE, scale: float = 1.0) -> None:
        self.source = tmp / "review.pdf"
        shutil.copy(pdf, self.source)
        self.output = tmp / "reviewed.pdf"
        env = child_env()  # the package and library under test (Tests/support)
        self.log = open(tmp / "server.log", "w+")
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), str(self.source), "--port", "0", "--scale", str(scale), "--output", str(self.output)],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env=env)
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], WAIT)
        line = self.process.stdout.readline() if ready else ""
        if "http://" not in line:
            self.stop()
            raise AssertionError("the server did not start: %r\n%s" % (line, self.logged()))
        self.url = line.strip().rsplit(" ", 1)[-1]

    def logged(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def state(self, page: int = 0, user: Optional[str] = None) -> Dict[str, Any]:
        query = "api/state?page=%d" % page + ("&user=" + urllib.parse.quote(user) if user else "")
        with urllib.request.urlopen(self.url + query, timeout=WAIT) as answer:
            return json.load(answer)

    def post(self, path: str, body: Dict[str, Any]) -> Tuple[int, Dict[str, Any]]:
        """A request as another reviewer's page would send it."""
        import urllib.error

        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=WAIT) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path)
    try:
        yield s
    finally:
        s.stop()
        print("---- server log ----\n" + s.logged())
        s.log.close()


# ---- what the page does ---------------------------------------------------------------------------

def wait_idle(driver: Any) -> None:
    """Until the page has sent everything and shows the image of the latest state."""
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.body.dataset.idle") == "1")


def image_offset(driver: Any, x: float, y: float) -> Tuple[int, int]:
    """Selenium's offset from the page image's centre for its device pixel (x, y) (the
    image is shown at its size: --scale 1 and a device scale factor of 1)."""
    image = driver.find_element(By.ID, "page")
    size = image.size
    return int(round(x - size["width"] / 2)), int(round(y - size["height"] / 2))


def tap(driver: Any, x: int, y: int) -> None:
    image = driver.find_element(By.ID, "page")
    ActionChains(driver).move_to_element_with_offset(image, *image_offset(driver, x, y)).click().perform()
    wait_idle(driver)


def drag(driver: Any, start: Tuple[int, int], end: Tuple[int, int]) -> None:
    image = driver.find_element(By.ID, "page")
    dx, dy = end[0] - start[0], end[1] - start[1]
    (ActionChains(driver).move_to_element_with_offset(image, *image_offset(driver, *start)).click_and_hold()
     .move_by_offset(int(dx / 2), int(dy / 2)).move_by_offset(dx - int(dx / 2), dy - int(dy / 2)).release().perform())
    wait_idle(driver)


def click(driver: Any, selector: str) -> None:
    driver.find_element(By.CSS_SELECTOR, selector).click()
    wait_idle(driver)


# ---- what the file says ----------------------------------------------------------------------------

def device_to_page(x: float, y: float, pdf_path: Path = SAMPLE, page_index: int = 0,
                   size: Tuple[int, int] = (612, 792)) -> Tuple[float, float]:
    """PDFium's FPDF_DeviceToPage for a page shown at ``size`` pixels (by default page 0 of
    the sample at 612 x 792)."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        page = pdf[page_index]
        px, py = ctypes.c_double(), ctypes.c_double()
        assert pdfium_raw.FPDF_DeviceToPage(page.raw, 0, 0, size[0], size[1], 0, int(x), int(y),
                                            ctypes.byref(px), ctypes.byref(py))
        return px.value, py.value
    finally:
        pdf.close()


def saved(driver: Any, server: Server) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    """Clicks Save, then reads the file: each annotation of page 0 as pikepdf and as PDFium
    see it."""
    click(driver, "#save")
    assert server.output.exists()
    with pikepdf.open(server.output) as pdf:
        pike = []
        for a in pdf.pages[0].get("/Annots", []):
            pike.append({"object": a.objgen[0], "subtype": str(a.Subtype), "rect": [float(v) for v in a.Rect],
                         "contents": str(a.Contents) if "/Contents" in a else None})
    doc = pdfium.PdfDocument(str(server.output))
    pdfium_annots = []
    try:
        page = doc[0]
        for i in range(pdfium_raw.FPDFPage_GetAnnotCount(page.raw)):
            annot = pdfium_raw.FPDFPage_GetAnnot(page.raw, i)
            rect = pdfium_raw.FS_RECTF()
            assert pdfium_raw.FPDFAnnot_GetRect(annot, ctypes.byref(rect))
            size = pdfium_raw.FPDFAnnot_GetStringValue(annot, b"Contents", None, 0)
            buffer = ctypes.create_string_buffer(size)
            pdfium_raw.FPDFAnnot_GetStringValue(annot, b"Contents", ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)), size)
            pdfium_annots.append({"subtype": pdfium_raw.FPDFAnnot_GetSubtype(annot),
                                  "rect": [rect.left, rect.bottom, rect.right, rect.top],
                                  "contents": buffer.raw[:max(0, size - 2)].decode("utf-16-le")})
            pdfium_raw.FPDFPage_CloseAnnot(annot)
    finally:
        doc.close()
    return pike, pdfium_annots


def by_object(state: Dict[str, Any], number: int) -> Dict[str, Any]:
    found = [a for a in state["annotations"] if a["object"] == number]
    assert len(found) == 1, (number, state["annotations"])
    return found[0]


def near(a: List[float], b: List[float], tolerance: float) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= tolerance for x, y in zip(a, b))


def red_near(picture: Any, x: int, y: int, reach: int = 2) -> bool:
    for dx in range(-reach, reach + 1):
        for dy in range(-reach, reach + 1):
            r, g, b = picture.getpixel((x + dx, y + dy))[:3]
            if r > 150 and g < 90 and b < 90:
                return True
    return False


# ---- the session ------------------------------------------------------------------------------------

def test_review_session_in_chromium(server: Server, browser: Any) -> None:
    driver = browser
    driver.get(server.url)
    wait_idle(driver)
    assert driver.find_element(By.ID, "title").text == "review.pdf"
    before = server.state()["annotations"]  # the sample's, as the server lists them (drawn ones)
    with pikepdf.open(SAMPLE) as original:
        n0 = len(original.pages[0].Annots)  # the sample's, as the file lists them (popups too)
    pike0: List[Dict[str, Any]] = []
    pdfium0: List[Dict[str, Any]] = []

    # Undo and Redo are off with nothing to undo; a refused action (Ctrl+Y anyway) shows
    # the server's message on the page.
    assert not driver.find_element(By.ID, "redo").is_enabled()
    assert not driver.find_element(By.ID, "undo").is_enabled()
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("y").key_up(Keys.CONTROL).perform()
    wait_idle(driver)
    error = driver.find_element(By.ID, "error")
    assert error.is_displayed() and "nothing to redo" in error.text

    # 1. A square: the Square tool, a drag from (300, 500) to (450, 600) in image pixels.
    click(driver, "[data-tool=square]")
    assert driver.find_element(By.CSS_SELECTOR, "[data-tool=square]").get_attribute("aria-pressed") == "true"
    assert not driver.find_element(By.ID, "error").is_displayed()
    drag(driver, (300, 500), (450, 600))
    state = server.state()
    added = state["annotations"][len(before):]
    assert [a["subtype"] for a in added] == ["Square"]
    square = added[0]["object"]
    (x0, y0), (x1, y1) = device_to_page(300, 500), device_to_page(450, 600)
    expected = [min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)]
    assert near(added[0]["rect"], expected, 1.0), (added[0]["rect"], expected)
    square_rect = added[0]["rect"]
    pike, pdf = saved(driver, server)
    pike0, pdfium0 = pike[:n0], pdf[:n0]
    assert [a["subtype"] for a in pike[n0:]] == ["/Square"]
    assert pike[-1]["object"] == square and near(pike[-1]["rect"], square_rect, 1e-3)
    assert [a["subtype"] for a in pdf[n0:]] == [pdfium_raw.FPDF_ANNOT_SQUARE]
    assert near(pdf[-1]["rect"], square_rect, 1e-3)

    # 2. A note: the Note tool, a tap at (100, 700); it is selected, and gets a comment.
    click(driver, "[data-tool=note]")
    tap(driver, 100, 700)
    state = server.state()
    added = state["annotations"][len(before):]
    assert [a["subtype"] for a in added] == ["Square", "Text"]
    note = added[1]["object"]
    assert state["selection"] == note
    nx, ny = device_to_page(100, 700)
    r = added[1]["rect"]
    assert r[0] - 1 <= nx <= r[2] + 1 and r[1] - 1 <= ny <= r[3] + 1, (r, nx, ny)
    comment = driver.find_element(By.ID, "comment")
    comment.clear()
    comment.send_keys("Is this figure right?")
    click(driver, "#set-comment")
    assert by_object(server.state(), note)["contents"] == "Is this figure right?"
    pike, pdf = saved(driver, server)
    assert [a["subtype"] for a in pike[n0:]] == ["/Square", "/Text"]
    assert pike[-1]["object"] == note and pike[-1]["contents"] == "Is this figure right?"
    assert [a["subtype"] for a in pdf[n0:]] == [pdfium_raw.FPDF_ANNOT_SQUARE, pdfium_raw.FPDF_ANNOT_TEXT]
    assert pdf[-1]["contents"] == "Is this figure right?"
    assert near(pdf[-1]["rect"], r, 1e-3)

    # 3. Select the square (a tap inside it with Select: Pan hands it to AnnotEdit) and
    #    move it by (+40, -20) image pixels.
    click(driver, "[data-tool=pan]")
    tap(driver, 375, 550)
    state = server.state()
    assert state["selection"] == square, state["events"]
    assert driver.execute_script("return document.body.dataset.selection") == str(square)
    assert driver.find_elements(By.CSS_SELECTOR, "#overlay .selection")
    # A double click on it asks to edit it (EDIT_REQUESTED): the comment box takes the focus.
    image = driver.find_element(By.ID, "page")
    ActionChains(driver).move_to_element_with_offset(image, *image_offset(driver, 375, 550)).double_click().perform()
    wait_idle(driver)
    WebDriverWait(driver, WAIT).until(lambda d: d.switch_to.active_element.get_attribute("id") == "comment")
    assert server.state()["selection"] == square
    drag(driver, (375, 550), (415, 530))
    (ax, ay), (bx, by) = device_to_page(375, 550), device_to_page(415, 530)
    dx, dy = bx - ax, by - ay
    assert (dx, dy) == pytest.approx((40, 20))
    moved = [square_rect[0] + dx, square_rect[1] + dy, square_rect[2] + dx, square_rect[3] + dy]
    state = server.state()
    assert near(by_object(state, square)["rect"], moved, 0.01), (by_object(state, square)["rect"], moved)
    pike, pdf = saved(driver, server)
    assert [a["subtype"] for a in pike[n0:]] == ["/Square", "/Text"]
    assert near(pike[n0]["rect"], moved, 0.01)
    assert near(pdf[n0]["rect"], moved, 0.01)

    # 4. Undo: the square is back where it was drawn; the note and its comment stay.
    click(driver, "#undo")
    state = server.state()
    assert near(by_object(state, square)["rect"], square_rect, 1e-6)
    assert by_object(state, note)["contents"] == "Is this figure right?"
    pike, pdf = saved(driver, server)
    assert [a["subtype"] for a in pike[n0:]] == ["/Square", "/Text"]
    assert near(pike[n0]["rect"], square_rect, 1e-6)
    assert near(pdf[n0]["rect"], square_rect, 1e-3)
    assert pike[-1]["contents"] == "Is this figure right?"
    # The sample's own annotations came through the session untouched.
    assert pike[:n0] == pike0 and pdf[:n0] == pdfium0

    # 5. Ink: two strokes show on the page while the ink tool holds them; changing the tool
    #    commits them as one Ink annotation whose strokes run from each drag's start to its end.
    click(driver, "[data-tool=ink]")
    strokes = [((300, 650), (450, 700)), ((300, 700), (450, 650))]
    for start, end in strokes:
        drag(driver, start, end)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#overlay svg.ink polyline")) == 2
    assert [a["subtype"] for a in server.state()["annotations"][len(before):]] == ["Square", "Text"]
    click(driver, "[data-tool=pan]")
    assert not driver.find_elements(By.CSS_SELECTOR, "#overlay svg.ink polyline")
    assert [a["subtype"] for a in server.state()["annotations"][len(before):]] == ["Square", "Text", "Ink"]
    pike, pdf = saved(driver, server)
    assert [a["subtype"] for a in pike[n0:]] == ["/Square", "/Text", "/Ink"]
    assert pdf[-1]["subtype"] == pdfium_raw.FPDF_ANNOT_INK
    with pikepdf.open(server.output) as saved_pdf:
        ink = [[float(v) for v in stroke] for stroke in saved_pdf.pages[0].Annots[-1].InkList]
    assert len(ink) == 2
    for stroke, (start, end) in zip(ink, strokes):
        assert near(stroke[:2], list(device_to_page(*start)), 1.0) and near(stroke[-2:], list(device_to_page(*end)), 1.0), stroke

    # 6. A form field: a tap on the sample's combo box with Select (Pan hands it to form
    #    filling), then its value set in the box, as PDFium and pikepdf read it back.
    tap(driver, 120, 427)
    state = server.state()
    widget = [a for a in state["annotations"] if a["selected"]]
    assert state["manager_tool"] == "form_fill" and len(widget) == 1 and widget[0]["subtype"] == "Widget"
    assert widget[0]["field"]["name"] == "Combo1"
    assert driver.find_element(By.ID, "comment-label").text.startswith("Value of Combo1")
    comment = driver.find_element(By.ID, "comment")
    comment.clear()
    comment.send_keys("Link")
    click(driver, "#set-comment")
    assert [a for a in server.state()["annotations"] if a["selected"]][0]["field"]["value"] == "Link"
    saved(driver, server)
    with pikepdf.open(server.output) as saved_pdf:
        combo = [f for f in saved_pdf.Root.AcroForm.Fields if str(f.T) == "Combo1"]
        assert len(combo) == 1 and str(combo[0].V) == "Link"
    filled = pdfium.PdfDocument(str(server.output))
    try:
        filled.init_forms()
        page = filled[0]
        values = []
        for i in range(pdfium_raw.FPDFPage_GetAnnotCount(page.raw)):
            annot = pdfium_raw.FPDFPage_GetAnnot(page.raw, i)
            if pdfium_raw.FPDFAnnot_GetSubtype(annot) == pdfium_raw.FPDF_ANNOT_WIDGET:
                n = pdfium_raw.FPDFAnnot_GetFormFieldValue(filled.formenv.raw, annot, None, 0)
                buffer = (ctypes.c_ushort * max(1, n // 2))()
                pdfium_raw.FPDFAnnot_GetFormFieldValue(filled.formenv.raw, annot, buffer, n)
                values.append(bytes(buffer)[:max(0, n - 2)].decode("utf-16-le"))
            pdfium_raw.FPDFPage_CloseAnnot(annot)
        assert values == ["Link"]
    finally:
        filled.close()

    # The page's console has no errors but the refused request's status line.
    errors = [e["message"] for e in driver.get_log("browser")
              if e["level"] == "SEVERE" and "/api/redo" not in e["message"] and "favicon.ico" not in e["message"]]
    assert not errors, errors

    # The screenshot: the page image shows the square where the document has it now (its
    # left edge at x = 300 image pixels), not where the move had put it.
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(SCREENSHOT))
    from PIL import Image

    where = driver.find_element(By.ID, "page").location
    with Image.open(SCREENSHOT) as shot:
        picture = shot.convert("RGB")
        left = int(where["x"]) + 300
        top = int(where["y"])
        assert red_near(picture, left, top + 550), "no red edge at the square's left side"
        assert not red_near(picture, left + 40, top + 490), "red where only the moved square was"


# ---- issue 31: the page a reviewer uses -------------------------------------------------------------

def set_input(driver: Any, element_id: str, value: str) -> None:
    """Sets an input's value as a person does, then fires its change event."""
    driver.execute_script("const e = document.getElementById(arguments[0]); e.value = arguments[1];"
                          "e.dispatchEvent(new Event('change'));", element_id, value)
    wait_idle(driver)


def page_to_device(x: float, y: float, size: Tuple[int, int] = (612, 792)) -> Tuple[float, float]:
    """PDFium's FPDF_PageToDevice for page 0 of the sample shown at ``size`` pixels."""
    pdf = pdfium.PdfDocument(str(SAMPLE))
    try:
        dx, dy = ctypes.c_int(), ctypes.c_int()
        assert pdfium_raw.FPDF_PageToDevice(pdf[0].raw, 0, 0, size[0], size[1], 0, x, y, ctypes.byref(dx), ctypes.byref(dy))
        return dx.value, dy.value
    finally:
        pdf.close()


def title_chars() -> List[Tuple[float, float, float, float]]:
    """PDFium's boxes of the sample's first characters: "Link Annotations", its title."""
    pdf = pdfium.PdfDocument(str(SAMPLE))
    try:
        text = pdf[0].get_textpage()
        assert text.get_text_range(0, 16) == "Link Annotations"
        return [text.get_charbox(i) for i in range(16)]
    finally:
        pdf.close()


def tap_scrolled(driver: Any, x: int, y: int) -> None:
    """A tap at the image's device pixel (x, y) when the image is larger than the viewer
    (zoomed): the viewer scrolls the point into view, and the click goes to its place in
    the window (Selenium's element offsets start at the visible part's centre)."""
    left, top = driver.execute_script(
        "const v = document.getElementById('viewer'); v.scrollLeft = Math.max(0, arguments[0] - 200);"
        "v.scrollTop = Math.max(0, arguments[1] - 200);"
        "const r = document.getElementById('page').getBoundingClientRect(); return [r.left, r.top];", x, y)
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(int(round(left + x)), int(round(top + y))).click()
    actions.perform()
    wait_idle(driver)


def list_item(driver: Any, number: int) -> Any:
    return driver.find_element(By.CSS_SELECTOR, "#annotations li[data-object='%d']" % number)


def test_reviewer_session_draw_comment_reply_state_undo_save(server: Server, browser: Any) -> None:
    """Issue 31: a reviewer named Ada, in blue with 3-point lines, draws a square and
    highlights the title (yellow, multiplied over the text); picks the square in the list,
    comments, replies, sets a review state; undo and redo say what they do and bring the
    state back as the same object; another reviewer, Bob, then changes the square's
    comment, and Ada's undo of her comment is refused without touching Bob's; zoom, Shift
    in the list for several. Everything checked in the saved file by pikepdf and PDFium."""
    driver = browser
    driver.get(server.url)
    wait_idle(driver)
    set_input(driver, "user", "Ada")
    set_input(driver, "color", "#0000ff")
    set_input(driver, "width", "3")
    state = server.state(user="Ada")
    assert state["user"] == "Ada" and state["style"] == {"color": "#0000ff", "highlight": "#ffeb00",
                                                         "border_width": 3.0, "author": "Ada"}
    before = len(state["annotations"])

    # A square, in Ada's colour and width.
    click(driver, "[data-tool=square]")
    drag(driver, (300, 500), (450, 600))
    state = server.state(user="Ada")
    square = state["annotations"][before]
    assert square["subtype"] == "Square" and square["author"] == "Ada" and square["color"] == "#0000ff"
    number = square["object"]
    assert driver.find_element(By.ID, "undo").get_attribute("title").startswith("Undo Add Square")

    # A highlight over the title: yellow, whatever Ada's colour; its preview while dragging
    # is the manager's rectangle, drawn yellow and multiplied.
    boxes = title_chars()
    start = page_to_device((boxes[0][0] + boxes[0][2]) / 2, (boxes[0][1] + boxes[0][3]) / 2)
    end = page_to_device((boxes[-1][0] + boxes[-1][2]) / 2, (boxes[-1][1] + boxes[-1][3]) / 2)
    click(driver, "[data-tool=highlight]")
    image = driver.find_element(By.ID, "page")
    (ActionChains(driver).move_to_element_with_offset(image, *image_offset(driver, *start)).click_and_hold()
     .move_by_offset(int((end[0] - start[0]) / 2), 0).perform())
    wait_idle(driver)
    preview = driver.find_element(By.CSS_SELECTOR, "#overlay .preview.highlight")
    assert preview.value_of_css_property("mix-blend-mode") == "multiply"
    assert server.state(user="Ada")["preview"]["kind"] == "rect"
    ActionChains(driver).move_by_offset(end[0] - start[0] - int((end[0] - start[0]) / 2), end[1] - start[1]).release().perform()
    wait_idle(driver)
    state = server.state(user="Ada")
    highlight = state["annotations"][before + 1]
    assert highlight["subtype"] == "Highlight" and highlight["author"] == "Ada"
    assert state["preview"] is None and state["style"]["color"] == "#0000ff"
    # The server's image of the page: inside the highlight, yellow paper and dark text (a
    # multiply blend; an opaque yellow would hide the text).
    from PIL import Image
    import io

    with urllib.request.urlopen(server.url + state["image"]["url"].lstrip("/"), timeout=WAIT) as answer:
        picture = Image.open(io.BytesIO(answer.read())).convert("RGB")
    x0, y0 = page_to_device(boxes[0][0], boxes[0][3])
    x1, y1 = page_to_device(boxes[-1][2], boxes[-1][1])
    pixels = [picture.getpixel((x, y)) for x in range(int(x0) + 1, int(x1) - 1) for y in range(int(y0) + 1, int(y1) - 1)]
    yellow = sum(1 for r, g, b in pixels if r > 200 and g > 180 and b < 100)
    dark = sum(1 for r, g, b in pixels if r < 90 and g < 90 and b < 90)
    assert yellow > len(pixels) // 3 and dark > 20, (yellow, dark, len(pixels))

    # The list selects the square (and scrolls to it); the thread panel shows.
    click(driver, "[data-tool=pan]")
    list_item(driver, number).click()
    wait_idle(driver)
    assert server.state(user="Ada")["selected"] == [number]
    assert "selected" in list_item(driver, number).get_attribute("class")
    assert driver.find_element(By.ID, "thread").is_displayed()
    assert driver.find_element(By.ID, "review").text == "No review state yet."
    # A comment, a reply, a review state.
    comment = driver.find_element(By.ID, "comment")
    comment.clear()
    comment.send_keys("Is this figure right?")
    click(driver, "#set-comment")
    reply = driver.find_element(By.ID, "reply-text")
    reply.send_keys("Checked with the source: yes.")
    click(driver, "#reply")
    replies = driver.find_elements(By.CSS_SELECTOR, "#replies li")
    assert len(replies) == 1 and "Ada: Checked with the source: yes." in replies[0].text
    assert reply.get_attribute("value") == ""
    driver.find_element(By.CSS_SELECTOR, "#review-state option[value='Accepted']").click()
    click(driver, "#set-state")
    assert driver.find_element(By.ID, "review").text == "Ada: Accepted"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#history li")) == 1
    thread = server.state(user="Ada")["thread"]
    state_object = thread["states"][0]["object"]

    # Undo and redo say what they do; the state comes back as the same object.
    assert driver.find_element(By.ID, "undo").get_attribute("title").startswith("Undo Set state Accepted")
    click(driver, "#undo")
    assert driver.find_element(By.ID, "review").text == "No review state yet."
    assert driver.find_element(By.ID, "redo").get_attribute("title").startswith("Redo Set state Accepted")
    click(driver, "#redo")
    assert driver.find_element(By.ID, "review").text == "Ada: Accepted"
    assert server.state(user="Ada")["thread"]["states"][0]["object"] == state_object

    # Bob, another reviewer with a manager of his own, changes the square's comment.
    status, _ = server.post("api/select", {"user": "Bob", "object": number})
    assert status == 200
    status, answer = server.post("api/contents", {"user": "Bob", "text": "Bob: the figure is fine."})
    assert status == 200 and answer["undo"] == "Edit Square"
    # Ada undoes her state and her reply; the undo of her comment is refused (409) with the
    # server's message, and Bob's comment stays.
    click(driver, "#undo")
    click(driver, "#undo")
    assert server.state(user="Ada")["thread"]["replies"] == []
    click(driver, "#undo")
    error = driver.find_element(By.ID, "error")
    assert error.is_displayed() and "changed outside the tool manager" in error.text
    state = server.state(user="Ada")
    square = by_object(state, number)
    assert square["contents"] == "Bob: the figure is fine."
    assert state["undo"] == "Add Highlight"  # the refused step is gone
    click(driver, "#redo")
    click(driver, "#redo")
    assert not driver.find_element(By.ID, "error").is_displayed()
    thread = server.state(user="Ada")["thread"]
    assert [r["contents"] for r in thread["replies"]] == ["Checked with the source: yes."]
    assert thread["states"][0]["state"] == "Accepted"

    # Several selected: Shift-click the highlight's list item.
    list_item(driver, number).click()
    wait_idle(driver)
    ActionChains(driver).key_down(Keys.SHIFT).click(list_item(driver, highlight["object"])).key_up(Keys.SHIFT).perform()
    wait_idle(driver)
    assert server.state(user="Ada")["selected"] == [number, highlight["object"]]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#overlay .selection")) == 2
    assert not driver.find_element(By.ID, "thread").is_displayed()

    # Zoom: 150% renders the page 1.5 times larger; a tap there still lands on the square.
    driver.find_element(By.CSS_SELECTOR, "#zoom option[value='1.5']").click()
    wait_idle(driver)
    assert driver.find_element(By.ID, "page").size == {"width": 918, "height": 1188}
    tap_scrolled(driver, int(375 * 1.5), int(550 * 1.5))
    assert server.state(user="Ada")["selected"] == [number]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#overlay .handle")) == 8
    click(driver, "#zoom-out")
    assert driver.find_element(By.ID, "zoom").get_attribute("value") == "1.25"
    driver.find_element(By.CSS_SELECTOR, "#zoom option[value='1']").click()
    wait_idle(driver)

    # The page now, for people: build/web-review-thread.png.
    list_item(driver, number).click()
    wait_idle(driver)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(SCREENSHOT.with_name("web-review-thread.png")))

    # Save, and read the file with pikepdf and PDFium.
    click(driver, "#save")
    with pikepdf.open(server.output) as pdf:
        annots = {a.objgen[0]: a for a in pdf.pages[0].Annots}
        sq = annots[number]
        assert str(sq.T) == "Ada" and [float(v) for v in sq.C] == [0, 0, 1] and float(sq.BS.W) == 3
        assert str(sq.Contents) == "Bob: the figure is fine."
        hl = annots[highlight["object"]]
        assert str(hl.Subtype) == "/Highlight" and [round(float(v), 2) for v in hl.C] == [1, 0.92, 0]
        gs = hl.AP.N.Resources.ExtGState
        assert any(str(g.get("/BM")) == "/Multiply" for g in gs.values())
        replies_to = [a for a in annots.values() if "/IRT" in a and a.IRT.objgen[0] == number]
        texts = sorted((str(a.get("/State", "")), str(a.Contents), str(a.T)) for a in replies_to)
        assert texts == [("", "Checked with the source: yes.", "Ada"), ("Accepted", "Ada set the state to Accepted", "Ada")]
        assert [str(a.StateModel) for a in replies_to if "/State" in a] == ["Review"]
    doc = pdfium.PdfDocument(str(server.output))
    try:
        page = doc[0]
        found: Dict[int, List[str]] = {}
        for i in range(pdfium_raw.FPDFPage_GetAnnotCount(page.raw)):
            annot = pdfium_raw.FPDFPage_GetAnnot(page.raw, i)
            kind = pdfium_raw.FPDFAnnot_GetSubtype(annot)
            size = pdfium_raw.FPDFAnnot_GetStringValue(annot, b"Contents", None, 0)
            buffer = ctypes.create_string_buffer(size)
            pdfium_raw.FPDFAnnot_GetStringValue(annot, b"Contents", ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)), size)
            found.setdefault(kind, []).append(buffer.raw[:max(0, size - 2)].decode("utf-16-le"))
            pdfium_raw.FPDFPage_CloseAnnot(annot)
        assert "Bob: the figure is fine." in found[pdfium_raw.FPDF_ANNOT_SQUARE]
        assert len(found[pdfium_raw.FPDF_ANNOT_HIGHLIGHT]) == 4  # the sample's three and Ada's
        assert "Checked with the source: yes." in found[pdfium_raw.FPDF_ANNOT_TEXT]
        # As PDFium draws the saved page: the square's 3-point border blue where the
        # square is, the highlight yellow over the title with the text dark through it.
        drawn = page.render(scale=1, draw_annots=True).to_pil().convert("RGB")
        sx0, sy0, sx1, sy1 = by_object(server.state(user="Ada"), number)["rect"]
        r, g, b = drawn.getpixel((int(sx0 + 1.5), int(792 - (sy0 + sy1) / 2)))
        assert b > 200 and r < 60 and g < 60, (r, g, b)
        inside = [drawn.getpixel((x, y)) for x in range(int(x0) + 1, int(x1) - 1) for y in range(int(y0) + 1, int(y1) - 1)]
        assert sum(1 for r, g, b in inside if r > 200 and g > 180 and b < 100) > len(inside) // 3
        assert sum(1 for r, g, b in inside if r < 90 and g < 90 and b < 90) > 20
        # The highlight marks the title, as PDFium's own text extraction reads it.
        text = page.get_textpage()
        hx0, hy0, hx1, hy1 = highlight["rect"]
        assert text.get_text_bounded(hx0, hy0, hx1, hy1).strip() == "Link Annotations"
    finally:
        doc.close()
    errors = [e["message"] for e in driver.get_log("browser")
              if e["level"] == "SEVERE" and "/api/undo" not in e["message"] and "favicon.ico" not in e["message"]]
    assert not errors, errors


def test_server_answers_bad_requests_with_json_errors(server: Server) -> None:
    """Requests a page would never send get a 4xx and one JSON error shape; the server
    goes on, and nothing was added to the document."""
    import urllib.error

    def call(path: str, body: Optional[bytes] = None, headers: Optional[Dict[str, str]] = None) -> Tuple[int, Dict[str, Any]]:
        req = urllib.request.Request(server.url + path, data=body, headers=headers or {},
                                     method="POST" if body is not None else "GET")
        try:
            with urllib.request.urlopen(req, timeout=WAIT) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    before = server.state()["annotations"]
    cases = [
        ("api/event", b"not json", 400, "bad_json"),
        ("api/event", b"[1, 2]", 400, "bad_json"),
        ("api/event", b'{"page": -1, "kind": "tap", "x": 1, "y": 1}', 400, "bad_page"),
        ("api/event", b'{"page": 2, "kind": "tap", "x": 1, "y": 1}', 400, "bad_page"),
        ("api/event", b'{"page": 0, "kind": "zap", "x": 1, "y": 1}', 400, "bad_kind"),
        ("api/event", b'{"page": 0, "kind": "tap", "x": "1", "y": 1}', 400, "bad_point"),
        ("api/event", b'{"page": 0, "kind": "tap", "x": NaN, "y": 1}', 400, "bad_point"),
        ("api/tool", b'{"tool": "hammer"}', 400, "bad_tool"),
        ("api/contents", b'{"text": "x"}', 409, "StateError"),  # nothing is selected
        ("api/delete", b"{}", 409, "StateError"),
        ("api/undo", b"{}", 409, "nothing_to_undo"),
        ("api/nothing", b"{}", 404, "not_found"),
        ("api/state?page=x", None, 400, "bad_page"),
        ("api/page/7.png", None, 400, "bad_page"),
        ("static/../server.py", None, 404, "not_found"),
        # Issue 31's routes and fields.
        ("api/style", b'{"color": "red"}', 400, "bad_color"),
        ("api/style", b'{"color": [1, 2, 3]}', 400, "bad_color"),
        ("api/style", b'{"border_width": -1}', 400, "bad_width"),
        ("api/select", b'{"object": "x"}', 400, "bad_object"),
        ("api/select", b'{"object": 999999}', 404, "NotFoundError"),
        ("api/reply", b'{"text": " "}', 400, "bad_text"),
        ("api/reply", b'{"text": "x"}', 409, "StateError"),  # nothing is selected
        ("api/review-state", b'{"state": "Maybe"}', 400, "bad_state"),
        ("api/event", b'{"page": 0, "kind": "tap", "x": 1, "y": 1, "shift": 1}', 400, "bad_shift"),
        ("api/state?page=0&zoom=7", None, 400, "bad_zoom"),
        ("api/state?page=0&zoom=x", None, 400, "bad_zoom"),
        ("api/tool", b'{"tool": "pan", "user": ""}', 400, "bad_user"),
        ("api/tool", b'{"tool": "pan", "zoom": 0.33}', 400, "bad_zoom"),
    ]
    for path, body, status, code in cases:
        got_status, value = call(path, body)
        assert (got_status, value.get("error", {}).get("code")) == (status, code), (path, body, value)
        assert value["error"]["message"]
    status, value = call("api/event", b"{" + b" " * 70000 + b"}", {"Content-Type": "application/json"})
    assert (status, value["error"]["code"]) == (413, "too_large")
    # A drag far off the image stops at its edge: the square stays on the page.
    call("api/tool", b'{"tool": "square"}')
    call("api/event", b'{"page": 0, "kind": "drag_begin", "x": 500, "y": 700}')
    status, value = call("api/event", b'{"page": 0, "kind": "drag_end", "x": 1e300, "y": 1e300}')
    assert status == 200
    added = value["annotations"][len(before):]
    assert [a["subtype"] for a in added] == ["Square"]
    assert near(added[0]["rect"], [500, 0, 612, 92], 1e-6), added[0]["rect"]
    assert server.process.poll() is None


# The corpus beside the repository (../shared/corpus, as CI lays it out), else the usual place.
CORPUS = next((c for c in (ROOT.parent / "shared/corpus", Path("/work/shared/corpus")) if c.is_dir()),
              ROOT.parent / "shared/corpus")
BOXES = CORPUS / "qpdf/qpdf/qtest/qpdf/boxes.pdf"


def test_rotated_cropped_zoomed_page_in_chromium(tmp_path: Path, browser: Any) -> None:
    """Page 2 of qpdf's boxes.pdf (/Rotate 90, a crop box inside the media box) shown at
    1.25 pixels per point: the page's arrow buttons reach it; a square drawn and moved
    there lands where PDFium's FPDF_DeviceToPage puts the pixels, in the server's state and
    in the saved file; undo puts it back."""
    if not BOXES.exists():
        pytest.fail("the corpus file %s is missing (../shared/corpus)" % BOXES)
    s = Server(tmp_path, BOXES, scale=1.25)
    driver = browser
    try:
        driver.get(s.url)
        wait_idle(driver)
        click(driver, "#next")
        assert driver.find_element(By.ID, "page-number").text.startswith("2 /")
        state = s.state(1)
        size = (state["image"]["width"], state["image"]["height"])
        # Turned a quarter: the crop box's height (732 points) is the image's width.
        assert size == (915, 715)
        assert driver.find_element(By.ID, "page").size == {"width": 915, "height": 715}

        def user(x: int, y: int) -> Tuple[float, float]:
            return device_to_page(x, y, BOXES, 1, size)

        click(driver, "[data-tool=square]")
        drag(driver, (200, 150), (400, 300))
        added = s.state(1)["annotations"]
        assert [a["subtype"] for a in added] == ["Square"]
        (x0, y0), (x1, y1) = user(200, 150), user(400, 300)
        drawn = [min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)]
        assert near(added[0]["rect"], drawn, 1.0), (added[0]["rect"], drawn)
        drawn = added[0]["rect"]

        click(driver, "[data-tool=pan]")
        tap(driver, 300, 225)
        assert s.state(1)["selection"] == added[0]["object"]
        drag(driver, (300, 225), (350, 255))
        (ax, ay), (bx, by) = user(300, 225), user(350, 255)
        dx, dy = bx - ax, by - ay
        assert abs(dx) == pytest.approx(24) and abs(dy) == pytest.approx(40)  # 30 and 50 pixels, turned
        moved = [drawn[0] + dx, drawn[1] + dy, drawn[2] + dx, drawn[3] + dy]
        assert near(s.state(1)["annotations"][0]["rect"], moved, 0.01)
        click(driver, "#save")
        with pikepdf.open(s.output) as pdf:
            annots = pdf.pages[1].Annots
            assert [str(a.Subtype) for a in annots] == ["/Square"]
            assert near([float(v) for v in annots[0].Rect], moved, 0.01)
            assert "/Annots" not in pdf.pages[0] and "/Annots" not in pdf.pages[2]
        click(driver, "#undo")
        assert near(s.state(1)["annotations"][0]["rect"], drawn, 1e-6)
    finally:
        s.stop()
        print("---- server log ----\n" + s.logged())
        s.log.close()
