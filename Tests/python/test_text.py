"""Text (issue 18) through the binding: extraction with boxes, words, lines, selection,
search, markup from text; highlights rendered by PDFium and by pdftoppm colour the words
they were made on and not their neighbours; the corpus agrees with PDFium and MuPDF."""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest

import quire

from conftest import CORPUS, REPO
from quire_testing.peers import peer, peer_program
from quire_testing.paths import QUIRE_CLI

sys.path.insert(0, str(REPO / "Tests" / "corpus"))
import text_agreement  # noqa: E402


def _pdf(content: str, rotate: int = 0) -> bytes:
    """A one-page PDF (612 x 792) that shows `content` with Helvetica as /F1."""
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate %d /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>" % rotate,
        "<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = b"%PDF-1.7\n"
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body.encode("latin-1"))
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return out


TWO_LINES = "BT /F1 12 Tf 72 700 Td (Review the draft con-) Tj 0 -14 Td (tract before Friday.) Tj ET"


def _chars_one_call_each(text_page: "quire.TextPage") -> List["quire.TextChar"]:
    """The characters as the binding read them before issue 41: the per-character functions,
    several calls per character."""
    from ctypes import byref

    from quire import _raw
    from quire._ffi import query_bytes, query_doubles, text
    from quire._geometry import rect_from_c

    handle = text_page._live()
    out = []
    for i in range(len(text_page)):
        c = _raw.text_char_init()
        assert _raw.lib.quire_text_page_char(byref(c), handle, i) == 0
        quad = tuple(query_doubles(_raw.lib.quire_text_page_range_quads, handle, i, 1))
        out.append(quire.TextChar(
            text(query_bytes(_raw.lib.quire_text_page_char_text, handle, i)), rect_from_c(c.box),
            quad if quad else None, c.font_size, text(query_bytes(_raw.lib.quire_text_page_char_font, handle, i)),
            bool(c.is_generated), c.line, rect_from_c(c.glyph_box), bool(c.has_glyph_box)))
    return out


@pytest.mark.parametrize("name", [
    "pdfplumber/tests/pdfs/federal-register-2020-17221.pdf",  # 15 pages, several fonts
    "pdfplumber/tests/pdfs/issue-71-duplicate-chars-2.pdf",
    "pdfplumber/tests/pdfs/pr-138-example.pdf",
])
def test_chars_in_one_call_are_the_per_character_values(name: str):
    """Page.chars() reads a page with one library call (quire_text_page_char_infos, issue 41):
    every field of every character equals what the per-character functions give, ligatures
    and /ActualText spans (several scalars, read from the page's text) included, and the
    cyclic collector it pauses is running again after (and stays off if it was off)."""
    import gc

    path = CORPUS / name
    if not path.exists():
        pytest.skip("%s is not in the corpus" % name)
    several = 0
    with quire.Document(path) as doc:
        for page in list(doc.pages)[:8]:
            with page.text_page() as t:
                expected = _chars_one_call_each(t)
                assert t.chars == expected
                several += sum(1 for c in expected if len(c.text) != 1)
    if "duplicate-chars" in name:
        assert several > 0  # the path that reads a character's text from the page's
    assert gc.isenabled()
    gc.disable()
    try:
        with quire.Document(path) as doc:
            assert doc.pages[0].chars()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_chars_with_several_scalars_and_fonts():
    """A ligature's character carries its scalars; font indexes name each character's font."""
    content = "BT /F1 12 Tf 72 700 Td (Plain) Tj /F2 10 Tf (Bold) Tj /F1 12 Tf (again) Tj ET"
    pdf = _pdf(content).replace(b"/Font << /F1 5 0 R >>", b"/Font << /F1 5 0 R /F2 6 0 R >>")
    pdf = pdf.replace(b"xref", b"6 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>\nendobj\nxref")
    with quire.Document.from_bytes(pdf) as doc:
        chars = doc.pages[0].chars()
    assert "".join(c.text for c in chars) == "PlainBoldagain"
    assert [c.font for c in chars] == ["Helvetica"] * 5 + ["Helvetica-Bold"] * 4 + ["Helvetica"] * 5
    assert [c.font_size for c in chars][4:6] == [12.0, 10.0]


