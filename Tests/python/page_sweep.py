"""The corpus sweep of issue 36: for every corpus file that the peers open, delete a page
chosen at random, move another, rotate one, merge the file with another corpus file, split
it in two and encrypt one half; every output is checked by the peers.

    python3 Tests/python/page_sweep.py [--all] [--limit N] [--out report.json]

Without --all, a quarter of the files (every fourth in path order, from an offset drawn
with a fixed seed): `make test-pages-sweep`; `make test` runs a sixteenth
(Tests/python/test_page_operations.py, which QUIRE_PAGES_CORPUS=quarter or all widens);
--all is the long run over all of it. Files: not duplicates, not encrypted, opened by PDFium, MuPDF
and pikepdf, whose page count PDFium and Quire agree on; at most 200 pages and 20 MB (the
sweep reads every page's text).

Each file is worked on by a child process (so that a crash or a hang is seen as one and
the sweep goes on); the checks, on the bytes each full save writes:

- edit (delete, move, rotate): PDFium, MuPDF and qpdf count the pages expected; each
  page's text as PDFium extracts it is its source page's (for the rotated page, PDFium's
  text of its source page turned by qpdf: PDFium orders a page's text, breaks its lines
  and drops overlapping duplicate glyphs by the page's rotation; where qpdf reads a
  damaged source otherwise than PDFium, the source page's characters); the rotated page's
  rotation is its source's plus 90 (PDFium);
- merge: the file's pages, then the other file's, by count and text;
- split: two parts, by count and text; the first part encrypted with AES-256 opens with
  its user password in pikepdf, PDFium and MuPDF with the pages expected, and is refused
  by each without it;
- qpdf --check finds no error (exit 2) in an output unless it found one in a source (for
  a merge, either file).

A failure is reported with the check and the message. Exit status: 0 if nothing failed,
crashed or hung.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, cast

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
HERE = Path(__file__).resolve().parent

SAMPLE_EVERY = 4
SAMPLE_SEED = 36
MAX_PAGES = 200
MAX_BYTES = 20 * 1024 * 1024
TIMEOUT = 180


def sweep_files(whole: bool, every: int = SAMPLE_EVERY) -> List[str]:
    """The files of the sweep, in path order: all of them, or every `every`th from a fixed
    offset (a quarter by default)."""
    files = []
    for line in (CORPUS / "manifest.jsonl").read_text().splitlines():
        r = json.loads(line)
        c = r["consensus"]
        opens = c.get("opens") or {}
        if (
            r.get("duplicate_of")
            or c.get("is_encrypted")
            or not all(opens.get(p) for p in ("pdfium", "mupdf", "pikepdf"))
        ):
            continue
        if not c.get("page_count") or c["page_count"] > MAX_PAGES or r.get("size", 0) > MAX_BYTES:
            continue
        files.append(r["path"])
    files.sort()
    if whole:
        return files
    offset = random.Random(SAMPLE_SEED).randrange(every)
    return files[offset::every]


# ----------------------------------------------------------------------------------------
# The child: one file
# ----------------------------------------------------------------------------------------


def _texts(data: bytes, password: Optional[str] = None) -> List[str]:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(data, password=password)
    try:
        return [" ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf))]
    finally:
        pdf.close()


def _letters(text: str) -> List[str]:
    """The characters of a page's text in any order, without spaces and the hyphens that
    PDFium adds or marks at line ends (U+FFFE)."""
    return sorted(c for c in text if not c.isspace() and c not in "-\ufffe")


def _turned_text(data: bytes, index: int) -> str:
    """PDFium's text of page `index` once qpdf (pikepdf) has turned it a quarter: what
    Quire's rotation of the page is held to."""
    import pikepdf

    with pikepdf.open(io.BytesIO(data)) as pdf:
        pdf.pages[index].rotate(90, relative=True)
        out = io.BytesIO()
        pdf.save(out)
    return _texts(out.getvalue())[index]


def _rotation(data: bytes, index: int) -> int:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(data)
    try:
        return int(pdf[index].get_rotation())
    finally:
        pdf.close()


