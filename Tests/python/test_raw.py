"""The raw ctypes layer against include/quire.h: the same functions with the same types,
the same structures (field by field, and byte by byte when a C compiler is at hand), the
same constants; the library lookup order and the version check at load."""

from __future__ import annotations

import ast
import ctypes
import ctypes.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
from ctypes import (
    POINTER,
    byref,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

import quire
from quire import _raw

from conftest import BINDING_DIR, HEADER, REPO


# The header as scripts/quire_header.py reads it (the umbrella and its topic headers): the
# reader the generator of the raw table uses too, so what is checked against the raw layer
# below is anchored elsewhere: the C_TO_CTYPES tables here are written by hand, the header
# compile test (Tests/c) proves the reader's function list against the C compiler, and
# test_structure_layout_matches_the_c_compiler compares every struct with the compiler's.
sys.path.insert(0, str(REPO / "scripts"))
import quire_header  # noqa: E402

HEADER_DECLARATIONS = quire_header.read(str(HEADER))


def header_functions() -> Dict[str, Tuple[str, List[str]]]:
    """{name: (return type, [parameter types])} of every function the header declares."""
    return {f.name: (f.ret, [p.type for p in f.params]) for f in HEADER_DECLARATIONS.functions}


def header_structs() -> Dict[str, List[Tuple[str, str]]]:
    """{struct name: [(field type, field name)]} of the header's typedef'd structs; a function
    pointer member such as `int (*load)(quire_bookmark_sink *sink, void *payload)` has the
    type `int (*)(quire_bookmark_sink *, void *)`."""
    return {s.name: [(f.type, f.name) for f in s.fields] for s in HEADER_DECLARATIONS.structs}


def header_enums() -> Dict[str, Dict[str, int]]:
    """{enum type: {constant: value}} of the header's `typedef enum NAME { ... } NAME;`."""
    return {e.name: {c.name: c.value for c in e.constants} for e in HEADER_DECLARATIONS.enums}


def header_macros() -> Dict[str, str]:
    """{name: replacement text} of the header's `#define QUIRE_*` macros (not the include
    guards, nor QUIRE_API)."""
    return {m.name: m.value for m in HEADER_DECLARATIONS.macros if not m.guard}


# The ctypes type the raw layer must use for each C type of the header.
C_TO_CTYPES = {
    "void": None,
    "int": c_int,
    "int32_t": c_int32,
    "size_t": c_size_t,
    "double": c_double,
    "const char *": c_char_p,
    "char *": POINTER(c_char),
    "const void *": c_void_p,
    "int32_t *": POINTER(c_int32),
    "size_t *": POINTER(c_size_t),
    "quire_document *": _raw.quire_document_p,
    "quire_document **": POINTER(_raw.quire_document_p),
    "const quire_open_options *": POINTER(_raw.quire_open_options),
    "const quire_file_access *": POINTER(_raw.quire_file_access),
    "quire_file_access *": POINTER(_raw.quire_file_access),
    "quire_rect *": POINTER(_raw.quire_rect),
    "int64_t *": POINTER(c_int64),
    "uint32_t *": POINTER(c_uint32),
    "double *": POINTER(c_double),
    "quire_value *": _raw.quire_value_p,
    "const quire_value *": _raw.quire_value_p,
    "quire_value **": POINTER(_raw.quire_value_p),
    "const quire_save_options *": POINTER(_raw.quire_save_options),
    "quire_write_fn": _raw.quire_write_fn,
    "void *": c_void_p,
    "const quire_rect *": POINTER(_raw.quire_rect),
    "const double *": POINTER(c_double),
    "quire_annotation *": _raw.quire_annotation_p,
    "const quire_annotation *": _raw.quire_annotation_p,
    "quire_annotation **": POINTER(_raw.quire_annotation_p),
    "quire_annotation_list *": _raw.quire_annotation_list_p,
    "const quire_annotation_list *": _raw.quire_annotation_list_p,
    "quire_annotation_list **": POINTER(_raw.quire_annotation_list_p),
    "quire_bookmark *": _raw.quire_bookmark_p,
    "const quire_bookmark *": _raw.quire_bookmark_p,
    "quire_bookmark **": POINTER(_raw.quire_bookmark_p),
    "quire_bookmark_sink *": _raw.quire_bookmark_sink_p,
    "const quire_bookmark_provider *": POINTER(_raw.quire_bookmark_provider),
    "const int64_t *": POINTER(c_int64),
    "quire_bookmark_change_fn": _raw.quire_bookmark_change_fn,
    "const quire_checkpoint_options *": POINTER(_raw.quire_checkpoint_options),
    "quire_checkpoint_done_fn": _raw.quire_checkpoint_done_fn,
    "quire_checkpoint_options *": POINTER(_raw.quire_checkpoint_options),
    "quire_checkpoint_info *": POINTER(_raw.quire_checkpoint_info),
    "unsigned": c_uint,
}
C_TO_CTYPES.update({
    "quire_open_options *": POINTER(_raw.quire_open_options),
    "quire_save_options *": POINTER(_raw.quire_save_options),
    "quire_bookmark_provider *": POINTER(_raw.quire_bookmark_provider),
    "const quire_bookmark_provider * const *": POINTER(POINTER(_raw.quire_bookmark_provider)),
    "quire_sync_config *": POINTER(_raw.quire_sync_config),
    "const quire_sync_config *": POINTER(_raw.quire_sync_config),
    "quire_sync_service **": POINTER(_raw.quire_sync_service_p),
    "quire_sync_service *": _raw.quire_sync_service_p,
    "quire_sync_response **": POINTER(_raw.quire_sync_response_p),
    "quire_sync_response *": _raw.quire_sync_response_p,
    "const quire_sync_response *": _raw.quire_sync_response_p,
    "quire_sync_call **": POINTER(_raw.quire_sync_call_p),
    "quire_sync_call *": _raw.quire_sync_call_p,
    "quire_sync_completion": _raw.quire_sync_completion,
    "const quire_sync_header *": POINTER(_raw.quire_sync_header),
    "quire_client_config *": POINTER(_raw.quire_client_config),
    "const quire_client_config *": POINTER(_raw.quire_client_config),
    "quire_client_callbacks *": POINTER(_raw.quire_client_callbacks),
    "const quire_client_callbacks *": POINTER(_raw.quire_client_callbacks),
    "quire_client **": POINTER(_raw.quire_client_p),
    "quire_client *": _raw.quire_client_p,
    "quire_descriptor **": POINTER(_raw.quire_descriptor_p),
    "quire_descriptor *": _raw.quire_descriptor_p,
    "const quire_descriptor *": _raw.quire_descriptor_p,
    "const char **": POINTER(c_char_p),
    "const char * const *": POINTER(c_char_p),
    "const void **": POINTER(c_void_p),
    "quire_text_page **": POINTER(_raw.quire_text_page_p),
    "quire_text_page *": _raw.quire_text_page_p,
    "const quire_text_page *": _raw.quire_text_page_p,
    "quire_text_match_list **": POINTER(_raw.quire_text_match_list_p),
    "quire_text_match_list *": _raw.quire_text_match_list_p,
    "const quire_text_match_list *": _raw.quire_text_match_list_p,
    "quire_text_char *": POINTER(_raw.quire_text_char),
    "quire_text_search_options *": POINTER(_raw.quire_text_search_options),
    "const quire_text_search_options *": POINTER(_raw.quire_text_search_options),
    "quire_tool_manager **": POINTER(_raw.quire_tool_manager_p),
    "quire_tool_manager *": _raw.quire_tool_manager_p,
    "quire_tool_callbacks *": POINTER(_raw.quire_tool_callbacks),
    "const quire_tool_callbacks *": POINTER(_raw.quire_tool_callbacks),
    "quire_tool_style *": POINTER(_raw.quire_tool_style),
    "const quire_tool_style *": POINTER(_raw.quire_tool_style),
    "quire_tool_event_fn": _raw.quire_tool_event_fn,
    "const quire_tool_event *": POINTER(_raw.quire_tool_event),
    "quire_custom_tool *": POINTER(_raw.quire_custom_tool),
    "const quire_custom_tool *": POINTER(_raw.quire_custom_tool),
    # Long operations (issue 40): their options structs.
    "quire_flatten_options *": POINTER(_raw.quire_flatten_options),
    "const quire_flatten_options *": POINTER(_raw.quire_flatten_options),
    "quire_export_options *": POINTER(_raw.quire_export_options),
    "const quire_export_options *": POINTER(_raw.quire_export_options),
    "quire_import_options *": POINTER(_raw.quire_import_options),
    "const quire_import_options *": POINTER(_raw.quire_import_options),
    "quire_text_options *": POINTER(_raw.quire_text_options),
    "const quire_text_options *": POINTER(_raw.quire_text_options),
    "quire_pointer_event *": POINTER(_raw.quire_pointer_event),
    "const quire_pointer_event *": POINTER(_raw.quire_pointer_event),
    "quire_tool_preview *": POINTER(_raw.quire_tool_preview),
    # Page operations and encryption (issue 36).
    "quire_page_report **": POINTER(_raw.quire_page_report_p),
    "quire_page_report *": _raw.quire_page_report_p,
    "const quire_page_report *": _raw.quire_page_report_p,
    "const int32_t *": POINTER(c_int32),
    "quire_encryption_options *": POINTER(_raw.quire_encryption_options),
    "const quire_encryption_options *": POINTER(_raw.quire_encryption_options),
    # Digital signatures (issue 37).
    "quire_signing_identity **": POINTER(_raw.quire_signing_identity_p),
    "quire_signing_identity *": _raw.quire_signing_identity_p,
    "const quire_signing_identity *": _raw.quire_signing_identity_p,
    "quire_signature_list **": POINTER(_raw.quire_signature_list_p),
    "quire_signature_list *": _raw.quire_signature_list_p,
    "const quire_signature_list *": _raw.quire_signature_list_p,
    "quire_timestamp_response *": _raw.quire_timestamp_response_p,
    "quire_sign_options *": POINTER(_raw.quire_sign_options),
    "const quire_sign_options *": POINTER(_raw.quire_sign_options),
    "quire_validation_options *": POINTER(_raw.quire_validation_options),
    "const quire_validation_options *": POINTER(_raw.quire_validation_options),
    "quire_signature_info *": POINTER(_raw.quire_signature_info),
})
# Enum types are passed and stored as C ints (32 bits on every platform Quire supports).
for _enum in header_enums():
    C_TO_CTYPES[_enum] = c_int32
    C_TO_CTYPES[_enum + " *"] = POINTER(c_int32)

C_FIELD_TO_CTYPES = {
    "uint32_t": c_uint32,
    "int32_t": c_int32,
    "uint64_t": c_uint64,
    "const char *": c_char_p,
    "double": c_double,
    "void *": c_void_p,
    # Function-pointer members: the CFUNCTYPE of each signature (ctypes makes one class per
    # signature, so the generated STRUCT_FIELD_fn names of one signature are one class).
    "int (*)(quire_bookmark_sink *, void *)": ctypes.CFUNCTYPE(c_int, _raw.quire_bookmark_sink_p, c_void_p),
    "int (*)(int32_t *, const quire_bookmark *, void *)": ctypes.CFUNCTYPE(
        c_int, POINTER(c_int32), _raw.quire_bookmark_p, c_void_p
    ),
    "int (*)(void *)": ctypes.CFUNCTYPE(c_int, c_void_p),
    "void (*)(void *)": ctypes.CFUNCTYPE(None, c_void_p),
    "int (*)(void *, uint64_t, void *, size_t)": ctypes.CFUNCTYPE(c_int, c_void_p, c_uint64, c_void_p, c_size_t),
    "int (*)(uint64_t, uint64_t, void *)": ctypes.CFUNCTYPE(c_int, c_uint64, c_uint64, c_void_p),
    "const char * const *": POINTER(c_char_p),
    "size_t": c_size_t,
    "quire_rect": _raw.quire_rect,
    "quire_tool_event_fn": _raw.quire_tool_event_fn,
    "quire_custom_tool_handle_fn": _raw.quire_custom_tool_handle_fn,
    "quire_custom_tool_finish_fn": _raw.quire_custom_tool_finish_fn,
    "quire_custom_tool_release_fn": _raw.quire_custom_tool_release_fn,
    "quire_sync_event_fn": _raw.quire_sync_event_fn,
    "quire_token_provider_fn": _raw.quire_token_provider_fn,
    "quire_timestamp_fn": _raw.quire_timestamp_fn,
    "const quire_signing_identity *": _raw.quire_signing_identity_p,
    "int": c_int,
    "int64_t": c_int64,
    "const int64_t *": POINTER(c_int64),
}
for _enum in header_enums():
    C_FIELD_TO_CTYPES[_enum] = c_int32


def test_the_header_parser_finds_every_declaration():
    functions = header_functions()
    # Every `quire_xxx(` that a header file mentions outside comments and directives is a
    # declaration.
    mentioned = set()
    for source in HEADER_DECLARATIONS.sources:
        text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", quire_header.strip_comments(source.text), flags=re.M)
        mentioned |= set(re.findall(r"\b(quire_\w+)\s*\(", text))
    assert mentioned == set(functions)
    assert "quire_version" in functions and "quire_page_annotation_count" in functions


def test_declared_functions_are_exactly_the_header_functions():
    declared = _raw.declared_functions()
    assert len(declared) == len(set(declared)), "a function is declared twice"
    header = header_functions()
    assert sorted(declared) == sorted(header), (
        "missing from _raw: %s; not in the header: %s"
        % (sorted(set(header) - set(declared)), sorted(set(declared) - set(header)))
    )
    # Same order as the header, so that the two read side by side.
    assert declared == list(header)


@pytest.mark.parametrize("name", sorted(header_functions()))
def test_function_types_match_the_header(name: str):
    return_type, parameter_types = header_functions()[name]
    restype, argtypes = _raw.function_signatures()[name]
    assert restype is C_TO_CTYPES[return_type], "%s returns %s" % (name, return_type)
    assert list(argtypes) == [C_TO_CTYPES[t] for t in parameter_types], "%s takes %s" % (name, parameter_types)
    # And they are what the loaded library's function objects carry.
    function = getattr(_raw.lib, name)
    assert function.restype is restype
    assert list(function.argtypes) == [_raw.CHECKED_ARGUMENT_TYPES.get(t, t) for t in argtypes]
    assert getattr(_raw, name) is function


def test_integers_out_of_range_are_refused_not_wrapped():
    """ctypes alone passes 2**32 to an int32_t as 0: Annotation.new(..., 2**32, ...) made an
    annotation for page 0. Every integer argument is now checked against its C type."""
    import ctypes

    import quire

    for page in (2**32, 2**31, -(2**31) - 1):
        with pytest.raises(ctypes.ArgumentError, match="out of range of c_int"):
            quire.Annotation.new("Square", page, (0, 0, 10, 10))
    with quire.Annotation.new("Square", 2**31 - 1, (0, 0, 10, 10)) as a:
        assert a.page_index == 2**31 - 1
    with pytest.raises(ctypes.ArgumentError, match="out of range of c_ulong"):
        _raw.lib.quire_annotation_subtype(None, -1, None, None)
    checked = _raw.CHECKED_ARGUMENT_TYPES[ctypes.c_uint]
    assert checked.from_param(2**32 - 1).value == 2**32 - 1
    with pytest.raises(OverflowError):
        checked.from_param(-1)


def test_every_header_struct_is_checked():
    assert sorted(header_structs()) == STRUCTS


STRUCTS = ["quire_annotation_info", "quire_bookmark_provider", "quire_checkpoint_info", "quire_checkpoint_options",
           "quire_client_callbacks", "quire_client_config", "quire_custom_tool", "quire_encryption_options", "quire_export_options", "quire_file_access",
           "quire_flatten_options", "quire_import_options", "quire_open_options", "quire_pointer_event", "quire_rect",
           "quire_save_options", "quire_sign_options", "quire_signature_info", "quire_sync_config", "quire_sync_event",
           "quire_sync_header", "quire_text_char", "quire_text_options", "quire_text_search_options", "quire_tool_callbacks", "quire_tool_event",
           "quire_tool_preview", "quire_tool_style", "quire_validation_options"]


@pytest.mark.parametrize("struct", STRUCTS)
def test_structures_match_the_header(struct: str):
    fields = header_structs()[struct]
    cls = getattr(_raw, struct)
    assert [(name, C_FIELD_TO_CTYPES[ctype]) for ctype, name in fields] == list(cls._fields_)


def test_constants_match_the_header():
    macros = header_macros()
    known: Dict[str, object] = {}
    for values in header_enums().values():
        known.update(values)
    checked = []
    for name, value in macros.items():
        if name.endswith("_INIT"):
            continue
        if re.fullmatch(r"[\w\s()*+\-]+", value) and not value.startswith('"'):
            assert not re.search(r"\b(?!QUIRE_)[A-Za-z_]\w*", value), "%s = %s" % (name, value)
            expected = eval(value, {"__builtins__": {}}, dict(known))  # integer expressions only
        else:
            expected = ast.literal_eval(value)
        known[name] = expected
        assert getattr(_raw, name) == expected, name
        checked.append(name)
    for values in header_enums().values():
        for name, value in values.items():
            assert getattr(_raw, name) == value, name
            checked.append(name)
    assert {"QUIRE_OK", "QUIRE_EINTERNAL", "QUIRE_BOX_ART", "QUIRE_VERSION_NUMBER"} <= set(checked)
    # Every QUIRE_* constant of the raw layer comes from the header.
    raw_constants = {n for n in dir(_raw) if re.fullmatch(r"QUIRE_[A-Z0-9_]+", n)}
    assert raw_constants == set(checked)


def test_open_options_init_matches_the_macro():
    initialiser = header_macros()["QUIRE_OPEN_OPTIONS_INIT"]
    values = [v.strip() for v in initialiser.strip("{} ").split(",")]
    options = _raw.open_options_init()
    assert len(values) == len(options._fields_)
    assert values[0] == "QUIRE_OPEN_OPTIONS_VERSION" and options.version == _raw.QUIRE_OPEN_OPTIONS_VERSION
    for (name, _), value in zip(options._fields_[1:], values[1:]):
        assert value in ("NULL", "0")
        assert getattr(options, name) in (None, 0), name


def test_structure_layout_matches_the_c_compiler(tmp_path: Path):
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        pytest.skip("no C compiler to compare the structure layouts with")
    lines = []
    for struct, fields in header_structs().items():
        lines.append('printf("%s %%zu %%zu\\n", sizeof(%s), _Alignof(%s));' % (struct, struct, struct))
        for _, field in fields:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (struct, field, struct, field))
    source = tmp_path / "layout.c"
    source.write_text(
        "#include <stddef.h>\n#include <stdio.h>\n#include \"quire.h\"\nint main(void) {\n%s\nreturn 0;\n}\n"
        % "\n".join(lines)
    )
    program = tmp_path / "layout"
    subprocess.run([compiler, "-std=c11", "-I", str(HEADER.parent), str(source), "-o", str(program)], check=True)
    output = subprocess.run([str(program)], check=True, capture_output=True, text=True).stdout.split("\n")
    for line in filter(None, output):
        parts = line.split()
        if "." in parts[0]:
            struct, field = parts[0].split(".")
            assert getattr(getattr(_raw, struct), field).offset == int(parts[1]), parts[0]
        else:
            cls = getattr(_raw, parts[0])
            assert (ctypes.sizeof(cls), ctypes.alignment(cls)) == (int(parts[1]), int(parts[2])), parts[0]


