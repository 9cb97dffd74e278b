#!/usr/bin/env python3
"""annotate.py: add a note (a Text annotation) to a page of a PDF with Quire's annotation
API, and save the file incrementally (its earlier bytes, and so its signatures, stay as
they were).

Usage (from the repository root, after `make`):

    PYTHONPATH=bindings/python python3 examples/python/annotate.py FILE "Note text"
        [--page N] [--at X Y] [--author NAME] [--password PW] [--output OUT] [--full]

The note goes on page N (1-based, default 1) at X Y in PDF units from the bottom left
(default 36 36). FILE is replaced, atomically, unless --output names another file;
--full rewrites the file instead of appending to it. On error it prints one line to
stderr and exits with status 1 (2 for a usage error).
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

import quire


def add_note(
    document: quire.Document, page_index: int, text: str, x: float, y: float, author: Optional[str] = None
) -> quire.Annotation:
    """Adds a note with ``text`` to page ``page_index`` (0-based) at ``x, y``; returns it as
    stored. Quire gives it a unique name (/NM), creation and modification dates, the Print
    flag and an appearance stream, and appends it to the page's /Annots."""
    count = document.page_count
    if not 0 <= page_index < count:
        raise IndexError("the document has %d page%s" % (count, "" if count == 1 else "s"))
    note = quire.Annotation.new("Text", page_index, (x, y, x + 24, y + 24))
    note.contents = text
    note.author = author
    note.icon = "Comment"
    return document.add_annotation(note)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Add a note to a page of a PDF file.")
    parser.add_argument("file", help="the PDF file")
    parser.add_argument("text", help="the text of the note")
    parser.add_argument("--page", type=int, default=1, help="the page, 1-based (default 1)")
    parser.add_argument("--at", nargs=2, type=float, default=[36.0, 36.0], metavar=("X", "Y"))
    parser.add_argument("--author", help="the author of the note")
    parser.add_argument("--password", help="the user or owner password of an encrypted file")
    parser.add_argument("--output", help="write here instead of replacing FILE")
    parser.add_argument("--full", action="store_true", help="rewrite the file instead of appending")
    arguments = parser.parse_args(argv)
    try:
        with quire.Document(arguments.file, password=arguments.password) as document:
            x, y = arguments.at
            add_note(document, arguments.page - 1, arguments.text, x, y, author=arguments.author)
            document.save(arguments.output or arguments.file, full=arguments.full)
            count = document.pages[arguments.page - 1].annotation_count
    except quire.PasswordError:
        print("annotate: %s: wrong or missing password (use --password)" % arguments.file, file=sys.stderr)
        return 1
    except IndexError as error:  # quire.IndexOutOfRangeError too
        print("annotate: %s: no page %d: %s" % (arguments.file, arguments.page, error), file=sys.stderr)
        return 1
    except quire.QuireError as error:
        print("annotate: %s: %s" % (arguments.file, " ".join(error.message.split())), file=sys.stderr)
        return 1
    print("page %d now has %d annotation%s" % (arguments.page, count, "" if count == 1 else "s"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
