#!/usr/bin/env python3
"""annotate.py: add a note (a Text annotation) to a page of a PDF, with Quire's low-level
objects, and save the file incrementally (its earlier bytes, and so its signatures, stay
as they were).

Usage (from the repository root, after `make`):

    PYTHONPATH=bindings/python python3 examples/python/annotate.py FILE "Note text"
        [--page N] [--at X Y] [--password PW] [--output OUT] [--full]

The note goes on page N (1-based, default 1) at X Y in PDF units from the bottom left
(default 36 36). FILE is replaced, atomically, unless --output names another file;
--full rewrites the file instead of appending to it. On error it prints one line to
stderr and exits with status 1 (2 for a usage error).
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional, Set

import quire
from quire import Name, Reference, String


def page_references(document: quire.Document) -> List[Reference]:
    """The page objects in page order: the leaves of the page tree, depth first (the
    order in which Quire numbers pages). Cycles and non-references are skipped."""
    root = document.resolve(document.trailer.get("Root"))
    pages: List[Reference] = []
    seen: Set[Reference] = set()

    def visit(node: object, depth: int) -> None:
        if not isinstance(node, Reference) or node in seen or depth > 1024:
            return
        seen.add(node)
        value = document.resolve(node)
        if not isinstance(value, dict):
            return
        kids = document.resolve(value.get("Kids"))
        if value.get("Type") == "Pages" or (value.get("Type") != "Page" and isinstance(kids, list)):
            for kid in kids if isinstance(kids, list) else []:
                visit(kid, depth + 1)
        else:
            pages.append(node)

    visit(root.get("Pages") if isinstance(root, dict) else None, 0)
    return pages


def add_note(document: quire.Document, page_index: int, text: str, x: float, y: float) -> Reference:
    """Adds a Text annotation to page ``page_index`` (0-based); returns its reference."""
    pages = page_references(document)
    if not 0 <= page_index < len(pages):
        raise IndexError("the document has %d pages" % len(pages))
    page = pages[page_index]
    note = document.add_object(
        {
            "Type": Name("Annot"),
            "Subtype": Name("Text"),
            "Rect": [x, y, x + 24, y + 24],
            "Contents": String.from_text(text),
            "Name": Name("Comment"),
            "F": 4,  # print
            "P": page,
        }
    )
    page_dict = document.resolve(page)
    annots = page_dict.get("Annots") if isinstance(page_dict, dict) else None
    shared = document.resolve(annots) if isinstance(annots, Reference) else None
    if isinstance(annots, Reference) and isinstance(shared, list):
        # /Annots is an array object of its own: extend that object.
        document.set_object(annots, shared + [note])
    else:
        existing = annots if isinstance(annots, list) else []
        document.set_dict_value(page, "Annots", existing + [note])
    return note


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Add a note to a page of a PDF file.")
    parser.add_argument("file", help="the PDF file")
    parser.add_argument("text", help="the text of the note")
    parser.add_argument("--page", type=int, default=1, help="the page, 1-based (default 1)")
    parser.add_argument("--at", nargs=2, type=float, default=[36.0, 36.0], metavar=("X", "Y"))
    parser.add_argument("--password", help="the user or owner password of an encrypted file")
    parser.add_argument("--output", help="write here instead of replacing FILE")
    parser.add_argument("--full", action="store_true", help="rewrite the file instead of appending")
    arguments = parser.parse_args(argv)
    try:
        with quire.Document(arguments.file, password=arguments.password) as document:
            add_note(document, arguments.page - 1, arguments.text, *arguments.at)
            document.save(arguments.output or arguments.file, full=arguments.full)
            count = document.pages[arguments.page - 1].annotation_count
    except quire.PasswordError:
        print("annotate: %s: wrong or missing password (use --password)" % arguments.file, file=sys.stderr)
        return 1
    except quire.QuireError as error:
        print("annotate: %s: %s" % (arguments.file, " ".join(error.message.split())), file=sys.stderr)
        return 1
    except IndexError as error:
        print("annotate: %s: no page %d: %s" % (arguments.file, arguments.page, error), file=sys.stderr)
        return 1
    print("page %d now has %d annotations" % (arguments.page, count))
    return 0


if __name__ == "__main__":
    sys.exit(main())