def test_page_text_chars_words_and_lines():
    with quire.Document.from_bytes(_pdf(TWO_LINES)) as doc:
        page = doc.pages[0]
        assert page.text == "Review the draft con-\ntract before Friday."
        chars = page.chars()
        r = chars[0]
        assert (r.text, r.font, r.font_size, r.generated, r.line) == ("R", "Helvetica", 12.0, False, 0)
        # R in Helvetica is 722/1000 em wide; the box spans descent -207 to ascent 718.
        assert r.box.left == pytest.approx(72) and r.box.right == pytest.approx(72 + 8.664)
        assert r.box.bottom == pytest.approx(700 - 2.484) and r.box.top == pytest.approx(700 + 8.616)
        assert r.quad == pytest.approx((72, 708.616, 80.664, 708.616, 72, 697.516, 80.664, 697.516))
        # The glyph box: Helvetica.afm's "N R ; B 88 0 684 718" at 12 pt.
        assert r.has_glyph_box
        assert tuple(r.glyph_box) == pytest.approx((72 + 1.056, 700, 72 + 8.208, 700 + 8.616))
        breaks = [c for c in chars if c.generated]
        assert [c.text for c in breaks] == ["\n"] and breaks[0].quad is None
        assert not breaks[0].has_glyph_box
        assert [w.text for w in page.words()][:4] == ["Review", "the", "draft", "con-"]
        assert [line.text for line in page.lines()] == ["Review the draft con-", "tract before Friday."]


def test_search_case_words_hyphenation_and_limits():
    with quire.Document.from_bytes(_pdf(TWO_LINES)) as doc:
        assert [m.text for m in doc.search("FRIDAY")] == ["Friday"]
        assert doc.search("friday", match_case=True) == []
        contract = doc.search("contract")
        assert len(contract) == 1 and contract[0].text == "con-\ntract" and len(contract[0].quads) == 2
        assert [m.text for m in doc.search("draft contract")] == ["draft con-\ntract"]
        assert len(doc.search("e", max_matches=2)) == 2
        assert doc.search("he", whole_word=True) == [] and len(doc.search("the", whole_word=True)) == 1
        assert doc.search("Friday", page=0)[0].page_index == 0
        with pytest.raises(quire.InvalidArgumentError):
            doc.search("   ")
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.search("x", page=3)


def test_selection_between_points():
    with quire.Document.from_bytes(_pdf(TWO_LINES)) as doc:
        page = doc.pages[0]
        draft = doc.search("draft")[0]
        friday = doc.search("Friday")[0]
        start = _centre(draft.quads[0])
        end = _centre(friday.quads[0])
        selection = page.select(start, end)
        assert selection.text.startswith("raft con-\ntract") or selection.text.startswith("aft con-")
        assert selection.text.endswith("Fri") or selection.text.endswith("Frid")
        assert len(selection.quads) == 2
        with page.text_page() as text:
            assert text.char_at(*start) == selection.first
            assert text.span(selection.first, selection.length) == selection
        with quire.Document.from_bytes(_pdf("")) as empty:
            assert empty.pages[0].select((0, 0), (100, 100)) is None
            assert empty.pages[0].text == ""


def test_highlight_from_a_match_covers_it_and_reads_back(tmp_path: Path):
    with quire.Document.from_bytes(_pdf(TWO_LINES)) as doc:
        match = doc.search("contract")[0]
        annotation = doc.add_highlight(match)
        assert annotation.subtype == "Highlight"
        assert annotation.quad_points == pytest.approx([n for q in match.quads for n in q])
        assert doc.marked_text(annotation) == "con-\ntract"
        underline = doc.add_text_markup(doc.search("Review")[0], "Underline")
        assert doc.marked_text(underline) == "Review"
        with pytest.raises(quire.InvalidArgumentError):
            doc.add_text_markup(match, "Ink")
        doc.save(tmp_path / "out.pdf")
    with quire.Document(tmp_path / "out.pdf") as saved:
        kinds = [(a.subtype, saved.marked_text(a)) for a in saved.pages[0].annotations]
        assert kinds == [("Highlight", "con-\ntract"), ("Underline", "Review")]


