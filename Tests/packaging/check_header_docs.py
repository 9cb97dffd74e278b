#!/usr/bin/env python3
"""Fails when a function declared in include/quire.h has no documentation comment.

    check_header_docs.py [HEADER]
    check_header_docs.py --self-test [HEADER]   the check catches a removed comment

The header is the C reference (`make docs` renders it with Doxygen), so every function needs
a doc comment (`/** ... */`) that says what it does, its errors and its ownership. A
comment documents the declaration right after it, and the run of declarations that follows
with no blank line between (a getter and its setter share one), as the header is written
and as docs/api/doxygen_filter.py tells Doxygen. A trailing `/**< ... */` counts too. A
plain `/* ... */` comment, a blank line or a directive between the comment and the
declaration does not.

The functions are those Tests/c/header_functions.py finds (the list the ABI check and the
libffi harness use). Exit 0 and a summary when all are documented; exit 1 naming each one
that is not, with its line.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "c"))

import header_functions  # noqa: E402


def comment_mask(text):
    """For each line: its code, with comments blanked out (lines kept)."""
    code = header_functions.strip_comments(text)
    return code.split("\n")


def comment_start(lines, end):
    """The index of the line where the comment ending on line `end` starts."""
    i = end
    while i >= 0:
        line = lines[i] if i != end else lines[i][: lines[i].rindex("*/")]
        if "/*" in line:
            return i
        i -= 1
    return None


def documented(lines, code, first):
    """Whether the declaration starting on line `first` has a doc comment (see above)."""
    start = first
    while True:
        prev = start - 1
        if prev < 0:
            return False
        raw = lines[prev].strip()
        if not raw:
            return False
        if raw.endswith("*/"):
            s = comment_start(lines, prev)
            if s is None:
                return False
            opening = lines[s].lstrip()
            if code[prev].strip():
                # Code then a trailing comment on the same line: another declaration of the
                # run (its own trailing comment does not document this one).
                pass
            elif opening.startswith("/**") and not opening.startswith("/**<"):
                body = "\n".join(lines[s: prev + 1])
                body = re.sub(r"^\s*/\*\*|\*/\s*$|^\s*\*", "", body, flags=re.M)
                return bool(body.strip())
            else:
                return False
        if raw.startswith("#"):
            return False
        # Another declaration of the run: go to its start.
        start = statement_start(code, prev)


def statement_start(code, line):
    """The first line of the statement that ends on (or contains) `line`."""
    i = line
    while i > 0:
        before = code[i - 1].strip()
        if not before or before.endswith((";", "{", "}")) or before.startswith("#"):
            return i
        i -= 1
    return 0


def check(text):
    """[(function, line, why)] for each function of the header text that is undocumented,
    and the number of functions."""
    lines = text.split("\n")
    code = comment_mask(text)
    names = [fn["name"] for fn in header_functions.parse(text)]
    missing = []
    for name in names:
        pattern = re.compile(r"\b%s\s*\(" % re.escape(name))
        found = [i for i, c in enumerate(code) if pattern.search(c) and not c.lstrip().startswith("#")]
        if not found:
            missing.append((name, 0, "not found in the header's code"))
            continue
        first = statement_start(code, found[0])
        trailing = any("/**<" in lines[i] for i in range(first, found[0] + 1))
        if not trailing and not documented(lines, code, first):
            missing.append((name, first + 1, "no doc comment"))
    return missing, len(names)


def self_test(text):
    """The check must catch a function whose comment is removed: removes the doc comment of
    quire_version (the first function), and expects exactly it to be reported; then puts a
    blank line inside a run of declarations that share a comment, and expects the
    declaration after it to be reported."""
    lines = text.split("\n")
    code = comment_mask(text)
    first = statement_start(code, next(i for i, c in enumerate(code) if "quire_version(" in c))
    end = first - 1
    start = comment_start(lines, end)
    without_comment = "\n".join(lines[:start] + lines[end + 1:])
    # A run: two declarations right after one another, the second one's name.
    for i in range(1, len(code)):
        a, b = code[i - 1].strip(), code[i].strip()
        m = re.search(r"\b(quire_\w+)\s*\(", b)
        if a.endswith(";") and m and b.endswith(";") and re.search(r"\bquire_\w+\s*\(", a):
            split_run = "\n".join(lines[:i] + [""] + lines[i:])
            second = m.group(1)
            break
    else:
        return "no run of two one-line declarations in the header to test with"
    missing, _ = check(without_comment)
    if [name for name, _, _ in missing] != ["quire_version"]:
        return "without the comment of quire_version, it reported %s" % [m[0] for m in missing]
    missing, _ = check(split_run)
    if second not in [name for name, _, _ in missing]:
        return "with a blank line before %s, it reported %s" % (second, [m[0] for m in missing])
    return None


def main():
    args = sys.argv[1:]
    test = "--self-test" in args
    args = [a for a in args if a != "--self-test"]
    header = args[0] if args else os.path.join(ROOT, "include", "quire.h")
    with open(header, encoding="utf-8") as f:
        text = f.read()
    if test:
        error = self_test(text)
        if error:
            print("check_header_docs --self-test: FAILED: %s" % error, file=sys.stderr)
            return 1
        print("check_header_docs --self-test: a removed doc comment and a run split by a blank "
              "line are both reported")
        return 0
    missing, count = check(text)
    if missing:
        for name, line, why in missing:
            print("%s:%d: %s: %s" % (header, line, name, why), file=sys.stderr)
        print("check_header_docs: %d of %d functions of %s have no documentation comment"
              % (len(missing), count, os.path.basename(header)), file=sys.stderr)
        return 1
    print("check_header_docs: all %d functions of %s have a documentation comment"
          % (count, os.path.basename(header)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
