#!/usr/bin/env python3
"""Generates bindings/python/quire/_raw_generated.py, the Python binding's raw ctypes table,
from the C header (include/quire.h and its topic headers, read by scripts/quire_header.py).

    python3 scripts/gen_python_raw.py           writes the file (`make generate` runs this)
    python3 scripts/gen_python_raw.py --check   exits 1 if the file differs from what it
                                                would write (Tests/python/test_raw.py)

What it writes, in header order, section by section:

  - every constant: the macros (not include guards, QUIRE_API, nor the `*_INIT` struct
    initialisers, which Python builds with the `quire_*_init` functions instead) as the
    header writes them, and the constants of every enum;
  - each enum type as an alias of c_int32 (the constant families are C enums, 32 bits on
    every platform Quire supports), so that the table reads like the header;
  - each opaque handle as an empty Structure with a pointer type NAME_p;
  - each struct as a Structure with its _fields_; a function-pointer field gets a CFUNCTYPE
    named STRUCT_FIELD_fn (ctypes makes one class per signature, so two fields of the same
    signature share it);
  - each callback typedef as a CFUNCTYPE;
  - FUNCTIONS: (name, restype, argtypes) of every function.

C types map to ctypes one to one (`const char *` to c_char_p, `char *` to POINTER(c_char),
`T *` to POINTER(T), a handle pointer to its NAME_p, ...). One rule is the binding's: a
callback that returns a pointer (quire_token_provider_fn's `const char *`) is declared to
return c_void_p, because ctypes cannot return a c_char_p from a Python function without
handing the library memory that is freed when the function returns; the binding returns
the address of memory it keeps alive. A C type this script does not know stops it, naming
the declaration, so that a new kind of type is thought about rather than guessed.

Nothing in the output is edited by hand: the hand-written part of the raw layer (loading the
library, the `*_init` helpers) is bindings/python/quire/_raw.py.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from typing import List, Optional, Set, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import quire_header  # noqa: E402

HEADER = os.path.join(ROOT, "include", "quire.h")
OUTPUT = os.path.join(ROOT, "bindings", "python", "quire", "_raw_generated.py")
WIDTH = 120  # code lines
TEXT_WIDTH = 96  # comments and docstrings

SCALARS = {
    "int": "c_int",
    "unsigned": "c_uint",
    "int32_t": "c_int32",
    "uint32_t": "c_uint32",
    "int64_t": "c_int64",
    "uint64_t": "c_uint64",
    "size_t": "c_size_t",
    "double": "c_double",
}


class Types:
    """Maps the header's C types to ctypes expressions, and remembers the ctypes names used."""

    def __init__(self, header: quire_header.Header):
        self.enums = {e.name for e in header.enums}
        self.handles = {h.name for h in header.handles}
        self.structs = {s.name for s in header.structs}
        self.callbacks = {c.name for c in header.callbacks}
        self.used: Set[str] = set()

    def _c(self, name: str) -> str:
        self.used.add(name)
        return name

    def ctype(self, t: str, where: str, callback_return: bool = False) -> str:
        """The ctypes expression of C type `t` (normalised as quire_header writes it)."""
        if t == "void":
            return "None"
        if callback_return and t.endswith("*"):
            return self._c("c_void_p")
        if t in SCALARS:
            return self._c(SCALARS[t])
        if t in self.enums or t in self.structs or t in self.callbacks:
            return t
        if t in ("const char *",):
            return self._c("c_char_p")
        if t == "char *":
            return "%s(%s)" % (self._c("POINTER"), self._c("c_char"))
        if t in ("void *", "const void *"):
            return self._c("c_void_p")
        if t in ("const char **", "const char * const *"):
            return "%s(%s)" % (self._c("POINTER"), self._c("c_char_p"))
        if t == "const void **":
            return "%s(%s)" % (self._c("POINTER"), self._c("c_void_p"))
        m = re.match(r"^(const )?(\w+) \*$", t)
        if m and m.group(2) in self.handles:
            return m.group(2) + "_p"
        m = re.match(r"^(\w+) \*\*$", t)
        if m and m.group(1) in self.handles:
            return "%s(%s_p)" % (self._c("POINTER"), m.group(1))
        m = re.match(r"^(const )?(\w+) \* const \*$", t)
        if m and m.group(2) in self.structs:
            return "%s(%s(%s))" % (self._c("POINTER"), self._c("POINTER"), m.group(2))
        m = re.match(r"^(const )?(\w+) \*$", t)
        if m and (m.group(2) in SCALARS or m.group(2) in self.enums or m.group(2) in self.structs):
            return "%s(%s)" % (self._c("POINTER"), self.ctype(m.group(2), where))
        raise SystemExit(
            "gen_python_raw.py: %s: the C type %r has no ctypes mapping here: add one "
            "(and to the oracle in Tests/python/test_raw.py)" % (where, t)
        )

    def signature(self, sig: quire_header.Signature, where: str) -> Tuple[str, List[str]]:
        """("CFUNCTYPE", [restype, argtypes...]) of a callback's signature."""
        args = [self.ctype(sig.ret, where, callback_return=True)]
        for p in sig.params:
            if p.type == "function pointer":
                raise SystemExit("gen_python_raw.py: %s: a function-pointer parameter inside a callback" % where)
            args.append(self.ctype(p.type, where))
        return self._c("CFUNCTYPE"), args


