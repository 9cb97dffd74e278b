#!/usr/bin/env python3
"""Saves every corpus file Quire opens, through the Python binding, and checks the result
with the peers.

    python3 Tests/corpus/save_sweep.py [--corpus DIR] [--jobs N] [--timeout S]
                                       [--only SUBSTRING] [--limit N] [--show N]
                                       [--with-duplicates] [--out results.json]

For each file of ../shared/corpus/manifest.jsonl (duplicates skipped unless asked), a
child process with a wall-clock limit (so that a crash or a hang is seen as one, and the
sweep goes on) does:

(a) full: a full save to bytes (``Document.save_to_bytes(full=True)``); the result is
    opened by pikepdf and by pypdfium2, whose page count and total annotation count (the
    /Annots entries that are dictionaries) must be what Quire reads from the original; and
    ``qpdf --check`` must report no error (exit 0, or 3 for warnings only);
(b) incremental: one Text annotation added through the low-level API (a new /Annot
    dictionary appended to the first page's /Annots, see Tests/python/pdfpeers.py), then an
    incremental save: the result must start with every byte of the original, append less
    than 16 KiB, and pikepdf and pypdfium2 must each see one annotation more than they see
    in the original (more when the page object is listed several times in the page tree:
    as many more as Quire counts), and the same pages.

Files Quire does not open are counted, not checked; files that need a password are
skipped. (b) is skipped, with the reason, where it does not apply: a file Quire reads no
page from, a file whose first page is not an indirect dictionary reachable through
/Root /Pages /Kids, and a file whose cross-reference Quire rebuilt by scanning (the
library refuses, as documented, to append to it: such files are saved in full).

A failure is "carried over" when the original already had it: the peer did not read the
original as Quire does (could not open it, or gave other counts), or `qpdf --check`
already reported errors (exit 2) on the original. A qpdf failure on a file where qpdf only
warned (exit 3) is reported apart, as "after warnings". The rest are "new": the saved file
is worse than the original, which is what the sweep is for. The report gives the counts
per check, then the failures grouped by cause. It needs pikepdf, pypdfium2 and the qpdf
program; it is not part of `make test` (it takes a while): run it by hand.

Exit status: 0 if no check failed and nothing crashed or hung, else 1.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
from typing import Any, Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINDING = os.path.join(ROOT, "bindings", "python")
PEERS = os.path.join(ROOT, "Tests", "python")

MAX_APPENDED = 16 * 1024

# The checks, in report order.
CHECKS = [
    "full/save",
    "full/pikepdf",
    "full/pdfium",
    "full/qpdf-check",
    "incremental/edit+save",
    "incremental/bytes-kept+size",
    "incremental/pikepdf",
    "incremental/pdfium",
]


# ----------------------------------------------------------------------------------------
# The child: one file
# ----------------------------------------------------------------------------------------


def _error(error: BaseException) -> str:
    text = "%s: %s" % (type(error).__name__, error)
    return text.replace("\n", " ")[:400]


def child(path: str) -> None:
    """Checks one file; prints one JSON object per line, flushed, so that the parent knows
    how far a child that crashed got."""
    sys.path[:0] = [BINDING, PEERS]
    import quire  # noqa: E402
    import pdfpeers as peers  # noqa: E402

    def emit(**fields: Any) -> None:
        print(json.dumps(fields), flush=True)

    with open(path, "rb") as f:
        original = f.read()
    emit(step="open")
    try:
        document = quire.Document(path)
    except quire.PasswordError:
        emit(outcome="password")
        return
    except Exception as error:
        emit(outcome="unopened", error=_error(error))
        return
    try:
        counts = peers.quire_counts(document)
        xref_form = document.xref_form
    except Exception as error:
        emit(outcome="unread", error=_error(error))
        return
    finally:
        document.close()
    emit(outcome="opened", pages=counts[0], annotations=counts[1], xref_form=xref_form)

    # What the peers read in the original, for (b) and to explain differences in (a).
    before: Dict[str, Any] = {}
    for name, count in (("pikepdf", peers.pikepdf_counts), ("pdfium", peers.pdfium_counts)):
        emit(step="original/" + name)
        try:
            before[name] = list(count(original))
        except Exception as error:
            before[name] = _error(error)
    emit(step="original/qpdf-check")
    try:
        original_qpdf = peers.qpdf_check(original, timeout=120)[0]
    except Exception:
        original_qpdf = None
    emit(original=before, original_qpdf=original_qpdf)

    # (a) A full save.
    emit(step="full/save")
    try:
        with quire.Document(path) as document:
            saved = document.save_to_bytes(full=True)
        emit(check="full/save", ok=True, size=len(saved))
    except Exception as error:
        emit(check="full/save", ok=False, reason=_error(error))
        saved = None
    if saved is not None:
        for name, count in (("pikepdf", peers.pikepdf_counts), ("pdfium", peers.pdfium_counts)):
            emit(step="full/" + name)
            check = "full/" + name
            carried = before.get(name) != list(counts)
            try:
                got = list(count(saved))
            except Exception as error:
                emit(check=check, ok=False, carried=carried, reason="cannot open the saved file: " + _error(error))
                continue
            if got == list(counts):
                emit(check=check, ok=True)
            else:
                emit(check=check, ok=False, carried=carried, reason=_difference("quire on the original", counts, got))
        emit(step="full/qpdf-check")
        try:
            status, output = peers.qpdf_check(saved, timeout=120)
            lines = [line for line in output.splitlines() if line.startswith(("ERROR", "WARNING", "qpdf:"))]
            if status == 0:
                emit(check="full/qpdf-check", ok=True)
            elif status == 3:
                emit(check="full/qpdf-check", ok=True, warning=" | ".join(lines)[:400])
            else:
                emit(check="full/qpdf-check", ok=False, reason=" | ".join(lines)[:400] or "exit %d" % status,
                     carried=original_qpdf == 2, after_warnings=original_qpdf == 3)
        except Exception as error:
            emit(check="full/qpdf-check", ok=False, reason=_error(error))

    # (b) One annotation, then an incremental save.
    emit(step="incremental/edit+save")
    if counts[0] == 0:
        emit(check="incremental/edit+save", ok=None, reason="Quire reads no page to annotate")
        return
    try:
        with quire.Document(path) as document:
            try:
                peers.add_text_annotation(document)
            except LookupError as error:
                if isinstance(error, quire.QuireError):  # IndexOutOfRangeError is a LookupError
                    raise
                emit(check="incremental/edit+save", ok=None, reason="no page to edit: %s" % error)
                return
            added = peers.quire_counts(document)[1] - counts[1]
            try:
                updated = document.save_to_bytes()
            except quire.UnsupportedError as error:
                # Documented: no sound section to append to when the cross-reference was
                # rebuilt by scanning, or its /Prev chain loops (the document is repaired).
                if xref_form != "rebuilt" and not document.is_repaired:
                    raise
                emit(check="incremental/edit+save", ok=None,
                     reason="refused as documented (cross-reference rebuilt or /Prev chain looping): %s" % error.message)
                return
        emit(check="incremental/edit+save", ok=True, appended=len(updated) - len(original), added=added)
    except Exception as error:
        emit(check="incremental/edit+save", ok=False, reason=_error(error))
        return
    appended = len(updated) - len(original)
    if not updated.startswith(original):
        emit(check="incremental/bytes-kept+size", ok=False, reason="the original bytes are not kept")
    elif not 0 < appended < MAX_APPENDED:
        emit(check="incremental/bytes-kept+size", ok=False, reason="appended %d bytes" % appended)
    else:
        emit(check="incremental/bytes-kept+size", ok=True)
    for name, count in (("pikepdf", peers.pikepdf_counts), ("pdfium", peers.pdfium_counts)):
        check = "incremental/" + name
        emit(step=check)
        if not isinstance(before.get(name), list):
            emit(check=check, ok=None, reason="the peer does not open the original: %s" % before.get(name))
            continue
        expected = [before[name][0], before[name][1] + added]
        carried = before[name] != list(counts)
        try:
            got = list(count(updated))
        except Exception as error:
            emit(check=check, ok=False, carried=carried, reason="cannot open the saved file: " + _error(error))
            continue
        if got == expected:
            emit(check=check, ok=True)
        else:
            what = "the peer on the original, +%d annotation%s" % (added, "" if added == 1 else "s")
            emit(check=check, ok=False, carried=carried, reason=_difference(what, expected, got))


def _difference(what: str, expected: Any, got: Any) -> str:
    parts = []
    if expected[0] != got[0]:
        parts.append("pages %d, expected %d" % (got[0], expected[0]))
    if expected[1] != got[1]:
        parts.append("annotations %d, expected %d" % (got[1], expected[1]))
    return "%s (expected: %s)" % ("; ".join(parts), what)


# ----------------------------------------------------------------------------------------
# The parent
# ----------------------------------------------------------------------------------------


def run_child(path: str, timeout: float) -> Dict[str, Any]:
    start = time.monotonic()
    try:
        process = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--child", path],
            capture_output=True,
            timeout=timeout,
        )
        stdout, stderr, code = process.stdout, process.stderr, process.returncode
        timed_out = False
    except subprocess.TimeoutExpired as expired:
        stdout, stderr, code = expired.stdout or b"", expired.stderr or b"", None
        timed_out = True
    result: Dict[str, Any] = {"checks": {}, "seconds": round(time.monotonic() - start, 2)}
    step = None
    for line in stdout.decode("utf-8", "replace").splitlines():
        try:
            fields = json.loads(line)
        except ValueError:
            continue
        if "step" in fields:
            step = fields["step"]
        elif "check" in fields:
            name = fields.pop("check")
            result["checks"][name] = fields
        else:
            result.update(fields)
    if timed_out:
        result["abnormal"] = "hang (over %gs) during %s" % (timeout, step)
    elif code != 0:
        signal = " (signal %d)" % -code if code is not None and code < 0 else " (exit %s)" % code
        tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        result["abnormal"] = "crash%s during %s: %s" % (signal, step, tail[0][:300])
    if "abnormal" in result and step in CHECKS and step not in result["checks"]:
        result["checks"][step] = {"ok": False, "reason": result["abnormal"]}
    return result


def _cause(reason: str) -> str:
    """A failure reason without the file-specific details: numbers, paths, offsets."""
    reason = re.sub(r"<_io.BytesIO object at 0x[0-9a-f]+>", "BYTES", reason)
    reason = re.sub(r"/tmp/\S+", "FILE", reason)
    reason = re.sub(r"\(offset \d+\)", "", reason)
    reason = re.sub(r"\d+", "N", reason)
    return reason[:160]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", default=os.path.join(os.path.dirname(ROOT), "shared", "corpus"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per file (default 180)")
    parser.add_argument("--only", help="only the files whose path contains this")
    parser.add_argument("--limit", type=int, default=0, help="at most this many files")
    parser.add_argument("--show", type=int, default=5, help="example files per cause (default 5)")
    parser.add_argument("--with-duplicates", action="store_true", help="also the files the manifest marks duplicates")
    parser.add_argument("--out", help="write every result, as JSON, to this file")
    args = parser.parse_args()

    if args.child:
        child(args.child)
        return 0

    manifest = os.path.join(args.corpus, "manifest.jsonl")
    if not os.path.exists(manifest):
        print("corpus manifest not found at %s" % manifest, file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in open(manifest, encoding="utf-8") if line.strip()]
    duplicates = sum(1 for row in rows if row.get("duplicate_of"))
    if not args.with_duplicates:
        rows = [row for row in rows if not row.get("duplicate_of")]
    if args.only:
        rows = [row for row in rows if args.only in row["path"]]
    if args.limit:
        rows = rows[: args.limit]

    started = time.monotonic()
    done = 0

    def one(row: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        nonlocal done
        result = run_child(os.path.join(args.corpus, row["path"]), args.timeout)
        done += 1
        if done % 100 == 0:
            print("  ... %d/%d files, %.0fs" % (done, len(rows), time.monotonic() - started), file=sys.stderr, flush=True)
        return row, result

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, rows))

    outcomes = collections.Counter(result.get("outcome", "crash before opening") for _, result in results)
    abnormal = [(row, result) for row, result in results if "abnormal" in result]
    print("save sweep: %d files (%s duplicates %s), %.0fs with %d jobs"
          % (len(results), duplicates, "included" if args.with_duplicates else "skipped",
             time.monotonic() - started, args.jobs))
    print("  quire opens %d; needs a password (skipped) %d; does not open %d; opens but cannot read pages %d"
          % (outcomes["opened"], outcomes["password"], outcomes["unopened"], outcomes["unread"]))
    print("  crashes or hangs of the child: %d" % len(abnormal))
    for row, result in abnormal:
        print("    %s: %s" % (row["path"], result["abnormal"]))

    print()
    print("fail = new + after warnings + carried over (see the top of this script)")
    print("%-28s %6s %6s %6s %9s %8s %8s %8s" % (
        "check", "pass", "fail", "new", "after-wrn", "carried", "skipped", "warning"))
    failures: Dict[str, List[Tuple[str, Dict[str, Any]]]] = collections.defaultdict(list)
    skips: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    new_failures = 0
    for check in CHECKS:
        passed = failed = new = after = carried = skipped = warned = 0
        for row, result in results:
            entry = result["checks"].get(check)
            if entry is None:
                continue
            if entry.get("ok") is None:
                skipped += 1
                skips[check][_cause(entry.get("reason", "?")).split(":")[0]] += 1
            elif entry["ok"]:
                passed += 1
                warned += 1 if entry.get("warning") else 0
            else:
                failed += 1
                if entry.get("carried"):
                    carried += 1
                elif entry.get("after_warnings"):
                    after += 1
                else:
                    new += 1
                failures[check].append((row["path"], entry))
        new_failures += new + after
        print("%-28s %6d %6d %6d %9d %8d %8d %8d" % (check, passed, failed, new, after, carried, skipped, warned))
    for check, counter in skips.items():
        for reason, count in counter.most_common():
            print("  skipped %s: %d: %s" % (check, count, reason))

    for check in CHECKS:
        if not failures[check]:
            continue
        print()
        print("FAILURES of %s: %d" % (check, len(failures[check])))
        groups: Dict[str, List[Tuple[str, Dict[str, Any]]]] = collections.defaultdict(list)
        for path, entry in failures[check]:
            cause = _cause(entry.get("reason", "?"))
            if entry.get("carried"):
                cause = "CARRIED OVER: " + cause
            elif entry.get("after_warnings"):
                cause = "AFTER WARNINGS: " + cause
            else:
                cause = "NEW: " + cause
            groups[cause].append((path, entry))
        for cause, items in sorted(groups.items(), key=lambda item: (not item[0].startswith("NEW"), -len(item[1]))):
            print("  [%d] %s" % (len(items), cause))
            for path, entry in items[: args.show]:
                print("      %s: %s" % (path, entry.get("reason", "")[:300]))

    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump([{"path": row["path"], **result} for row, result in results], out, indent=1)
        print("\nresults written to %s" % args.out)
    print("\nnew failures (including after warnings): %d" % new_failures)
    return 1 if abnormal or new_failures else 0


if __name__ == "__main__":
    sys.exit(main())