def test_save_options_init_matches_the_macro():
    initialiser = header_macros()["QUIRE_SAVE_OPTIONS_INIT"]
    values = [v.strip() for v in initialiser.strip("{} ").split(",")]
    options = _raw.save_options_init()
    assert len(values) == len(options._fields_)
    macros = {"QUIRE_SAVE_OPTIONS_VERSION": _raw.QUIRE_SAVE_OPTIONS_VERSION,
              "QUIRE_SAVE_INCREMENTAL": _raw.QUIRE_SAVE_INCREMENTAL}
    for (name, _), value in zip(options._fields_, values):
        if value == "NULL":
            assert not getattr(options, name), name
            continue
        expected = macros[value] if value in macros else int(value)
        assert getattr(options, name) == expected, name


def test_write_fn_matches_the_header_typedef():
    (write_fn,) = [c for c in HEADER_DECLARATIONS.callbacks if c.name == "quire_write_fn"]
    assert write_fn.signature.ret == "int"
    assert [p.type for p in write_fn.signature.params] == ["const void *", "size_t", "void *"]
    assert _raw.quire_write_fn._restype_ is c_int
    assert list(_raw.quire_write_fn._argtypes_) == [c_void_p, c_size_t, c_void_p]


def test_the_generated_table_is_what_the_header_gives():
    """bindings/python/quire/_raw_generated.py is generated from the header, never edited:
    what is checked in is what scripts/gen_python_raw.py writes from the header now."""
    sys.path.insert(0, str(REPO / "scripts"))
    import gen_python_raw

    generated = gen_python_raw.generate(HEADER_DECLARATIONS)
    checked_in = (BINDING_DIR / "quire" / "_raw_generated.py").read_text(encoding="utf-8")
    assert checked_in == generated, (
        "bindings/python/quire/_raw_generated.py differs from what the header gives: run `make generate` "
        "and commit the file (it is never edited by hand)"
    )