def test_annotation_json_carries_the_marked_text_and_round_trips(tmp_path: Path):
    import json

    with quire.Document.from_bytes(_pdf(TWO_LINES)) as doc:
        doc.add_highlight(doc.search("contract")[0])
        doc.add_text_markup(doc.search("Friday")[0], "StrikeOut")
        doc.add_text_markup(doc.search("Review")[0], "Underline")
        exported = doc.export_annotations_json()
        records = json.loads(exported)["annotations"]
        marked = [(r["type"], r.get("quire", {}).get("markedText")) for r in records]
        assert marked == [("pspdfkit/markup/highlight", "con-\ntract"), ("pspdfkit/markup/strikeout", "Friday"),
                          ("pspdfkit/markup/underline", "Review")]
        # Import ignores it (the page's text is the truth): export, import, export is a no-op,
        # and a record whose markedText a client changed imports as before.
        doc.import_annotations_json(exported)
        assert doc.export_annotations_json() == exported
        edited = json.loads(exported)
        edited["annotations"][0]["quire"]["markedText"] = "something else"
        doc.import_annotations_json(json.dumps(edited))
        assert doc.export_annotations_json() == exported


def test_text_page_outlives_its_document_and_closes():
    doc = quire.Document.from_bytes(_pdf(TWO_LINES))
    text = doc.pages[0].text_page()
    doc.close()
    assert text.text.startswith("Review") and len(text) == 42 and text.warnings == []
    text.close()
    text.close()
    with pytest.raises(quire.StateError):
        text.text


def test_damaged_content_is_kept_up_to_the_damage():
    with quire.Document.from_bytes(_pdf("BT /F1 12 Tf 72 700 Td (kept) Tj /Nope 9 Tf (too) Tj [ << ET")) as doc:
        assert doc.pages[0].text.startswith("kepttoo")


# ---------------------------------------------------------------------------------------
# Highlights as PDFium and poppler render them
# ---------------------------------------------------------------------------------------

SCALE = 2.0
# Corpus files with text; the last three have rotated pages (/Rotate 90 and 270).
RENDER_FILES = [
    "qpdf/qpdf/qtest/qpdf/annotations-no-acroform.pdf",
    "qpdf/qpdf/qtest/qpdf/appearances-12.pdf",
    "pdfplumber/tests/pdfs/senate-expenditures.pdf",
    "pdfplumber/tests/pdfs/issue-140-example.pdf",
    "pypdf/resources/AutoCad_Diagram.pdf",
    "qpdf/qpdf/qtest/qpdf/overlay-copy-annotations-p5.pdf",
]


def _centre(q) -> Tuple[float, float]:
    return (sum(q[0::2]) / 4, sum(q[1::2]) / 4)


def _inner_points(q, n: int = 12) -> List[Tuple[float, float]]:
    """Points spread over the middle of quad q (upper-left, upper-right, lower-left,
    lower-right), away from its edges."""
    ul, ur, ll, lr = (q[0], q[1]), (q[2], q[3]), (q[4], q[5]), (q[6], q[7])
    out = []
    for i in range(n):
        s = 0.2 + 0.6 * i / (n - 1)
        for t in (0.3, 0.4, 0.5, 0.6, 0.7):
            top = (ul[0] + (ur[0] - ul[0]) * s, ul[1] + (ur[1] - ul[1]) * s)
            bottom = (ll[0] + (lr[0] - ll[0]) * s, ll[1] + (lr[1] - ll[1]) * s)
            out.append((bottom[0] + (top[0] - bottom[0]) * t, bottom[1] + (top[1] - bottom[1]) * t))
    return out


