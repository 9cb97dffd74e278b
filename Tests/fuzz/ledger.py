#!/usr/bin/env python3
"""Totals of the long fuzzing runs, for Tests/fuzz/RUNS.md.

Reads run-long.sh's .build/fuzz-long/runs.tsv (one line per chunk: target, executions,
seconds, failing inputs so far, time and how the chunk ended, build, commit) and prints a
Markdown table: executions and runs per second per commit, build and target, then the
totals per target. A commit with "+" had uncommitted changes to Sources or the fuzz
support code when the chunk started.

    python3 Tests/fuzz/ledger.py [RUNS_TSV]
"""
import collections
import sys

path = sys.argv[1] if len(sys.argv) > 1 else ".build/fuzz-long/runs.tsv"
rows = collections.OrderedDict()
totals = collections.Counter()
failed = collections.Counter()
for line in open(path, encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if len(f) < 5:
        continue
    target, runs, secs = f[0], int(f[1] or 0), int(f[2] or 0)
    build = f[5] if len(f) > 5 else "asan"
    commit = f[6] if len(f) > 6 else "?"
    key = (commit, build, target)
    r = rows.setdefault(key, [0, 0, f[4].split()[0][:10]])
    r[0] += runs
    r[1] += secs
    totals[target] += runs
    if f[4].endswith("failed"):
        failed[target] += 1

print("| date | commit | build | target | executions | seconds | runs/s |")
print("| --- | --- | --- | --- | ---: | ---: | ---: |")
for (commit, build, target), (runs, secs, date) in rows.items():
    print(f"| {date} | {commit} | {build} | {target} | {runs:,} | {secs:,} | {runs / secs if secs else 0:,.0f} |")
print()
for target in ("walk", "edit", "json"):
    print(f"- {target}: {totals[target]:,} executions in all, {failed[target]} chunks ended by a failure")