def test_every_init_function_has_a_helper():
    """Each `quire_X_init(quire_X *, unsigned version)` of the header has its helper X_init()
    here, which fills a fresh struct through the library with the current version."""
    inits = [f for f in HEADER_DECLARATIONS.functions if f.name.endswith("_init")]
    assert {"quire_open_options_init", "quire_save_options_init", "quire_tool_preview_init"} <= {f.name for f in inits}
    for function in inits:
        struct = function.name[: -len("_init")]
        assert [p.type for p in function.params] == [struct + " *", "unsigned"], function.name
        helper = getattr(_raw, struct[len("quire_"):] + "_init")
        made = helper()
        assert isinstance(made, getattr(_raw, struct)), function.name
        assert made.version == getattr(_raw, "QUIRE_%s_VERSION" % struct[len("quire_"):].upper()), function.name


def test_version_check_refuses_another_major():
    _raw.check_version(_raw.QUIRE_VERSION_NUMBER)
    _raw.check_version(_raw.QUIRE_VERSION_NUMBER + 999)  # another patch release: the same ABI
    with pytest.raises(ImportError, match="major version 0"):
        _raw.check_version(1000000)
    # While the major version is 0, another minor version is another ABI (docs/abi.md).
    with pytest.raises(ImportError):
        _raw.check_version(_raw.QUIRE_VERSION_NUMBER - 1000)
    with pytest.raises(ImportError, match=r"2\.3\.4"):
        _raw.check_version(2003004)


