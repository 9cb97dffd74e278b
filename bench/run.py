#!/usr/bin/env python3
"""Quire side by side with PDFium (pypdfium2), MuPDF (pymupdf), qpdf (pikepdf) and pypdf.

    python3 bench/run.py            the quick run (`make bench`): a quarter of the corpus,
                                    3 repetitions (1 for a run over 10 s); writes
                                    build/bench/RESULTS.md and results.png
    python3 bench/run.py --full     the complete run: the whole corpus, 5 repetitions;
                                    writes bench/RESULTS.md and bench/results.png

Every measurement runs in a fresh process (bench/worker.py), so that its peak memory
(VmHWM: the ru_maxrss of that process alone) is that of one library doing one workload.
Repetitions alternate between the libraries (in a rotating order), so that a background load slows all of them alike; the
table gives the median time, its ratio to Quire's (above 1: Quire is faster), and the
median peak memory. The peers are installed with pip when they are missing; a peer that
cannot be installed is skipped, and the report says so.

Workloads (see bench/worker.py):
  1a read, corpus    open, count pages, read every annotation's subtype, rect, contents
                     and /IRT, over the corpus files that every peer opens (not encrypted)
  1b read, large     the same on build/bench/large.pdf (3000 pages, 36000 annotations)
  2  incremental     add one annotation to build/bench/big.pdf (~100 MB) and save it
                     incrementally (qpdf cannot: it rewrites)
  3  rewrite         full save of large.pdf (Quire also with object streams, against qpdf's
                     output, which keeps them)
  4  open            open alone, on big.pdf and on large.pdf
  6  pages           merge large.pdf with itself, split it into 3000 single-page files,
                     delete every second page of it (issue 36)
"""

from __future__ import annotations

import argparse
import compileall
import datetime
import importlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
WORK = ROOT / "build" / "bench"
WORKER = BENCH / "worker.py"

# peer -> (module to import, pip requirement, label in the table)
PEERS = {
    "quire": (None, None, "Quire"),
    "pdfium": ("pypdfium2", "pypdfium2>=4", "PDFium (pypdfium2)"),
    "mupdf": ("pymupdf", "pymupdf>=1.24", "MuPDF (pymupdf)"),
    "qpdf": ("pikepdf", "pikepdf>=8", "qpdf (pikepdf)"),
    "pypdf": ("pypdf", "pypdf>=4", "pypdf"),
}

NOTES = {
    ("incremental", "qpdf"): "rewrites the whole file: qpdf has no incremental save",
    ("incremental", "mupdf"): "appends in place to the file it opened (saveIncr); no fsync",
    ("incremental", "quire"): "new file beside the target, fsync, rename (atomic, durable)",
    ("incremental-stream", "quire"): "the same bytes written to a Python file object: no fsync, no rename",
    ("incremental-in-place", "quire"): "appended in place to the file it opened (in_place=True): the update "
                                       "alone, fsync twice",
    ("rewrite-object-streams", "quire"): "objects packed into object streams (object_streams=True), as "
                                         "qpdf keeps them",
    ("incremental", "pdfium"): "FPDF_SaveAsCopy with FPDF_INCREMENTAL to a Python file object",
    ("incremental", "pypdf"): "PdfWriter(incremental=True) to a file object",
    ("read", "mupdf"): "MuPDF's annotation list leaves out /Popup annotations",
    ("read", "pdfium"): "FPDF_LoadPage also parses each page's content",
    ("rewrite", "qpdf"): "keeps the object streams (the others write every object plainly)",
}


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


# -- setup ----------------------------------------------------------------------------------

