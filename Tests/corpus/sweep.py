#!/usr/bin/env python3
"""Runs `quire info --json` on every file of the shared corpus and compares with the peers.

For each file in ../shared/corpus/manifest.jsonl it runs the CLI in a child process with a
wall-clock limit, so that a crash or a hang is seen as such and cannot take the sweep down:
`quire info --json` (the summary compared with the peers) and `quire check` (which reads
every object and decodes every stream). It reports, per group of files, how many open and
how many give the page count that PDFium gives (and the majority of the peers), and the
peak memory (resident set) of the children, each measured by wait4().

    python3 Tests/corpus/sweep.py [--cli build/bin/quire] [--corpus DIR] [--only ordinary]
                                  [--known Tests/corpus/known-differences.txt] [--show N]
                                  [--timeout SECONDS] [--max-rss-mb MB] [--no-check]

Limits per file: --timeout (wall clock of `quire info`, default 5 s), --check-timeout (of
`quire check`, default 30 s, since it decodes every stream) and --max-rss-mb, the
memory budget `max_rss_mb` (default 512 MiB, or $QUIRE_SWEEP_MAX_RSS_MB): the peak resident
set of one `quire` process on one file, runtime included.

Groups: "ordinary" is the skeleton's contract (unencrypted files with a classic xref table,
no object streams, no damage, that PDFium opens), measured against PDFium; "all" is every
file, measured against the majority of the peers (PDFium, qpdf, MuPDF) that open it.
Exit status: 1 if any file crashes, hangs or goes over the memory budget, or a file of the --only group gives a page
count other than PDFium's, or any opened file gives annotation, reply or state counts other
than the peers' majority, and is not listed, with its reason, in the --known file; else 0.
"""
import argparse
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

# The memory budget: the peak resident set of one `quire` process on one corpus file.
MAX_RSS_MB_DEFAULT = 512

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ordinary(row):
    c = row["consensus"]
    return (c.get("is_encrypted") is False and c.get("xref_stream") is False
            and c.get("object_streams") is False and not c.get("damaged_any")
            and row["pdfium"].get("opens"))


def peer_answers(row):
    """The page counts of the peers (PDFium, qpdf through pikepdf, MuPDF) that open the file."""
    return [row[p]["page_count"] for p in ("pdfium", "pikepdf", "mupdf")
            if row.get(p, {}).get("opens") and row[p].get("page_count") is not None]


def majority_counts(row):
    """The page counts that the most peers give (several on a tie): what Quire should give."""
    answers = peer_answers(row)
    if not answers:
        return set()
    best = max(answers.count(a) for a in answers)
    return {a for a in answers if answers.count(a) == best}