def test_loaded_library_has_the_known_major():
    assert _raw.lib.quire_version_number() // 1000000 == _raw.QUIRE_VERSION_MAJOR


def test_raw_null_arguments_give_einval_not_a_crash():
    out = c_int32(-7)
    assert _raw.quire_document_page_count(None, None) == _raw.QUIRE_EINVAL
    assert _raw.quire_document_page_count(byref(out), None) == _raw.QUIRE_EINVAL
    assert out.value == -7, "an out-parameter is written only on success"
    assert _raw.quire_last_error_code() == _raw.QUIRE_EINVAL
    assert _raw.quire_last_error_message() != b""
    _raw.quire_clear_error()
    assert _raw.quire_last_error_code() == _raw.QUIRE_OK
    assert _raw.quire_last_error_message() == b""
    _raw.quire_document_close(None)  # a no-op


def test_raw_open_options_version_is_checked(annots_pdf: Path):
    document = _raw.quire_document_p()
    options = _raw.open_options_init()
    options.version = 999
    status = _raw.quire_document_open(byref(document), os.fsencode(annots_pdf), byref(options))
    assert status == _raw.QUIRE_EVERSION and not document
    options.version = 0
    status = _raw.quire_document_open(byref(document), os.fsencode(annots_pdf), byref(options))
    assert status == _raw.QUIRE_EINVAL and not document
    options = _raw.open_options_init()
    status = _raw.quire_document_open(byref(document), os.fsencode(annots_pdf), byref(options))
    assert status == _raw.QUIRE_OK and document
    _raw.quire_document_close(document)
    status = _raw.quire_document_open_memory(byref(document), None, 0, None)
    assert status == _raw.QUIRE_EFORMAT


