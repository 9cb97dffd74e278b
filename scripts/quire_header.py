#!/usr/bin/env python3
"""The one reader of Quire's C header: include/quire.h and the topic headers it includes.

The header is the contract, so what the tools need to know of it is read from it here, once,
instead of by a parser of their own each (there were four, and they had begun to disagree on
how a type is written). Its users:

  - scripts/gen_python_raw.py generates the Python binding's raw table
    (bindings/python/quire/_raw_generated.py: constants, structures, callback types, the
    function table);
  - Tests/c/gen_ffi_table.py generates the libffi harness's signature table;
  - Tests/packaging/check_header_docs.py checks that every function has a doc comment;
  - Tests/c/Makefile and abi_check.sh take the list of functions (`--names`), the header
    compile test checks that it uses every declaration (`--check-uses`);
  - Tests/python/test_raw.py checks the raw layer against the header with it.

What it reads. `read(path)` starts at the umbrella header and follows its `#include "..."`
lines (quoted includes only, relative to the including file, as a compiler does; each file
once): the declarations come file by file, the umbrella first, then each header in the
order it is first included (the umbrella's own, the versions, before those of
quire/common.h, which a compiler reads first; nothing depends on that). In each file, comments
and preprocessor lines are set aside (the `#ifdef __cplusplus` blocks hold only the
`extern "C"` glue and are dropped whole), and the rest is split into statements at the `;`
outside braces. Every statement must be one of:

    typedef struct NAME NAME;                    an opaque handle
    typedef struct NAME { FIELDS } NAME;         a struct (fields may be function pointers)
    typedef enum NAME { CONSTANT = VALUE, ... } NAME;   a family of constants, each with an
                                                 explicit integer value
    typedef RETURN (*NAME)(PARAMETERS);          a callback type
    QUIRE_API RETURN quire_NAME(PARAMETERS);     a function, every parameter named

Anything else stops the reader with a message, so that a declaration written in a form it
does not understand is never skipped silently. `#define QUIRE_*` lines are the macros
(include guards and QUIRE_API itself are told apart).

Doc comments: a `/** ... */` comment documents the declaration right after it and the run of
declarations that follows with no blank line between (a getter and its setter share one; a
list of #defines too), as the header is written and as docs/api/doxygen_filter.py tells
Doxygen; a trailing `/**< ... */` documents what it follows on the same line. A plain
`/* ... */` comment, a blank line or a directive between a comment and a declaration ends it.
Each declaration also has its file, its line and its section (the title of the banner
comment `/* ---- */ /* Title */ /* ---- */` above it).

Types are normalised to single spaces with `*` written as ` *`: "const char *",
"quire_document **", "const char * const *". A function-pointer struct field has the type
"RETURN (*)(TYPE, TYPE)" and its parsed signature in `.callback`.

Command line (what Tests/c/header_functions.py used to be):

    quire_header.py [--names | --json | --macros | --typedefs | --files] [HEADER]
    quire_header.py --check-uses SOURCE [HEADER]

--names (the default) prints one function name a line, sorted; --json prints, in header
order, [{"name", "return", "params": [{"type", "name"}]}]; --macros prints the QUIRE_*
constants (the macros, not include guards nor QUIRE_API, and the enum constants), sorted;
--typedefs prints the names the typedefs introduce; --files prints the header files, the
umbrella first, in include order. --check-uses exits non-zero, naming them, if some
declared function, macro or typedef does not occur in SOURCE as an identifier (comments and
string literals do not count). HEADER defaults to include/quire.h of this repository.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Set, Tuple

IDENT = r"[A-Za-z_][A-Za-z_0-9]*"
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DEFAULT_HEADER = os.path.join(ROOT, "include", "quire.h")


class HeaderError(SystemExit):
    """The header holds something the reader does not understand (it stops with the file,
    the line and what it found)."""


# ---- what the header declares ----------------------------------------------------------------


@dataclass
class Param:
    type: str
    name: str


@dataclass
class Signature:
    """The return type and parameters of a function, a callback type or a function-pointer
    field."""

    ret: str
    params: List[Param]


@dataclass
class Declaration:
    name: str
    doc: Optional[str]  # the text of its doc comment, without the comment markers
    file: str  # the path, relative to the directory of the umbrella header
    line: int  # 1-based, of the statement's first line
    section: str  # the title of the banner above it ("" before the first)
    doc_shared: bool = False  # the doc comment is that of a run of declarations it ends


@dataclass
class Function(Declaration):
    ret: str = ""
    params: List[Param] = field(default_factory=list)


@dataclass
class Constant:
    name: str
    value: int
    text: str  # the value as written ("0x0100")
    doc: Optional[str]


@dataclass
class Enum(Declaration):
    constants: List[Constant] = field(default_factory=list)


@dataclass
class Field:
    name: str
    type: str
    doc: Optional[str]
    callback: Optional[Signature] = None  # for a function-pointer field


@dataclass
class Struct(Declaration):
    fields: List[Field] = field(default_factory=list)


@dataclass
class Handle(Declaration):
    """`typedef struct NAME NAME;`: a type only ever used through a pointer."""


@dataclass
class Callback(Declaration):
    signature: Signature = field(default_factory=lambda: Signature("", []))


@dataclass
class Macro(Declaration):
    value: str = ""  # the replacement text, continuation lines joined
    guard: bool = False  # an include guard, or QUIRE_API: not a constant of the interface


@dataclass
class Source:
    path: str  # relative to the directory of the umbrella header
    text: str


class Header:
    """Everything the header files declare, file by file (see read())."""

    def __init__(self, sources: List[Source]):
        self.sources = sources
        self.declarations: List[Declaration] = []
        for source in sources:
            self.declarations.extend(parse_source(source.text, source.path))
        self.functions = [d for d in self.declarations if isinstance(d, Function)]
        self.enums = [d for d in self.declarations if isinstance(d, Enum)]
        self.structs = [d for d in self.declarations if isinstance(d, Struct)]
        self.handles = [d for d in self.declarations if isinstance(d, Handle)]
        self.callbacks = [d for d in self.declarations if isinstance(d, Callback)]
        self.macros = [d for d in self.declarations if isinstance(d, Macro)]
        names = [d.name for d in self.declarations if not isinstance(d, Macro)]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise HeaderError("quire_header.py: declared twice: %s" % ", ".join(dupes))
        if not self.functions:
            raise HeaderError("quire_header.py: no function declarations found")

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    def constants(self) -> List[str]:
        """The QUIRE_* constants: the macros (not include guards nor QUIRE_API) and the
        constants of the enums, sorted."""
        names = {m.name for m in self.macros if not m.guard}
        for e in self.enums:
            names.update(c.name for c in e.constants)
        return sorted(names)

    def typedefs(self) -> List[str]:
        """The names the typedefs introduce (quire_document, quire_box, quire_write_fn, ...)."""
        return sorted(d.name for d in self.declarations if not isinstance(d, (Function, Macro)))


# ---- reading -------------------------------------------------------------------------------


def read(path: str = DEFAULT_HEADER) -> Header:
    """The umbrella header at `path` and every header it includes (quoted includes)."""
    base = os.path.dirname(os.path.abspath(path))
    sources: List[Source] = []
    seen: Set[str] = set()

    def visit(file: str) -> None:
        real = os.path.realpath(file)
        if real in seen:
            return
        seen.add(real)
        with open(file, encoding="utf-8") as f:
            text = f.read()
        sources.append(Source(os.path.relpath(file, base), text))
        for m in re.finditer(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', strip_comments(text), re.M):
            included = os.path.join(os.path.dirname(file), m.group(1))
            if not os.path.exists(included):
                raise HeaderError(
                    "quire_header.py: %s includes \"%s\", which is not at %s"
                    % (os.path.relpath(file, base), m.group(1), included)
                )
            visit(included)

    visit(path)
    return Header(sources)


def read_text(text: str, path: str = "quire.h") -> Header:
    """One header file's text alone (its includes are not followed)."""
    return Header([Source(path, text)])


