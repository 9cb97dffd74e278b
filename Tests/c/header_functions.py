#!/usr/bin/env python3
"""The functions declared in include/quire.h, read from the header itself.

The header is the contract, so the tests derive their lists from it instead of keeping a
second, hand-written list that could drift: the header compile test checks its table
against `--names`, the libffi harness is generated from `--json` (see gen_ffi_table.py),
and abi_check.sh compares `--names` with the exported symbols and the baseline.

How it reads the header: comments and preprocessor lines are dropped (the
`#ifdef __cplusplus` blocks only hold the `extern "C"` glue and are dropped whole), the rest
is split into statements at the `;` that are outside braces, typedefs are skipped, and every
other statement must be one function declaration, possibly spanning lines:

    <return type> quire_<name>(<parameters>);

A statement that is neither a typedef nor such a declaration is an error, so that a
declaration written in a form this script does not understand (a variable, a declaration
without parameter names) cannot be skipped silently. Whatever precedes the name is taken as
the return type (a macro in front of it would be too, and gen_ffi_table.py would then stop
on a return type it does not know).

Usage:
    header_functions.py [--names | --json | --macros | --typedefs] [HEADER]
    header_functions.py --check-uses SOURCE [HEADER]

--names (the default) prints one function name a line, sorted; --json prints, in header
order, [{"name", "return", "params": [{"type", "name"}]}] with types normalised to single
spaces and `*` written as ` *` (e.g. "const char *", "quire_document **"); --macros prints
the QUIRE_* macros the header defines (not its include guard), sorted; --typedefs prints the
names its typedefs introduce (handles, structs, callback types such as quire_write_fn).
--check-uses exits non-zero, naming them, if some declared function, macro or typedef does
not occur in SOURCE as an identifier (comments and string literals do not count).
"""

import json
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z_0-9]*"


def strip_comments(text):
    # Block comments first, keeping newlines so that line-based steps still work.
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def strip_preprocessor(text):
    """Drops directives (with their backslash continuations) and #ifdef __cplusplus blocks."""
    text = re.sub(r"\\\n", " ", text)
    out = []
    skip_depth = 0  # > 0 inside an #ifdef __cplusplus block
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("#"):
            directive = re.match(r"#\s*(\w+)\s*(.*)", s)
            word = directive.group(1) if directive else ""
            rest = directive.group(2).strip() if directive else ""
            if skip_depth:
                if word in ("if", "ifdef", "ifndef"):
                    skip_depth += 1
                elif word == "endif":
                    skip_depth -= 1
            elif word == "ifdef" and rest == "__cplusplus":
                skip_depth = 1
            continue
        if not skip_depth:
            out.append(line)
    return "\n".join(out)


def statements(text):
    depth = 0
    current = []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise SystemExit("header_functions.py: unbalanced '}' in the header")
        if ch == ";" and depth == 0:
            yield " ".join("".join(current).split())
            current = []
        else:
            current.append(ch)
    rest = " ".join("".join(current).split())
    if rest:
        raise SystemExit("header_functions.py: text after the last ';': %r" % rest)


def normalise_type(t):
    t = " ".join(t.replace("*", " * ").split())
    return t.replace("* *", "**")


def split_params(params):
    """Splits at the top-level commas (a function-pointer parameter has commas inside)."""
    parts, depth, cur = [], 0, []
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


def parse_param(p):
    if p == "void":
        return None
    fp = re.match(r"^(.*)\(\s*\*\s*(%s)\s*\)\s*\((.*)\)$" % IDENT, p)
    if fp:  # a function pointer: passed as a pointer
        return {"type": "function pointer", "name": fp.group(2)}
    m = re.match(r"^(.*?)\s*(%s)$" % IDENT, p)
    if not m or not m.group(1).strip():
        raise SystemExit("header_functions.py: parameter without a name: %r "
                         "(every parameter in quire.h is named)" % p)
    return {"type": normalise_type(m.group(1)), "name": m.group(2)}


DECL = re.compile(r"^(?P<ret>[A-Za-z_][\w\s\*]*?)\s*\b(?P<name>quire_\w+)\s*\((?P<params>.*)\)$",
                  re.S)


