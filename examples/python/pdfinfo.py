#!/usr/bin/env python3
"""pdfinfo.py: print what Quire knows about a PDF, like poppler's `pdfinfo`.

Usage (from the repository root, after `make`):

    PYTHONPATH=bindings/python python3 examples/python/pdfinfo.py FILE [--password PW]

Prints the metadata, the page count, the PDF version, whether the file is encrypted or
was repaired (with the repair warnings), and the size and rotation of each page. On error
it prints one line to stderr and exits with status 1 (2 for a usage error).
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

import quire

POINTS_PER_MM = 72 / 25.4


def _size(box: quire.Rect) -> str:
    return "%g x %g pts (%.0f x %.0f mm)" % (
        box.width,
        box.height,
        box.width / POINTS_PER_MM,
        box.height / POINTS_PER_MM,
    )


def describe(document: quire.Document) -> List[str]:
    """The lines pdfinfo prints for ``document``."""
    metadata = document.metadata
    width = max([16] + [len(key) + 2 for key in metadata])

    def field(label: str, value: object) -> str:
        return "%-*s%s" % (width, label + ":", " ".join(str(value).split()))

    lines = [field(key, value) for key, value in metadata.items()]
    lines.append(field("Pages", document.page_count))
    lines.append(field("PDF version", document.pdf_version))
    lines.append(field("Encrypted", "yes" if document.is_encrypted else "no"))
    lines.append(field("Repaired", "yes" if document.is_repaired else "no"))
    for page in document.pages:
        try:
            count = page.annotation_count
            description = "%s, rotated %d degrees, %d annotation%s" % (
                _size(page.media_box), page.rotation, count, "" if count == 1 else "s")
        except quire.NotFoundError:
            # Counted by the page tree's /Count, but the tree does not hold it.
            description = "missing from the page tree"
        lines.append(field("Page %d size" % (page.index + 1), description))
    # Last: reading the pages may record more warnings.
    for warning in document.warnings:
        lines.append(field("Warning", warning))
    return lines


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Print information about a PDF file.")
    parser.add_argument("file", help="the PDF file")
    parser.add_argument("--password", help="the user or owner password of an encrypted file")
    arguments = parser.parse_args(argv)
    try:
        with quire.Document(arguments.file, password=arguments.password) as document:
            print("\n".join(describe(document)))
    except quire.PasswordError:
        print("pdfinfo: %s: wrong or missing password (use --password)" % arguments.file, file=sys.stderr)
        return 1
    except quire.QuireError as error:
        print("pdfinfo: %s: %s" % (arguments.file, " ".join(error.message.split())), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