def test_raw_range_and_invalid_box(annots_pdf: Path):
    document = _raw.quire_document_p()
    assert _raw.quire_document_open(byref(document), os.fsencode(annots_pdf), None) == _raw.QUIRE_OK
    try:
        length = c_size_t(12345)
        assert _raw.quire_document_warning(None, 0, byref(length), document, 0) == _raw.QUIRE_ERANGE
        rect = _raw.quire_rect()
        assert _raw.quire_page_box(byref(rect), document, 0, 99) == _raw.QUIRE_EINVAL
        # A constant of another family is refused too (the families' ranges do not overlap).
        assert _raw.quire_page_box(byref(rect), document, 0, _raw.QUIRE_ANNOT_OPACITY) == _raw.QUIRE_EINVAL
        assert _raw.quire_page_box(byref(rect), document, 2, _raw.QUIRE_BOX_MEDIA) == _raw.QUIRE_ERANGE
        assert _raw.quire_page_box(byref(rect), document, -1, _raw.QUIRE_BOX_MEDIA) == _raw.QUIRE_ERANGE
        out = c_int32(-7)
        assert _raw.quire_page_rotation(byref(out), document, 2) == _raw.QUIRE_ERANGE
        assert _raw.quire_page_annotation_count(byref(out), document, -1) == _raw.QUIRE_ERANGE
        assert out.value == -7
    finally:
        _raw.quire_document_close(document)


