#!/usr/bin/env python3
"""The checkpoint crash test: edits acknowledged by the library survive SIGKILL.

A child process opens a PDF with immediate checkpoints (loading what an earlier child
left), adds numbered annotations ("edit N") and prints "ack N" after each call returns;
every few edits it saves the document in place (printing "saving" and "saved" around the
save). The parent kills it with SIGKILL at a random moment, then reopens the file with
the checkpoint and checks that every acknowledged edit is there exactly once (and no edit
twice), and that `qpdf --check` finds no error. The next child continues from there.

    python3 Tests/python/checkpoint_crash.py [--trials N] [--seed S]   # the stress run

`make test` runs 200 trials through Tests/python/test_checkpoints.py.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
if str(REPO / "bindings" / "python") not in sys.path:
    sys.path.insert(0, str(REPO / "bindings" / "python"))


def child(pdf: str, directory: str, first: int, save_every: int) -> None:
    import quire

    doc = quire.Document(pdf)
    doc.start_checkpoints("immediate", directory=directory, load=True)
    print("ready", flush=True)
    n = first
    while True:
        note = quire.Annotation.new("Text", 0, (10 + n % 500, 10, 30 + n % 500, 30))
        note.contents = "edit %d" % n
        doc.add_annotation(note)
        print("ack %d" % n, flush=True)
        n += 1
        if n % save_every == 0:
            print("saving", flush=True)
            doc.save(pdf)
            print("saved", flush=True)


class Result:
    def __init__(self) -> None:
        self.trials = 0
        self.acknowledged = 0
        self.killed_during_save = 0
        self.failures: List[str] = []


def edits(pdf: str, directory: str) -> "collections.Counter[int]":
    """The numbered edits in the file with its checkpoint applied."""
    import quire

    counts: "collections.Counter[int]" = collections.Counter()
    with quire.Document(pdf) as doc:
        doc.start_checkpoints(directory=directory, load=True)
        for annotation in doc.pages[0].annotations:
            text = annotation.contents or ""
            if text.startswith("edit "):
                counts[int(text[5:])] += 1
        doc.stop_checkpoints()
    return counts


def run(trials: int, seed: int, source: Path, work: Path, max_delay: float = 0.25,
        per_file: int = 10) -> Result:
    """`trials` trials, `per_file` of them on each fresh copy of `source` (a file that
    grows without bound would make each trial slower than the last)."""
    rng = random.Random(seed)
    result = Result()
    for start in range(0, trials, per_file):
        block = work / ("file%d" % (start // per_file))
        block.mkdir()
        run_block(min(per_file, trials - start), rng, source, block, max_delay, result, start)
        if result.failures:
            break
    return result


def run_block(trials: int, rng: random.Random, source: Path, work: Path, max_delay: float,
              result: Result, first_trial: int) -> None:
    pdf = work / "doc.pdf"
    directory = work / "checkpoints"
    shutil.copyfile(source, pdf)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "bindings" / "python"), env.get("PYTHONPATH")]))
    qpdf = shutil.which("qpdf")
    acknowledged: Dict[int, bool] = {}
    next_edit = 0
    for trial in range(first_trial, first_trial + trials):
        process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--child", str(pdf), str(directory),
             str(next_edit), str(rng.choice([2, 3, 5]))],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
        )
        assert process.stdout is not None
        # Wait until it has opened the document, then let it run for a random time. The
        # first line is read a byte at a time: a buffered reader could swallow later lines
        # that communicate(), which reads the pipe itself, would then never see.
        first = b""
        while not first.endswith(b"\n"):
            byte = os.read(process.stdout.fileno(), 1)
            if not byte:
                break
            first += byte
        line = first.decode()
        if line.strip() != "ready":
            process.kill()
            _, err_bytes = process.communicate(timeout=30)
            result.failures.append("trial %d: the child did not start: %r %s" % (trial, line, err_bytes[-2000:]))
            break
        time.sleep(rng.uniform(0, max_delay))
        process.send_signal(signal.SIGKILL)
        out_bytes, err_bytes = process.communicate(timeout=30)
        out, err = out_bytes.decode(), err_bytes.decode(errors="replace")
        saving = False
        for line in out.splitlines():
            if line.startswith("ack "):
                number = int(line[4:])
                acknowledged[number] = True
                next_edit = max(next_edit, number + 1)
            elif line == "saving":
                saving = True
            elif line == "saved":
                saving = False
        if err.strip() and "Traceback" in err:
            result.failures.append("trial %d: the child failed: %s" % (trial, err[-2000:]))
            break
        next_edit += 1  # an edit may have been written without its "ack": never reuse its number
        result.killed_during_save += saving
        result.trials += 1
        if os.environ.get("QUIRE_CRASH_KEEP"):  # for debugging: every trial's files
            keep = work / ("trial%d" % trial)
            shutil.copytree(directory, keep / "checkpoints")
            shutil.copyfile(pdf, keep / "doc.pdf")
            (keep / "child.out").write_text(out + "\n---\n" + err)
        counts = edits(str(pdf), str(directory))
        missing = sorted(n for n in acknowledged if counts[n] != 1)
        twice = sorted(n for n, c in counts.items() if c > 1)
        if missing or twice:
            result.failures.append("trial %d: acknowledged edits not there exactly once: %s; twice: %s"
                                   % (trial, missing[:20], twice[:20]))
            break
        if qpdf:
            check = subprocess.run([qpdf, "--check", str(pdf)], capture_output=True, text=True)
            if check.returncode not in (0, 3):
                result.failures.append("trial %d: qpdf --check: %s" % (trial, (check.stdout + check.stderr)[-2000:]))
                break
    result.acknowledged += len(acknowledged)


def main(argv: List[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1], argv[2], int(argv[3]), int(argv[4]))
        return 0
    parser = argparse.ArgumentParser(description="the checkpoint crash test, as a stress run")
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--source", default=str(REPO / "examples" / "sample.pdf"))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        started = time.monotonic()
        result = run(args.trials, args.seed, Path(args.source), Path(work))
    print("seed %d: %d trials, %d acknowledged edits, %d kills during a save, %.0f s"
          % (args.seed, result.trials, result.acknowledged, result.killed_during_save, time.monotonic() - started))
    for failure in result.failures:
        print("FAILED " + failure)
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
