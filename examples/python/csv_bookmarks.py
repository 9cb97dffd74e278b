#!/usr/bin/env python3
"""csv_bookmarks.py: user bookmarks kept in a CSV file, after PSPDFKit's catalog example.

Usage (from the repository root, after `make`):

    PYTHONPATH=bindings/python python3 examples/python/csv_bookmarks.py FILE OUT BOOKMARKS.csv

A custom provider, CSVBookmarkProvider, takes only bookmarks that go to a page and keeps
them in BOOKMARKS.csv (identifier, page, name, sort key); the built-in provider comes
after it in the chain and stores every other bookmark (here, a link) inside the PDF.

The program opens FILE with that chain, adds a bookmark of the last page, one of the
first page and one that opens a web page, saves incrementally to OUT (saving asks every
provider to persist: the CSV file is written then), closes it, reopens OUT with a new
chain reading the same CSV file, and prints the bookmarks in page order with where each
is stored. Run it twice: the bookmarks of the first run are still there. On error it
prints one line to stderr and exits with status 1 (2 for a usage error).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from typing import Dict, Iterable, List

import quire


class CSVBookmarkProvider(quire.BookmarkProvider):
    """Keeps go-to bookmarks in a CSV file; declines every other kind."""

    FIELDS = ["identifier", "page", "name", "sort_key"]

    def __init__(self, path: str) -> None:
        self.path = path
        self.bookmarks: Dict[str, quire.Bookmark] = {}

    def load(self) -> Iterable[quire.Bookmark]:
        self.bookmarks = {}
        if os.path.exists(self.path):
            with open(self.path, newline="", encoding="utf-8") as f:
                for row in csv.DictReader(f):
                    bookmark = quire.Bookmark(
                        identifier=row["identifier"],
                        kind=quire.BookmarkKind.GOTO,
                        page_index=int(row["page"]),
                        name=row["name"] or None,
                        sort_key=int(row["sort_key"]) if row["sort_key"] else None,
                    )
                    self.bookmarks[bookmark.identifier] = bookmark
        return list(self.bookmarks.values())

    def add(self, bookmark: quire.Bookmark) -> bool:
        if bookmark.kind != quire.BookmarkKind.GOTO:
            return False  # the next provider in the chain gets it
        self.bookmarks[bookmark.identifier] = bookmark
        return True

    def remove(self, bookmark: quire.Bookmark) -> bool:
        return self.bookmarks.pop(bookmark.identifier, None) is not None

    def save(self) -> None:
        # Written beside, then renamed over: the old CSV file survives a crash mid-write.
        temporary = self.path + ".tmp"
        with open(temporary, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=self.FIELDS)
            writer.writeheader()
            for b in self.bookmarks.values():
                writer.writerow({"identifier": b.identifier, "page": b.page_index, "name": b.name or "",
                                 "sort_key": "" if b.sort_key is None else b.sort_key})
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.path)


def report(document: quire.Document, csv_provider: CSVBookmarkProvider) -> List[str]:
    lines = []
    for b in document.bookmarks.sorted(quire.BookmarkSortOrder.PAGE):
        where = "csv" if b.identifier in csv_provider.bookmarks else "pdf"
        what = "page %d" % (b.page_index + 1) if b.page_index is not None else (b.target or "")
        lines.append("  [%s] %-28s %s" % (where, b.name or "(no name)", what))
    return lines


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("out")
    parser.add_argument("csv")
    args = parser.parse_args(argv)
    try:
        provider = CSVBookmarkProvider(args.csv)
        with quire.Document(args.file) as document:
            document.bookmarks.providers = [provider, quire.BUILTIN_PROVIDER]
            last = len(document.pages) - 1
            document.bookmarks.add(quire.Bookmark.for_page(last, name="The end"))
            document.bookmarks.add(quire.Bookmark.for_page(0, name="Start here"))
            document.bookmarks.add(quire.Bookmark.for_uri("https://example.com/quire", name="Project page"))
            document.save(args.out)

        provider = CSVBookmarkProvider(args.csv)
        with quire.Document(args.out) as document:
            document.bookmarks.providers = [provider, quire.BUILTIN_PROVIDER]
            print("%s: %d bookmarks, in page order" % (args.out, len(document.bookmarks)))
            print("\n".join(report(document, provider)))
    except (quire.QuireError, OSError) as error:
        print("csv_bookmarks.py: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