def test_raw_length_query_pattern(corpus):
    from conftest import REPORTLAB

    document = _raw.quire_document_p()
    assert _raw.quire_document_open(byref(document), os.fsencode(corpus(REPORTLAB)), None) == _raw.QUIRE_OK
    try:
        # 1. NULL/0 asks for the length (the status may be OK or EBUFS).
        length = c_size_t(12345)
        status = _raw.quire_document_metadata_key(None, 0, byref(length), document, 0)
        assert status in (_raw.QUIRE_OK, _raw.QUIRE_EBUFS)
        assert length.value == len("Author")
        # 2. Too small a buffer: EBUFS, the length, and the buffer untouched.
        small = ctypes.create_string_buffer(b"XXXXXX", 6)
        length = c_size_t(0)
        assert _raw.quire_document_metadata_key(small, 6, byref(length), document, 0) == _raw.QUIRE_EBUFS
        assert length.value == 6 and small.raw == b"XXXXXX"
        # 3. length + 1 bytes: the string and its NUL.
        exact = ctypes.create_string_buffer(b"X" * 7, 7)
        assert _raw.quire_document_metadata_key(exact, 7, byref(length), document, 0) == _raw.QUIRE_OK
        assert length.value == 6 and exact.raw == b"Author\0"
        # The value by key, and a key that is not set.
        value = ctypes.create_string_buffer(64)
        assert _raw.quire_document_metadata(value, 64, byref(length), document, b"Title") == _raw.QUIRE_OK
        assert value.raw[: length.value] == b"untitled"
        status = _raw.quire_document_metadata(value, 64, byref(length), document, b"NoSuchKey")
        assert status == _raw.QUIRE_ENOTFOUND
        assert _raw.quire_last_error_code() == _raw.QUIRE_ENOTFOUND
    finally:
        _raw.quire_document_close(document)