def _renders(path: Path, page_index: int):
    """(PDFium image, poppler image, user space -> pixel) of a page at SCALE."""
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    pdf = pdfium.PdfDocument(str(path))
    page = pdf[page_index]
    image = page.render(scale=SCALE, may_draw_forms=False, draw_annots=True).to_pil().convert("RGB")
    width, height = image.size

    def to_pixel(x: float, y: float) -> Tuple[int, int]:
        dx, dy = ctypes.c_int(), ctypes.c_int()
        raw.FPDF_PageToDevice(page, 0, 0, width, height, 0, x, y, ctypes.byref(dx), ctypes.byref(dy))
        return dx.value, dy.value

    points = {}
    from PIL import Image

    out = path.parent / ("poppler-%d" % page_index)
    subprocess.run(["pdftoppm", "-png", "-r", str(int(72 * SCALE)), "-f", str(page_index + 1), "-l",
                    str(page_index + 1), "-singlefile", str(path), str(out)], check=True)
    poppler = Image.open(str(out) + ".png").convert("RGB").resize((width, height))
    # to_pixel needs the page: keep the document open through the closure
    points["pdf"] = pdf
    return image, poppler, to_pixel, points


def _share_yellowed(before, after, pixels) -> float:
    """Of the pixels that were light before (paper, not glyph ink: a highlight multiplies,
    so ink stays black), the share whose blue fell by more than 60 while red and green
    stayed within 60: what Multiply with yellow does. 0 when no pixel was light."""
    light = yellowed = 0
    for x, y in pixels:
        if not (0 <= x < before.size[0] and 0 <= y < before.size[1]):
            continue
        r0, g0, b0 = before.getpixel((x, y))
        if min(r0, g0, b0) < 180:
            continue
        light += 1
        r1, g1, b1 = after.getpixel((x, y))
        if b1 < b0 - 60 and r1 > r0 - 60 and g1 > g0 - 60:
            yellowed += 1
    return yellowed / light if light else 0.0


@pytest.mark.parametrize("name", RENDER_FILES)
def test_highlight_colours_its_words_and_not_their_neighbours(name: str, tmp_path: Path):
    peer_program("pdftoppm")
    peer("PIL")
    source = CORPUS / name
    if not source.exists():
        pytest.skip("corpus file %s is absent" % name)
    with quire.Document(source) as doc:
        words = [w for w in doc.pages[0].words() if len(w.text) >= 4 and w.text.isalpha()]
        # A word with neighbours on its line, searched for as a whole word.
        target = None
        all_words = doc.pages[0].words()
        for i in range(1, len(all_words) - 1):
            w = all_words[i]
            if w in words and len(w.quads) == 1:
                target = (all_words[i - 1], w, all_words[i + 1])
                break
        assert target is not None, "no word to highlight on page 1 of %s" % name
        before_word, word, after_word = target
        matches = [m for m in doc.search(word.text, page=0, whole_word=True, match_case=True) if m.first == word.first]
        assert matches, "search did not find %r where the words are" % word.text
        doc.add_highlight(matches[0])
        original = tmp_path / "original.pdf"
        shutil.copy(source, original)
        highlighted = tmp_path / "highlighted.pdf"
        doc.save(highlighted)
    base_pdfium, base_poppler, to_pixel_base, keep1 = _renders(original, 0)
    high_pdfium, high_poppler, to_pixel, keep2 = _renders(highlighted, 0)
    for before, after, renderer in ((base_pdfium, high_pdfium, "PDFium"), (base_poppler, high_poppler, "pdftoppm")):
        inside = _share_yellowed(before, after, [to_pixel(*p) for q in matches[0].quads for p in _inner_points(q)])
        assert inside >= 0.9, "%s: %s coloured %.2f of %r" % (name, renderer, inside, word.text)
        for neighbour in (before_word, after_word):
            if neighbour.quads and neighbour.quads[0][1] == pytest.approx(word.quads[0][1], abs=1):
                outside = _share_yellowed(before, after, [to_pixel(*p) for q in neighbour.quads for p in _inner_points(q)])
                assert outside <= 0.1, "%s: %s coloured %.2f of the neighbour %r" % (name, renderer, outside, neighbour.text)


