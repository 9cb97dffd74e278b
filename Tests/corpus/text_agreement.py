"""How far Quire's text agrees with PDFium's and MuPDF's over the corpus (issue 18).

The measure, documented here because the corpus test's thresholds are stated in it:

- Files: every corpus file of manifest.jsonl that is no duplicate and that PDFium opens
  without a password; of each, the first MAX_PAGES pages. A file counts when PDFium
  extracts at least MIN_CHARS non-white-space characters from those pages ("the files
  that PDFium extracts text from").
- Text similarity of one file: both texts normalised (Unicode NFKC; white space, control
  characters and U+FFFD removed: where the engines put spaces and line breaks is layout,
  not text), then difflib's ratio 2*M/T (M matched characters, T both lengths) of
  Quire's text against PDFium's and against MuPDF's; the file's score is the larger of
  the two ("whichever is closer").
- Boxes: Quire's characters and PDFium's are paired along difflib's alignment of the two
  normalised texts; the file's box score is the median intersection-over-union of its
  pairs. Two scores: Quire's glyph box (the glyph's outline or AFM box, `glyph_box`)
  against FPDFText_GetCharBox (the glyph's own box), and Quire's box (ascent to descent,
  the one highlights use) against FPDFText_GetLooseCharBox.

Run as a script for the distribution and the worst files:
    PYTHONPATH=bindings/python python3 Tests/corpus/text_agreement.py [--limit N] [--json OUT]
"""

from __future__ import annotations

import difflib
import json
import statistics
import sys
import time
import unicodedata
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
MAX_PAGES = 3
MIN_CHARS = 20
# Texts longer than this (after normalisation) are cut for the ratio: difflib is
# quadratic in the worst case.
MAX_TEXT = 20000

Box = Tuple[float, float, float, float]
# (text, box) per character, boxes as (left, bottom, right, top)
Chars = List[Tuple[str, Optional[Box]]]
# Per page: the text, (text, box) per character, (text, glyph box) per character.
QuirePage = Tuple[str, Chars, Chars]


def corpus_files() -> List[Dict]:
    entries = []
    seen = set()
    with open(CORPUS / "manifest.jsonl") as f:
        for line in f:
            e = json.loads(line)
            if e.get("duplicate_of") or e["sha256"] in seen:
                continue
            seen.add(e["sha256"])
            if not (e.get("pdfium") or {}).get("opens"):
                continue
            entries.append(e)
    return entries


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return "".join(c for c in text if not c.isspace() and unicodedata.category(c)[0] != "C" and c != "\ufffd")


def similarity(a: str, b: str) -> float:
    a, b = a[:MAX_TEXT], b[:MAX_TEXT]
    if not a and not b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def pdfium_pages(path: Path, pages: int) -> List[Tuple[str, Chars, Chars]]:
    """Per page: PDFium's text, its (char, tight box) and (char, loose box)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw
    import ctypes

    out = []
    doc = pdfium.PdfDocument(str(path))
    try:
        for i in range(min(pages, len(doc))):
            page = doc[i]
            tp = page.get_textpage()
            n = tp.count_chars()
            text = tp.get_text_range() if n > 0 else ""
            tight: Chars = []
            loose: Chars = []
            for k in range(n):
                u = raw.FPDFText_GetUnicode(tp, k)
                ch = chr(u) if 0 < u < 0x110000 else ""
                left, bottom, right, top = tp.get_charbox(k)
                tight.append((ch, (left, bottom, right, top)))
                rect = raw.FS_RECTF()
                if raw.FPDFText_GetLooseCharBox(tp, k, ctypes.byref(rect)):
                    loose.append((ch, (rect.left, rect.bottom, rect.right, rect.top)))
                else:
                    loose.append((ch, None))
            out.append((text, tight, loose))
    finally:
        doc.close()
    return out


def mupdf_text(path: Path, pages: int) -> List[str]:
    import pymupdf

    doc = pymupdf.open(str(path))
    try:
        return [doc[i].get_text() for i in range(min(pages, doc.page_count))]
    finally:
        doc.close()


def iou(a: Box, b: Box) -> float:
    ax0, ay0, ax1, ay1 = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    bx0, by0, bx1, by1 = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    w = min(ax1, bx1) - max(ax0, bx0)
    h = min(ay1, by1) - max(ay0, by0)
    inter = max(w, 0) * max(h, 0)
    union = (ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter
    return inter / union if union > 0 else (1.0 if inter == 0 and a == b else 0.0)


def box_scores(quire_chars: Chars, peer_chars: Chars) -> List[float]:
    """IoU of each pair of characters that the alignment of the two texts matches."""
    def keep(chars: Chars) -> Tuple[str, List[Optional[Box]]]:
        s, boxes = [], []
        for text, box in chars:
            for c in normalise(text):
                s.append(c)
                boxes.append(box)
        return "".join(s), boxes

    qs, qb = keep(quire_chars)
    ps, pb = keep(peer_chars)
    qs, ps = qs[:MAX_TEXT], ps[:MAX_TEXT]
    scores = []
    for block in difflib.SequenceMatcher(None, qs, ps, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            a, b = qb[block.a + k], pb[block.b + k]
            if a is not None and b is not None:
                scores.append(iou(a, b))
    return scores


def measure(quire_pages: Callable[[Path, int], List[QuirePage]], limit: Optional[int] = None,
            progress: bool = False) -> Dict:
    """Scores every corpus file PDFium extracts text from. `quire_pages(path, n)` gives
    Quire's (text, chars, glyph chars) of the first n pages."""
    results = []
    failures = []
    files = corpus_files()
    if limit:
        files = files[:limit]
    timings = {"quire": 0.0, "pdfium": 0.0}
    for k, e in enumerate(files):
        path = CORPUS / e["path"]
        try:
            t0 = time.perf_counter()
            peer = pdfium_pages(path, MAX_PAGES)
            timings["pdfium"] += time.perf_counter() - t0
        except Exception:
            continue
        pdfium_text = "".join(p[0] for p in peer)
        if len(normalise(pdfium_text)) < MIN_CHARS:
            continue
        try:
            mu = "".join(mupdf_text(path, MAX_PAGES))
        except Exception:
            mu = ""
        try:
            t0 = time.perf_counter()
            ours = quire_pages(path, len(peer))
            timings["quire"] += time.perf_counter() - t0
        except Exception as error:  # a file Quire cannot read: scored 0, listed
            failures.append((e["path"], repr(error)))
            ours = [("", [], [])]
        q = normalise("".join(p[0] for p in ours))
        s_pdfium = similarity(q, normalise(pdfium_text))
        s_mupdf = similarity(q, normalise(mu)) if mu else 0.0
        tight, loose = [], []
        for (text, chars, glyphs), (_, ptight, ploose) in zip(ours, peer):
            tight += box_scores(glyphs, ptight)
            loose += box_scores(chars, ploose)
        results.append({
            "path": e["path"],
            "similarity": max(s_pdfium, s_mupdf),
            "vs_pdfium": s_pdfium,
            "vs_mupdf": s_mupdf,
            "iou": statistics.median(tight) if tight else None,
            "iou_loose": statistics.median(loose) if loose else None,
            "chars": len(q),
        })
        if progress and k % 100 == 0:
            print("%d/%d" % (k, len(files)), file=sys.stderr)
    return {"files": results, "failures": failures, "timings": timings}