def _package_copy_without_library(tmp_path: Path) -> Path:
    """A copy of the quire package without libquire, so that lookup must go elsewhere."""
    source = Path(quire.__file__).resolve().parent
    target = tmp_path / "site" / "quire"
    target.mkdir(parents=True)
    for file in source.iterdir():
        if file.suffix in (".py", ".typed"):
            shutil.copy(file, target / file.name)
    return target.parent


def _run_python(code: str, pythonpath: Path, env_updates: Dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "QUIRE_LIBRARY")}
    env.update(env_updates)
    env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, cwd=str(pythonpath)
    )


def test_quire_library_overrides_the_library_next_to_the_package(tmp_path: Path):
    package_library = Path(quire.__file__).resolve().parent / _raw.LIBRARY_FILENAME
    if not package_library.is_file():
        pytest.skip("this quire package has no bundled library")
    # Another copy of the library, as a build of one's own would be.
    other = tmp_path / "own-build" / _raw.LIBRARY_FILENAME
    other.parent.mkdir()
    shutil.copy(package_library, other)
    result = _run_python(
        "import quire; print(quire.library_path())",
        Path(quire.__file__).resolve().parent.parent,
        {"QUIRE_LIBRARY": str(other)},
    )
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == other
    # Without it, the bundled library.
    result = _run_python("import quire; print(quire.library_path())", Path(quire.__file__).resolve().parent.parent, {})
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == package_library