def ensure_peers(wanted, install: bool):
    """The peers that import (after installing the missing ones with pip), and a note for
    each skipped one."""
    available, skipped = [], {}
    for peer in wanted:
        module, requirement, _ = PEERS[peer]
        if module is None:
            available.append(peer)
            continue
        try:
            importlib.import_module(module)
            available.append(peer)
            continue
        except Exception as e:  # noqa: BLE001 - any import failure means "not usable"
            reason = "%s does not import (%s)" % (module, e)
        if install:
            log("installing %s with pip" % requirement)
            result = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", requirement],
                                    capture_output=True, text=True)
            importlib.invalidate_caches()
            if result.returncode == 0:
                try:
                    importlib.import_module(module)
                    available.append(peer)
                    continue
                except Exception as e:  # noqa: BLE001
                    reason = "%s installed but does not import (%s)" % (requirement, e)
            else:
                reason = "pip could not install %s: %s" % (requirement, (result.stderr.strip().splitlines() or ["?"])[-1])
        log("skipped %s: %s" % (PEERS[peer][2], reason))
        skipped[peer] = reason
    return available, skipped


def versions(peers):
    out = {}
    for peer in peers:
        try:
            if peer == "quire":
                sys.path.insert(0, str(ROOT / "bindings" / "python"))
                import quire
                out[peer] = quire.version()
            elif peer == "pdfium":
                import pypdfium2
                out[peer] = "pypdfium2 %s, PDFium %s" % (pypdfium2.version.PYPDFIUM_INFO, pypdfium2.version.PDFIUM_INFO)
            elif peer == "mupdf":
                import pymupdf
                out[peer] = "pymupdf %s, MuPDF %s" % (pymupdf.VersionBind, pymupdf.VersionFitz)
            elif peer == "qpdf":
                import pikepdf
                out[peer] = "pikepdf %s, qpdf %s" % (pikepdf.__version__, pikepdf.__libqpdf_version__)
            elif peer == "pypdf":
                import pypdf
                out[peer] = "pypdf %s" % pypdf.__version__
        except Exception as e:  # noqa: BLE001
            out[peer] = "? (%s)" % e
    return out


def ensure_data(available):
    """build/bench/large.pdf and big.pdf, generated when missing or older than the script."""
    large, big = WORK / "large.pdf", WORK / "big.pdf"
    script = BENCH / "make_data.py"
    fresh = all(p.exists() and p.stat().st_mtime >= script.stat().st_mtime for p in (large, big))
    if not fresh:
        if "qpdf" not in available:
            log("cannot generate the large documents: make_data.py needs pikepdf")
            return None, None
        log("generating %s and %s" % (large, big))
        subprocess.run([sys.executable, str(script), "--out", str(WORK)], check=True)
    return large, big


# Text with character positions, and search (issue 41): a 15-page text-heavy file of the
# corpus (pdfplumber's copy of a Federal Register issue), and 1,000 of its pages made into one
# document (67 copies, cut at 1,000 pages, by the qpdf command line).
TEXT_FILE = "pdfplumber/tests/pdfs/federal-register-2020-17221.pdf"
SEARCH_PHRASE = "Federal Register"


def ensure_search_data(source: Path):
    """build/bench/search-1000.pdf: 1,000 pages of `source`, made once."""
    out = WORK / "search-1000.pdf"
    if out.exists() and out.stat().st_mtime >= source.stat().st_mtime:
        return out
    if not shutil.which("qpdf"):
        log("cannot make %s: no qpdf command" % out)
        return None
    tmp = WORK / "search-1000.tmp.pdf"
    subprocess.run(["qpdf", "--empty", "--pages"] + [str(source)] * 67 + ["--", str(tmp)], check=True)
    subprocess.run(["qpdf", "--empty", "--pages", str(tmp), "1-1000", "--", str(out)], check=True)
    tmp.unlink()
    return out


def ensure_forms_data():
    """build/bench/forms-100.pdf: 100 text fields on 4 pages, each with a value and its
    appearance, made once with PyMuPDF's widgets."""
    out = WORK / "forms-100.pdf"
    if out.exists() and out.stat().st_mtime >= Path(__file__).stat().st_mtime:
        return out
    try:
        import pymupdf
    except ImportError:
        log("cannot make %s: no pymupdf" % out)
        return None
    doc = pymupdf.open()
    for p in range(4):
        page = doc.new_page(width=612, height=792)
        for k in range(25):
            widget = pymupdf.Widget()
            widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
            widget.field_name = "field_%d_%d" % (p, k)
            widget.field_value = "value %d" % (25 * p + k)
            widget.rect = pymupdf.Rect(72, 40 + 28 * k, 400, 60 + 28 * k)
            widget.text_fontsize = 11
            page.add_widget(widget)
    doc.save(str(out))
    doc.close()
    return out


