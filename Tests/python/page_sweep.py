"""The corpus sweep of issue 36: for every corpus file that the peers open, delete a page
chosen at random, move another, rotate one, merge the file with another corpus file, split
it in two and encrypt one half; every output is checked by the peers.

    python3 Tests/python/page_sweep.py [--all] [--limit N] [--files PATH...] [--out report.json]

Without --all, a quarter of the files (every fourth in path order, from an offset drawn
with a fixed seed), as `make test` runs it (Tests/python/test_page_operations.py); --all
is the long run over all of it (`make test-pages-sweep`); --files reruns some files of
the run with the seed and merge partner they have in it. Files: not duplicates, not
encrypted, opened by PDFium, MuPDF and pikepdf, whose page count PDFium and Quire agree
on; at most 200 pages and 20 MB (the sweep reads every page's text).

The files are worked on by two long-lived child processes (run_batched: one per core,
each with the peers loaded once and a run of consecutive files, so that a file read as the
previous file's merge partner is not read again), so that a crash or a hang is seen as one
(the file reported, the child replaced) and the sweep goes on; the checks, on the bytes
each full save writes:

- edit (delete, move, rotate): PDFium, MuPDF and qpdf count the pages expected; each
  page's text as PDFium extracts it is its source page's (for the rotated page, PDFium's
  text of its source page turned by qpdf: PDFium orders a page's text, breaks its lines
  and drops overlapping duplicate glyphs by the page's rotation; where qpdf reads a
  damaged source otherwise than PDFium, the source page's characters); the rotated page's
  rotation is its source's plus 90 (PDFium). A source page that the peers read
  differently (damaged: PDFium cannot load it, or MuPDF or qpdf reads other text) is held
  to what one of them reads (Source.agrees);
- merge: the file's pages, then the other file's, by count and text (the other file's
  text as PDFium reads it in the merged file's reading direction, /ViewerPreferences
  /Direction, by which PDFium orders a page's text);
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
import io
import json
import os
import queue
import random
import select
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, cast

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


def _texts(data: bytes, password: Optional[str] = None, only: Optional[int] = None) -> List[Optional[str]]:
    """PDFium's text of each page (or of page `only` alone), its whitespace runs made one
    space; None for a page PDFium cannot load (bad_page_type.pdf's page of /Type
    /Template, bad34.pdf's page behind a wrong xref offset: MuPDF and qpdf read both)."""
    return _read(data, password, only)[0]


def _read(data: bytes, password: Optional[str] = None, only: Optional[int] = None) -> Tuple[List[Optional[str]], bool]:
    """:func:`_texts`, and whether the catalog's /ViewerPreferences /Direction is /R2L:
    PDFium orders each page's extracted text by it (FPDFText_LoadPage), so that
    viewer_ref.pdf's 'Page1' reads '1Page'."""
    import ctypes

    import pypdfium2
    import pypdfium2.raw as raw

    pdf = pypdfium2.PdfDocument(data, password=password)
    try:
        out: List[Optional[str]] = []
        for i in range(len(pdf)) if only is None else [only]:
            try:
                page = pdf[i]
            except pypdfium2.PdfiumError:
                out.append(None)
                continue
            out.append(" ".join(page.get_textpage().get_text_range().split()))
        buffer = ctypes.create_string_buffer(16)
        n = raw.FPDF_VIEWERREF_GetName(pdf, b"Direction", buffer, len(buffer))
        return out, n > 0 and buffer.value == b"R2L"
    finally:
        pdf.close()


def _letters(text: Optional[str]) -> Optional[List[str]]:
    """The characters of a page's text in any order, without spaces and the hyphens that
    PDFium adds or marks at line ends (U+FFFE); None for a page PDFium cannot load."""
    return None if text is None else sorted(c for c in text if not c.isspace() and c not in "-\ufffe")


def _rewritten(data: bytes, right_to_left: Optional[bool] = None) -> bytes:
    """The file as qpdf (pikepdf) writes it, its reading direction set when given. XMP
    metadata is left as it is: pikepdf's update of it fails on damaged files
    (pdf-rs's crash-121-1.pdf), and it is no part of what the sweep compares."""
    import pikepdf

    with pikepdf.open(io.BytesIO(data)) as pdf:
        if right_to_left is not None:
            preferences = pdf.Root.get("/ViewerPreferences")
            if not isinstance(preferences, pikepdf.Dictionary):
                preferences = pdf.Root.ViewerPreferences = pikepdf.Dictionary()
            if right_to_left:
                preferences.Direction = pikepdf.Name.R2L
            elif "/Direction" in preferences:
                del preferences.Direction
        out = io.BytesIO()
        pdf.save(out, fix_metadata_version=False)
    return out.getvalue()


def _turned_text(data: bytes, index: int) -> Optional[str]:
    """PDFium's text of page `index` once qpdf (pikepdf) has turned it a quarter: what
    Quire's rotation of the page is held to."""
    import pikepdf

    with pikepdf.open(io.BytesIO(data)) as pdf:
        pdf.pages[index].rotate(90, relative=True)
        out = io.BytesIO()
        pdf.save(out, fix_metadata_version=False)
    return _texts(out.getvalue(), only=index)[0]


def _rotation(data: bytes, index: int) -> int:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(data)
    try:
        return int(pdf[index].get_rotation())
    finally:
        pdf.close()


def _counts(data: bytes, password: Optional[str] = None) -> List[int]:
    """The page count of MuPDF and of qpdf (pikepdf). With a password, each first refuses
    the file without it (and MuPDF with a wrong one), in the same opening where MuPDF is
    concerned: opening an AES-256 file in MuPDF and trying a password each cost about as
    much as the rest of a small file's checks."""
    import pikepdf
    import pymupdf

    with pymupdf.open(stream=data, filetype="pdf") as doc:
        if password is not None and (not doc.needs_pass or doc.authenticate("wrong")):
            raise AssertionError("MuPDF opened it without the password")
        if doc.needs_pass and not doc.authenticate(password or ""):
            raise AssertionError("MuPDF refused the password")
        mupdf = doc.page_count
    if password is not None:
        try:
            pikepdf.open(io.BytesIO(data)).close()
            raise AssertionError("pikepdf opened it without the password")
        except pikepdf.PasswordError:
            pass
    with pikepdf.open(io.BytesIO(data), password=password or "") as pdf:
        qpdf = len(pdf.pages)
    return [mupdf, qpdf]


def _qpdf_errors(data: bytes) -> bool:
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    from pdfpeers import qpdf_check

    return qpdf_check(data)[0] == 2


class Source:
    """What the peers read of a corpus file: its bytes, PDFium's text of each page and its
    reading direction; whether qpdf --check finds errors in it, the other peers' reading of
    its pages and its text in the other direction are read when first asked for (an output
    with errors, a page PDFium reads otherwise than the output, a merge of files of both
    directions)."""

    def __init__(self, path: str) -> None:
        self.data = (CORPUS / path).read_bytes()
        self.texts, self.right_to_left = _read(self.data)
        self._errors: Optional[bool] = None
        self._readings: Optional[List[Tuple[Optional[List[str]], Optional[str]]]] = None
        self._other_direction: Optional[List[Optional[str]]] = None

    @property
    def errors(self) -> bool:
        """Whether qpdf --check finds errors in the file: asked only of the source of an
        output in which it finds some, since running qpdf is a good part of the sweep's
        time."""
        if self._errors is None:
            self._errors = _qpdf_errors(self.data)
        return self._errors

    def texts_read(self, right_to_left: bool) -> List[Optional[str]]:
        """PDFium's text of each page, read in a document of that reading direction."""
        if right_to_left == self.right_to_left:
            return self.texts
        if self._other_direction is None:
            self._other_direction = _texts(_rewritten(self.data, right_to_left))
        return self._other_direction

    def disputed(self, index: int) -> List[Tuple[Optional[List[str]], Optional[str]]]:
        """How the other peers read page `index` where one of them reads it otherwise than
        PDFium (or PDFium cannot load it): [(MuPDF's letters, None), (None, PDFium's text
        of qpdf's rewrite)], those that differ from PDFium's reading; [] where they agree.
        On these damaged pages Quire, which writes a page as it reads it, is held to agree
        with one peer: PDFium (incremental-3.pdf: a deleted content stream still read),
        MuPDF (bug_524043_6.pdf: a stream without `endstream` nor `endobj`) and qpdf
        (stream-line-enders.pdf: data on the `stream` keyword's line) each read one of them
        alone."""
        if self._readings is None:
            import pymupdf

            with pymupdf.open(stream=self.data, filetype="pdf") as doc:
                mupdf = [_letters(page.get_text()) for page in doc]
            try:
                rewritten = _texts(_rewritten(self.data))
            except Exception:  # noqa: BLE001: qpdf may not write it; MuPDF still reads
                rewritten = []
            self._readings = []
            for i, text in enumerate(self.texts):
                readings = []
                if i < len(mupdf) and mupdf[i] != _letters(text):
                    readings.append((mupdf[i], None))
                if i < len(rewritten) and rewritten[i] != text:
                    readings.append((None, rewritten[i]))
                self._readings.append(readings)  # type: ignore[arg-type]
        return self._readings[index] if index < len(self._readings) else []  # type: ignore[return-value]

    def agrees(self, got: Optional[str], index: int, expected: Optional[str], turned: bool = False) -> bool:
        """Whether `got`, PDFium's text of a page of an output copied from page `index`, is
        what a peer reads of it: PDFium's `expected` text, or, for a page PDFium reads
        otherwise than another peer, that peer's reading (MuPDF's by its letters, since
        MuPDF's text breaks lines and spaces otherwise). A turned page's text (`turned`)
        may have the same letters as its source's: PDFium orders a page's text by its
        rotation and qpdf reads a damaged source otherwise (a wrong /Length:
        bug_524043_4.pdf)."""
        if got == expected:
            return True
        letters = _letters(got)
        if turned and letters is not None and letters == _letters(self.texts[index]):
            return True
        for mupdf, rewritten in self.disputed(index):
            if (mupdf is not None and letters == mupdf) or (rewritten is not None and got == rewritten):
                return True
            if turned and letters is not None and rewritten is not None and letters == _letters(rewritten):
                return True
        return False


# What the peers read of the files a child worked on last: a file is read as the next
# file's merge partner, then again as the file swept (page_sweep.run_batched hands a child
# consecutive files).
_SOURCES: Dict[str, Source] = {}


def _source(path: str) -> Source:
    if path not in _SOURCES:
        if len(_SOURCES) >= 4:
            del _SOURCES[next(iter(_SOURCES))]
        _SOURCES[path] = Source(path)
    return _SOURCES[path]


def work(path: str, other: str, seed: int) -> Dict[str, Any]:
    """Runs the operations on one file; returns {"file", "skipped" or "failures"}."""
    if str(REPO / "bindings" / "python") not in sys.path:
        sys.path.insert(0, str(REPO / "bindings" / "python"))
    import pypdfium2
    import quire

    rng = random.Random(seed)
    report: Dict[str, Any] = {"file": path, "failures": []}
    source = _source(path)
    original = source.data
    n = len(source.texts)
    with quire.Document(original) as probe:
        if probe.page_count != n:
            report["skipped"] = "Quire counts %d pages, PDFium %d" % (probe.page_count, n)
            return report
        source_rotations = [page.rotation for page in probe.pages]
    partner = _source(other)

    def of(origin: Source, indices: Any, right_to_left: bool) -> List[Tuple[Source, int, Optional[str]]]:
        """The expected pages: each source page with PDFium's text of it, read in a
        document of the output's reading direction."""
        texts = origin.texts_read(right_to_left)
        return [(origin, i, texts[i]) for i in indices]

    def check(
        name: str,
        data: bytes,
        pages: List[Tuple[Source, int, Optional[str]]],
        password: Optional[str] = None,
        others: Tuple[Source, ...] = (),
        turned: int = -1,
    ) -> None:
        """`pages`: the source page each page of `data` is a copy of, with the text it is
        held to (Source.agrees); `turned`: the rotated page, whose text is PDFium's of its
        source turned by qpdf; `password`: the user password of `data`, which each peer
        refuses to open without; `others`: the sources besides this file's (qpdf --check
        may find errors in `data` that one of the sources has)."""
        try:
            if password is not None:
                try:
                    pypdfium2.PdfDocument(data).close()
                    raise AssertionError("PDFium opened it without the password")
                except pypdfium2.PdfiumError:
                    pass
            got = _texts(data, password)
            if len(got) != len(pages):
                raise AssertionError("PDFium counts %d pages, expected %d" % (len(got), len(pages)))
            wrong = [
                i for i, (a, (origin, j, b)) in enumerate(zip(got, pages)) if not origin.agrees(a, j, b, i == turned)
            ]
            if wrong:
                raise AssertionError("the text of page %d is not its source page's" % wrong[0])
            counts = _counts(data, password)
            if counts != [len(pages)] * 2:
                raise AssertionError("MuPDF and qpdf count %s pages, expected %d" % (counts, len(pages)))
            if password is None and _qpdf_errors(data) and not any(s.errors for s in (source,) + others):
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
        pages = of(source, order, source.right_to_left)
        pages[turned] = (source, order[turned], _turned_text(original, order[turned]))
        check("edit", data, pages, turned=turned)
        expected = (source_rotations[order[turned]] + 90) % 360
        rotation = _rotation(data, turned)
        if rotation != expected:
            report["failures"].append(["edit/rotation", "page %d: %d, expected %d" % (turned, rotation, expected)])

    step("edit/quire", edit)

    # Merge with another corpus file.
    def merge() -> None:
        with quire.Document(original) as doc, quire.Document(partner.data) as second:
            doc.merge(second)
            data = doc.save_to_bytes(full=True)
        # The merge keeps this file's catalog: the other file's pages read in its direction.
        pages = of(source, range(n), source.right_to_left) + of(
            partner, range(len(partner.texts)), source.right_to_left
        )
        check("merge", data, pages, others=(partner,))

    if other != path:
        step("merge/quire", merge)

    # Split in two, and encrypt the first half.
    def split() -> None:
        half = max(1, n // 2)
        with quire.Document(original) as doc:
            parts = [(doc.extract(range(0, half)), of(source, range(0, half), source.right_to_left))]
            if n > 1:
                parts.append((doc.extract(range(half, n)), of(source, range(half, n), source.right_to_left)))
        for number, (part, pages) in enumerate(parts):
            with part:
                check("split", part.save_to_bytes(full=True), pages)
                if number == 0:
                    part.encrypt("user", "owner")
                    encrypted = part.save_to_bytes(full=True)
            if number == 0:
                check("encrypt", encrypted, pages, "user")

    step("split/quire", split)
    return report


# ----------------------------------------------------------------------------------------
# The parent
# ----------------------------------------------------------------------------------------


class Worker:
    """A child process that works on one file after another: `script --serve` reads a task
    (a JSON list of arguments) per line and prints its report as one JSON line, with the
    binding, these tests and the peers loaded once (importing PyMuPDF alone takes 2 to 3
    seconds, which a process per file paid again for every file). A crash or a hang is
    still seen as one: the file at hand is reported crashed (with the end of what the child
    wrote to stderr while working on it) or hung, the child is ended, and the next task
    starts a new one."""

    def __init__(self, script: str, timeout: float, recycle: int = 100) -> None:
        self.script = script
        self.timeout = timeout
        self.recycle = recycle  # tasks before a fresh child, so that what leaks stays small
        self.process: Optional[subprocess.Popen] = None  # type: ignore[type-arg]
        self.errors = tempfile.TemporaryFile()
        self.pending = b""
        self.done = 0

    def _start(self) -> subprocess.Popen:  # type: ignore[type-arg]
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(
                [str(REPO / "bindings" / "python"), str(HERE)]
                + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
            ),
        )
        self.errors.seek(0)
        self.errors.truncate()
        self.pending = b""
        self.done = 0
        return subprocess.Popen(
            [sys.executable, self.script, "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            env=env,
        )

    def _stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def close(self) -> None:
        self.close_child()
        self.errors.close()

    def run(self, arguments: List[str], path: str) -> Dict[str, Any]:
        """The report of one task, or `path` marked hung or crashed."""
        if self.process is not None and self.done >= self.recycle:
            self.close_child()
        if self.process is None:
            self.process = self._start()
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        begun = self.errors.tell()
        deadline = time.monotonic() + self.timeout
        try:
            process.stdin.write((json.dumps(arguments) + "\n").encode("utf-8"))
            process.stdin.flush()
            while b"\n" not in self.pending:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([process.stdout], [], [], left)[0]:
                    self._stop()
                    return {"file": path, "hung": True, "failures": []}
                chunk = os.read(process.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise BrokenPipeError
                self.pending += chunk
        except (BrokenPipeError, ConnectionResetError):
            code = process.wait()
            self.process = None
            self.errors.seek(begun)
            tail = self.errors.read().decode("utf-8", "replace").strip().splitlines()[-3:]
            self.errors.seek(0, io.SEEK_END)
            return {"file": path, "crashed": code, "failures": [], "stderr": tail}
        line, self.pending = self.pending.split(b"\n", 1)
        self.done += 1
        return cast(Dict[str, Any], json.loads(line.decode("utf-8")))

    def close_child(self) -> None:
        if self.process is not None and self.process.stdin is not None:
            try:
                self.process.stdin.close()  # the child ends at the end of its input
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._stop()


def serve(work: Callable[..., Dict[str, Any]]) -> int:
    """The child's side of :class:`Worker`: each line of stdin is the arguments of one call
    of `work`, whose report goes out as one line. An exception that `work` lets out (a
    peer that raised on a file, a check's own bug) is that file's failure "error" with
    where it was raised, and the child goes on: only a crash or a hang ends a child. What
    the libraries print goes to stderr, so that stdout carries the reports only."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for module in ("pikepdf", "pypdfium2", "pymupdf", "quire"):
        __import__(module)
    for line in sys.stdin:
        arguments = json.loads(line)
        try:
            report = work(*arguments)
        except Exception as error:  # noqa: BLE001: a check that raised is a failure, not a crash
            where = traceback.extract_tb(error.__traceback__)[-1]
            message = "%s: %s (%s:%d)" % (type(error).__name__, error, Path(where.filename).name, where.lineno or 0)
            report = {"file": arguments[0], "failures": [["error", message[:300]]], "error": True}
        out.write(json.dumps(report) + "\n")
        out.flush()
    return 0


def run_batched(
    script: str, tasks: List[Tuple[str, List[str]]], jobs: int = 2, timeout: float = TIMEOUT, chunk: int = 8
) -> List[Dict[str, Any]]:
    """Runs each task ((path, arguments)) on one of `jobs` long-lived children of `script`
    (:class:`Worker`), in runs of `chunk` consecutive tasks so that a child sees a file
    again as the next file's partner (`work` keeps what it read of it): the reports, in the
    order of the tasks. The corpus sweeps of pages and of redaction both run through it."""
    reports: List[Optional[Dict[str, Any]]] = [None] * len(tasks)
    runs = queue.Queue()  # type: queue.Queue[range]
    for first in range(0, len(tasks), chunk):
        runs.put(range(first, min(first + chunk, len(tasks))))

    def lane() -> None:
        worker = Worker(script, timeout)
        try:
            while True:
                try:
                    indices = runs.get_nowait()
                except queue.Empty:
                    return
                for i in indices:
                    path, arguments = tasks[i]
                    reports[i] = worker.run(arguments, path)
        finally:
            worker.close()

    lanes = [threading.Thread(target=lane) for _ in range(max(1, jobs))]
    for t in lanes:
        t.start()
    for t in lanes:
        t.join()
    return [r if r is not None else {"file": tasks[i][0], "crashed": -1, "failures": []} for i, r in enumerate(reports)]


def sweep(files: List[str], jobs: int = 2, only: Optional[List[str]] = None) -> List[Dict[str, Any]]:
    """Each file with the next file of the list as its merge partner and its place in the
    list as its seed; with `only`, those of the files alone (each with the partner and seed
    it has in the whole run: a failure of a long run, worked on again)."""
    tasks = [(f, [f, files[(i + 1) % len(files)], i]) for i, f in enumerate(files)]
    if only is not None:
        tasks = [t for t in tasks if t[0] in only]
    return run_batched(__file__, tasks, jobs)  # type: ignore[arg-type]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="the whole corpus, not a quarter")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--files", nargs="+", metavar="PATH", help="these files alone, as the run sweeps them")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(work)
    files = sweep_files(args.all)
    if args.limit:
        files = files[: args.limit]
    reports = sweep(files, args.jobs, args.files)
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