def test_a_quire_library_that_does_not_load_fails_the_import(tmp_path: Path):
    """An override that does not load is an error, not a silent fall back to the bundled
    library: the program would run with a library other than the one asked for."""
    missing = tmp_path / "does-not-exist.so"
    result = _run_python("import quire", Path(quire.__file__).resolve().parent.parent, {"QUIRE_LIBRARY": str(missing)})
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("ImportError: quire: cannot load libquire from $QUIRE_LIBRARY")
    assert str(missing) in last_line and "unset QUIRE_LIBRARY" in last_line


def test_quire_library_env_var_is_used_when_the_package_has_no_library(tmp_path: Path):
    site = _package_copy_without_library(tmp_path)
    library = Path(_raw.library_path()).resolve()
    result = _run_python(
        "import quire; print(quire.library_path()); print(quire.version())",
        site,
        {"QUIRE_LIBRARY": str(library)},
    )
    assert result.returncode == 0, result.stderr
    path, version = result.stdout.split()
    assert Path(path) == library
    assert version == quire.version()


def test_missing_library_fails_the_import_with_a_clear_message(tmp_path: Path):
    if ctypes.util.find_library("quire"):
        pytest.skip("a libquire is installed system-wide, so the lookup would find it")
    site = _package_copy_without_library(tmp_path)
    result = _run_python("import quire", site, {})
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("ImportError: quire: cannot find libquire")
    assert "make" in last_line and "QUIRE_LIBRARY" in last_line


def test_setup_py_refuses_to_build_without_the_library(tmp_path: Path):
    project = tmp_path / "python"
    shutil.copytree(BINDING_DIR, project, ignore=shutil.ignore_patterns("libquire*", "build", "dist", "*.egg-info", "__pycache__"))
    result = subprocess.run(
        [sys.executable, "setup.py", "--version"], cwd=str(project), capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "Run `make`" in result.stderr and "libquire" in result.stderr


def test_pyproject_version_is_the_header_version():
    text = (BINDING_DIR / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^version\s*=\s*"([^"]+)"', text, flags=re.M)
    assert match and match.group(1) == _raw.QUIRE_VERSION_STRING == quire.__version__


@pytest.mark.parametrize("macro,make", [("QUIRE_BOOKMARK_PROVIDER_INIT", _raw.bookmark_provider_init),
                                        ("QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT", _raw.bookmark_provider_builtin)])
def test_bookmark_provider_inits_match_the_macros(macro, make):
    values = [v.strip() for v in header_macros()[macro].strip("{} ").split(",")]
    provider = make()
    assert len(values) == len(provider._fields_)
    assert values[0] == "QUIRE_BOOKMARK_PROVIDER_VERSION" and provider.version == _raw.QUIRE_BOOKMARK_PROVIDER_VERSION
    assert int(values[1]) == provider.builtin
    for (name, _), value in zip(provider._fields_[2:], values[2:]):
        assert value == "NULL" and not getattr(provider, name), name


def test_checkpoint_options_init_matches_the_macro():
    values = [v.strip() for v in header_macros()["QUIRE_CHECKPOINT_OPTIONS_INIT"].strip("{} ").split(",")]
    options = _raw.checkpoint_options_init()
    assert len(values) == len(options._fields_)
    assert values[:2] == ["QUIRE_CHECKPOINT_OPTIONS_VERSION", "QUIRE_CHECKPOINT_MANUAL"]
    assert (options.version, options.strategy) == (_raw.QUIRE_CHECKPOINT_OPTIONS_VERSION, _raw.QUIRE_CHECKPOINT_MANUAL)
    assert float(values[2]) == options.interval_seconds
    assert values[3:] == ["NULL", "NULL", "0", "QUIRE_CHECKPOINT_EXISTING_LOAD"]
    assert not options.directory and not options.uid and not options.load_if_available
    assert options.existing == _raw.QUIRE_CHECKPOINT_EXISTING_LOAD
