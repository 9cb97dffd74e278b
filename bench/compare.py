#!/usr/bin/env python3
"""Quire against Quire: two builds of the Python package on the same workload, in
alternating fresh processes (bench/worker.py), to say what a change bought.

    python3 bench/compare.py BEFORE_PACKAGE_DIR [--reps 7] WORKLOAD ARGS...

BEFORE_PACKAGE_DIR holds a `quire` package with its libquire.so (for instance a copy of
bindings/python made before the change); the other build is bindings/python.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("workload")
    parser.add_argument("args", nargs="*")
    a = parser.parse_args()
    builds = {"before": str(Path(a.before).resolve()), "after": str(ROOT / "bindings" / "python")}
    times = {k: [] for k in builds}
    rss = {k: [] for k in builds}
    for _ in range(a.reps):
        for name, path in builds.items():
            r = subprocess.run([sys.executable, str(ROOT / "bench" / "worker.py"), "quire", a.workload] + a.args,
                               capture_output=True, text=True, env=dict(os.environ, QUIRE_BENCH_BINDING=path))
            if r.returncode != 0:
                print(name, "failed:", r.stderr.strip().splitlines()[-1:])
                return 1
            result = json.loads(r.stdout.strip().splitlines()[-1])
            times[name].append(result["seconds"])
            rss[name].append(result["maxrss_kb"] / 1024)
    b, f = statistics.median(times["before"]), statistics.median(times["after"])
    print("%s %s: before %.1f ms (%.0f MB), after %.1f ms (%.0f MB): %.2fx" % (
        a.workload, " ".join(a.args), b * 1000, statistics.median(rss["before"]), f * 1000,
        statistics.median(rss["after"]), b / f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