def run_child(argv, timeout):
    """Runs `argv` with a wall-clock limit; returns (returncode or None on a hang, stdout,
    stderr, seconds, peak RSS in MiB). The child is reaped with os.wait4, whose rusage is
    that one process's (ru_maxrss is in KiB on Linux), so children running in parallel do
    not blur each other's figures as getrusage(RUSAGE_CHILDREN) would."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        p = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        status = usage = None
        delay = 0.001
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if time.monotonic() - started > timeout:
                p.kill()
                _, status, usage = os.wait4(p.pid, 0)
                status = None
                break
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
        elapsed = time.monotonic() - started
        p.returncode = os.waitstatus_to_exitcode(status) if status is not None else -signal.SIGKILL
        out.seek(0)
        err.seek(0)
        code = None if status is None else p.returncode
        return code, out.read(), err.read(), elapsed, usage.ru_maxrss / 1024.0


class Completed:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(cli, path, timeout, check=True, check_timeout=30.0):
    code, out, err, elapsed, rss = run_child([cli, "info", "--json", path], timeout)
    if code is None:
        return {"outcome": "hang", "seconds": elapsed, "rss_mb": rss, "command": "info"}
    result = _outcome(Completed(code, out, err))
    result["seconds"] = elapsed
    result["rss_mb"] = rss
    result["command"] = "info"
    if check:
        # `quire check` reads every object and decodes every stream: exit 0, 2 or 3 (qpdf's
        # codes) or 1 when the file does not open; a signal is a crash.
        ccode, _, cerr, celapsed, crss = run_child([cli, "check", path], check_timeout)
        result["check_seconds"] = celapsed
        if crss > result["rss_mb"]:
            result["rss_mb"], result["command"] = crss, "check"
        if ccode is None:
            result.update(outcome="hang", command="check")
        elif ccode < 0:
            result.update(outcome="crash", signal=-ccode, command="check",
                          stderr=cerr.decode(errors="replace")[-300:])
    return result


def _outcome(p):
    if p.returncode < 0:
        return {"outcome": "crash", "signal": -p.returncode, "stderr": p.stderr.decode(errors="replace")[-300:]}
    if p.returncode != 0:
        return {"outcome": "error", "stderr": p.stderr.decode(errors="replace").strip()[:300]}
    try:
        return {"outcome": "ok", "info": json.loads(p.stdout)}
    except ValueError:
        return {"outcome": "crash", "stderr": "invalid JSON on stdout"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "quire"))
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(ROOT), "shared", "corpus"))
    ap.add_argument("--only", choices=["ordinary", "all"], default="ordinary")
    ap.add_argument("--known", default=os.path.join(ROOT, "Tests", "corpus", "known-differences.txt"))
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--max-rss-mb", type=float,
                    default=float(os.environ.get("QUIRE_SWEEP_MAX_RSS_MB", MAX_RSS_MB_DEFAULT)),
                    help="the memory budget max_rss_mb: peak RSS of one quire process on one file "
                         f"(default {MAX_RSS_MB_DEFAULT}, or $QUIRE_SWEEP_MAX_RSS_MB)")
    ap.add_argument("--check-timeout", type=float, default=30.0,
                    help="wall-clock limit of `quire check` on one file (default 30 s: it decodes every "
                         "stream; ocrmypdf's multipage.pdf holds a 9000x9000 RGB image, 243 MB decoded, "
                         "about 5 s)")
    ap.add_argument("--no-check", dest="check", action="store_false",
                    help="run only `quire info --json`, not also `quire check`")
    args = ap.parse_args()

    manifest = os.path.join(args.corpus, "manifest.jsonl")
    if not os.path.exists(manifest):
        print(f"corpus not found at {args.corpus}", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in open(manifest)]
    known = {}
    if os.path.exists(args.known):
        for line in open(args.known):
            if line.strip() and not line.startswith("#"):
                path, _, reason = line.rstrip("\n").partition("\t")
                known[path] = reason
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda r: run(args.cli, os.path.join(args.corpus, r["path"]), args.timeout, args.check, args.check_timeout), rows))

    groups = {"ordinary": [], "all": []}
    for row, res in zip(rows, results):
        groups["all"].append((row, res))
        if ordinary(row):
            groups["ordinary"].append((row, res))

    slowest = max(zip(rows, results), key=lambda rs: max(rs[1].get("seconds", 0), rs[1].get("check_seconds", 0)))
    print(f"slowest file: {slowest[0]['path']} in "
          f"{max(slowest[1].get('seconds', 0), slowest[1].get('check_seconds', 0)):.2f} s "
          f"(limits: {args.timeout:.0f} s for info, {args.check_timeout:.0f} s for check; CLI process start included)")
    biggest = max(zip(rows, results), key=lambda rs: rs[1].get("rss_mb", 0))
    print(f"peak memory: {biggest[1].get('rss_mb', 0):.1f} MiB (quire {biggest[1].get('command')}) on "
          f"{biggest[0]['path']}; budget max_rss_mb = {args.max_rss_mb:.0f} MiB")
    failed = False
    over = [(r, s) for r, s in zip(rows, results) if s.get("rss_mb", 0) > args.max_rss_mb]
    if over:
        failed = True
        print(f"OVER THE MEMORY BUDGET ({len(over)} files):")
        for r, s in over[: args.show]:
            print(f"  {r['path']}: {s['rss_mb']:.1f} MiB (quire {s.get('command')})")
    for name, items in groups.items():
        crashes = [(r, s) for r, s in items if s["outcome"] in ("crash", "hang")]
        opened_by_peer = [(r, s) for r, s in items if r["pdfium"].get("opens") or r["pikepdf"].get("opens")]
        same = [(r, s) for r, s in opened_by_peer
                if s["outcome"] == "ok" and s["info"]["pages"] == r["pdfium"].get("page_count")]
        majority = [(r, s) for r, s in opened_by_peer
                    if s["outcome"] == "ok" and s["info"]["pages"] in majority_counts(r)]
        opened = sum(1 for _, s in items if s["outcome"] == "ok")
        n = len(opened_by_peer)
        print(f"[{name}] files {len(items)}; quire opens {opened}; crashes or hangs {len(crashes)}; "
              f"peer-opened {n}: same pages as PDFium {len(same)} ({100.0 * len(same) / max(n, 1):.2f}%), "
              f"as the majority of the peers that open it {len(majority)} ({100.0 * len(majority) / max(n, 1):.2f}%)")
        # The manifest's own verdict: consensus.page_count_majority, set where the peers
        # that open the file have a strict majority (not on a tie, nor with one peer).
        decided = [(r, s) for r, s in opened_by_peer if r["consensus"].get("page_count_majority") is not None]
        agreed = sum(1 for r, s in decided
                     if s["outcome"] == "ok" and s["info"]["pages"] == r["consensus"]["page_count_majority"])
        print(f"[{name}] of the {len(decided)} peer-opened files with a consensus.page_count_majority, "
              f"{agreed} ({100.0 * agreed / max(len(decided), 1):.2f}%) give it")
        if crashes:
            failed = True
            for r, s in crashes[: args.show]:
                print(f"  {s['outcome'].upper()} (quire {s.get('command')}): {r['path']} {s.get('stderr', '')}")
        if name == args.only:
            same_ids = {id(r) for r, _ in (same if name == "ordinary" else majority)}
            shown = 0
            for r, s in opened_by_peer:
                if id(r) in same_ids:
                    continue
                expected = r["path"] in known
                failed = failed or not expected
                if shown >= args.show:
                    continue
                shown += 1
                got = s["info"]["pages"] if s["outcome"] == "ok" else s.get("stderr", s["outcome"])
                label = "known" if expected else "DIFFERS"
                print(f"  {label}: {r['path']}: pdfium {r['pdfium'].get('page_count')}, "
                      f"peers {peer_answers(r)}, quire {got}")
    # Annotations: totals, replies (/IRT) and review states (/State) against the majority
    # of the peers, and the per-page counts where the totals agree, on every file Quire opens.
    checked = 0
    for row, res in zip(rows, results):
        c = row["consensus"]
        if res["outcome"] != "ok" or c.get("annots_total_majority") is None:
            continue
        checked += 1
        info = res["info"]
        problems = []
        for key, field in (("annotations", "annots_total_majority"), ("replies", "annots_irt_majority"),
                           ("states", "annots_state_majority")):
            if c.get(field) is not None and info.get(key) != c[field]:
                problems.append(f"{key} {info.get(key)} vs {c[field]}")
        per_page = row["pdfium"].get("annots_per_page") or row["pikepdf"].get("annots_per_page")
        if not problems and per_page is not None:
            mine = {str(k): v for k, v in enumerate(info["annotations_per_page"]) if v}
            if mine != {str(k): v for k, v in per_page.items() if v}:
                problems.append("annotations per page differ")
        if problems:
            expected = row["path"] in known
            failed = failed or not expected
            print(f"  {'known' if expected else 'DIFFERS'}: {row['path']}: {'; '.join(problems)}")
    print(f"[annotations] {checked} files checked against the peers' majority")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