def _counts(data: bytes, password: Optional[str] = None) -> List[int]:
    """The page count of MuPDF and of qpdf (pikepdf)."""
    import pikepdf
    import pymupdf

    with pymupdf.open(stream=data, filetype="pdf") as doc:
        if doc.needs_pass and not doc.authenticate(password or ""):
            raise AssertionError("MuPDF refused the password")
        mupdf = doc.page_count
    with pikepdf.open(io.BytesIO(data), password=password or "") as pdf:
        qpdf = len(pdf.pages)
    return [mupdf, qpdf]


def _qpdf_errors(data: bytes) -> bool:
    sys.path.insert(0, str(HERE))
    from pdfpeers import qpdf_check

    return qpdf_check(data)[0] == 2


def work(path: str, other: str, seed: int) -> Dict[str, Any]:
    """Runs the operations on one file; returns {"file", "skipped" or "failures"}."""
    sys.path.insert(0, str(REPO / "bindings" / "python"))
    import quire

    rng = random.Random(seed)
    full = CORPUS / path
    original = full.read_bytes()
    report: Dict[str, Any] = {"file": path, "failures": []}
    source_texts = _texts(original)
    n = len(source_texts)
    with quire.Document(original) as probe:
        if probe.page_count != n:
            report["skipped"] = "Quire counts %d pages, PDFium %d" % (probe.page_count, n)
            return report
        source_rotations = [page.rotation for page in probe.pages]
    other_bytes = (CORPUS / other).read_bytes()
    other_texts = _texts(other_bytes)
    source_errors = _qpdf_errors(original)
    other_errors = _qpdf_errors(other_bytes)

    order_of_turned = 0

    def check(
        name: str,
        data: bytes,
        texts: List[str],
        password: Optional[str] = None,
        errors: bool = False,
        turned: int = -1,
    ) -> None:
        """`turned`: the rotated page, whose text is PDFium's of its source turned by qpdf
        (`texts[turned]`) or, where qpdf reads a damaged source otherwise than PDFium (a
        wrong /Length: bug_524043_4.pdf), the same characters as the source page's."""
        try:
            got = _texts(data, password)
            if len(got) != len(texts):
                raise AssertionError("PDFium counts %d pages, expected %d" % (len(got), len(texts)))
            wrong = [
                i
                for i, (a, b) in enumerate(zip(got, texts))
                if a != b and not (i == turned and _letters(a) == _letters(source_texts[order_of_turned]))
            ]
            if wrong:
                raise AssertionError("the text of page %d is not its source page's" % wrong[0])
            counts = _counts(data, password)
            if counts != [len(texts)] * 2:
                raise AssertionError("MuPDF and qpdf count %s pages, expected %d" % (counts, len(texts)))
            if password is None and not (source_errors or errors) and _qpdf_errors(data):
                raise AssertionError("qpdf --check finds errors the source has not")
        except Exception as error:  # noqa: BLE001: each failure reported, the sweep goes on
            report["failures"].append([name, ("%s: %s" % (type(error).__name__, error))[:300]])

    def step(name: str, action: Any) -> Any:
        try:
            return action()
        except Exception as error:  # noqa: BLE001
            report["failures"].append([name, ("%s: %s" % (type(error).__name__, error))[:300]])
            return None

    # Edit: delete a page, move another, rotate one.
    def edit() -> None:
        order = list(range(n))
        with quire.Document(original) as doc:
            if n > 1:
                gone = rng.randrange(n)
                doc.pages.delete(gone)
                order.remove(gone)
            if len(order) > 1:
                frm, to = rng.randrange(len(order)), rng.randrange(len(order))
                doc.pages.move(frm, to)
                order.insert(to, order.pop(frm))
            turned = rng.randrange(len(order))
            doc.pages.rotate(turned, 1)
            data = doc.save_to_bytes(full=True)
        texts = [source_texts[i] for i in order]
        texts[turned] = _turned_text(original, order[turned])
        nonlocal order_of_turned
        order_of_turned = order[turned]
        check("edit", data, texts, turned=turned)
        expected = (source_rotations[order[turned]] + 90) % 360
        if _rotation(data, turned) != expected:
            report["failures"].append(
                ["edit/rotation", "page %d: %d, expected %d" % (turned, _rotation(data, turned), expected)]
            )

    step("edit/quire", edit)

    # Merge with another corpus file.
    def merge() -> None:
        with quire.Document(original) as doc, quire.Document(CORPUS / other) as second:
            doc.merge(second)
            data = doc.save_to_bytes(full=True)
        check("merge", data, source_texts + other_texts, errors=other_errors)

    if other != path:
        step("merge/quire", merge)

    # Split in two, and encrypt the first half.
    def split() -> None:
        half = max(1, n // 2)
        with quire.Document(original) as doc:
            parts = [(doc.extract(range(0, half)), source_texts[:half])]
            if n > 1:
                parts.append((doc.extract(range(half, n)), source_texts[half:]))
        for number, (part, texts) in enumerate(parts):
            with part:
                check("split", part.save_to_bytes(full=True), texts)
                if number == 0:
                    part.encrypt("user", "owner")
                    encrypted = part.save_to_bytes(full=True)
            if number == 0:
                check("encrypt", encrypted, texts, "user")
                refused(encrypted)

    def refused(data: bytes) -> None:
        import pikepdf
        import pymupdf
        import pypdfium2

        try:
            pikepdf.open(io.BytesIO(data)).close()
            raise AssertionError("pikepdf opened it without the password")
        except pikepdf.PasswordError:
            pass
        try:
            pypdfium2.PdfDocument(data).close()
            raise AssertionError("PDFium opened it without the password")
        except pypdfium2.PdfiumError:
            pass
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            if not doc.needs_pass or doc.authenticate("wrong"):
                raise AssertionError("MuPDF opened it without the password")

    step("split/quire", split)
    return report


# ----------------------------------------------------------------------------------------
# The parent
# ----------------------------------------------------------------------------------------


def run_child(script: str, arguments: List[str], path: str, timeout: float = TIMEOUT) -> Dict[str, Any]:
    """Runs `script --child ARGUMENTS` in a process of its own (so that a crash or a hang is
    seen as one, and the sweep goes on), with the binding and these tests on its path: the
    report it prints last, or `path` marked hung or crashed (with the end of its stderr).
    The corpus sweeps of pages and of redaction both run their files through it."""
    command = [sys.executable, script, "--child"] + arguments
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(
            [str(REPO / "bindings" / "python"), str(HERE)]
            + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
        ),
    )
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"file": path, "hung": True, "failures": []}
    if done.returncode != 0:
        tail = (done.stderr or b"").decode("utf-8", "replace").strip().splitlines()[-3:]
        return {"file": path, "crashed": done.returncode, "failures": [], "stderr": tail}
    return cast(Dict[str, Any], json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1]))


def _child(path: str, other: str, seed: int) -> Dict[str, Any]:
    return run_child(__file__, [path, other, str(seed)], path)


def sweep(files: List[str], jobs: int = 2) -> List[Dict[str, Any]]:
    """Each file with the next file of the list as its merge partner."""
    tasks = [(f, files[(i + 1) % len(files)], i) for i, f in enumerate(files)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda t: _child(*t), tasks))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="the whole corpus, not a quarter")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        path, other, seed = args.child
        print(json.dumps(work(path, other, int(seed))))
        return 0
    files = sweep_files(args.all)
    if args.limit:
        files = files[: args.limit]
    reports = sweep(files, args.jobs)
    bad = [r for r in reports if r["failures"] or r.get("crashed") or r.get("hung")]
    skipped = [r for r in reports if r.get("skipped")]
    for r in bad:
        print(json.dumps(r))
    print("%d files, %d skipped, %d with failures, crashes or hangs" % (len(reports), len(skipped), len(bad)))
    if args.out:
        Path(args.out).write_text(json.dumps(reports, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