def strip_comments(text: str) -> str:
    """The text with each comment blanked (its newlines kept, so lines keep their numbers)."""
    return _COMMENT_OR_STRING.sub(
        lambda m: m.group(0) if m.group(0)[0] in "\"'" else re.sub(r"[^\n]", " ", m.group(0)), text
    )


_COMMENT_OR_STRING = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


@dataclass
class _Comment:
    first: int  # 0-based lines
    last: int
    text: str  # the comment as written
    kind: str  # "doc" (/**), "trailing" (/**<), "plain" (/* or //)
    code_before: bool  # code precedes it on its first line
    code_after: bool  # code follows it on its last line

    def body(self) -> str:
        t = self.text
        t = re.sub(r"^/\*\*<?|^/\*|^//", "", t)
        t = re.sub(r"\*/$", "", t)
        lines = [re.sub(r"^\s*\*(?!/) ?", "", line) if i else line for i, line in enumerate(t.split("\n"))]
        return "\n".join(line.rstrip() for line in lines).strip()


def _comments(text: str, code_lines: List[str]) -> List[_Comment]:
    out = []
    for m in _COMMENT_OR_STRING.finditer(text):
        c = m.group(0)
        if c[0] in "\"'":
            continue
        first = text.count("\n", 0, m.start())
        last = first + c.count("\n")
        start_col = m.start() - (text.rfind("\n", 0, m.start()) + 1)
        end_col = m.end() - (text.rfind("\n", 0, m.end()) + 1)
        kind = "trailing" if c.startswith("/**<") else "doc" if c.startswith("/**") and c != "/**/" else "plain"
        out.append(
            _Comment(
                first,
                last,
                c,
                kind,
                bool(code_lines[first][:start_col].strip()),
                bool(code_lines[last][end_col:].strip()),
            )
        )
    return out