# ---------------------------------------------------------------------------------------
# The corpus against PDFium and MuPDF
# ---------------------------------------------------------------------------------------

# The thresholds of issue 18's "done when" (the measure: Tests/corpus/text_agreement.py).
MEDIAN_SIMILARITY = 0.98
SHARE_ABOVE_0_9 = 0.97
# Character boxes (TextChar.box) against PDFium's loose boxes (FPDFText_GetLooseCharBox:
# the font's ascent and descent, as Quire's are).
MEDIAN_LOOSE_IOU = 0.7
# Quire's glyph boxes (TextChar.glyph_box: the outline's box from the embedded font
# program, or the AFM box) against FPDFText_GetCharBox: the goal, median above 0.8.
MEDIAN_GLYPH_IOU = 0.8


@pytest.fixture(scope="module")
def corpus_report():
    peer("pypdfium2")
    peer("pymupdf")
    if not (CORPUS / "manifest.jsonl").exists():
        pytest.skip("the corpus is absent")
    return text_agreement.measure(text_agreement.quire_binding_pages)


def test_corpus_text_agrees_with_pdfium_or_mupdf(corpus_report):
    summary = text_agreement.summary(corpus_report)
    print(summary)
    assert summary["files"] >= 500
    assert summary["failures"] == 0, corpus_report["failures"][:5]
    assert summary["similarity_median"] >= MEDIAN_SIMILARITY
    assert summary["similarity_above_0_9"] >= SHARE_ABOVE_0_9


def test_corpus_boxes_overlap_pdfium(corpus_report):
    summary = text_agreement.summary(corpus_report)
    assert summary["iou_loose_median_of_files"] >= MEDIAN_LOOSE_IOU
    assert summary["iou_median_of_files"] > MEDIAN_GLYPH_IOU


# One small corpus file per font program format (only fonts of that format in it), and
# the median IoU of Quire's glyph boxes with PDFium's FPDFText_GetCharBox on it.
GLYPH_BOX_SAMPLES = [
    ("pypdfium2/tests/resources/render.pdf", "Type 1 (FontFile)"),
    ("okular/autotests/data/file1.pdf", "Type 1 (FontFile)"),
    ("pdfminer/samples/contrib/issue-886-xref-stream-widths.pdf", "TrueType (FontFile2)"),
    ("pdfium/testing/resources/bigtable_mini.pdf", "CFF (FontFile3 /Type1C)"),
    ("pdfbox/pdfbox/src/test/resources/input/Liste732004001452_001_0.pdf_0_.pdf", "CFF (FontFile3 /Type1C)"),
    ("pypdfium2/tests/resources/toc.pdf", "CID-keyed CFF (FontFile3 /CIDFontType0C)"),
    ("openpdf/openpdf-core/src/test/resources/identity-h.pdf", "CID-keyed CFF (FontFile3 /CIDFontType0C)"),
    ("pdfium/testing/resources/pixel/xfa_specific/barcode_test.pdf", "OpenType CFF (FontFile3 /OpenType)"),
    ("pdfminer/samples/simple1.pdf", "standard 14, not embedded (AFM boxes)"),
]


@pytest.mark.parametrize("name", ["pdfminer/samples/jo.pdf", "pdfminer/samples/nonfree/nlp2004slides.pdf",
                                  "pdfminer/samples/nonfree/kampo.pdf"])
def test_adobe_japan1_without_to_unicode_agrees_with_a_peer(name: str):
    # Adobe-Japan1 fonts with Identity-H/V and no /ToUnicode: Unicode from the collection's
    # UCS2 CMap (scored 0.0, 0.08 and 0.71 before it was built in).
    peer("pypdfium2")
    peer("pymupdf")
    path = CORPUS / name
    if not path.exists():
        pytest.skip("the corpus is absent")
    theirs = text_agreement.pdfium_pages(path, text_agreement.MAX_PAGES)
    ours = text_agreement.normalise("".join(p[0] for p in text_agreement.quire_binding_pages(path, len(theirs))))
    pdfium = text_agreement.normalise("".join(p[0] for p in theirs))
    mupdf = text_agreement.normalise("".join(text_agreement.mupdf_text(path, text_agreement.MAX_PAGES)))
    best = max(text_agreement.similarity(ours, pdfium), text_agreement.similarity(ours, mupdf))
    assert best >= 0.98, "%s: %.3f" % (name, best)