def summary(report: Dict) -> Dict:
    files = report["files"]
    sims = [f["similarity"] for f in files]
    ious = [f["iou"] for f in files if f["iou"] is not None]
    loose = [f["iou_loose"] for f in files if f["iou_loose"] is not None]
    def q(values, p):
        values = sorted(values)
        return values[min(len(values) - 1, int(p * len(values)))] if values else None
    return {
        "files": len(files),
        "similarity_median": statistics.median(sims) if sims else None,
        "similarity_above_0_9": sum(1 for s in sims if s > 0.9) / len(sims) if sims else None,
        "similarity_p10": q(sims, 0.10),
        "similarity_p25": q(sims, 0.25),
        "iou_median_of_files": statistics.median(ious) if ious else None,
        "iou_loose_median_of_files": statistics.median(loose) if loose else None,
        "failures": len(report["failures"]),
        "timings": report["timings"],
    }


def quire_cli_pages(path: Path, pages: int) -> List[QuirePage]:
    """Quire's text through `quire text --json` (the CLI), for running without the binding."""
    import subprocess
    exe = ROOT / ".build" / "release" / "quire-cli"
    out = subprocess.run([str(exe), "text", "--json", str(path)], capture_output=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.decode(errors="replace"))
    data = json.loads(out.stdout)
    result = []
    for p in data[:pages]:
        chars, glyphs = [], []
        for c in p["chars"]:
            if c["generated"]:
                continue
            chars.append((c["text"], tuple(c["box"])))
            glyphs.append((c["text"], tuple(c["glyph_box"] or c["box"])))
        result.append((p["text"], chars, glyphs))
    return result


def quire_binding_pages(path: Path, pages: int) -> List[QuirePage]:
    """Quire's text through the Python binding."""
    import quire
    out = []
    with quire.Document(path) as doc:
        for i in range(min(pages, doc.page_count)):
            page = doc.pages[i]
            text = page.text
            real = [c for c in page.chars() if not c.generated]
            out.append((text, [(c.text, c.box) for c in real], [(c.text, c.glyph_box) for c in real]))
    return out


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int)
    parser.add_argument("--cli", action="store_true", help="read Quire's text through the CLI")
    parser.add_argument("--json", help="write the per-file report here")
    args = parser.parse_args()
    report = measure(quire_cli_pages if args.cli else quire_binding_pages, limit=args.limit, progress=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    print(json.dumps(summary(report), indent=1))
    worst = sorted(report["files"], key=lambda f: f["similarity"])[:15]
    for f in worst:
        print("%.3f  pdfium %.3f  mupdf %.3f  iou %s  %s" % (f["similarity"], f["vs_pdfium"], f["vs_mupdf"], f["iou"], f["path"]))
    print("worst glyph-box IoU against FPDFText_GetCharBox:")
    for f in sorted((f for f in report["files"] if f["iou"] is not None), key=lambda f: f["iou"])[:25]:
        print("%.3f  (loose %.3f, %d chars)  %s" % (f["iou"], f["iou_loose"] or 0, f["chars"], f["path"]))
    for path, error in report["failures"][:20]:
        print("FAILED", path, error[:200])
