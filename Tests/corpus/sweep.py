#!/usr/bin/env python3
"""Runs `quire info --json` on every file of the shared corpus and compares with the peers.

For each file in ../shared/corpus/manifest.jsonl it runs the CLI in a child process with a
wall-clock limit, so that a crash or a hang is seen as such and cannot take the sweep down.
It reports, per group of files, how many open and how many give the page count that PDFium
gives (and the majority of the peers).

    python3 Tests/corpus/sweep.py [--cli build/bin/quire] [--corpus DIR] [--only ordinary]
                                  [--known Tests/corpus/known-differences.txt] [--show N]

Groups: "ordinary" is the skeleton's contract (unencrypted files with a classic xref table,
no object streams, no damage, that PDFium opens), measured against PDFium; "all" is every
file, measured against the majority of the peers (PDFium, qpdf, MuPDF) that open it.
Exit status: 1 if any file crashes or hangs, or a file of the --only group gives a page
count other than PDFium's, or any opened file gives annotation, reply or state counts other
than the peers' majority, and is not listed, with its reason, in the --known file; else 0.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

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


def run(cli, path, timeout):
    started = time.monotonic()
    try:
        p = subprocess.run([cli, "info", "--json", path], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"outcome": "hang", "seconds": timeout}
    finally:
        elapsed = time.monotonic() - started
    result = _outcome(p)
    result["seconds"] = elapsed
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
        results = list(pool.map(lambda r: run(args.cli, os.path.join(args.corpus, r["path"]), args.timeout), rows))

    groups = {"ordinary": [], "all": []}
    for row, res in zip(rows, results):
        groups["all"].append((row, res))
        if ordinary(row):
            groups["ordinary"].append((row, res))

    slowest = max(zip(rows, results), key=lambda rs: rs[1].get("seconds", 0))
    print(f"slowest file: {slowest[0]['path']} in {slowest[1].get('seconds', 0):.2f} s "
          f"(limit {args.timeout:.0f} s, CLI process start included)")
    failed = False
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
                print(f"  {s['outcome'].upper()}: {r['path']} {s.get('stderr', '')}")
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
