#!/usr/bin/env python3
"""The cost of one immediate checkpoint with 10, 1,000 and 100,000 unsaved annotations.

    PYTHONPATH=bindings/python python3 bench/checkpoint.py [--counts 10,1000,100000] [--edits 200]

For each count N, a copy of examples/sample.pdf gets N unsaved annotations (objects added
to page 1's /Annots through the low-level interface: the setup, not measured). Then one
of them is changed `--edits` times (its /Contents, through `set_dict_value`) and each call
is timed, first with checkpoints off, then with immediate checkpoints on. The difference
is what one immediate checkpoint costs: serializing the change, appending it with its
checksum, and fdatasync before the call returns. The table gives medians and the bytes
appended per change: neither should grow with N.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bindings" / "python"))

import quire  # noqa: E402
from quire import Name, String  # noqa: E402


def prepare(pdf: Path, count: int):
    doc = quire.Document(pdf)
    page = doc.resolve(doc.resolve(doc.trailer["Root"])["Pages"])["Kids"][0]
    refs = list(doc.resolve(doc.resolve(page).get("Annots") or []))
    for k in range(count):
        refs.append(doc.add_object({"Type": Name("Annot"), "Subtype": Name("Square"),
                                    "Rect": [10 + k % 500, 10, 20 + k % 500, 20],
                                    "Contents": String.from_text("unsaved %d" % k)}))
    doc.set_dict_value(page, "Annots", refs)
    return doc, refs[-1]


def time_edits(doc: quire.Document, target, edits: int) -> List[float]:
    times = []
    for k in range(edits):
        value = String.from_text("edit %d" % k)
        start = time.perf_counter()
        doc.set_dict_value(target, "Contents", value)
        times.append(time.perf_counter() - start)
    return times


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default="10,1000,100000")
    parser.add_argument("--edits", type=int, default=200)
    args = parser.parse_args(argv)
    counts = [int(c) for c in args.counts.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for count in counts:
            pdf = Path(work) / ("doc%d.pdf" % count)
            shutil.copyfile(REPO / "examples" / "sample.pdf", pdf)
            doc, target = prepare(pdf, count)
            without = statistics.median(time_edits(doc, target, args.edits))
            started = time.perf_counter()
            doc.start_checkpoints("immediate", directory=os.path.join(work, "cp"), uid="bench%d" % count)
            start_cost = time.perf_counter() - started  # writes the N unsaved annotations once
            journal = Path(doc.checkpoint_path)
            before = journal.stat().st_size
            with_times = time_edits(doc, target, args.edits)
            appended = (journal.stat().st_size - before) / args.edits
            doc.stop_checkpoints(remove=True)
            doc.close()
            rows.append((count, without, statistics.median(with_times), appended, start_cost))
    print("| unsaved annotations | change, no checkpoints | change + immediate checkpoint | checkpoint cost | bytes appended | starting checkpoints |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for count, without, with_, appended, start_cost in rows:
        print("| %d | %.3f ms | %.3f ms | %.3f ms | %.0f | %.0f ms |"
              % (count, without * 1e3, with_ * 1e3, (with_ - without) * 1e3, appended, start_cost * 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