def parse(header_text):
    text = strip_preprocessor(strip_comments(header_text))
    text = re.sub(r'extern\s+"C"\s*\{', "", text)
    functions = []
    for st in statements(text):
        if not st:
            continue
        if st.startswith("typedef "):
            continue
        # Every declaration is marked with the export macro (include/quire.h defines it).
        if not st.startswith("QUIRE_API "):
            raise SystemExit("header_functions.py: a declaration without QUIRE_API: %r" % st[:120])
        st = st[len("QUIRE_API "):]
        m = DECL.match(st)
        if not m or "{" in st:
            raise SystemExit("header_functions.py: not a typedef and not a function "
                             "declaration: %r" % st)
        params = [parse_param(p) for p in split_params(m.group("params"))]
        params = [p for p in params if p is not None]
        functions.append({"name": m.group("name"),
                          "return": normalise_type(m.group("ret")),
                          "params": params})
    names = [f["name"] for f in functions]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SystemExit("header_functions.py: declared twice: %s" % ", ".join(dupes))
    # Cross-check with a cruder count: every `quire_xxx(` that starts a declaration.
    crude = set(re.findall(r"\b(quire_\w+)\s*\(", text))
    if crude != set(names):
        raise SystemExit("header_functions.py: parsed %s but the header mentions %s"
                         % (sorted(names), sorted(crude)))
    if not functions:
        raise SystemExit("header_functions.py: no function declarations found")
    return functions


def typedefs(header_text):
    """The names the header's typedefs introduce (quire_document, quire_write_fn, ...)."""
    text = strip_preprocessor(strip_comments(header_text))
    text = re.sub(r'extern\s+"C"\s*\{', "", text)
    names = []
    for st in statements(text):
        if not st.startswith("typedef "):
            continue
        # A struct's body goes first: its members (function pointers such as
        # quire_bookmark_provider's `int (*load)(...)`) are not names the typedef introduces.
        while "{" in st:
            body = re.sub(r"\{[^{}]*\}", " ", st)
            if body == st:
                raise SystemExit("header_functions.py: unbalanced braces in %r" % st)
            st = body
        fp = re.search(r"\(\s*\*\s*(%s)\s*\)\s*\(" % IDENT, st)
        if fp:  # typedef R (*name)(...)
            names.append(fp.group(1))
            continue
        m = re.search(r"(%s)\s*$" % IDENT, st)
        if not m:
            raise SystemExit("header_functions.py: cannot read the name of %r" % st)
        names.append(m.group(1))
    return sorted(set(names))


def macros(header_text):
    """The QUIRE_* constants: the macros the header defines (not its include guard, nor
    QUIRE_API) and the constants of its enums."""
    text = strip_comments(header_text)
    names = set(re.findall(r"^\s*#\s*define\s+(QUIRE_\w+)", text, re.M))
    guard = re.search(r"^\s*#\s*ifndef\s+(\w+)", text, re.M)
    if guard:
        names.discard(guard.group(1))
    names.discard("QUIRE_API")
    for body in re.findall(r"typedef\s+enum\s+\w+\s*\{(.*?)\}", text, re.S):
        names.update(re.findall(r"\b(QUIRE_\w+)\s*=", body))
    return sorted(names)


def identifiers_used(source_text):
    # One pass, so that "//" inside a string or a quote inside a comment is read right.
    token = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    text = token.sub(" ", source_text)
    return set(re.findall(IDENT, text))


def main(argv):
    mode = "--names"
    args = []
    for a in argv[1:]:
        if a in ("--names", "--json", "--macros", "--typedefs", "--check-uses"):
            mode = a
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    if mode == "--check-uses":
        if not args:
            raise SystemExit("header_functions.py: --check-uses needs a SOURCE")
        source, args = args[0], args[1:]
    path = args[0] if args else "include/quire.h"
    with open(path, encoding="utf-8") as f:
        header_text = f.read()
    functions = parse(header_text)
    if mode == "--check-uses":
        with open(source, encoding="utf-8") as f:
            used = identifiers_used(f.read())
        wanted = ([fn["name"] for fn in functions] + macros(header_text) +
                  typedefs(header_text))
        missing = sorted(n for n in wanted if n not in used)
        if missing:
            print("%s does not use these declarations of %s:" % (source, path))
            for n in missing:
                print("  " + n)
            return 1
        print("%s uses all %d functions, %d macros and %d typedefs of %s"
              % (source, len(functions), len(macros(header_text)),
                 len(typedefs(header_text)), path))
        return 0
    if mode == "--macros":
        for name in macros(header_text):
            print(name)
    elif mode == "--typedefs":
        for name in typedefs(header_text):
            print(name)
    elif mode == "--json":
        json.dump(functions, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for name in sorted(f["name"] for f in functions):
            print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
