#!/usr/bin/env python3
"""review.py: the review workflow of PSPDFKit's guide, with Quire's annotation API.

Usage (from the repository root, after `make`):

    PYTHONPATH=bindings/python python3 examples/python/review.py FILE OUT

Adds a note (a Text annotation) to page 1 of FILE, a reply to it, a reply to that reply,
and review states from two authors (Ada: Accepted, then Completed; Bob: Rejected). Prints
the note's comments and its review summary, saves incrementally to OUT (FILE's bytes,
then the changes), reopens OUT and prints the same report again from what was saved: the
two reports are identical. On error it prints one line to stderr and exits with status 1
(2 for a usage error).
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

import quire


def report(document: quire.Document, note_id: int) -> List[str]:
    """The comments and the review summary of annotation ``note_id``, as lines."""
    note = document.annotation(note_id)
    lines = ["Note %s on page %d: %r" % (note.name, note.page_index + 1, note.contents)]
    lines.append("Comments:")
    for comment in document.comments(note_id):
        depth = 0
        parent = comment.in_reply_to
        while parent is not None and depth < 64:
            depth += 1
            parent = document.annotation(parent).in_reply_to
        lines.append("  %s%s: %s" % ("  " * depth, comment.author or "(no author)", comment.contents or ""))
    current, history = document.review_summary(note_id)
    lines.append("Review (current):")
    for reply in current:
        lines.append("  %s: %s (%s)" % (reply.author, reply.state, reply.state_model))
    lines.append("Review (history, oldest first):")
    for reply in history:
        lines.append("  %s: %s" % (reply.author, reply.state))
    return lines


def run(source: str, output: str) -> int:
    with quire.Document(source) as document:
        page = document.pages[0].media_box
        rect = (page.left + 72, page.top - 96, page.left + 96, page.top - 72)
        note = quire.Annotation.new("Text", 0, rect)
        note.author = "Ada"
        note.subject = "Review"
        note.contents = "Please check the figures in this section."
        note.icon = "Comment"
        note.color = (1.0, 0.85, 0.0)
        document.add_annotation(note)
        note_id = note.id
        assert note_id is not None

        reply = document.add_reply(note, "Bob", "The totals in table 2 do not add up.")
        document.add_reply(reply, "Ada", "Fixed in the next revision.")
        document.add_state_reply(note, "Ada", "Review", "Accepted")
        document.add_state_reply(note, "Bob", "Review", "Rejected")
        document.add_state_reply(note, "Ada", "Review", "Completed")

        before = report(document, note_id)
        document.save(output)  # incremental: FILE's bytes, then the changes

    with quire.Document(output) as reopened:
        after = report(reopened, note_id)

    print("\n".join(before))
    print("-- reopened %s --" % output)
    print("\n".join(after))
    if before != after:
        print("review.py: the reopened file reads differently", file=sys.stderr)
        return 1
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="the PDF to review")
    parser.add_argument("out", help="where to save the reviewed PDF")
    arguments = parser.parse_args(argv)
    try:
        return run(arguments.file, arguments.out)
    except (quire.QuireError, OSError) as error:
        print("review.py: %s" % error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