def parse_source(text: str, path: str) -> List[Declaration]:
    """The declarations of one header file, in order (see the module's doc)."""
    code = strip_comments(text)
    lines = text.split("\n")
    code_lines = code.split("\n")
    comments = _comments(text, code_lines)
    ends = {c.last: c for c in comments}  # the comment that ends on a line (the last one)
    trailing: Dict[int, _Comment] = {}
    for c in comments:
        if c.kind == "trailing":
            trailing.setdefault(c.first, c)

    # Sections: /* ---- */ /* Title */ /* ---- */.
    sections: List[Tuple[int, str]] = []
    for i in range(1, len(lines) - 1):
        if (
            re.match(r"^/\* -{10,} \*/$", lines[i - 1].strip())
            and re.match(r"^/\* -{10,} \*/$", lines[i + 1].strip())
            and re.match(r"^/\* (.*?)\s*\*/$", lines[i].strip())
        ):
            sections.append((i, re.match(r"^/\* (.*?)\s*\*/$", lines[i].strip()).group(1)))

    def section_of(line: int) -> str:
        title = ""
        for i, t in sections:
            if i <= line:
                title = t
        return title

    # Preprocessor: directives (with their continuations) and #ifdef __cplusplus blocks are
    # blanked out of the code; #defines are kept aside.
    directive_lines: Set[int] = set()
    defines: List[Tuple[int, int, str]] = []  # (first line, last line, text)
    guards: Set[str] = set()
    skip_depth = 0
    i = 0
    blank = list(code_lines)
    previous_ifndef: Optional[str] = None
    while i < len(code_lines):
        s = code_lines[i].strip()
        if s.startswith("#"):
            first = i
            full = code_lines[i].rstrip()
            while full.endswith("\\") and i + 1 < len(code_lines):
                i += 1
                full = full[:-1] + " " + code_lines[i].rstrip()
            for k in range(first, i + 1):
                directive_lines.add(k)
                blank[k] = ""
            d = re.match(r"#\s*(\w+)\s*(.*)", full.strip())
            word, rest = (d.group(1), d.group(2).strip()) if d else ("", "")
            if skip_depth:
                if word in ("if", "ifdef", "ifndef"):
                    skip_depth += 1
                elif word == "endif":
                    skip_depth -= 1
            elif word == "ifdef" and rest == "__cplusplus":
                skip_depth = 1
            elif word == "define":
                defines.append((first, i, rest))
                name = re.match(IDENT, rest)
                if name and previous_ifndef == name.group(0) and rest == name.group(0):
                    guards.add(name.group(0))
            previous_ifndef = rest if word == "ifndef" else None
        elif skip_depth:
            blank[i] = ""
        i += 1
    body = "\n".join(blank)
    body = re.sub(r'extern\s+"C"\s*\{', lambda m: " " * len(m.group(0)), body)

    def where(line: int) -> str:
        return "%s:%d" % (path, line + 1)

    statements = list(_statements(body, path))
    statement_first: Dict[int, int] = {}  # each line of a statement: the statement's first
    for _, first, last in statements:
        for k in range(first, last + 1):
            statement_first[k] = first

    def doc_before(first: int, run_member) -> Tuple[Optional[str], bool]:
        """The doc comment of what starts on line `first` (see the module's doc): the
        comment right above it, or above the run of declarations it ends; and whether it
        came through a run (shared with the declarations above)."""
        start = first
        shared = False
        while True:
            prev = start - 1
            if prev < 0 or not lines[prev].strip():
                return None, False
            if lines[prev].rstrip().endswith("*/") and prev in ends:
                if code_lines[prev].strip():
                    pass  # code and a trailing comment: another member of the run
                elif ends[prev].kind == "doc":
                    return ends[prev].body() or None, shared
                else:
                    return None, False
            if not run_member(prev):
                return None, False
            if prev in directive_lines:
                start = statement_start_define(prev)
            else:
                start = statement_first.get(prev, statement_start(prev))
            shared = True

    def statement_start(line: int) -> int:
        i = line
        while i > 0:
            before = code_lines[i - 1].strip()
            if not before or before.endswith((";", "{", "}")) or before.startswith("#") or (i - 1) in directive_lines:
                return i
            i -= 1
        return 0

    def is_declaration_line(line: int) -> bool:
        return line not in directive_lines and bool(code_lines[line].strip())

    def is_define_line(line: int) -> bool:
        first = statement_start_define(line)
        return line in directive_lines and re.match(r"\s*#\s*define\b", code_lines[first]) is not None

    def statement_start_define(line: int) -> int:
        while line > 0 and code_lines[line - 1].rstrip().endswith("\\"):
            line -= 1
        return line

    def doc_of(first: int, last: int, run_member, body: bool = False) -> Tuple[Optional[str], bool]:
        # A trailing /**< on the declaration's lines (a struct's or enum's: on its last
        # line, after the closing brace; the others are its members').
        for k in range(last if body else first, last + 1):
            if k in trailing:
                return trailing[k].body() or None, False
        return doc_before(first, run_member)

    out: List[Declaration] = []

    for first, last, rest in defines:
        m = re.match(r"(%s)(\(.*?\))?\s*(.*)$" % IDENT, rest)
        name, value = m.group(1), m.group(3).strip()
        if not name.startswith("QUIRE_"):
            raise HeaderError("quire_header.py: %s: a macro outside the QUIRE_ namespace: %s" % (where(first), name))
        if m.group(2):
            raise HeaderError(
                "quire_header.py: %s: %s takes arguments, which no reader of the header "
                "knows how to handle" % (where(first), name)
            )
        doc, shared = doc_of(first, last, is_define_line)
        out.append(
            Macro(
                name,
                doc,
                path,
                first + 1,
                section_of(first),
                shared,
                value=value,
                guard=name in guards or name == "QUIRE_API",
            )
        )

    for st, first, last in statements:
        line = first
        doc, shared = doc_of(first, last, is_declaration_line, body="{" in st)
        sec = section_of(first)
        if st.startswith("typedef "):
            declaration = _typedef(st, path, line, doc, sec, text, first, last, lines, trailing, ends, code_lines)
            declaration.doc_shared = shared
            out.append(declaration)
            continue
        if not st.startswith("QUIRE_API "):
            raise HeaderError("quire_header.py: %s: a declaration without QUIRE_API: %r" % (where(first), st[:120]))
        st = st[len("QUIRE_API ") :]
        m = _DECL.match(st)
        if not m or "{" in st:
            raise HeaderError(
                "quire_header.py: %s: not a typedef and not a function declaration: %r" % (where(first), st)
            )
        params = [p for p in (_param(p, where(first)) for p in _split_params(m.group("params"))) if p is not None]
        out.append(
            Function(
                m.group("name"), doc, path, line + 1, sec, shared, ret=normalise_type(m.group("ret")), params=params
            )
        )

    # Cross-check with a cruder count: every `quire_xxx(` in the code starts a declaration.
    crude = set(re.findall(r"\b(quire_\w+)\s*\(", body))
    found = {d.name for d in out if isinstance(d, Function)}
    if crude != found:
        raise HeaderError(
            "quire_header.py: %s: parsed %s but the code mentions %s" % (path, sorted(found), sorted(crude))
        )
    out.sort(key=lambda d: d.line)
    return out


