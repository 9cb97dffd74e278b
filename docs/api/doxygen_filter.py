#!/usr/bin/env python3
"""Doxygen input filter for the header files (include/quire.h, include/quire/*.h): one
comment for a run of declarations.

The header documents related declarations together: one doc comment, then the getter and
its setter, or a list of #defines, with no blank line between them:

    /** The rectangle (/Rect) of an annotation, and its setter. ... */
    int quire_annotation_rect(quire_rect *out, const quire_annotation *annotation);
    int quire_annotation_set_rect(quire_annotation *annotation, const quire_rect *rect);

Doxygen gives such a comment to the first declaration only. This filter wraps each run of
two or more declarations that follows a doc comment in a member group (`/**@{*/ ...
/**@}*/`), and the Doxyfile's DISTRIBUTE_GROUP_DOC gives the comment to every member. Lines
are neither added nor removed, so Doxygen's line numbers stay the header's.

scripts/quire_header.py (which Tests/packaging/check_header_docs.py asks) applies the same
rule: a function is documented when a doc comment precedes it, directly or through such a
run.

Usage (Doxygen's FILTER_PATTERNS): doxygen_filter.py FILE, writes the filtered FILE to stdout.
"""

import re
import sys


def code_part(line):
    """The line without its comments (block comments closed on the same line, and //)."""
    line = re.sub(r"/\*.*?\*/", "", line)
    return line.split("//", 1)[0]


def runs(lines):
    """Yields (comment_start, run_end, after, members) for each doc comment and the run of
    declarations after it: line indices of the comment's first line, the run's last line
    and the line after the run."""
    n = len(lines)
    i = 0
    while i < n:
        s = lines[i].lstrip()
        if not (s.startswith("/**") and not s.startswith("/**<")):
            i += 1
            continue
        start = i
        # The end of the comment.
        j = i
        while j < n and "*/" not in (lines[j][lines[j].index("/**") + 3:] if j == i else lines[j]):
            j += 1
        k = j + 1
        members = 0
        depth = 0
        last = None
        while k < n and lines[k].strip():
            s = lines[k].strip()
            if depth == 0 and s.startswith("/*") and not s.startswith("/**<"):
                break  # another comment: the run ends
            if s.startswith("#"):
                if depth != 0 or not re.match(r"#\s*define\b", s):
                    break
                members += 1
                while lines[k].rstrip().endswith("\\") and k + 1 < n:
                    k += 1
                last = k
                k += 1
                continue
            code = code_part(lines[k])
            if depth == 0 and code.lstrip().startswith("}"):
                break  # the end of the enclosing struct
            depth += code.count("{") - code.count("}")
            if depth < 0:
                break
            if depth == 0 and ";" in code:
                members += code.count(";")
            last = k
            k += 1
        yield start, last, k, members
        i = max(k, j + 1)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = list(lines)
    for start, last, after, members in runs(lines):
        if members < 2 or last is None:
            continue
        # The group ends before the line after the run (a blank line, a comment, a closing
        # brace), or after the run's last line when the next is a directive; never inside a
        # #define, where it would become part of the macro.
        if after < len(lines) and not lines[after].lstrip().startswith("#"):
            out[after] = "/**@}*/ " + out[after]
        elif not lines[last].lstrip().startswith("#") and not lines[last].rstrip().endswith("\\"):
            out[last] = out[last] + " /**@}*/"
        else:
            continue
        out[start] = "/**@{*/ " + out[start]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