@pytest.mark.parametrize("name,kind", GLYPH_BOX_SAMPLES)
def test_glyph_boxes_match_pdfium_per_font_format(name: str, kind: str):
    peer("pypdfium2")
    path = CORPUS / name
    if not path.exists():
        pytest.skip("the corpus is absent")
    theirs = text_agreement.pdfium_pages(path, text_agreement.MAX_PAGES)
    ours = text_agreement.quire_binding_pages(path, len(theirs))
    scores: List[float] = []
    for (_, _, glyphs), (_, tight, _) in zip(ours, theirs):
        scores += text_agreement.box_scores(glyphs, tight)
    assert len(scores) >= 5, "%s: %d characters paired" % (name, len(scores))
    assert statistics.median(scores) >= 0.93, "%s (%s): median IoU %.3f" % (name, kind, statistics.median(scores))


# ---------------------------------------------------------------------------------------
# The command-line tool
# ---------------------------------------------------------------------------------------


def test_cli_text_search_and_annots(tmp_path: Path):
    import json

    quire_cli = QUIRE_CLI
    if not quire_cli.exists():
        pytest.skip("build/bin/quire is missing: run make")
    source = tmp_path / "two-lines.pdf"
    source.write_bytes(_pdf(TWO_LINES))
    out = subprocess.run([str(quire_cli), "text", str(source)], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == "Review the draft con-\ntract before Friday.\n"
    out = subprocess.run([str(quire_cli), "text", "--json", "--page", "1", str(source)], capture_output=True, text=True)
    page = json.loads(out.stdout)[0]
    assert page["page"] == 1 and page["chars"][0]["text"] == "R" and page["chars"][0]["font"] == "Helvetica"
    assert page["chars"][0]["box"] == pytest.approx([72, 697.516, 80.664, 708.616])
    assert [c["generated"] for c in page["chars"]].count(True) == 1  # the spaces are the file's; the line break is not
    out = subprocess.run([str(quire_cli), "search", "--json", str(source), "contract"], capture_output=True, text=True)
    matches = json.loads(out.stdout)
    assert out.returncode == 0 and [(m["page"], m["text"], m["first"], m["last"]) for m in matches] == [(1, "con-\ntract", 17, 26)]
    assert subprocess.run([str(quire_cli), "search", str(source), "absent"], capture_output=True).returncode == 3
    # Positions print to a ten-thousandth of a point (sample.pdf's first "pdfium" printed
    # 100.02000000000001).
    out = subprocess.run([str(quire_cli), "search", str(REPO / "examples" / "sample.pdf"), "pdfium"], capture_output=True, text=True)
    numbers = re.findall(r"-?\d+\.\d+", out.stdout)
    assert out.returncode == 0 and numbers and all(len(n.split(".")[1]) <= 4 for n in numbers), out.stdout
    out = subprocess.run([str(quire_cli), "search", "--json", str(REPO / "examples" / "sample.pdf"), "pdfium"], capture_output=True, text=True)
    quads = [v for m in json.loads(out.stdout) for q in m["quads"] for v in q]
    assert quads and all(round(v, 4) == v for v in quads)
    assert subprocess.run([str(quire_cli), "text", "--page", "2", str(source)], capture_output=True).returncode == 1
    assert subprocess.run([str(quire_cli), "text", "--page", "x", str(source)], capture_output=True).returncode == 2
    with quire.Document(source) as doc:
        doc.add_highlight(doc.search("Friday")[0])
        doc.save(tmp_path / "marked.pdf")
    out = subprocess.run([str(quire_cli), "annots", "--json", str(tmp_path / "marked.pdf")], capture_output=True, text=True)
    assert [(a["subtype"], a["text"]) for a in json.loads(out.stdout)] == [("Highlight", "Friday")]