def _statements(body: str, path: str) -> Iterator[Tuple[str, int, int]]:
    """(statement, first line, last line) for each `;`-terminated statement outside braces."""
    depth = 0
    current: List[str] = []
    first: Optional[int] = None
    line = 0
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise HeaderError("quire_header.py: %s:%d: unbalanced '}'" % (path, line + 1))
        if first is None and not ch.isspace():
            first = line
        if ch == ";" and depth == 0:
            yield " ".join("".join(current).split()), first if first is not None else line, line
            current = []
            first = None
        else:
            current.append(ch)
        if ch == "\n":
            line += 1
    rest = " ".join("".join(current).split())
    if rest:
        raise HeaderError("quire_header.py: %s: text after the last ';': %r" % (path, rest))


def normalise_type(t: str) -> str:
    t = " ".join(t.replace("*", " * ").split())
    return t.replace("* *", "**")


def _split_params(params: str) -> List[str]:
    """Splits at the top-level commas (a function-pointer parameter has commas inside)."""
    parts, depth, cur = [], 0, []  # type: ignore[var-annotated]
    for ch in params:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def _param(p: str, where: str) -> Optional[Param]:
    if p == "void":
        return None
    fp = re.match(r"^(.*)\(\s*\*\s*(%s)\s*\)\s*\((.*)\)$" % IDENT, p)
    if fp:  # a function pointer: passed as a pointer
        return Param("function pointer", fp.group(2))
    m = re.match(r"^(.*?)\s*(%s)$" % IDENT, p)
    if not m or not m.group(1).strip():
        raise HeaderError(
            "quire_header.py: %s: parameter without a name: %r (every parameter of the header is named)" % (where, p)
        )
    return Param(normalise_type(m.group(1)), m.group(2))


