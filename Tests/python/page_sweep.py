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


def _texts(data: bytes, password: Optional[str] = None, only: Optional[int] = None) -> List[str]:
    """PDFium's text of each page (or of page `only` alone), its whitespace runs made one
    space."""
    import pypdfium2

    pdf = pypdfium2.PdfDocument(data, password=password)
    try:
        pages = range(len(pdf)) if only is None else [only]
        return [" ".join(pdf[i].get_textpage().get_text_range().split()) for i in pages]
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
    return _texts(out.getvalue(), only=index)[0]


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
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    from pdfpeers import qpdf_check

    return qpdf_check(data)[0] == 2


# What the peers read of the files a child worked on last (path: bytes, PDFium's texts,
# qpdf --check's errors): a file is read as the next file's merge partner, then again as
# the file swept (page_sweep.run_batched hands a child consecutive files).
_SOURCES: Dict[str, Tuple[bytes, List[str], bool]] = {}


def _source(path: str) -> Tuple[bytes, List[str], bool]:
    if path not in _SOURCES:
        if len(_SOURCES) >= 4:
            del _SOURCES[next(iter(_SOURCES))]
        data = (CORPUS / path).read_bytes()
        _SOURCES[path] = (data, _texts(data), _qpdf_errors(data))
    return _SOURCES[path]


def work(path: str, other: str, seed: int) -> Dict[str, Any]:
    """Runs the operations on one file; returns {"file", "skipped" or "failures"}."""
    if str(REPO / "bindings" / "python") not in sys.path:
        sys.path.insert(0, str(REPO / "bindings" / "python"))
    import quire

    rng = random.Random(seed)
    report: Dict[str, Any] = {"file": path, "failures": []}
    original, source_texts, source_errors = _source(path)
    n = len(source_texts)
    with quire.Document(original) as probe:
        if probe.page_count != n:
            report["skipped"] = "Quire counts %d pages, PDFium %d" % (probe.page_count, n)
            return report
        source_rotations = [page.rotation for page in probe.pages]
    _, other_texts, other_errors = _source(other)

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
        rotation = _rotation(data, turned)
        if rotation != expected:
            report["failures"].append(["edit/rotation", "page %d: %d, expected %d" % (turned, rotation, expected)])

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


def sweep(files: List[str], jobs: int = 2) -> List[Dict[str, Any]]:
    """Each file with the next file of the list as its merge partner."""
    tasks = [(f, [f, files[(i + 1) % len(files)], i]) for i, f in enumerate(files)]
    return run_batched(__file__, tasks, jobs)  # type: ignore[arg-type]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="the whole corpus, not a quarter")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(work)
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
