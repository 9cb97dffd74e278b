"""The raw ctypes layer of the Quire binding: include/quire.h, one to one.

The declarations (constants, structures, callback types, and ``argtypes``/``restype`` of
every function of the header, in one table, in the manner of clang's ``cindex.py``) are
generated from the header by scripts/gen_python_raw.py into :mod:`quire._raw_generated`,
and re-exported here; this module holds what is written by hand: loading ``libquire``,
declaring the table on it, and the ``*_init`` helpers that fill the versioned structs
through the library. Tests/python/test_raw.py checks that the generated file is what the
header gives now, that the table covers the header exactly with the types a hand-written
table expects, and that the structures match the C compiler's layouts.

Nothing here is Pythonic: functions return raw status codes and write to out-parameters.
Use the :mod:`quire` package for the Pythonic layer.

Library lookup:

- when the environment variable ``QUIRE_LIBRARY`` is set (and not empty), the library at
  that path, and nothing else: it overrides the bundled one (to test a build of your own
  against an installed package, say), and a path that does not load fails the import with
  :class:`ImportError` naming it, rather than quietly loading another library;
- otherwise, first that exists wins: the library next to this file, inside the package
  (``quire/libquire.so``; this is where ``make`` copies it and where ``pip install`` puts
  it); then the system loader: ``ctypes.util.find_library("quire")``, then the soname
  this binding was written against (``libquire.so.0.5``: ``libquire.so.MAJOR.MINOR``
  while the major version is 0, ``libquire.so.MAJOR`` from 1.0).

At load, the library's major version (``quire_version_number() // 1000000``) must be
:data:`QUIRE_VERSION_MAJOR`, the major version of the header this module was written
against, or the import fails with :class:`ImportError`. A library that lacks one of the
functions of the table also fails the import, naming the functions that are missing.
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import c_int32
from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence, Tuple, TypeVar

from ._raw_generated import *  # noqa: F401,F403  (the header's declarations)
from ._raw_generated import FUNCTIONS as _FUNCTIONS
from ._raw_generated import (
    QUIRE_BOOKMARK_PROVIDER_VERSION,
    QUIRE_CHECKPOINT_OPTIONS_VERSION,
    QUIRE_CLIENT_CALLBACKS_VERSION,
    QUIRE_CLIENT_CONFIG_VERSION,
    QUIRE_CUSTOM_TOOL_VERSION,
    QUIRE_ENCRYPTION_OPTIONS_VERSION,
    QUIRE_EXPORT_OPTIONS_VERSION,
    QUIRE_FILE_ACCESS_VERSION,
    QUIRE_FLATTEN_OPTIONS_VERSION,
    QUIRE_IMPORT_OPTIONS_VERSION,
    QUIRE_OK,
    QUIRE_OPEN_OPTIONS_VERSION,
    QUIRE_POINTER_EVENT_VERSION,
    QUIRE_SAVE_OPTIONS_VERSION,
    QUIRE_SYNC_CONFIG_VERSION,
    QUIRE_TEXT_CHAR_VERSION,
    QUIRE_TEXT_OPTIONS_VERSION,
    QUIRE_SIGN_OPTIONS_VERSION,
    QUIRE_VALIDATION_OPTIONS_VERSION,
    QUIRE_TEXT_SEARCH_OPTIONS_VERSION,
    QUIRE_TOOL_CALLBACKS_VERSION,
    QUIRE_TOOL_PREVIEW_VERSION,
    QUIRE_TOOL_STYLE_VERSION,
    QUIRE_VERSION_MAJOR,
    QUIRE_VERSION_MINOR,
    QUIRE_VERSION_STRING,
    quire_bookmark_provider,
    quire_checkpoint_options,
    quire_client_callbacks,
    quire_client_config,
    quire_custom_tool,
    quire_encryption_options,
    quire_export_options,
    quire_file_access,
    quire_flatten_options,
    quire_import_options,
    quire_open_options,
    quire_pointer_event,
    quire_save_options,
    quire_sync_config,
    quire_text_char,
    quire_text_options,
    quire_sign_options,
    quire_validation_options,
    quire_text_search_options,
    quire_tool_callbacks,
    quire_tool_preview,
    quire_tool_style,
)

_CType = Any  # a ctypes type, or None for void

# ----------------------------------------------------------------------------------------
# The versioned structs, filled by the library's quire_*_init (the binding never copies the
# defaults of the header's *_INIT macros).
# ----------------------------------------------------------------------------------------

_S = TypeVar("_S", bound=ctypes.Structure)


def _init(struct: _S, function: str, version: int) -> _S:
    """``struct`` filled by the library's ``quire_*_init(struct, version)``: the binding never
    copies the defaults."""
    status = getattr(lib, function)(ctypes.byref(struct), version)
    if status != QUIRE_OK:  # only a library older than this binding could refuse
        raise RuntimeError("%s: status %d" % (function, status))
    return struct


def file_access_init() -> quire_file_access:
    """``QUIRE_FILE_ACCESS_INIT`` (through ``quire_file_access_init``)."""
    return _init(quire_file_access(), "quire_file_access_init", QUIRE_FILE_ACCESS_VERSION)


def open_options_init() -> quire_open_options:
    """A ``quire_open_options`` as ``QUIRE_OPEN_OPTIONS_INIT`` gives it (through
    ``quire_open_options_init``): the current version, no password, every limit 0 (the
    library's default)."""
    return _init(quire_open_options(), "quire_open_options_init", QUIRE_OPEN_OPTIONS_VERSION)


def save_options_init() -> quire_save_options:
    """A ``quire_save_options`` as ``QUIRE_SAVE_OPTIONS_INIT`` gives it: the current
    version, an incremental save, no object streams."""
    return _init(quire_save_options(), "quire_save_options_init", QUIRE_SAVE_OPTIONS_VERSION)


def bookmark_provider_init() -> quire_bookmark_provider:
    """``QUIRE_BOOKMARK_PROVIDER_INIT`` (through ``quire_bookmark_provider_init``): the
    current version, no callbacks."""
    return _init(quire_bookmark_provider(), "quire_bookmark_provider_init", QUIRE_BOOKMARK_PROVIDER_VERSION)


def bookmark_provider_builtin() -> quire_bookmark_provider:
    """``QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT``: the built-in provider."""
    return quire_bookmark_provider(version=QUIRE_BOOKMARK_PROVIDER_VERSION, builtin=1)


def checkpoint_options_init() -> quire_checkpoint_options:
    """The library's defaults (``quire_checkpoint_options_init`` with the current version):
    manual, every 10 s when timed, the default directory, the UID from the path, an
    existing checkpoint loaded."""
    return _init(quire_checkpoint_options(), "quire_checkpoint_options_init", QUIRE_CHECKPOINT_OPTIONS_VERSION)


def sync_config_init() -> quire_sync_config:
    """``QUIRE_SYNC_CONFIG_INIT`` through ``quire_sync_config_init``."""
    return _init(quire_sync_config(), "quire_sync_config_init", QUIRE_SYNC_CONFIG_VERSION)


def client_callbacks_init() -> quire_client_callbacks:
    """``QUIRE_CLIENT_CALLBACKS_INIT`` through ``quire_client_callbacks_init``."""
    return _init(quire_client_callbacks(), "quire_client_callbacks_init", QUIRE_CLIENT_CALLBACKS_VERSION)


def tool_callbacks_init() -> quire_tool_callbacks:
    """``QUIRE_TOOL_CALLBACKS_INIT`` through ``quire_tool_callbacks_init``."""
    return _init(quire_tool_callbacks(), "quire_tool_callbacks_init", QUIRE_TOOL_CALLBACKS_VERSION)


def tool_style_init() -> quire_tool_style:
    """``QUIRE_TOOL_STYLE_INIT`` through ``quire_tool_style_init``."""
    return _init(quire_tool_style(), "quire_tool_style_init", QUIRE_TOOL_STYLE_VERSION)


def custom_tool_init() -> quire_custom_tool:
    """``QUIRE_CUSTOM_TOOL_INIT`` through ``quire_custom_tool_init``."""
    return _init(quire_custom_tool(), "quire_custom_tool_init", QUIRE_CUSTOM_TOOL_VERSION)


def pointer_event_init() -> quire_pointer_event:
    """``QUIRE_POINTER_EVENT_INIT`` through ``quire_pointer_event_init``."""
    return _init(quire_pointer_event(), "quire_pointer_event_init", QUIRE_POINTER_EVENT_VERSION)


def client_config_init() -> quire_client_config:
    """``QUIRE_CLIENT_CONFIG_INIT`` through ``quire_client_config_init``."""
    return _init(quire_client_config(), "quire_client_config_init", QUIRE_CLIENT_CONFIG_VERSION)


def tool_preview_init() -> quire_tool_preview:
    """``QUIRE_TOOL_PREVIEW_INIT`` through ``quire_tool_preview_init``."""
    return _init(quire_tool_preview(), "quire_tool_preview_init", QUIRE_TOOL_PREVIEW_VERSION)


def text_char_init() -> quire_text_char:
    """``QUIRE_TEXT_CHAR_INIT`` through ``quire_text_char_init``."""
    return _init(quire_text_char(), "quire_text_char_init", QUIRE_TEXT_CHAR_VERSION)


def text_search_options_init() -> quire_text_search_options:
    """``QUIRE_TEXT_SEARCH_OPTIONS_INIT`` through ``quire_text_search_options_init``."""
    return _init(quire_text_search_options(), "quire_text_search_options_init", QUIRE_TEXT_SEARCH_OPTIONS_VERSION)


def text_options_init() -> quire_text_options:
    """``QUIRE_TEXT_OPTIONS_INIT`` through ``quire_text_options_init``."""
    return _init(quire_text_options(), "quire_text_options_init", QUIRE_TEXT_OPTIONS_VERSION)


def encryption_options_init() -> quire_encryption_options:
    """``QUIRE_ENCRYPTION_OPTIONS_INIT`` through ``quire_encryption_options_init``."""
    return _init(quire_encryption_options(), "quire_encryption_options_init", QUIRE_ENCRYPTION_OPTIONS_VERSION)


def flatten_options_init() -> quire_flatten_options:
    """``QUIRE_FLATTEN_OPTIONS_INIT`` through ``quire_flatten_options_init``."""
    return _init(quire_flatten_options(), "quire_flatten_options_init", QUIRE_FLATTEN_OPTIONS_VERSION)


def export_options_init() -> quire_export_options:
    """``QUIRE_EXPORT_OPTIONS_INIT`` through ``quire_export_options_init``."""
    return _init(quire_export_options(), "quire_export_options_init", QUIRE_EXPORT_OPTIONS_VERSION)


def import_options_init() -> quire_import_options:
    """``QUIRE_IMPORT_OPTIONS_INIT`` through ``quire_import_options_init``."""
    return _init(quire_import_options(), "quire_import_options_init", QUIRE_IMPORT_OPTIONS_VERSION)


def sign_options_init() -> quire_sign_options:
    """``QUIRE_SIGN_OPTIONS_INIT`` through ``quire_sign_options_init``."""
    return _init(quire_sign_options(), "quire_sign_options_init", QUIRE_SIGN_OPTIONS_VERSION)


def validation_options_init() -> quire_validation_options:
    """``QUIRE_VALIDATION_OPTIONS_INIT`` through ``quire_validation_options_init``."""
    return _init(quire_validation_options(), "quire_validation_options_init", QUIRE_VALIDATION_OPTIONS_VERSION)


# ----------------------------------------------------------------------------------------
# The function table (generated: _raw_generated.FUNCTIONS)
# ----------------------------------------------------------------------------------------


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

#: The environment variable that names the library to load instead of any other.
LIBRARY_ENV_VAR = "QUIRE_LIBRARY"


def _candidates() -> Iterator[Tuple[str, str]]:
    """(how it was found, path or name) for each place to try, in lookup order: only
    ``$QUIRE_LIBRARY`` when it is set."""
    env = os.environ.get(LIBRARY_ENV_VAR)
    if env:
        yield ("$" + LIBRARY_ENV_VAR, env)
        return
    bundled = PACKAGE_DIR / LIBRARY_FILENAME
    if bundled.exists():
        yield ("next to the package", str(bundled))
    # Only when the bundled library is missing or did not load: ctypes.util imports
    # subprocess (0.6 MB of a process's memory) for what the common case never needs.
    import ctypes.util

    found = ctypes.util.find_library("quire")
    if found:
        yield ("ctypes.util.find_library('quire')", found)
    if sys.platform.startswith("linux"):
        if QUIRE_VERSION_MAJOR == 0:
            yield ("system loader", "libquire.so.%d.%d" % (QUIRE_VERSION_MAJOR, QUIRE_VERSION_MINOR))
        else:
            yield ("system loader", "libquire.so.%d" % QUIRE_VERSION_MAJOR)


def check_version(number: int, where: str = "libquire") -> None:
    """Raises :class:`ImportError` unless ``number`` (a ``quire_version_number()``) has the
    major version this binding knows, :data:`QUIRE_VERSION_MAJOR`."""
    major = number // 1000000
    minor = (number // 1000) % 1000
    # While the major version is 0, each minor release may change the ABI (docs/abi.md).
    if major != QUIRE_VERSION_MAJOR or (major == 0 and minor != QUIRE_VERSION_MINOR):
        found = "%d.%d.%d" % (major, (number // 1000) % 1000, number % 1000)
        raise ImportError(
            "quire: %s is version %s (major %d), but this binding only knows major version "
            "%d (header %s); install a matching library or binding"
            % (where, found, major, QUIRE_VERSION_MAJOR, QUIRE_VERSION_STRING)
        )


def _range_checked(base: Any) -> Any:
    """``base`` (a ctypes integer type) as an argument type that refuses a Python int it
    cannot hold: ctypes itself passes 2**32 as 0 to an ``int32_t`` (page 0 for page
    4294967296) and -1 as ``SIZE_MAX`` to a ``size_t``. The call raises
    ``ctypes.ArgumentError`` (naming the argument and the range) before the library is
    called; every other value converts as ``base`` converts it."""
    bits = ctypes.sizeof(base) * 8
    signed = base(-1).value == -1
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)

    def from_param(cls: Any, value: Any) -> Any:
        if isinstance(value, int):
            if low <= value <= high:
                return base(value)
            raise OverflowError("%d is out of range of %s (%d to %d)" % (value, base.__name__, low, high))
        return base.from_param(value)

    return type("checked_" + base.__name__, (base,), {"from_param": classmethod(from_param)})


#: The integer argument types whose range the loaded functions check (``_range_checked``).
CHECKED_ARGUMENT_TYPES: Dict[Any, Any] = {t: _range_checked(t) for t in (ctypes.c_int, ctypes.c_uint, ctypes.c_long, ctypes.c_ulong)}


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
        function.argtypes = [CHECKED_ARGUMENT_TYPES.get(t, t) for t in argtypes]
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
    if os.environ.get(LIBRARY_ENV_VAR):
        raise ImportError(
            "quire: cannot load libquire from $%s, which overrides every other place: %s. "
            "Correct the path, or unset %s to use the library next to the package (%s)."
            % (LIBRARY_ENV_VAR, tried, LIBRARY_ENV_VAR, PACKAGE_DIR / LIBRARY_FILENAME)
        )
    raise ImportError(
        "quire: cannot find libquire. Looked next to the package (%s) and through the system "
        "loader; tried: %s. Build it with `make` at the repository root (which copies it "
        "into the package), or set %s to its path."
        % (PACKAGE_DIR / LIBRARY_FILENAME, tried, LIBRARY_ENV_VAR)
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
    name for name in globals() if name.endswith(("_init", "_builtin")) and not name.startswith("quire_")
] + [
    "declared_functions",
    "function_signatures",
    "check_version",
    "library_path",
    "lib",
    "LIBRARY_FILENAME",
    "LIBRARY_ENV_VAR",
    "PACKAGE_DIR",
]