def _signature(ret: str, params: str, where: str) -> Signature:
    ps = [p for p in (_param(p, where) for p in _split_params(params)) if p is not None]
    return Signature(normalise_type(ret), ps)


_DECL = re.compile(r"^(?P<ret>[A-Za-z_][\w\s\*]*?)\s*\b(?P<name>quire_\w+)\s*\((?P<params>.*)\)$", re.S)
_CALLBACK = re.compile(r"^typedef\s+(?P<ret>.*?)\(\s*\*\s*(?P<name>%s)\s*\)\s*\((?P<params>.*)\)$" % IDENT, re.S)
_INT = re.compile(r"^(?:0[xX][0-9A-Fa-f]+|[0-9]+)$")


def _members(text: str, body_start: int, body: str, sep: str) -> Iterator[Tuple[str, int, int]]:
    """(member, first line, last line) of a struct's or enum's body, split at `sep` outside
    parentheses; lines are 0-based lines of `text`, where the body starts at `body_start`."""
    depth = 0
    cur: List[str] = []
    first: Optional[int] = None
    line = text.count("\n", 0, body_start)
    for ch in body:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if first is None and not ch.isspace():
            first = line
        if ch == sep and depth == 0:
            yield " ".join("".join(cur).split()), first if first is not None else line, line
            cur, first = [], None
        else:
            cur.append(ch)
        if ch == "\n":
            line += 1
    rest = " ".join("".join(cur).split())
    if rest:
        yield rest, first if first is not None else line, line


