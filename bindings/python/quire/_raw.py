"""The raw ctypes layer of the Quire binding: include/quire.h, one to one.

This module loads ``libquire`` and declares ``argtypes``/``restype`` for every function of
the header, in one table (``_FUNCTIONS``), in the manner of clang's ``cindex.py``. A test
(Tests/python/test_raw.py) parses the header and proves that the table covers it exactly,
with the same parameter and return types, and that the structures and constants below
match it too.

Nothing here is Pythonic: functions return raw status codes and write to out-parameters.
Use the :mod:`quire` package for the Pythonic layer.

Library lookup, first that exists wins:

1. the library next to this file, inside the package (``quire/libquire.so``; this is where
   ``make`` copies it and where ``pip install`` puts it);
2. the path in the environment variable ``QUIRE_LIBRARY``;
3. the system loader: ``ctypes.util.find_library("quire")``, then ``libquire.so.0``.

At load, the library's major version (``quire_version_number() // 1000000``) must be
:data:`QUIRE_VERSION_MAJOR`, the major version of the header this module was written
against, or the import fails with :class:`ImportError`. A library that lacks one of the
functions of the table also fails the import, naming the functions that are missing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from ctypes import (
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence, Tuple

# ----------------------------------------------------------------------------------------
# Versions (QUIRE_VERSION_*): the header this module was written against.
# ----------------------------------------------------------------------------------------

QUIRE_VERSION_MAJOR = 0
QUIRE_VERSION_MINOR = 1
QUIRE_VERSION_PATCH = 0
QUIRE_VERSION_NUMBER = QUIRE_VERSION_MAJOR * 1000000 + QUIRE_VERSION_MINOR * 1000 + QUIRE_VERSION_PATCH
QUIRE_VERSION_STRING = "0.1.0"

# ----------------------------------------------------------------------------------------
# Status codes (QUIRE_OK, QUIRE_E*)
# ----------------------------------------------------------------------------------------

QUIRE_OK = 0
QUIRE_EINVAL = -1
QUIRE_ENOMEM = -2
QUIRE_EIO = -3
QUIRE_ENOTFOUND = -4
QUIRE_EFORMAT = -5
QUIRE_EPASSWORD = -6
QUIRE_EUNSUPPORTED = -7
QUIRE_ELIMIT = -8
QUIRE_ERANGE = -9
QUIRE_EBUFS = -10
QUIRE_EUSER = -11
QUIRE_ESTATE = -12
QUIRE_EINTERNAL = -13

# ----------------------------------------------------------------------------------------
# Open options (quire_open_options)
# ----------------------------------------------------------------------------------------

QUIRE_OPEN_OPTIONS_VERSION = 1

# ----------------------------------------------------------------------------------------
# Page boxes (QUIRE_BOX_*)
# ----------------------------------------------------------------------------------------

QUIRE_BOX_MEDIA = 0
QUIRE_BOX_CROP = 1
QUIRE_BOX_BLEED = 2
QUIRE_BOX_TRIM = 3
QUIRE_BOX_ART = 4

# ----------------------------------------------------------------------------------------
# Types
# ----------------------------------------------------------------------------------------


class quire_document(Structure):
    """The opaque ``struct quire_document``; only ever used through a pointer."""


#: ``quire_document *``.
quire_document_p = POINTER(quire_document)


class quire_open_options(Structure):
    """``quire_open_options``. Build it with :func:`open_options_init`, the equivalent of
    ``QUIRE_OPEN_OPTIONS_INIT``, so that ``version`` is set."""

    _fields_ = [
        ("version", c_uint32),
        ("password", c_char_p),
        ("max_nesting_depth", c_uint32),
        ("max_page_tree_depth", c_uint32),
        ("max_xref_chain", c_uint32),
        ("max_objects", c_uint64),
        ("max_stream_bytes", c_uint64),
        ("max_total_decoded_bytes", c_uint64),
        ("max_decompression_ratio", c_uint32),
    ]


def open_options_init() -> quire_open_options:
    """A ``quire_open_options`` as ``QUIRE_OPEN_OPTIONS_INIT`` gives it: the current
    version, no password, every limit 0 (the library's default)."""
    return quire_open_options(version=QUIRE_OPEN_OPTIONS_VERSION)


class quire_rect(Structure):
    """``quire_rect``: a rectangle in PDF user space units, left <= right, bottom <= top."""

    _fields_ = [
        ("left", c_double),
        ("bottom", c_double),
        ("right", c_double),
        ("top", c_double),
    ]


# ----------------------------------------------------------------------------------------
# The function table: (name, restype, argtypes), in header order.
# ----------------------------------------------------------------------------------------

_CType = Any  # a ctypes type, or None for void

_FUNCTIONS: Tuple[Tuple[str, _CType, Tuple[_CType, ...]], ...] = (
    # Versions
    ("quire_version", c_char_p, ()),
    ("quire_version_number", c_int32, ()),
    # Status codes and errors
    ("quire_status_string", c_char_p, (c_int,)),
    ("quire_last_error_message", c_char_p, ()),
    ("quire_last_error_code", c_int, ()),
    ("quire_clear_error", None, ()),
    # Documents
    (
        "quire_document_open",
        c_int,
        (POINTER(quire_document_p), c_char_p, POINTER(quire_open_options)),
    ),
    (
        "quire_document_open_memory",
        c_int,
        (POINTER(quire_document_p), c_void_p, c_size_t, POINTER(quire_open_options)),
    ),
    ("quire_document_close", None, (quire_document_p,)),
    ("quire_document_page_count", c_int, (POINTER(c_int32), quire_document_p)),
    (
        "quire_document_pdf_version",
        c_int,
        (POINTER(c_int32), POINTER(c_int32), quire_document_p),
    ),
    ("quire_document_is_encrypted", c_int, (POINTER(c_int32), quire_document_p)),
    ("quire_document_is_repaired", c_int, (POINTER(c_int32), quire_document_p)),
    ("quire_document_warning_count", c_int, (POINTER(c_int32), quire_document_p)),
    (
        "quire_document_warning",
        c_int,
        (POINTER(c_char), c_size_t, POINTER(c_size_t), quire_document_p, c_int32),
    ),
    ("quire_document_metadata_count", c_int, (POINTER(c_int32), quire_document_p)),
    (
        "quire_document_metadata_key",
        c_int,
        (POINTER(c_char), c_size_t, POINTER(c_size_t), quire_document_p, c_int32),
    ),
    (
        "quire_document_metadata",
        c_int,
        (POINTER(c_char), c_size_t, POINTER(c_size_t), quire_document_p, c_char_p),
    ),
    # Pages
    ("quire_page_box", c_int, (POINTER(quire_rect), quire_document_p, c_int32, c_int32)),
    ("quire_page_rotation", c_int, (POINTER(c_int32), quire_document_p, c_int32)),
    ("quire_page_annotation_count", c_int, (POINTER(c_int32), quire_document_p, c_int32)),
)


def declared_functions() -> List[str]:
    """The names of the header functions this module declares, in header order."""
    return [name for name, _, _ in _FUNCTIONS]


def function_signatures() -> Dict[str, Tuple[_CType, Tuple[_CType, ...]]]:
    """``{name: (restype, argtypes)}`` for every declared function (``None`` is void)."""
    return {name: (restype, argtypes) for name, restype, argtypes in _FUNCTIONS}


# ----------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------

#: The directory of this package, where ``make`` and ``pip install`` put the library.
PACKAGE_DIR = Path(__file__).resolve().parent

#: The file name of the library on this platform.
LIBRARY_FILENAME = {"darwin": "libquire.dylib", "win32": "quire.dll"}.get(
    sys.platform, "libquire.so"
)

#: The environment variable that names the library when it is not in the package.
LIBRARY_ENV_VAR = "QUIRE_LIBRARY"


def _candidates() -> Iterator[Tuple[str, str]]:
    """(how it was found, path or name) for each place to try, in lookup order."""
    bundled = PACKAGE_DIR / LIBRARY_FILENAME
    if bundled.exists():
        yield ("next to the package", str(bundled))
    env = os.environ.get(LIBRARY_ENV_VAR)
    if env:
        yield (LIBRARY_ENV_VAR, env)
    found = ctypes.util.find_library("quire")
    if found:
        yield ("ctypes.util.find_library('quire')", found)
    if sys.platform.startswith("linux"):
        yield ("system loader", "libquire.so.0")


def check_version(number: int, where: str = "libquire") -> None:
    """Raises :class:`ImportError` unless ``number`` (a ``quire_version_number()``) has the
    major version this binding knows, :data:`QUIRE_VERSION_MAJOR`."""
    major = number // 1000000
    if major != QUIRE_VERSION_MAJOR:
        found = "%d.%d.%d" % (major, (number // 1000) % 1000, number % 1000)
        raise ImportError(
            "quire: %s is version %s (major %d), but this binding only knows major version "
            "%d (header %s); install a matching library or binding"
            % (where, found, major, QUIRE_VERSION_MAJOR, QUIRE_VERSION_STRING)
        )


def _declare(library: ctypes.CDLL, where: str) -> None:
    """Sets argtypes/restype of every table function on ``library``; raises
    :class:`ImportError` naming the functions the library does not export."""
    missing = []
    for name, restype, argtypes in _FUNCTIONS:
        try:
            function = getattr(library, name)
        except AttributeError:
            missing.append(name)
            continue
        function.restype = restype
        function.argtypes = list(argtypes)
    if missing:
        raise ImportError(
            "quire: %s does not export %s; it is older than the header this binding was "
            "written against (%s)" % (where, ", ".join(missing), QUIRE_VERSION_STRING)
        )


def _load() -> Tuple[ctypes.CDLL, str]:
    failures: List[str] = []
    for how, path in _candidates():
        try:
            library = ctypes.CDLL(path)
        except OSError as error:
            failures.append("%s (%s): %s" % (path, how, error))
            continue
        where = "%s (found %s)" % (path, how)
        version_number = getattr(library, "quire_version_number", None)
        if version_number is None:
            raise ImportError("quire: %s does not export quire_version_number" % where)
        version_number.restype = c_int32
        version_number.argtypes = []
        check_version(int(version_number()), where)
        _declare(library, where)
        return library, path
    tried = "; ".join(failures) if failures else "no candidate exists"
    raise ImportError(
        "quire: cannot find libquire. Looked next to the package (%s), in $%s, and through "
        "the system loader; tried: %s. Build it with `make` at the repository root (which "
        "copies it into the package), or set %s to its path."
        % (PACKAGE_DIR / LIBRARY_FILENAME, LIBRARY_ENV_VAR, tried, LIBRARY_ENV_VAR)
    )


#: The loaded library, with every table function declared on it.
lib, _library_path = _load()

# The table functions, also as module attributes: ``_raw.quire_version()``.
for _name, _restype, _argtypes in _FUNCTIONS:
    globals()[_name] = getattr(lib, _name)
del _name, _restype, _argtypes


def library_path() -> str:
    """The path (or loader name) of the library that was loaded."""
    return _library_path


__all__: Sequence[str] = [
    name for name in globals() if name.startswith(("quire_", "QUIRE_"))
] + [
    "declared_functions",
    "function_signatures",
    "open_options_init",
    "check_version",
    "library_path",
    "lib",
    "LIBRARY_FILENAME",
    "LIBRARY_ENV_VAR",
    "PACKAGE_DIR",
]
