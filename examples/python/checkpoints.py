#!/usr/bin/env python3
"""checkpoints.py: crash recovery of unsaved changes with Quire's checkpointer.

Usage (from the repository root, after `make`):

    PYTHONPATH=bindings/python python3 examples/python/checkpoints.py FILE [--crash | --save]
        [--directory DIR]

Opens FILE with immediate checkpoints, loading the checkpoint an earlier run left. It
prints what it recovered, then adds a note. With --crash it then dies on the spot
(os._exit: no close, no save, as if the battery ran out): run it again and the note is
recovered. With --save it saves FILE in place, which writes the recovered and new notes
into the PDF and empties the checkpoint. Without either it closes without saving: the
checkpoint stays for the next run. Checkpoints go to DIR (default: the library's,
$XDG_STATE_HOME/quire/checkpoints). On error it prints one line to stderr and exits 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import List

import quire


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--crash", action="store_true", help="die without saving after the edit")
    group.add_argument("--save", action="store_true", help="save the file after the edit")
    parser.add_argument("--directory", help="where checkpoints are kept")
    args = parser.parse_args(argv)
    try:
        document = quire.Document(args.file)
        # What an earlier run left, if anything; then start, applying it (existing=LOAD, the
        # default; REFUSE would raise quire.ExistsError instead, to ask the user first).
        found = document.inspect_checkpoint(directory=args.directory)
        print("checkpoint found: %s" % found.state)
        recovered = document.start_checkpoints(quire.CheckpointStrategy.IMMEDIATE, directory=args.directory,
                                               existing=quire.CheckpointExisting.LOAD)
        notes = [a.contents for a in document.pages[0].annotations if (a.contents or "").startswith("Note ")]
        print("recovered unsaved changes: %s" % ("yes" if recovered else "no"))
        print("notes on page 1: %d" % len(notes))
        note = quire.Annotation.new("Text", 0, (72 + 24 * len(notes), 72, 92 + 24 * len(notes), 92))
        note.contents = "Note %d" % (len(notes) + 1)
        document.add_annotation(note)  # on disk in the checkpoint when this returns
        print("added %s; checkpoint: %s" % (note.contents, document.checkpoint_path))
        if args.crash:
            sys.stdout.flush()
            os._exit(0)
        if args.save:
            document.save(args.file)
            print("saved %s: the checkpoint is empty again" % args.file)
        document.close()
    except quire.QuireError as error:
        print("checkpoints.py: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