def ensure_bare_data(large: Path):
    """build/bench/large-bare.pdf: large.pdf without its annotations (pikepdf), for the
    Instant JSON import."""
    out = WORK / "large-bare.pdf"
    if out.exists() and out.stat().st_mtime >= large.stat().st_mtime:
        return out
    try:
        import pikepdf
    except ImportError:
        log("cannot make %s: no pikepdf" % out)
        return None
    with pikepdf.open(large) as pdf:
        for page in pdf.pages:
            if "/Annots" in page.obj:
                del page.obj["/Annots"]
        pdf.remove_unreferenced_resources()
        pdf.save(out)
    return out


def corpus_files(corpus: Path, quick: bool):
    """Corpus files that all four peers open (per the manifest) and that are not
    encrypted; the quick run takes every fourth."""
    manifest = corpus / "manifest.jsonl"
    if not manifest.exists():
        return []
    files = []
    with open(manifest) as f:
        for line in f:
            row = json.loads(line)
            if row.get("duplicate_of"):
                continue
            if not all((row.get(p) or {}).get("opens") for p in ("pikepdf", "pdfium", "mupdf", "pypdf")):
                continue
            if row["consensus"].get("is_encrypted"):
                continue
            files.append(str(corpus / row["path"]))
    files.sort()
    return files[::4] if quick else files


# -- measuring ------------------------------------------------------------------------------

# --before DIR: another build of Quire's Python package (its libquire.so inside), measured in
# the same run as the peer "quire-before", so that a change's before and after ratios come
# from one run, under one load.
BEFORE = None


def measure(peer, workload, args, timeout):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    if peer == "quire-before":
        peer = "quire"
        env["QUIRE_BENCH_BINDING"] = str(BEFORE)
    command = [sys.executable, str(WORKER), peer, workload] + [str(a) for a in args]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after %d s" % timeout}
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith("{")]
    if result.returncode != 0 or not lines:
        tail = (result.stderr.strip().splitlines() or ["exit %d" % result.returncode])[-1]
        return {"error": tail[:200]}
    return json.loads(lines[-1])


def run_case(case, peers, reps, timeout, once_after=None):
    """Runs `case` (name, workload, args builder) `reps` times per peer, alternating. With
    `once_after` (the quick run), a peer whose first run took longer than that many
    seconds is not repeated (the table's runs column says so)."""
    name, workload, make_args = case
    samples = {p: [] for p in peers}
    errors = {}
    for rep in range(reps):
        order = peers[rep % len(peers):] + peers[: rep % len(peers)]
        for peer in order:
            if peer in errors:
                continue
            if once_after is not None and samples[peer] and samples[peer][0]["seconds"] > once_after:
                continue
            args = make_args(peer)
            r = measure(peer, workload, args, timeout)
            if "error" in r:
                errors[peer] = r["error"]
                log("  %-8s %s: %s" % (peer, name, r["error"]))
                continue
            out = args[-1] if workload in ("incremental", "incremental-stream", "rewrite", "rewrite-object-streams",
                                           "merge", "delete-half", "fill-forms", "flatten") else None
            if out is not None and Path(out).exists():
                r["output_bytes"] = Path(out).stat().st_size
            samples[peer].append(r)
            log("  %-8s %-22s %8.3f s  %6.0f MB" % (peer, name, r["seconds"], r["maxrss_kb"] / 1024))
    return samples, errors


