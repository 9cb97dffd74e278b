"""The corpus sweep of issue 38: on a page with text, chosen at random, of each corpus file
that the peers open (page_sweep.sweep_files: the same selection as the page sweep), redact
a random word (by search) and, separately, a random rectangle over a run of characters,
and check each output as Tests/python/test_redaction.py does (check_page: PDFium's and
MuPDF's text, characters outside the regions in place within 0.5 pt, PDFium's pixels).

    python3 Tests/python/redaction_sweep.py [--every N] [--limit N] [--out report.json]

A sixteenth of the files by default (every sixteenth from a seeded offset); --every 1 is
the long run over all of them. The files are worked on by two long-lived child processes
(page_sweep.run_batched: the peers loaded once per child, not per file); a crash or a hang
is still seen as one (the file reported, the child replaced) and the sweep goes on. A page whose content Quire cannot read to
its end is refused (FormatError, nothing applied): counted as refused, not as a failure.
Exit status: 0 if nothing crashed or hung.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TIMEOUT = 120
SEED = 38


def on_page(data: bytes, index: int) -> list:
    """PDFium's characters of page `index` that are on it (their box meets its crop box):
    a rectangle over characters wholly off the page is a region Quire refuses, as
    documented (bad input)."""
    import pypdfium2
    from test_redaction import pdfium_chars

    doc = pypdfium2.PdfDocument(data)
    try:
        x0, y0, x1, y1 = doc[index].get_cropbox()
    finally:
        doc.close()
    return [
        (c, b)
        for c, b in pdfium_chars(data, index)
        if b[0] < max(x0, x1) and b[2] > min(x0, x1) and b[1] < max(y0, y1) and b[3] > min(y0, y1)
    ]


#: A change that a certification signature does not allow (DocMDP P=1) is refused, as
#: documented: counted as refused, not as a failure.
CERTIFIED = "is certified with DocMDP permission"

#: (file, case) of the sweep whose check fails for a reason docs/redaction.md documents
#: ("The whole corpus"): a case Quire does not handle, or where the peers read the same
#: content differently. Reported apart ("known"), never as passing: a failure not listed
#: here, or a listed one of another kind, is a failure.
KNOWN: Dict[tuple, str] = {
    ("pdfminer/samples/simple1.pdf", "word"): "PDFium extracts 'Hello'",  # letter-spaced: PDFium joins
    ("pdfminer/samples/nonfree/cmp_itext_logo.pdf", "word"): "PDFium extracts 'ITEXT'",  # a column of letters
    ("openpdf/openpdf-core/src/test/resources/pdf-2-0/pdf20-utf8-test.pdf", "word"): "MuPDF extracts 'with'",
    ("pdfium/testing/resources/vertical_text.pdf", "rect"): "characters outside the regions moved",
    ("pdfium-in/testing/resources/vertical_text.pdf", "rect"): "characters outside the regions moved",
}


def known(report: Dict[str, Any]) -> None:
    """Moves the failures of `report` that KNOWN lists, of the kind it says, to "known"."""
    for failure in list(report["failures"]):
        why = KNOWN.get((report["file"], failure[0]))
        if why is not None and why in failure[1]:
            report["failures"].remove(failure)
            report.setdefault("known", []).append(failure)


def work(path: str, seed: int) -> Dict[str, Any]:
    import quire
    from page_sweep import CORPUS
    import test_redaction
    from test_redaction import apply, check_page, pdfium_text

    report: Dict[str, Any] = {"file": path, "failures": [], "refused": [], "checked": 0}
    data = (CORPUS / path).read_bytes()
    rng = random.Random(seed)
    try:
        import pypdfium2

        doc = pypdfium2.PdfDocument(data)
        count = len(doc)
        doc.close()
    except Exception as e:  # PDFium's own refusal: not ours to check
        report["skipped"] = "PDFium: %s" % e
        return report
    pages = list(range(min(count, 50)))
    rng.shuffle(pages)
    chars = []
    for index in pages[:5]:
        try:
            chars = on_page(data, index)
        except pypdfium2.PdfiumError:  # a page PDFium refuses (bad_page_type.pdf): not ours to check
            chars = []
        if len(chars) >= 10:
            break
    if len(chars) < 10:
        report["skipped"] = "no page with text"
        return report
    report["page"] = index
    words = re.findall(r"[A-Za-z]{4,}", pdfium_text(data, index))
    start = rng.randrange(len(chars) - 5)
    boxes = [b for _, b in chars[start : start + 5]]
    rect = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    cases = [("rect", lambda d: d.pages[index].add_redaction(rect))]
    if words:
        word = rng.choice(words)
        report["word"] = word
        cases.append(("word", lambda d: d.add_redactions(word)))
    for name, mark in cases:
        try:
            after, regions, result = apply(data, mark)
        except quire.FormatError as e:
            report["refused"].append([name, str(e)[:200]])
            continue
        except quire.QuireError as e:
            if isinstance(e, quire.StateError) and CERTIFIED in str(e):
                report["refused"].append([name, str(e)[:200]])
                continue
            report["failures"].append([name, "%s: %s" % (type(e).__name__, str(e)[:200])])
            continue
        whole = [w for w in test_redaction.last_warnings if "removed whole" in w]
        if whole:
            # An image partly in a region that Quire does not re-encode went whole, as
            # documented: the page outside the regions changed by design.
            report.setdefault("images_removed_whole", []).append([name, whole[0][:200]])
            continue
        try:
            for page in sorted({p for p, _ in regions}):
                check_page(
                    data,
                    after,
                    page,
                    [r for p, r in regions if p == page],
                    secret=report.get("word") if name == "word" else None,
                )
            report["checked"] += 1
            report.setdefault("applied", []).append([name, result.redactions, result.glyphs_removed])
        except AssertionError as e:
            report["failures"].append([name, ((str(e).splitlines() or [repr(e)])[0])[:300]])
    known(report)
    return report


def sweep(files: List[str], jobs: int = 2) -> List[Dict[str, Any]]:
    """Each file on one of `jobs` long-lived children (page_sweep.run_batched)."""
    sys.path.insert(0, str(HERE))
    from page_sweep import run_batched

    tasks = [(f, [f, SEED + i]) for i, f in enumerate(files)]
    return run_batched(__file__, tasks, jobs, timeout=TIMEOUT)  # type: ignore[arg-type]


def files(every: int) -> List[str]:
    from page_sweep import sweep_files

    return sweep_files(whole=every == 1, every=every)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=16)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if args.serve:
        from page_sweep import serve

        return serve(work)
    chosen = files(args.every)
    if args.limit:
        chosen = chosen[: args.limit]
    reports = sweep(chosen, args.jobs)
    bad = [r for r in reports if r["failures"] or r.get("crashed") or r.get("hung")]
    for r in bad:
        print(json.dumps(r))
    checked = sum(r.get("checked", 0) for r in reports)
    refused = sum(len(r.get("refused", [])) for r in reports)
    print(
        "%d files, %d redactions checked, %d refused, %d skipped, %d with known failures (docs/redaction.md),"
        " %d with failures (%d raised in a check), %d crashed, %d hung"
        % (
            len(reports),
            checked,
            refused,
            sum(1 for r in reports if r.get("skipped")),
            sum(1 for r in reports if r.get("known")),
            sum(1 for r in reports if r["failures"]),
            sum(1 for r in reports if r.get("error")),
            sum(1 for r in reports if r.get("crashed")),
            sum(1 for r in reports if r.get("hung")),
        )
    )
    if args.out:
        Path(args.out).write_text(json.dumps(reports, indent=1))
    return 1 if any(r.get("crashed") or r.get("hung") for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