def _typedef(st, path, line, doc, sec, text, first, last, lines, trailing, ends, code_lines) -> Declaration:
    where = "%s:%d" % (path, first + 1)

    def member_doc(mfirst: int, mlast: int) -> Optional[str]:
        # A trailing /**< on the member's last line (after its separator too), or a doc
        # comment that ends on the line above it.
        for k in range(mfirst, mlast + 1):
            if k in trailing and (k == mlast or not code_lines[k].strip().endswith((",", ";"))):
                return trailing[k].body() or None
        c = ends.get(mfirst - 1)
        if c is not None and c.kind == "doc" and not c.code_before and lines[mfirst - 1].strip():
            return c.body() or None
        return None

    m = re.match(r"^typedef struct (%s) (%s)$" % (IDENT, IDENT), st)
    if m:
        if m.group(1) != m.group(2):
            raise HeaderError(
                "quire_header.py: %s: typedef struct %s %s: the tag and the name differ"
                % (where, m.group(1), m.group(2))
            )
        return Handle(m.group(1), doc, path, line + 1, sec)
    m = re.match(r"^typedef (struct|enum) (%s) ?\{(.*)\} ?(%s)$" % (IDENT, IDENT), st, re.S)
    if m:
        kind, tag, _, name = m.groups()
        if tag != name:
            raise HeaderError(
                "quire_header.py: %s: typedef %s %s { ... } %s: the tag and the name differ" % (where, kind, tag, name)
            )
        # The body again from the file's text with its lines (the statement is joined).
        code = strip_comments(text)
        start = _line_offset(text, first)
        open_brace = code.index("{", start)
        close_brace = _matching_brace(code, open_brace)
        raw_body = code[open_brace + 1 : close_brace]
        if kind == "enum":
            constants = []
            for member, mfirst, mlast in _members(code, open_brace + 1, raw_body, ","):
                e = re.match(r"^(QUIRE_\w+)\s*=\s*(.+)$", member)
                if not e or not _INT.match(e.group(2)):
                    raise HeaderError(
                        "quire_header.py: %s: %s: the constant %r has no explicit integer value" % (where, name, member)
                    )
                constants.append(Constant(e.group(1), int(e.group(2), 0), e.group(2), member_doc(mfirst, mlast)))
            if not constants:
                raise HeaderError("quire_header.py: %s: the enum %s has no constants" % (where, name))
            return Enum(name, doc, path, line + 1, sec, constants=constants)
        fields = []
        for member, mfirst, mlast in _members(code, open_brace + 1, raw_body, ";"):
            fp = re.match(r"^(?P<ret>.*?)\(\s*\*\s*(?P<name>%s)\s*\)\s*\((?P<params>.*)\)$" % IDENT, member)
            if fp:
                sig = _signature(fp.group("ret"), fp.group("params"), "%s:%d" % (path, mfirst + 1))
                ctype = "%s (*)(%s)" % (sig.ret, ", ".join(p.type for p in sig.params) or "void")
                fields.append(Field(fp.group("name"), ctype, member_doc(mfirst, mlast), sig))
                continue
            f = re.match(r"^(.*?)\s*\b(%s)$" % IDENT, member)
            if not f or not f.group(1).strip() or "[" in member:
                raise HeaderError(
                    "quire_header.py: %s:%d: %s: a field the reader does not understand: %r"
                    % (path, mfirst + 1, name, member)
                )
            fields.append(Field(f.group(2), normalise_type(f.group(1)), member_doc(mfirst, mlast)))
        return Struct(name, doc, path, line + 1, sec, fields=fields)
    m = _CALLBACK.match(st)
    if m:
        return Callback(
            m.group("name"), doc, path, line + 1, sec, signature=_signature(m.group("ret"), m.group("params"), where)
        )
    raise HeaderError("quire_header.py: %s: a typedef the reader does not understand: %r" % (where, st[:160]))


def _line_offset(text: str, line: int) -> int:
    offset = 0
    for _ in range(line):
        offset = text.index("\n", offset) + 1
    return offset


def _matching_brace(code: str, open_brace: int) -> int:
    depth = 0
    for i in range(open_brace, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise HeaderError("quire_header.py: unbalanced braces")


# ---- the command line ------------------------------------------------------------------------


def identifiers_used(source_text: str) -> Set[str]:
    """The identifiers of C source text, outside comments and string literals."""
    text = _COMMENT_OR_STRING.sub(" ", source_text)
    return set(re.findall(IDENT, text))


def main(argv: List[str]) -> int:
    mode = "--names"
    args = []
    for a in argv[1:]:
        if a in ("--names", "--json", "--macros", "--typedefs", "--files", "--check-uses"):
            mode = a
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    source = None
    if mode == "--check-uses":
        if not args:
            raise HeaderError("quire_header.py: --check-uses needs a SOURCE")
        source, args = args[0], args[1:]
    path = args[0] if args else DEFAULT_HEADER
    header = read(path)
    if mode == "--check-uses":
        with open(source, encoding="utf-8") as f:  # type: ignore[arg-type]
            used = identifiers_used(f.read())
        wanted = [fn.name for fn in header.functions] + header.constants() + header.typedefs()
        missing = sorted(n for n in wanted if n not in used)
        if missing:
            print("%s does not use these declarations of %s:" % (source, path))
            for n in missing:
                print("  " + n)
            return 1
        print(
            "%s uses all %d functions, %d macros and %d typedefs of %s"
            % (source, len(header.functions), len(header.constants()), len(header.typedefs()), path)
        )
        return 0
    if mode == "--macros":
        print("\n".join(header.constants()))
    elif mode == "--typedefs":
        print("\n".join(header.typedefs()))
    elif mode == "--files":
        print("\n".join(s.path for s in header.sources))
    elif mode == "--json":
        json.dump(
            [
                {"name": f.name, "return": f.ret, "params": [{"type": p.type, "name": p.name} for p in f.params]}
                for f in header.functions
            ],
            sys.stdout,
            indent=1,
        )
        sys.stdout.write("\n")
    else:
        print("\n".join(sorted(f.name for f in header.functions)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