def summarize(samples):
    out = {}
    for peer, runs in samples.items():
        if not runs:
            continue
        out[peer] = {
            "median_s": statistics.median(r["seconds"] for r in runs),
            "min_s": min(r["seconds"] for r in runs),
            "max_s": max(r["seconds"] for r in runs),
            "maxrss_mb": statistics.median(r["maxrss_kb"] for r in runs) / 1024,
            "runs": len(runs),
            "work": {k: runs[-1][k] for k in ("pages", "annots", "irt", "errors", "output_bytes", "fields") if k in runs[-1]},
        }
    return out


# -- report ---------------------------------------------------------------------------------

def machine():
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = "?"
    try:
        with open("/proc/meminfo") as f:
            memory = "%.0f GB" % (int(f.readline().split()[1]) / 1024 / 1024)
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": memory, "system": platform.platform(),
            "python": platform.python_version()}


def table(results, peers, labels):
    lines = []
    for case in results:
        summary = case["summary"]
        lines.append("### %s" % case["title"])
        lines.append("")
        lines.append(case["what"])
        lines.append("")
        lines.append("| library | median time | ratio to Quire | peak memory | runs | notes |")
        lines.append("| --- | ---: | ---: | ---: | ---: | --- |")
        base = summary.get("quire", {}).get("median_s")
        for peer in case["peers"]:
            label = labels.get(peer, peer)
            if peer in case["errors"] and peer not in summary:
                lines.append("| %s | failed | | | | %s |" % (label, case["errors"][peer]))
                continue
            if peer not in summary:
                continue
            s = summary[peer]
            ratio = "%.2f" % (s["median_s"] / base) if base else "–"
            key = {"quire-stream": ("incremental-stream", "quire"), "quire-inplace": ("incremental-in-place", "quire"),
                   "quire-objstm": ("rewrite-object-streams", "quire")}.get(
                peer, (case["workload"], peer))
            note = NOTES.get(key, "")
            work = s["work"]
            if "fields" in work:
                note = ("%d fields. " % work["fields"] + note).strip()
            if "annots" in work and "pages" not in work:
                note = ("%d annotations. " % work["annots"] + note).strip()
            elif "annots" in work:
                note = ("%d pages, %d annotations, %d with /IRT%s. " % (
                    work["pages"], work["annots"], work["irt"],
                    ", %d files failed" % work["errors"] if work.get("errors") else "") + note).strip()
            if "output_bytes" in work:
                note = ("output %.1f MB. " % (work["output_bytes"] / 1e6) + note).strip()
            lines.append("| %s | %s | %s | %.0f MB | %d | %s |" % (
                label, fmt_seconds(s["median_s"]), ratio, s["maxrss_mb"], s["runs"], note))
        lines.append("")
    return "\n".join(lines)


def fmt_seconds(s):
    return "%.1f ms" % (s * 1000) if s < 1 else "%.2f s" % s


