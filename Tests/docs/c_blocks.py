#!/usr/bin/env python3
"""Every C block of the README and docs/*.md compiles against include/quire.h with the C
tests' flags (-std=c99 -Wall -Wextra -Werror -pedantic), links against the built library,
and runs (issue 40: the README's save example passed the path and the options in the wrong
order; gcc only warned, and the call failed at run time with a message about the struct's
version).

A block fenced ```c that defines main() is a whole program: it is compiled as it is and
run with examples/sample.pdf as its argument, in a scratch directory, and must exit 0.
Any other block is a fragment: it becomes the body of a function that is given
`quire_document *doc` (examples/sample.pdf, opened) and whatever the HTML comment just
above the fence declares, such as

    <!-- c-fragment: int32_t page_object_number = 3; quire_document *other = doc; -->

and the program that calls it runs in a scratch directory too (a fragment may save
"out.pdf"), under valgrind when --valgrind is given.

    c_blocks.py [--valgrind] [--keep DIR] ROOT   compile, link and run each block
    c_blocks.py --list ROOT                      print where each block is
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
PRELUDE = """#include <quire.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
"""


def blocks(root):
    """(file, line, code, given) for each ```c block: `given` is the declarations of the
    c-fragment comment above it, or ""."""
    names = ["README.md"] + sorted("docs/" + n for n in os.listdir(os.path.join(root, "docs")) if n.endswith(".md"))
    found = []
    for name in names:
        lines = open(os.path.join(root, name), encoding="utf-8").read().splitlines()
        k = 0
        while k < len(lines):
            if lines[k].strip() == "```c":
                start = k + 1
                end = start
                while end < len(lines) and lines[end].strip() != "```":
                    end += 1
                given = ""
                above = k - 1
                while above >= 0 and not lines[above].strip():
                    above -= 1
                m = re.match(r"\s*<!--\s*c-fragment:(.*)-->\s*$", lines[above]) if above >= 0 else None
                if m:
                    given = m.group(1).strip()
                found.append((name, start, "\n".join(lines[start:end]) + "\n", given))
                k = end
            k += 1
    return found


def program_for(code, given):
    """The C source that runs a fragment."""
    names = re.findall(r"([A-Za-z_]\w*)\s*(?:=[^;]*)?;", given)
    uses = "".join("    (void)%s;\n" % n for n in names)
    return (
        PRELUDE
        + "\nstatic void fragment(quire_document *doc) {\n    (void)doc;\n"
        + ("    " + given + "\n" if given else "")
        + uses
        + "\n".join("    " + line if line else "" for line in code.splitlines())
        + "\n}\n\nint main(int argc, char **argv) {\n"
        + "    quire_document *doc = NULL;\n"
        + "    if (argc < 2 || quire_document_open(&doc, argv[1], NULL) != QUIRE_OK) {\n"
        + '        fprintf(stderr, "cannot open %s: %s\\n", argc > 1 ? argv[1] : "(no file)", quire_last_error_message());\n'
        + "        return 2;\n    }\n    fragment(doc);\n    quire_document_close(doc);\n    return 0;\n}\n"
    )


def run(root, use_valgrind, keep):
    cc = os.environ.get("CC", "cc")
    include = os.path.join(root, "include")
    libdir = os.path.join(root, "build", "lib")
    sample = os.path.join(root, "examples", "sample.pdf")
    if not os.path.exists(os.path.join(libdir, "libquire.so")):
        print("c_blocks: %s/libquire.so is missing: run make first" % libdir, file=sys.stderr)
        return 2
    work = keep or tempfile.mkdtemp(prefix="quire-c-blocks-")
    os.makedirs(work, exist_ok=True)
    failures = 0
    found = blocks(root)
    for number, (name, line, code, given) in enumerate(found, 1):
        where = "%s:%d" % (name, line)
        whole = re.search(r"\bint\s+main\s*\(", code) is not None
        source = os.path.join(work, "block%d.c" % number)
        with open(source, "w", encoding="utf-8") as f:
            f.write("/* %s */\n" % where)
            f.write(code if whole else program_for(code, given))
        binary = source[:-2]
        compile_command = [cc] + FLAGS + ["-I" + include, source, "-o", binary,
                                          "-L" + libdir, "-lquire", "-Wl,-rpath," + libdir]
        result = subprocess.run(compile_command, capture_output=True, text=True)
        if result.returncode != 0:
            failures += 1
            print("FAIL  %s: does not compile with %s\n%s" % (where, " ".join(FLAGS), result.stderr.rstrip()))
            continue
        scratch = os.path.join(work, "run%d" % number)
        os.makedirs(scratch, exist_ok=True)
        shutil.copy(sample, os.path.join(scratch, "sample.pdf"))
        command = [binary, "sample.pdf"]
        if use_valgrind:
            command = ["valgrind", "--quiet", "--error-exitcode=99", "--leak-check=full",
                       "--suppressions=" + os.path.join(root, "Tests", "c", "valgrind.supp")] + command
        result = subprocess.run(command, cwd=scratch, capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            failures += 1
            print("FAIL  %s: exited %d\n%s%s" % (where, result.returncode, result.stdout, result.stderr))
            continue
        print("ok    %s (%s)" % (where, "a program" if whole else "a fragment" + (" given " + given if given else "")))
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    print("c_blocks: %d C blocks of the README and docs, %d compiled%s and ran, %d failed"
          % (len(found), len(found) - failures, " with -Werror", failures))
    return 1 if failures else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--list"]:
        for name, line, code, given in blocks(args[1] if len(args) > 1 else "."):
            print("%s:%d %s" % (name, line, given))
        sys.exit(0)
    use_valgrind = "--valgrind" in args
    args = [a for a in args if a != "--valgrind"]
    keep = None
    if "--keep" in args:
        k = args.index("--keep")
        keep = os.path.abspath(args[k + 1])
        del args[k : k + 2]
    sys.exit(run(os.path.abspath(args[0] if args else "."), use_valgrind, keep))
