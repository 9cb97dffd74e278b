#!/usr/bin/env python3
"""The Python reference of `make docs`, with pdoc, and the landing page of the reference.

    docs_python.py OUTDIR

Writes OUTDIR/python/ (pdoc's HTML of the package `quire`, imported from bindings/python,
whose page starts with the README's guide) and OUTDIR/index.html (links to the C reference
that Doxygen writes into OUTDIR/c/, and to the Python one). Fails on any warning pdoc gives
(but a type annotation that it cannot evaluate, which it shows as written), and on a public
function, class or method without a docstring.
"""

import os
import pathlib
import shutil
import sys
import warnings

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def main():
    out = os.path.abspath(sys.argv[1])
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
    import pdoc
    import pdoc.doc
    import pdoc.render
    import quire

    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    # The guide on top: the README, then the package's own docstring. pdoc reads the module's
    # __doc__ at render time; the package's source is not changed.
    quire.__doc__ = (
        readme
        + "\n\n# The Python package\n\n"
        + "The [C reference](../c/index.html) documents the library underneath.\n\n"
        + (quire.__doc__ or "")
    )
    pdoc.render.configure(
        docformat="restructuredtext",
        footer_text="Quire %s" % quire.__version__,
        show_source=True,
        search=True,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc("quire", output_directory=pathlib.Path(out, "python"))
        undocumented = list(undocumented_members(pdoc.doc.Module(quire)))

    # pdoc evaluates type annotations to link them. One it cannot evaluate at run time is
    # shown as written, unlinked: weakref.finalize[...] before Python 3.12, or a postponed
    # annotation of a NamedTuple's generated __new__, which pdoc looks up in the collections
    # module instead of the class's. Those are notes; every other warning fails the build.
    failures = []
    notes = []
    for w in caught:
        text = str(w.message)
        if text.startswith("Error parsing type annotation"):
            if text not in notes:
                notes.append(text)
                print("docs: note: %s" % text)
        elif text not in failures:
            failures.append(text)
    failures += ["%s has no docstring" % name for name in undocumented]
    for f in failures:
        print("docs: warning: %s" % f, file=sys.stderr)
    if failures:
        sys.exit("docs: %d warnings in the Python reference" % len(failures))

    # The README's picture, where its relative link points from python/quire.html.
    os.makedirs(os.path.join(out, "python", "bench"), exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, "bench", "results.png"),
                    os.path.join(out, "python", "bench", "results.png"))

    version = quire.__version__
    with open(os.path.join(out, "index.html"), "w", encoding="utf-8") as f:
        f.write(INDEX % {"version": version})
    print("docs: %s/index.html, %s/python/quire.html" % (out, out))


def undocumented_members(module):
    """The public functions, classes and methods of the package (those its __all__ names,
    and their members without a leading underscore) that have no docstring, their own or
    inherited (pdoc shows inherited ones)."""
    import pdoc.doc

    def walk(namespace, public):
        for name, member in namespace.members.items():
            if name not in public:
                continue
            if isinstance(member, (pdoc.doc.Function, pdoc.doc.Class)):
                if member.taken_from[0].split(".")[0] != "quire":
                    continue  # inherited from Python itself (Enum, Exception, ...)
                if not (member.docstring or "").strip():
                    yield member.fullname
            if isinstance(member, pdoc.doc.Class):
                yield from walk(member, [n for n in member.members if not n.startswith("_")])

    yield from walk(module, getattr(module.obj, "__all__", []))


INDEX = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Quire %(version)s reference</title>
<style>body{font-family:sans-serif;max-width:40em;margin:3em auto;line-height:1.5}</style>
</head>
<body>
<h1>Quire %(version)s</h1>
<p>A PDF annotation and collaboration engine: a C library, <code>libquire</code>, with a
Python binding and a command-line tool. Each reference starts with the guide (the README).</p>
<ul>
<li><a href="c/index.html">The C reference</a>: every function, macro and type of
<code>quire.h</code> (<a href="c/quire_8h.html">the header</a>).</li>
<li><a href="python/quire.html">The Python reference</a>: the package <code>quire</code>.</li>
<li>The command-line tool: <code>man quire</code> after <code>make install</code>, or
<code>quire --help</code>.</li>
</ul>
</body>
</html>
"""

if __name__ == "__main__":
    main()
