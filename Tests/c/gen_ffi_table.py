#!/usr/bin/env python3
"""Generates the libffi signature table of ffi_harness.c from include/quire.h.

Usage: gen_ffi_table.py HEADER OUTPUT   (the Makefile writes out/ffi_table.h)

For every function that header_functions.py reads from the header it emits the libffi
types of the return value and of each parameter, and a "kind" for each parameter that tells
the harness which values it may pass there without lying to the library (it never passes a
garbage non-NULL pointer: a pointer is NULL or a real buffer of adequate size):

  C type                              ffi type           kind
  quire_document *                    pointer            ARG_HANDLE    (NULL or a valid document)
  quire_document **                   pointer            ARG_OUT_HANDLE
  char *buf, then size_t              pointer, uint64    ARG_BUF, ARG_BUF_SIZE (a real buffer)
  size_t *                            pointer            ARG_OUT_LEN
  any other non-const T *             pointer            ARG_OUT       (scratch of sizeof(T))
  const char *                        pointer            ARG_CSTR      (NULL or a real string)
  const void *, then size_t           pointer, uint64    ARG_DATA, ARG_DATA_SIZE
  const quire_open_options *          pointer            ARG_OPTIONS
  any other const T *, void *         pointer            ARG_INPTR     (NULL only)
  a function pointer                  pointer            ARG_FNPTR     (NULL only)
  int, int32_t                        sint32             ARG_INT
  uint32_t                            uint32             ARG_UINT
  size_t, uint64_t                    uint64             ARG_SIZE
  int64_t                             sint64             ARG_INT64
  double                              double             ARG_DOUBLE

A type it does not know stops the build with a message, so that a new kind of parameter is
thought about (and added here and to ffi_harness.c) rather than called with wrong values.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import header_functions  # noqa: E402

SCALARS = {
    "int": ("ffi_type_sint32", "ARG_INT"),
    "int32_t": ("ffi_type_sint32", "ARG_INT"),
    "uint32_t": ("ffi_type_uint32", "ARG_UINT"),
    "size_t": ("ffi_type_uint64", "ARG_SIZE"),
    "uint64_t": ("ffi_type_uint64", "ARG_SIZE"),
    "int64_t": ("ffi_type_sint64", "ARG_INT64"),
    "double": ("ffi_type_double", "ARG_DOUBLE"),
}
RETURNS = {
    "void": "ffi_type_void",
    "int": "ffi_type_sint32",
    "int32_t": "ffi_type_sint32",
    "uint32_t": "ffi_type_uint32",
    "size_t": "ffi_type_uint64",
    "uint64_t": "ffi_type_uint64",
    "int64_t": "ffi_type_sint64",
    "double": "ffi_type_double",
}


def classify(fn):
    params = fn["params"]
    out = []
    i = 0
    while i < len(params):
        p = params[i]
        t = p["type"]
        nxt = params[i + 1]["type"] if i + 1 < len(params) else None
        pointee = "0"
        if t == "function pointer":
            kinds = [("ffi_type_pointer", "ARG_FNPTR")]
        elif t == "quire_document *":
            kinds = [("ffi_type_pointer", "ARG_HANDLE")]
        elif t == "quire_document **":
            kinds = [("ffi_type_pointer", "ARG_OUT_HANDLE")]
            pointee = "sizeof(quire_document *)"
        elif t == "char *" and nxt == "size_t":
            kinds = [("ffi_type_pointer", "ARG_BUF"), ("ffi_type_uint64", "ARG_BUF_SIZE")]
        elif t == "const void *" and nxt == "size_t":
            kinds = [("ffi_type_pointer", "ARG_DATA"), ("ffi_type_uint64", "ARG_DATA_SIZE")]
        elif t == "size_t *":
            kinds = [("ffi_type_pointer", "ARG_OUT_LEN")]
            pointee = "sizeof(size_t)"
        elif t == "const char *":
            kinds = [("ffi_type_pointer", "ARG_CSTR")]
        elif t == "const quire_open_options *":
            kinds = [("ffi_type_pointer", "ARG_OPTIONS")]
            pointee = "sizeof(quire_open_options)"
        elif t.endswith("*") and (t.startswith("const ") or t == "void *"):
            # Input pointers and opaque `void *payload`s: the harness passes NULL.
            kinds = [("ffi_type_pointer", "ARG_INPTR")]
        elif t.endswith("*"):
            base = t[:-1].strip()
            kinds = [("ffi_type_pointer", "ARG_OUT")]
            pointee = "sizeof(%s)" % base
        elif t in SCALARS:
            kinds = [SCALARS[t]]
        else:
            raise SystemExit("gen_ffi_table.py: %s: parameter %s has type %r, which the "
                             "harness does not know: add it to gen_ffi_table.py and "
                             "ffi_harness.c" % (fn["name"], p["name"], t))
        for k, (ffi, kind) in enumerate(kinds):
            q = params[i + k]
            out.append({"ffi": ffi, "kind": kind, "name": q["name"], "type": q["type"],
                        "pointee": pointee if k == 0 else "0"})
        i += len(kinds)
    return out


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def generate(functions, header_path):
    lines = [
        "/* Generated by Tests/c/gen_ffi_table.py from %s: do not edit. */" % header_path,
        "#ifndef QUIRE_FFI_TABLE_H",
        "#define QUIRE_FFI_TABLE_H",
        "",
        "enum ffi_arg_kind {",
        "    ARG_HANDLE, ARG_OUT_HANDLE, ARG_OUT, ARG_BUF, ARG_BUF_SIZE, ARG_OUT_LEN, ARG_CSTR,",
        "    ARG_DATA, ARG_DATA_SIZE, ARG_OPTIONS, ARG_INPTR, ARG_FNPTR, ARG_INT, ARG_UINT,",
        "    ARG_SIZE, ARG_INT64, ARG_DOUBLE",
        "};",
        "",
        "struct ffi_function {",
        "    const char *name;",
        "    const char *return_ctype; /* the C return type, as in the header */",
        "    ffi_type *return_type;",
        "    unsigned nargs;",
        "    ffi_type **arg_types;",
        "    const enum ffi_arg_kind *arg_kinds;",
        "    const char *const *arg_names;",
        "    const char *const *arg_ctypes;",
        "    const size_t *arg_pointee_sizes; /* for out-parameters; 0 otherwise */",
        "};",
        "",
    ]
    entries = []
    for fn in functions:
        name = fn["name"]
        ret = fn["return"]
        if ret.endswith("*"):
            rtype = "ffi_type_pointer"
        elif ret in RETURNS:
            rtype = RETURNS[ret]
        else:
            raise SystemExit("gen_ffi_table.py: %s returns %r, which the harness does not "
                             "know" % (name, ret))
        args = classify(fn)
        if args:
            lines.append("static ffi_type *ffi_args_%s[] = {%s};" % (
                name, ", ".join("&" + a["ffi"] for a in args)))
            lines.append("static const enum ffi_arg_kind ffi_kinds_%s[] = {%s};" % (
                name, ", ".join(a["kind"] for a in args)))
            lines.append("static const char *const ffi_names_%s[] = {%s};" % (
                name, ", ".join(c_string(a["name"]) for a in args)))
            lines.append("static const char *const ffi_ctypes_%s[] = {%s};" % (
                name, ", ".join(c_string(a["type"]) for a in args)))
            lines.append("static const size_t ffi_pointees_%s[] = {%s};" % (
                name, ", ".join(a["pointee"] for a in args)))
            entries.append("    {%s, %s, &%s, %d, ffi_args_%s, ffi_kinds_%s, ffi_names_%s, "
                           "ffi_ctypes_%s, ffi_pointees_%s}," % (
                               c_string(name), c_string(ret), rtype, len(args), name, name,
                               name, name, name))
        else:
            entries.append("    {%s, %s, &%s, 0, NULL, NULL, NULL, NULL, NULL}," % (
                c_string(name), c_string(ret), rtype))
    lines.append("")
    lines.append("static const struct ffi_function FFI_FUNCTIONS[] = {")
    lines.extend(entries)
    lines.append("};")
    lines.append("#define FFI_FUNCTION_COUNT %d" % len(functions))
    lines.append("")
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 3:
        raise SystemExit("usage: gen_ffi_table.py HEADER OUTPUT")
    header, output = argv[1], argv[2]
    with open(header, encoding="utf-8") as f:
        functions = header_functions.parse(f.read())
    text = generate(functions, os.path.basename(header))
    tmp = output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