def first_sentence(doc: Optional[str]) -> str:
    """The first sentence of a doc comment (up to a full stop outside parentheses), on one
    line."""
    if not doc:
        return ""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    depth = 0
    for i, ch in enumerate(paragraph):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "." and depth <= 0 and (i + 1 == len(paragraph) or paragraph[i + 1] == " "):
            return paragraph[: i + 1]
    return paragraph


def comment(text: str, prefix: str = "#: ") -> List[str]:
    return [prefix + line for line in textwrap.wrap(text, TEXT_WIDTH - len(prefix))]


def docstring(text: str) -> List[str]:
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = textwrap.wrap(text, TEXT_WIDTH - 4)
    if len(lines) == 1:
        return ['    """%s"""' % lines[0]]
    return ['    """' + lines[0]] + ["    " + line for line in lines[1:]] + ['    """']


def call(head: str, args: List[str]) -> List[str]:
    """`head(args)` on one line, or with the arguments on lines of their own."""
    one = "%s(%s)" % (head, ", ".join(args))
    if len(one) <= WIDTH:
        return [one]
    return ["%s(" % head] + ["    %s," % a for a in args] + [")"]


def python_value(macro: quire_header.Macro, known: Set[str]) -> Optional[str]:
    """The Python expression of a macro's value, or None for a struct initialiser."""
    value = macro.value
    if value.startswith("{"):
        return None
    if re.fullmatch(r'"(?:[^"\\]|\\.)*"', value):
        return value
    if re.fullmatch(r"[\w\s()*+\-<|]+", value):
        for name in re.findall(r"\b[A-Za-z_]\w*", value):
            if name not in known:
                raise SystemExit(
                    "gen_python_raw.py: %s:%d: %s = %s names %s, which is not a constant "
                    "defined before it" % (macro.file, macro.line, macro.name, value, name)
                )
        for literal in re.findall(r"\b\d\w*", value):
            if not re.fullmatch(r"0[xX][0-9A-Fa-f]+|[1-9]\d*|0", literal):
                raise SystemExit(
                    "gen_python_raw.py: %s:%d: %s = %s: the literal %s is not one Python "
                    "reads the same" % (macro.file, macro.line, macro.name, value, literal)
                )
        value = " ".join(value.split())
        # C's parentheses around a whole value (`(-1)`) are not Python's style.
        while value.startswith("(") and value.endswith(")") and _balanced(value[1:-1]):
            value = value[1:-1].strip()
        return value
    raise SystemExit(
        "gen_python_raw.py: %s:%d: %s = %s: not a number, an integer expression or a "
        "string, which this generator does not know how to write" % (macro.file, macro.line, macro.name, value)
    )


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def function_entry(name: str, restype: str, argtypes: List[str]) -> List[str]:
    args = "(%s)" % (", ".join(argtypes) + ("," if len(argtypes) == 1 else ""))
    one = '    ("%s", %s, %s),' % (name, restype, args)
    if len(one) <= WIDTH:
        return [one]
    if len("        %s," % args) <= WIDTH:
        return ["    (", '        "%s",' % name, "        %s," % restype, "        %s," % args, "    ),"]
    return (
        ["    (", '        "%s",' % name, "        %s," % restype, "        ("]
        + ["            %s," % a for a in argtypes]
        + ["        ),", "    ),"]
    )


BANNER = "# " + "-" * 88


