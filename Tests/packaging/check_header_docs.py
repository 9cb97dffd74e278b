#!/usr/bin/env python3
"""Fails when a function declared in include/quire.h (or a topic header it includes) has no
documentation comment.

    check_header_docs.py [HEADER]
    check_header_docs.py --self-test [HEADER]   the check catches a removed comment

The header is the C reference (`make docs` renders it with Doxygen), so every function needs
a doc comment (`/** ... */`) that says what it does, its errors and its ownership. A
comment documents the declaration right after it, and the run of declarations that follows
with no blank line between (a getter and its setter share one), as the header is written
and as docs/api/doxygen_filter.py tells Doxygen. A trailing `/**< ... */` counts too. A
plain `/* ... */` comment, a blank line or a directive between the comment and the
declaration does not.

The functions and their doc comments are those scripts/quire_header.py reads (the reader
the ABI check, the libffi harness and the Python binding's generated table use), which
applies that rule. Exit 0 and a summary when all are documented; exit 1 naming each one
that is not, with its file and line.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import quire_header  # noqa: E402


def check(header):
    """[(function, file, line, why)] for each undocumented function of `header` (a
    quire_header.Header), and the number of functions."""
    missing = [(fn.name, fn.file, fn.line, "no doc comment") for fn in header.functions if not fn.doc]
    return missing, len(header.functions)


def check_text(text, path):
    """check() of one header file's text alone."""
    return check(quire_header.read_text(text, path))


def self_test(header):
    """The check must catch a function whose comment is removed: removes the doc comment of
    quire_version (the first function), and expects exactly it to be reported; then puts a
    blank line inside a run of declarations that share a comment, and expects the
    declaration after it to be reported. Each on the header file that holds it."""
    version = header.function("quire_version")
    source = next(s for s in header.sources if s.path == version.file)
    lines = source.text.split("\n")
    code = quire_header.strip_comments(source.text).split("\n")
    end = version.line - 2  # the comment's last line, right above the declaration
    if not lines[end].rstrip().endswith("*/"):
        return "no comment right above quire_version in %s" % source.path
    start = end
    while "/**" not in lines[start]:
        start -= 1
    without_comment = "\n".join(lines[:start] + lines[end + 1:])
    missing, _ = check_text(without_comment, source.path)
    if [m[0] for m in missing] != ["quire_version"]:
        return "without the comment of quire_version, it reported %s" % [m[0] for m in missing]
    # A run: two one-line declarations right after one another, the second one's name.
    for source in header.sources:
        lines = source.text.split("\n")
        code = quire_header.strip_comments(source.text).split("\n")
        for i in range(1, len(code)):
            a, b = code[i - 1].strip(), code[i].strip()
            m = re.search(r"\b(quire_\w+)\s*\(", b)
            if a.endswith(";") and m and b.endswith(";") and re.search(r"\bquire_\w+\s*\(", a):
                split_run = "\n".join(lines[:i] + [""] + lines[i:])
                missing, _ = check_text(split_run, source.path)
                if m.group(1) not in [name for name, _, _, _ in missing]:
                    return "with a blank line before %s, it reported %s" % (m.group(1), [x[0] for x in missing])
                return None
    return "no run of two one-line declarations in the header to test with"


def main():
    args = sys.argv[1:]
    test = "--self-test" in args
    args = [a for a in args if a != "--self-test"]
    path = args[0] if args else os.path.join(ROOT, "include", "quire.h")
    header = quire_header.read(path)
    if test:
        error = self_test(header)
        if error:
            print("check_header_docs --self-test: FAILED: %s" % error, file=sys.stderr)
            return 1
        print("check_header_docs --self-test: a removed doc comment and a run split by a blank "
              "line are both reported")
        return 0
    missing, count = check(header)
    base = os.path.dirname(path)
    if missing:
        for name, file, line, why in missing:
            print("%s:%d: %s: %s" % (os.path.join(base, file), line, name, why), file=sys.stderr)
        print("check_header_docs: %d of %d functions of %s have no documentation comment"
              % (len(missing), count, os.path.basename(path)), file=sys.stderr)
        return 1
    print("check_header_docs: all %d functions of %s and the %d headers it includes have a "
          "documentation comment" % (count, os.path.basename(path), len(header.sources) - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