def plot(results, labels, path, install):
    try:
        importlib.import_module("matplotlib")
    except Exception:  # noqa: BLE001
        if install:
            log("installing matplotlib with pip, for the plot")
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "matplotlib"], capture_output=True)
            importlib.invalidate_caches()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        log("no plot: matplotlib is not available (%s)" % e)
        return False
    # The cases with a peer to compare (the Quire-only workloads 9 and 10 have no bar).
    cases = [c for c in results if "quire" in c["summary"] and any(p in c["summary"] for p in PEERS if p != "quire")]
    peers = [p for p in ("pdfium", "mupdf", "qpdf", "pypdf") if any(p in c["summary"] for c in cases)]
    fig, ax = plt.subplots(figsize=(10, 4.8))
    width = 0.8 / max(len(peers), 1)
    for k, peer in enumerate(peers):
        xs, ys = [], []
        for i, c in enumerate(cases):
            if peer in c["summary"]:
                xs.append(i + (k - (len(peers) - 1) / 2) * width)
                ys.append(c["summary"][peer]["median_s"] / c["summary"]["quire"]["median_s"])
        ax.bar(xs, ys, width, label=labels[peer])
    ax.axhline(1, color="black", linewidth=1)
    ax.set_yscale("log")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([c["short"] for c in cases], fontsize=8, rotation=30, ha="right")
    ax.set_ylabel("peer time / Quire time (log; above 1: Quire is faster)")
    ax.set_title("Quire %s vs. its peers: median of alternating runs" % results[0].get("quire_version", ""))
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def write_report(raw, report, install):
    """RESULTS.md and results.png beside it, from the measurements `raw`."""
    labels = {p: PEERS[p][2] for p in PEERS}
    labels["quire-before"] = "Quire, the build before (--before)"
    labels["quire-stream"] = "Quire, to a file object"
    labels["quire-inplace"] = "Quire, appended in place"
    labels["quire-objstm"] = "Quire, with object streams"
    results, info, vers, skipped = raw["results"], raw["machine"], raw["versions"], raw["skipped"]
    peers = [p for p in PEERS if p in vers]
    started = datetime.datetime.fromisoformat(raw["date"])
    load_before, load_after = raw["load"]
    reps = raw["reps"]
    full = raw["full"]
    png = report.with_name("results.png")
    md = ["# Quire benchmark results", ""]
    md.append("%s run of `bench/run.py%s`, %s (UTC). Every number is the median of %d runs, each in a fresh "
              "process, alternating between the libraries; *ratio to Quire* is the peer's median time over "
              "Quire's (above 1: Quire is faster). Peak memory is the process's peak resident set "
              "(VmHWM, which is ru_maxrss without what a child inherits from its parent): the Python "
              "interpreter and the library's import included (about 10 MB for Python alone; pymupdf's import "
              "alone is over 100 MB)." % (
                  "The full" if full else "A quick", " --full" if full else "",
                  started.strftime("%Y-%m-%d %H:%M"), reps))
    md.append("")
    md.append("Machine: %s, %d cores, %s RAM; %s; Python %s. Load average %.1f before, %.1f after (the machine "
              "is shared: alternation spreads the load over all libraries)." % (
                  info["cpu"], info["cores"], info["memory"], info["system"], info["python"], load_before[0], load_after[0]))
    md.append("")
    md.append("Libraries: " + "; ".join("%s %s" % (labels[p].split(" (")[0], vers[p]) for p in peers) + ".")
    for peer, reason in skipped.items():
        md.append("")
        md.append("Skipped: %s: %s." % (labels[peer], reason))
    md.append("")
    md.append(table(results, peers, labels))
    if plot(results, labels, png, install):
        md.append("![ratio of each peer's time to Quire's](%s)" % png.name)
        md.append("")
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("\n".join(md))
    log("wrote %s" % report)
    print("\n".join(md))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="the whole corpus, 5 repetitions; writes bench/RESULTS.md")
    parser.add_argument("--reps", type=int, help="repetitions (default 3, --full 5)")
    parser.add_argument("--peers", default="quire,pdfium,mupdf,qpdf,pypdf")
    parser.add_argument("--only", help="comma-separated case names (read-corpus, read-large, incremental, rewrite, open-big, "
                        "open-large, text-corpus, chars, search, merge, split, delete-half, fill-forms, flatten, "
                        "json-export, json-import, checkpoint-big, checkpoint-large)")
    parser.add_argument("--no-install", action="store_true", help="do not pip install missing peers")
    parser.add_argument("--before", help="a directory with another build's quire package, measured too (quire-before)")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite the report and plot from build/bench/results.json without measuring")
    parser.add_argument("--out", help="the Markdown report (default bench/RESULTS.md with --full, else build/bench/RESULTS.md)")
    args = parser.parse_args()
    reps = args.reps or (5 if args.full else 3)
    global BEFORE
    BEFORE = Path(args.before).resolve() if args.before else None
    WORK.mkdir(parents=True, exist_ok=True)
    report = Path(args.out) if args.out else (BENCH / "RESULTS.md" if args.full else WORK / "RESULTS.md")

    if args.report_only:
        source = WORK / "results.json" if (WORK / "results.json").exists() else BENCH / "results.json"
        raw = json.loads(source.read_text())
        report = Path(args.out) if args.out else (BENCH / "RESULTS.md" if raw["full"] else WORK / "RESULTS.md")
        write_report(raw, report, not args.no_install)
        return 0
    if not (ROOT / "bindings" / "python" / "quire" / "libquire.so").exists():
        log("bindings/python/quire/libquire.so is missing: run `make` first")
        return 2
    # The peers were installed by pip, which compiles their modules' bytecode; Quire's binding
    # runs from the source tree, where (with PYTHONDONTWRITEBYTECODE=1, as on this machine)
    # every worker compiled its modules again: 3.4 MB of peak memory and over 100 ms that an
    # installed wheel never costs. Compiled once here, as `pip install` does; a module edited
    # since is compiled again by Python, never run stale.
    compileall.compile_dir(str(ROOT / "bindings" / "python" / "quire"), quiet=1)
    peers, skipped = ensure_peers(args.peers.split(","), not args.no_install)
    large, big = ensure_data(peers)
    files = corpus_files(Path(args.corpus), quick=not args.full)
    file_list = WORK / "corpus-files.txt"
    file_list.write_text("\n".join(files) + "\n")
    scratch = WORK / "tmp"
    scratch.mkdir(exist_ok=True)

    def incremental_args(peer):
        source = scratch / ("%s-in.pdf" % peer)
        shutil.copyfile(big, source)  # MuPDF appends to the file it opened: a fresh copy each run
        # The copy on disk before the measurement: else the first fsync of a save flushes it
        # (100 MB of the harness's writes counted against the library that syncs).
        os.sync()
        target = source if peer == "mupdf" else scratch / ("%s-out.pdf" % peer)
        return [source, target]

    def split_args(peer):
        directory = scratch / ("%s-split" % peer)
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir()
        return [large, directory]

    cases = []
    if files:
        cases.append(("read-corpus", "read", lambda p: ["@%s" % file_list], "1a",
                      "Workload 1: read annotations, corpus",
                      "Open, count pages, read every annotation's subtype, rect, contents and /IRT, close: "
                      "%d corpus files that all four peers open and that are not encrypted (%s), one process for all of them." % (
                          len(files), "every fourth: the quick run" if not args.full else "all of them")))
        cases.append(("text-corpus", "text", lambda p: ["@%s" % file_list], "5",
                      "Workload 5: plain text of every page, corpus",
                      "Open, extract the plain text of every page, close: the same %d corpus files "
                      "(Quire, PDFium and MuPDF only: the others have no text layer to compare)." % len(files)))
        text_file = Path(args.corpus) / TEXT_FILE
        if text_file.exists():
            cases.append(("chars", "chars", lambda p: [text_file], "7a",
                          "Workload 7: text with character positions, from Python",
                          "Open %s (15 pages), read every character's text and box, page by page (Quire: "
                          "Page.chars(), one library call per page; PDFium: FPDFText_GetUnicode and get_charbox per "
                          "character; MuPDF: rawdict)." % TEXT_FILE))
            search_file = ensure_search_data(text_file)
            if search_file:
                cases.append(("search", "search", lambda p: [search_file, SEARCH_PHRASE], "7b",
                              "Workload 7: search a phrase in a 1,000-page document",
                              "Every match of \"%s\" in search-1000.pdf (1,000 pages of %s), case-insensitive "
                              "(Quire: Document.search; PDFium: FPDFText_FindStart/FindNext on each page's text page; "
                              "MuPDF: Page.search_for)." % (SEARCH_PHRASE, TEXT_FILE)))
    else:
        log("no corpus at %s: workload 1a skipped" % args.corpus)
    if large:
        cases += [
            ("read-large", "read", lambda p: [large], "1b", "Workload 1: read annotations, large document",
             "The same on large.pdf (%.1f MB): 3000 pages, 36000 annotations, 9000 of them replies (/IRT), in "
             "object streams; generated by bench/make_data.py from the corpus file pdfannots/tests/caret.pdf." % (large.stat().st_size / 1e6)),
            ("incremental", "incremental", incremental_args, "2", "Workload 2: add one annotation, save incrementally",
             "Open big.pdf (%.0f MB: large.pdf plus 96 MiB of images), add one square annotation to page 1, save "
             "incrementally, close." % (big.stat().st_size / 1e6)),
            ("rewrite", "rewrite", lambda p: [large, scratch / ("%s-full.pdf" % p)], "3", "Workload 3: full save",
             "Open large.pdf and save a complete rewrite of it."),
            ("open-big", "open", lambda p: [big], "4a", "Workload 4: open alone, 100 MB file",
             "Open big.pdf and close it: nothing else is asked for."),
            ("open-large", "open", lambda p: [large], "4b", "Workload 4: open alone, large document",
             "Open large.pdf and close it."),
            ("merge", "merge", lambda p: [large, scratch / ("%s-merged.pdf" % p)], "6a",
             "Workload 6: merge two large documents",
             "Open large.pdf twice, append the pages of one to the other (Quire: Document.merge, with their "
             "annotations, replies and outline; qpdf: pages.extend, as qpdf --pages; MuPDF: insert_pdf; PDFium: "
             "FPDF_ImportPages), save in full."),
            ("split", "split", split_args, "6b", "Workload 6: split into single pages",
             "Open large.pdf and write each of its 3000 pages to a file of its own (Quire: Document.extract; "
             "PDFium: FPDF_ImportPages into a new document; MuPDF: insert_pdf; qpdf: a new Pdf per page)."),
            ("delete-half", "delete-half", lambda p: [large, scratch / ("%s-half.pdf" % p)], "6c",
             "Workload 6: delete every second page",
             "Open large.pdf, delete every second page, save in full."),
            ("last-page-big", "last-page", lambda p: [big], "4c", "Workload 4: one annotation of the last page, 100 MB file",
             "Open big.pdf, read the subtype and contents of the first annotation of its last page, close: what "
             "lazy reading saves (peak memory is the point)."),
        ]
    forms = ensure_forms_data()
    if forms:
        cases += [
            ("fill-forms", "fill-forms", lambda p: [forms, scratch / ("%s-filled.pdf" % p)], "8a",
             "Workload 8: fill 100 fields and save",
             "Open forms-100.pdf (100 text fields on 4 pages, made with PyMuPDF), give every field a new value "
             "with its appearance made again, save to a new file (Quire: field.value, save; PyMuPDF: "
             "Widget.update, save; pypdf: update_page_form_field_values, write)."),
            ("flatten", "flatten", lambda p: [forms, scratch / ("%s-flat.pdf" % p)], "8b",
             "Workload 8: flatten a form",
             "Open forms-100.pdf, burn every field's appearance into its page, remove the form, save in full "
             "(Quire: flatten([\"Widget\"]); PyMuPDF: bake(widgets=True); pypdf: update_page_form_field_values "
             "with flatten=True, then remove_annotations)."),
        ]
    if large:
        bare = ensure_bare_data(large)
        exported = scratch / "quire-large.json"
        cases.append(("json-export", "json-export", lambda p: [large, exported], "9a",
                      "Workload 9: Instant JSON export of 36,000 annotations",
                      "Open large.pdf, export its 36,000 annotations as Instant JSON (pretty-printed), write it "
                      "to a file. Quire only (no peer reads or writes Instant JSON); goal under 1 s."))
        if bare:
            cases.append(("json-import", "json-import", lambda p: [bare, exported], "9b",
                          "Workload 9: Instant JSON import of 36,000 annotations",
                          "Open large.pdf without its annotations, import the JSON of 9a (36,000 annotations "
                          "made, nothing saved). Quire only; goal under 1 s."))
        for label, source in (("big", big), ("large", large)):
            def checkpoint_args(peer, source=source, label=label):
                copy = scratch / ("checkpoint-%s.pdf" % label)
                shutil.copyfile(source, copy)
                os.sync()
                directory = scratch / ("checkpoint-%s" % label)
                shutil.rmtree(directory, ignore_errors=True)
                return [copy, directory]
            cases.append(("checkpoint-" + label, "checkpoint-save", checkpoint_args, "10" + label[0],
                          "Workload 10: checkpoints, then two saves, on %s" % label,
                          "Open %s.pdf (%.1f MB), start immediate checkpoints, add an annotation and save in place, "
                          "twice. Quire only; the goal is a cost independent of the file's size (compare 10b and "
                          "10l)." % (label, source.stat().st_size / 1e6)))
    if args.only:
        wanted = set(args.only.split(","))
        cases = [c for c in cases if c[0] in wanted]

    # Warm the page cache, so that the first library measured does not pay for the disk.
    for path in files + ([str(large), str(big)] if large else []):
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass

    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()
    results = []
    for name, workload, make_args, short, title, what in cases:
        timeout = 1800 if name == "read-corpus" else 600
        log("%s (%d repetitions)" % (title, reps))
        case_peers = list(peers)
        if workload in ("text", "chars", "search"):
            case_peers = [p for p in peers if p in ("quire", "pdfium", "mupdf")]
        if workload in ("fill-forms", "flatten"):
            case_peers = [p for p in peers if p in ("quire", "mupdf", "pypdf")]
        if workload in ("json-export", "json-import", "checkpoint-save"):
            case_peers = [p for p in peers if p == "quire"]
        if workload in ("merge", "split", "delete-half"):
            # The peers (pypdf's merge is not among them).
            case_peers = [p for p in peers if p in ("quire", "pdfium", "mupdf", "qpdf")]
        if BEFORE is not None and "quire" in case_peers:
            case_peers.insert(case_peers.index("quire") + 1, "quire-before")
        once_after = None if args.full else 10.0
        samples, errors = run_case((name, workload, make_args), case_peers, reps, timeout, once_after)
        if name == "incremental" and "quire" in peers:
            # The same save without fsync: what durability costs.
            extra, extra_errors = run_case((name, "incremental-stream", incremental_args), ["quire"], reps, timeout)
            samples["quire-stream"] = extra["quire"]
            errors.update({"quire-stream": e for e in extra_errors.values()})
            case_peers.insert(1, "quire-stream")
            # Appended in place to the file it opened (in_place=True).
            extra, extra_errors = run_case((name, "incremental-in-place", incremental_args), ["quire"], reps, timeout)
            samples["quire-inplace"] = extra["quire"]
            errors.update({"quire-inplace": e for e in extra_errors.values()})
            case_peers.insert(2, "quire-inplace")
        if name == "rewrite" and "quire" in peers:
            # With object streams, against qpdf's output that keeps them (issue 41's goal).
            extra, extra_errors = run_case((name, "rewrite-object-streams", lambda p: [large, scratch / "quire-objstm.pdf"]),
                                           ["quire"], reps, timeout)
            samples["quire-objstm"] = extra["quire"]
            errors.update({"quire-objstm": e for e in extra_errors.values()})
            case_peers.insert(1, "quire-objstm")
        results.append({"case": name, "workload": workload, "short": "%s %s" % (short, name), "title": title,
                        "what": what, "peers": case_peers, "summary": summarize(samples), "errors": errors})
    load_after = os.getloadavg()
    vers = versions(peers)
    if results:
        results[0]["quire_version"] = vers.get("quire", "")
    info = machine()
    raw = {"date": started.isoformat(), "machine": info, "versions": vers, "skipped": skipped,
           "reps": reps, "full": args.full, "load": [load_before, load_after], "results": results}
    (WORK / "results.json").write_text(json.dumps(raw, indent=1))
    if args.full:
        (BENCH / "results.json").write_text(json.dumps(raw, indent=1))  # what RESULTS.md was made from

    write_report(raw, report, not args.no_install)
    return 0


if __name__ == "__main__":
    sys.exit(main())