def generate(header: quire_header.Header, header_label: str = "include/quire.h") -> str:
    types = Types(header)
    # The body is a list of blocks: ("banner" | "class" | "code", lines), spaced by kind.
    blocks: List[Tuple[str, List[str]]] = []
    exported: List[str] = []
    known: Set[str] = set()
    place: Optional[Tuple[str, str]] = None
    functions: List[str] = []
    function_place: Optional[Tuple[str, str]] = None

    def title(d: quire_header.Declaration) -> str:
        return "%s: %s" % (d.file, d.section) if d.section else d.file

    for d in header.declarations:
        if isinstance(d, quire_header.Macro) and d.guard:
            continue
        here = (d.file, d.section)
        where = "%s:%d: %s" % (d.file, d.line, d.name)
        if isinstance(d, quire_header.Function):
            argtypes = []
            for p in d.params:
                if p.type == "function pointer":
                    raise SystemExit(
                        "gen_python_raw.py: %s: a function-pointer parameter: declare a typedef "
                        "for it in the header" % where
                    )
                argtypes.append(types.ctype(p.type, where))
            if here != function_place:
                function_place = here
                functions.append("    # " + title(d))
            functions.extend(function_entry(d.name, types.ctype(d.ret, where), argtypes))
            continue
        if here != place:
            place = here
            blocks.append(("banner", [BANNER, "# " + title(d), BANNER]))
        # A doc comment shared through a run of declarations is the first one's (the three
        # enums after quire_annot_string_field have none of their own): not repeated.
        doc = first_sentence(d.doc) if d.doc and not (d.doc_shared and not isinstance(d, quire_header.Macro)) else ""
        if isinstance(d, quire_header.Macro):
            value = python_value(d, known)
            if value is None:
                continue
            lines = (comment(doc) if doc else []) + ["%s = %s" % (d.name, value)]
            if blocks[-1][0] == "macros":
                blocks[-1][1].extend(lines)
            else:
                blocks.append(("macros", lines))
            known.add(d.name)
            exported.append(d.name)
        elif isinstance(d, quire_header.Enum):
            lines = comment(
                "``%s``: %s Passed and stored as a C int." % (d.name, doc)
                if doc
                else "``%s``, passed and stored as a C int." % d.name
            )
            lines.append("%s = %s" % (d.name, types._c("c_int32")))
            exported.append(d.name)
            for c in d.constants:
                lines.append("%s = %s" % (c.name, c.text))
                known.add(c.name)
                exported.append(c.name)
            blocks.append(("code", lines))
        elif isinstance(d, quire_header.Handle):
            blocks.append(
                (
                    "class",
                    ["class %s(%s):" % (d.name, types._c("Structure"))]
                    + docstring(
                        "``%s``: %s Opaque: only ever used through a pointer, ``%s_p``." % (d.name, doc, d.name)
                    ),
                )
            )
            blocks.append(("code", ["#: ``%s *``." % d.name, "%s_p = %s(%s)" % (d.name, types._c("POINTER"), d.name)]))
            exported += [d.name, d.name + "_p"]
        elif isinstance(d, quire_header.Callback):
            lines = comment("``%s``: %s" % (d.name, doc))
            head, args = types.signature(d.signature, where)
            lines += call("%s = %s" % (d.name, head), args)
            blocks.append(("code", lines))
            exported.append(d.name)
        elif isinstance(d, quire_header.Struct):
            fields = []
            pre: List[str] = []
            for f in d.fields:
                if f.callback is not None:
                    fn = "%s_%s_fn" % (d.name, f.name)
                    pre += comment("``%s.%s``: ``%s``." % (d.name, f.name, f.type))
                    head, args = types.signature(f.callback, "%s.%s" % (where, f.name))
                    pre += call("%s = %s" % (fn, head), args)
                    exported.append(fn)
                    fields.append((f.name, fn))
                else:
                    fields.append((f.name, types.ctype(f.type, "%s.%s" % (where, f.name))))
            if pre:
                blocks.append(("code", pre))
            lines = ["class %s(%s):" % (d.name, types._c("Structure"))]
            lines += docstring("``%s``: %s" % (d.name, doc) if doc else "``%s``." % d.name)
            lines += ["", "    _fields_ = ["] + ['        ("%s", %s),' % f for f in fields] + ["    ]"]
            blocks.append(("class", lines))
            exported.append(d.name)

    out = [
        '"""The raw ctypes declarations of Quire\'s C header: constants, structures, callback types',
        "and the function table.",
        "",
        "GENERATED by scripts/gen_python_raw.py from %s and the topic headers it includes:" % header_label,
        "do not edit. To regenerate: ``make generate`` (or ``python3 scripts/gen_python_raw.py``).",
        "",
        ":mod:`quire._raw` loads the library and declares every function of :data:`FUNCTIONS` on it.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
    ]
    ctypes_names = sorted(types.used, key=lambda n: (not n.isupper(), n[0].islower(), n))
    out += ["from ctypes import ("] + ["    %s," % n for n in ctypes_names] + [")"]
    out += ["from typing import Any, Tuple"]
    # Two blank lines around classes and before banners (PEP 8), one elsewhere.
    previous = "class"  # the imports
    for kind, lines in blocks:
        if kind == "class" or previous == "class" or kind == "banner":
            out += ["", ""]
        else:
            out += [""]
        out += lines
        previous = kind
    out += [
        "",
        "",
        BANNER,
        "# The functions: (name, restype, argtypes), in header order",
        BANNER,
        "",
        "FUNCTIONS: Tuple[Tuple[str, Any, Tuple[Any, ...]], ...] = (",
    ]
    out += functions
    out += [")", ""]
    exported.append("FUNCTIONS")
    out += ["__all__ = ["] + ['    "%s",' % n for n in exported] + ["]", ""]
    return "\n".join(out)


def main(argv: List[str]) -> int:
    check = "--check" in argv[1:]
    args = [a for a in argv[1:] if a != "--check"]
    header_path = args[0] if args else HEADER
    output = args[1] if len(args) > 1 else OUTPUT
    text = generate(quire_header.read(header_path))
    if check:
        try:
            with open(output, encoding="utf-8") as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current != text:
            print(
                "gen_python_raw.py: %s is not what the header gives: run `make generate` and commit it "
                "(it is never edited by hand)" % os.path.relpath(output, ROOT),
                file=sys.stderr,
            )
            return 1
        print("gen_python_raw.py: %s is up to date with the header" % os.path.relpath(output, ROOT))
        return 0
    tmp = output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, output)
    print("gen_python_raw.py: wrote %s" % os.path.relpath(output, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
