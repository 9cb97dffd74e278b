"""The raw ctypes layer of the Quire binding: include/quire.h, one to one.

This module loads ``libquire`` and declares ``argtypes``/``restype`` for every function of
the header, in one table (``_FUNCTIONS``), in the manner of clang's ``cindex.py``. A test
(Tests/python/test_raw.py) parses the header and proves that the table covers it exactly,
with the same parameter and return types, and that the structures and constants below
match it too.

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
from ctypes import (
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence, Tuple, TypeVar

# ----------------------------------------------------------------------------------------
# Versions (QUIRE_VERSION_*): the header this module was written against.
# ----------------------------------------------------------------------------------------

QUIRE_VERSION_MAJOR = 0
QUIRE_VERSION_MINOR = 5
QUIRE_VERSION_PATCH = 0
QUIRE_VERSION_NUMBER = QUIRE_VERSION_MAJOR * 1000000 + QUIRE_VERSION_MINOR * 1000 + QUIRE_VERSION_PATCH
QUIRE_VERSION_STRING = "0.5.0"

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
QUIRE_EDISABLED = -14
QUIRE_EBUSY = -15
QUIRE_ESTALE = -16
QUIRE_EEXIST = -17
QUIRE_EVERSION = -18
QUIRE_EAUTH = -19
QUIRE_ENETWORK = -20

# ----------------------------------------------------------------------------------------
# Open options (quire_open_options)
# ----------------------------------------------------------------------------------------

QUIRE_OPEN_OPTIONS_VERSION = 1
QUIRE_FILE_ACCESS_VERSION = 1

# ----------------------------------------------------------------------------------------
# Document structure: cross-reference forms (QUIRE_XREF_*) and encryption methods
# (QUIRE_ENCRYPTION_*)
# ----------------------------------------------------------------------------------------

QUIRE_XREF_TABLE = 0x0100
QUIRE_XREF_STREAM = 0x0101
QUIRE_XREF_HYBRID = 0x0102
QUIRE_XREF_REBUILT = 0x0103

QUIRE_ENCRYPTION_NONE = 0x1000
QUIRE_ENCRYPTION_RC4_40 = 0x1001
QUIRE_ENCRYPTION_RC4_128 = 0x1002
QUIRE_ENCRYPTION_AES_128 = 0x1003
QUIRE_ENCRYPTION_AES_256 = 0x1004
QUIRE_ENCRYPTION_IDENTITY = 0x1005

# ----------------------------------------------------------------------------------------
# Outline actions (QUIRE_ACTION_*)
# ----------------------------------------------------------------------------------------

QUIRE_ACTION_NONE = 0x0200
QUIRE_ACTION_GOTO = 0x0201
QUIRE_ACTION_GOTOR = 0x0202
QUIRE_ACTION_URI = 0x0203
QUIRE_ACTION_NAMED = 0x0204
QUIRE_ACTION_LAUNCH = 0x0205
QUIRE_ACTION_OTHER = 0x0206

# ----------------------------------------------------------------------------------------
# Low-level values (QUIRE_VALUE_*) and stream data forms (QUIRE_STREAM_*)
# ----------------------------------------------------------------------------------------

QUIRE_VALUE_NULL = 0x0300
QUIRE_VALUE_BOOL = 0x0301
QUIRE_VALUE_INTEGER = 0x0302
QUIRE_VALUE_REAL = 0x0303
QUIRE_VALUE_STRING = 0x0304
QUIRE_VALUE_NAME = 0x0305
QUIRE_VALUE_ARRAY = 0x0306
QUIRE_VALUE_DICTIONARY = 0x0307
QUIRE_VALUE_STREAM = 0x0308
QUIRE_VALUE_REFERENCE = 0x0309

QUIRE_STREAM_DECODED = 0x0400
QUIRE_STREAM_RAW = 0x0401

# ----------------------------------------------------------------------------------------
# Saving (QUIRE_SAVE_*, quire_save_options)
# ----------------------------------------------------------------------------------------

QUIRE_SAVE_INCREMENTAL = 0x0500
QUIRE_SAVE_FULL = 0x0501
QUIRE_SAVE_APPEND_IN_PLACE = 0x0502
QUIRE_SAVE_OPTIONS_VERSION = 2

# ----------------------------------------------------------------------------------------
# Page boxes (QUIRE_BOX_*)
# ----------------------------------------------------------------------------------------

QUIRE_BOX_MEDIA = 0x0600
QUIRE_BOX_CROP = 0x0601
QUIRE_BOX_BLEED = 0x0602
QUIRE_BOX_TRIM = 0x0603
QUIRE_BOX_ART = 0x0604

# ----------------------------------------------------------------------------------------
# Annotation fields: text (QUIRE_ANNOT_CONTENTS...), numbers (QUIRE_ANNOT_OPACITY...),
# colours (QUIRE_ANNOT_COLOR...) and point lists (QUIRE_ANNOT_QUAD_POINTS...)
# ----------------------------------------------------------------------------------------

QUIRE_ANNOT_CONTENTS = 0x0700
QUIRE_ANNOT_AUTHOR = 0x0701
QUIRE_ANNOT_SUBJECT = 0x0702
QUIRE_ANNOT_UNIQUE_NAME = 0x0703
QUIRE_ANNOT_CREATION_DATE = 0x0704
QUIRE_ANNOT_MODIFICATION_DATE = 0x0705
QUIRE_ANNOT_STATE = 0x0706
QUIRE_ANNOT_STATE_MODEL = 0x0707
QUIRE_ANNOT_REPLY_TYPE = 0x0708
QUIRE_ANNOT_DEFAULT_APPEARANCE = 0x0709
QUIRE_ANNOT_ICON = 0x070A
QUIRE_ANNOT_LINE_START = 0x070B
QUIRE_ANNOT_LINE_END = 0x070C
QUIRE_ANNOT_CUSTOM_DATA = 0x070D
QUIRE_ANNOT_IN_REPLY_TO_ID = 0x070E

QUIRE_ANNOT_OPACITY = 0x0800
QUIRE_ANNOT_BORDER_WIDTH = 0x0801
QUIRE_ANNOT_FONT_SIZE = 0x0802
QUIRE_ANNOT_FLAGS = 0x0803
QUIRE_ANNOTATION_INFO_VERSION = 2

QUIRE_ANNOT_COLOR = 0x0900
QUIRE_ANNOT_INTERIOR_COLOR = 0x0901

QUIRE_ANNOT_QUAD_POINTS = 0x0A00
QUIRE_ANNOT_LINE = 0x0A01
QUIRE_ANNOT_VERTICES = 0x0A02

# Bookmark actions and sort orders
QUIRE_BOOKMARK_GOTO = QUIRE_ACTION_GOTO
QUIRE_BOOKMARK_URI = QUIRE_ACTION_URI
QUIRE_BOOKMARK_NAMED = QUIRE_ACTION_NAMED
QUIRE_BOOKMARK_OTHER = QUIRE_ACTION_OTHER
QUIRE_BOOKMARK_SORT_CUSTOM = 0x0C00
QUIRE_BOOKMARK_SORT_PAGE = 0x0C01
QUIRE_BOOKMARK_PROVIDER_VERSION = 1

# Checkpoint strategies
QUIRE_CHECKPOINT_MANUAL = 0x0D00
QUIRE_CHECKPOINT_TIMED = 0x0D01
QUIRE_CHECKPOINT_IMMEDIATE = 0x0D02
QUIRE_CHECKPOINT_OPTIONS_VERSION = 2
QUIRE_CHECKPOINT_EXISTING_LOAD = 0x0E00
QUIRE_CHECKPOINT_EXISTING_REFUSE = 0x0E01
QUIRE_CHECKPOINT_EXISTING_DISCARD = 0x0E02
QUIRE_CHECKPOINT_NONE = 0x0F00
QUIRE_CHECKPOINT_EMPTY = 0x0F01
QUIRE_CHECKPOINT_CHANGES = 0x0F02
QUIRE_CHECKPOINT_STALE = 0x0F03
QUIRE_CHECKPOINT_DAMAGED = 0x0F04
QUIRE_CHECKPOINT_INFO_VERSION = 1

# Forms: kinds, field types, option parts and field flags
QUIRE_FORM_NONE = 0x1A00
QUIRE_FORM_ACROFORM = 0x1A01
QUIRE_FORM_XFA_FOREGROUND = 0x1A02
QUIRE_FORM_XFA_ONLY = 0x1A03
QUIRE_FIELD_TEXT = 0x1B00
QUIRE_FIELD_CHECK_BOX = 0x1B01
QUIRE_FIELD_RADIO_BUTTON = 0x1B02
QUIRE_FIELD_COMBO_BOX = 0x1B03
QUIRE_FIELD_LIST_BOX = 0x1B04
QUIRE_FIELD_PUSH_BUTTON = 0x1B05
QUIRE_FIELD_SIGNATURE = 0x1B06
QUIRE_FIELD_UNKNOWN = 0x1B07
QUIRE_FIELD_OPTION_EXPORT = 0x1C00
QUIRE_FIELD_OPTION_DISPLAY = 0x1C01
QUIRE_FIELD_FLAG_READ_ONLY = 1 << 0
QUIRE_FIELD_FLAG_REQUIRED = 1 << 1
QUIRE_FIELD_FLAG_NO_EXPORT = 1 << 2
QUIRE_FIELD_FLAG_MULTILINE = 1 << 12
QUIRE_FIELD_FLAG_PASSWORD = 1 << 13
QUIRE_FIELD_FLAG_NO_TOGGLE_TO_OFF = 1 << 14
QUIRE_FIELD_FLAG_EDIT = 1 << 18
QUIRE_FIELD_FLAG_MULTI_SELECT = 1 << 21
QUIRE_FIELD_FLAG_COMB = 1 << 24
QUIRE_FLATTEN_OPTIONS_VERSION = 1

# Long operations: annotation formats, and the versions of their options
QUIRE_FORMAT_JSON = 0x3800
QUIRE_FORMAT_JSON_INSTANT_COMMENTS = 0x3801
QUIRE_FORMAT_XFDF = 0x3802
QUIRE_EXPORT_OPTIONS_VERSION = 1
QUIRE_IMPORT_OPTIONS_VERSION = 1
QUIRE_SYNC_CONFIG_VERSION = 1

# Sync client: states, events, versions
QUIRE_SYNC_STATE_UNKNOWN = 0x2400
QUIRE_SYNC_STATE_CLEAN = 0x2401
QUIRE_SYNC_STATE_DIRTY = 0x2402
QUIRE_SYNC_STATE_SENDING = 0x2403
QUIRE_SYNC_STATE_RECEIVING = 0x2404
QUIRE_SYNC_STATE_INVALID = 0x2405
QUIRE_SYNC_STATE_NEEDS_RESET = 0x2406
QUIRE_SYNC_EVENT_STATE_CHANGED = 0x2500
QUIRE_SYNC_EVENT_DOWNLOAD_PROGRESS = 0x2501
QUIRE_SYNC_EVENT_DOWNLOAD_FINISHED = 0x2502
QUIRE_SYNC_EVENT_DOWNLOAD_FAILED = 0x2503
QUIRE_SYNC_EVENT_SYNC_FINISHED = 0x2504
QUIRE_SYNC_EVENT_SYNC_FAILED = 0x2505
QUIRE_SYNC_EVENT_DOCUMENT_CHANGED = 0x2506
QUIRE_SYNC_EVENT_CHANGE_DROPPED = 0x2507
QUIRE_SYNC_EVENT_AUTHENTICATION_NEEDED = 0x2508
QUIRE_SYNC_EVENT_REAUTHENTICATION_FINISHED = 0x2509
QUIRE_SYNC_EVENT_REAUTHENTICATION_FAILED = 0x250A
QUIRE_SYNC_EVENT_RECORDS_REPAIRED = 0x250B
QUIRE_SYNC_EVENT_VERSION = 2
QUIRE_CLIENT_CALLBACKS_VERSION = 1
QUIRE_CLIENT_CONFIG_VERSION = 1

# Tools (the headless tool manager): tools, pointer events, tool events, hit kinds
QUIRE_TOOL_PAN = 0x3000
QUIRE_TOOL_ANNOT_EDIT = 0x3001
QUIRE_TOOL_INK = 0x3002
QUIRE_TOOL_SQUARE = 0x3003
QUIRE_TOOL_CIRCLE = 0x3004
QUIRE_TOOL_LINE = 0x3005
QUIRE_TOOL_ARROW = 0x3006
QUIRE_TOOL_POLYGON = 0x3007
QUIRE_TOOL_POLYLINE = 0x3008
QUIRE_TOOL_STICKY_NOTE = 0x3009
QUIRE_TOOL_FREE_TEXT = 0x300A
QUIRE_TOOL_LINK = 0x300B
QUIRE_TOOL_FORM_FILL = 0x300C
QUIRE_TOOL_SIGNATURE = 0x300D
QUIRE_TOOL_HIGHLIGHT = 0x300E
QUIRE_TOOL_UNDERLINE = 0x300F
QUIRE_TOOL_STRIKEOUT = 0x3010
QUIRE_TOOL_SQUIGGLY = 0x3011
QUIRE_TOOL_CUSTOM = 0x30FF
QUIRE_POINTER_TAP = 0x3100
QUIRE_POINTER_DOUBLE_TAP = 0x3101
QUIRE_POINTER_LONG_PRESS = 0x3102
QUIRE_POINTER_DRAG_BEGIN = 0x3103
QUIRE_POINTER_DRAG_MOVE = 0x3104
QUIRE_POINTER_DRAG_END = 0x3105
QUIRE_POINTER_CANCEL = 0x3106
QUIRE_TOOL_EVENT_TOOL_CHANGED = 0x3200
QUIRE_TOOL_EVENT_SELECTION_CHANGED = 0x3201
QUIRE_TOOL_EVENT_ANNOTATION_ADDED = 0x3202
QUIRE_TOOL_EVENT_ANNOTATION_MODIFIED = 0x3203
QUIRE_TOOL_EVENT_ANNOTATION_REMOVED = 0x3204
QUIRE_TOOL_EVENT_LINK_ACTIVATED = 0x3205
QUIRE_TOOL_EVENT_FIELD_ACTIVATED = 0x3206
QUIRE_TOOL_EVENT_EDIT_REQUESTED = 0x3207
QUIRE_TOOL_EVENT_UNHANDLED = 0x3208
QUIRE_TOOL_EVENT_FIELD_CHANGED = 0x3209
QUIRE_TOOL_EVENT_VERSION = 1
QUIRE_TOOL_CALLBACKS_VERSION = 1
QUIRE_TOOL_STYLE_VERSION = 1
QUIRE_CUSTOM_TOOL_VERSION = 1
QUIRE_HIT_NONE = 0x3300
QUIRE_HIT_ANNOTATION = 0x3301
QUIRE_HIT_LINK = 0x3302
QUIRE_HIT_WIDGET = 0x3303
# Issue 31: modifiers, selection modes, previews, histories
QUIRE_MODIFIER_SHIFT = 0x1
QUIRE_POINTER_EVENT_VERSION = 1
QUIRE_SELECT_REPLACE = 0x3400
QUIRE_SELECT_ADD = 0x3401
QUIRE_SELECT_TOGGLE = 0x3402
QUIRE_SELECT_REMOVE = 0x3403
QUIRE_PREVIEW_NONE = 0x3500
QUIRE_PREVIEW_RECT = 0x3501
QUIRE_PREVIEW_SEGMENT = 0x3502
QUIRE_PREVIEW_INK = 0x3503
QUIRE_PREVIEW_VERTICES = 0x3504
QUIRE_PREVIEW_MOVE = 0x3505
QUIRE_PREVIEW_RESIZE = 0x3506
QUIRE_PREVIEW_SELECT = 0x3507
QUIRE_TOOL_PREVIEW_VERSION = 1
QUIRE_HISTORY_UNDO = 0x3600
QUIRE_HISTORY_REDO = 0x3601

# ----------------------------------------------------------------------------------------
# Text (QUIRE_TEXT_MARKUP_*, versioned structs)
# ----------------------------------------------------------------------------------------

QUIRE_TEXT_MARKUP_HIGHLIGHT = 0x1100
QUIRE_TEXT_MARKUP_UNDERLINE = 0x1101
QUIRE_TEXT_MARKUP_STRIKEOUT = 0x1102
QUIRE_TEXT_MARKUP_SQUIGGLY = 0x1103
QUIRE_TEXT_CHAR_VERSION = 2
QUIRE_TEXT_SEARCH_OPTIONS_VERSION = 2
QUIRE_TEXT_OPTIONS_VERSION = 1

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
        ("max_pages", c_uint32),
    ]


_S = TypeVar("_S", bound=ctypes.Structure)


def _init(struct: _S, function: str, version: int) -> _S:
    """``struct`` filled by the library's ``quire_*_init(struct, version)``: the binding never
    copies the defaults."""
    status = getattr(lib, function)(ctypes.byref(struct), version)
    if status != QUIRE_OK:  # only a library older than this binding could refuse
        raise RuntimeError("%s: status %d" % (function, status))
    return struct


#: ``quire_file_access``'s callbacks: ``int (*read)(void *payload, uint64_t offset, void
#: *buffer, size_t length)`` and ``void (*release)(void *payload)``.
quire_file_read_fn = ctypes.CFUNCTYPE(c_int, c_void_p, ctypes.c_uint64, c_void_p, c_size_t)
quire_file_release_fn = ctypes.CFUNCTYPE(None, c_void_p)


class quire_file_access(Structure):
    """``quire_file_access``: a document's bytes served on demand. Build it with
    :func:`file_access_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("size", ctypes.c_uint64),
        ("read", quire_file_read_fn),
        ("release", quire_file_release_fn),
        ("payload", c_void_p),
    ]


def file_access_init() -> quire_file_access:
    """``QUIRE_FILE_ACCESS_INIT`` (through ``quire_file_access_init``)."""
    return _init(quire_file_access(), "quire_file_access_init", QUIRE_FILE_ACCESS_VERSION)


def open_options_init() -> quire_open_options:
    """A ``quire_open_options`` as ``QUIRE_OPEN_OPTIONS_INIT`` gives it (through
    ``quire_open_options_init``): the current version, no password, every limit 0 (the
    library's default)."""
    return _init(quire_open_options(), "quire_open_options_init", QUIRE_OPEN_OPTIONS_VERSION)


class quire_value(Structure):
    """The opaque ``struct quire_value``; only ever used through a pointer."""


#: ``quire_value *``.
quire_value_p = POINTER(quire_value)


class quire_annotation(Structure):
    """The opaque ``struct quire_annotation``; only ever used through a pointer."""


#: ``quire_annotation *``.
quire_annotation_p = POINTER(quire_annotation)


class quire_annotation_list(Structure):
    """The opaque ``struct quire_annotation_list``; only ever used through a pointer."""


#: ``quire_annotation_list *``.
quire_annotation_list_p = POINTER(quire_annotation_list)


#: The progress callback of ``quire_save_options`` (version 2) and of every other long
#: operation's options: ``int (*)(uint64_t done, uint64_t total, void *payload)``;
#: non-zero cancels the operation.
quire_save_progress_fn = ctypes.CFUNCTYPE(c_int, ctypes.c_uint64, ctypes.c_uint64, c_void_p)
#: The same type, by the name that fits every long operation.
quire_progress_fn = quire_save_progress_fn


class quire_save_options(Structure):
    """``quire_save_options``. Build it with :func:`save_options_init`, the equivalent of
    ``QUIRE_SAVE_OPTIONS_INIT`` (an incremental save)."""

    _fields_ = [
        ("version", c_uint32),
        ("mode", c_int32),
        ("object_streams", c_int32),
        ("progress", quire_save_progress_fn),
        ("progress_payload", c_void_p),
    ]


def save_options_init() -> quire_save_options:
    """A ``quire_save_options`` as ``QUIRE_SAVE_OPTIONS_INIT`` gives it: the current
    version, an incremental save, no object streams."""
    return _init(quire_save_options(), "quire_save_options_init", QUIRE_SAVE_OPTIONS_VERSION)


#: ``quire_write_fn``: ``int (*)(const void *data, size_t size, void *payload)``. A Python
#: function wrapped in it must be kept alive for as long as the library may call it, and
#: must not let an exception escape (ctypes would print it and return 0, "continue").
quire_write_fn = ctypes.CFUNCTYPE(c_int, c_void_p, c_size_t, c_void_p)


class quire_bookmark(Structure):
    """The opaque ``struct quire_bookmark``; only ever used through a pointer."""


#: ``quire_bookmark *``.
quire_bookmark_p = POINTER(quire_bookmark)


class quire_bookmark_sink(Structure):
    """The opaque ``struct quire_bookmark_sink``; only ever used through a pointer."""


#: ``quire_bookmark_sink *``.
quire_bookmark_sink_p = POINTER(quire_bookmark_sink)

#: The callbacks of ``quire_bookmark_provider``. A Python function wrapped in one must stay
#: alive until the provider's ``release`` has been called, and must not let an exception
#: escape (ctypes would print it and return 0, which the library reads as success).
quire_bookmark_load_fn = ctypes.CFUNCTYPE(c_int, quire_bookmark_sink_p, c_void_p)
#: ``add`` and ``remove``: ``int (*)(int32_t *out, const quire_bookmark *bookmark, void *payload)``.
quire_bookmark_decide_fn = ctypes.CFUNCTYPE(c_int, POINTER(c_int32), quire_bookmark_p, c_void_p)
quire_bookmark_save_fn = ctypes.CFUNCTYPE(c_int, c_void_p)
quire_bookmark_release_fn = ctypes.CFUNCTYPE(None, c_void_p)
#: ``quire_bookmark_change_fn``: ``void (*)(quire_document *doc, void *payload)``.
quire_bookmark_change_fn = ctypes.CFUNCTYPE(None, quire_document_p, c_void_p)


class quire_bookmark_provider(Structure):
    """``quire_bookmark_provider``: a provider's callbacks, or (``builtin`` non-zero) the
    built-in provider. Build it with :func:`bookmark_provider_init` or
    :func:`bookmark_provider_builtin`."""

    _fields_ = [
        ("version", c_uint32),
        ("builtin", c_int32),
        ("load", quire_bookmark_load_fn),
        ("add", quire_bookmark_decide_fn),
        ("remove", quire_bookmark_decide_fn),
        ("save", quire_bookmark_save_fn),
        ("release", quire_bookmark_release_fn),
        ("payload", c_void_p),
    ]


def bookmark_provider_init() -> quire_bookmark_provider:
    """``QUIRE_BOOKMARK_PROVIDER_INIT`` (through ``quire_bookmark_provider_init``): the
    current version, no callbacks."""
    return _init(quire_bookmark_provider(), "quire_bookmark_provider_init", QUIRE_BOOKMARK_PROVIDER_VERSION)


def bookmark_provider_builtin() -> quire_bookmark_provider:
    """``QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT``: the built-in provider."""
    return quire_bookmark_provider(version=QUIRE_BOOKMARK_PROVIDER_VERSION, builtin=1)


class quire_checkpoint_options(Structure):
    """``quire_checkpoint_options``. Build it with :func:`checkpoint_options_init`, the
    equivalent of ``QUIRE_CHECKPOINT_OPTIONS_INIT``."""

    _fields_ = [
        ("version", c_uint32),
        ("strategy", c_int32),
        ("interval_seconds", c_double),
        ("directory", c_char_p),
        ("uid", c_char_p),
        ("load_if_available", c_int32),
        ("existing", c_int32),
    ]


def checkpoint_options_init() -> quire_checkpoint_options:
    """The library's defaults (``quire_checkpoint_options_init`` with the current version):
    manual, every 10 s when timed, the default directory, the UID from the path, an
    existing checkpoint loaded."""
    return _init(quire_checkpoint_options(), "quire_checkpoint_options_init", QUIRE_CHECKPOINT_OPTIONS_VERSION)


class quire_checkpoint_info(Structure):
    """``quire_checkpoint_info``: what ``quire_document_inspect_checkpoint`` found."""

    _fields_ = [
        ("version", c_uint32),
        ("state", c_int32),
        ("size", ctypes.c_uint64),
        ("modified", c_double),
        ("changed_objects", c_size_t),
        ("in_use", c_int32),
    ]


#: ``quire_checkpoint_done_fn``: ``void (*)(int status, void *payload)``, called on a
#: background thread.
quire_checkpoint_done_fn = ctypes.CFUNCTYPE(None, c_int, c_void_p)


class quire_sync_service(Structure):
    """The opaque ``struct quire_sync_service``."""


quire_sync_service_p = POINTER(quire_sync_service)


class quire_sync_response(Structure):
    """The opaque ``struct quire_sync_response``."""


quire_sync_response_p = POINTER(quire_sync_response)


class quire_sync_config(Structure):
    """``quire_sync_config``. Build it with :func:`sync_config_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("store", c_char_p),
        ("public_keys", POINTER(c_char_p)),
        ("public_key_count", c_size_t),
        ("jwks", c_char_p),
        ("admin_token", c_char_p),
        ("max_body_bytes", ctypes.c_uint64),
        ("max_upload_bytes", ctypes.c_uint64),
    ]


def sync_config_init() -> quire_sync_config:
    """``QUIRE_SYNC_CONFIG_INIT`` through ``quire_sync_config_init``."""
    return _init(quire_sync_config(), "quire_sync_config_init", QUIRE_SYNC_CONFIG_VERSION)


class quire_sync_header(Structure):
    """``quire_sync_header``: a name and a value."""

    _fields_ = [("name", c_char_p), ("value", c_char_p)]


class quire_client(Structure):
    """The opaque ``struct quire_client``."""


quire_client_p = POINTER(quire_client)


class quire_descriptor(Structure):
    """The opaque ``struct quire_descriptor``."""


quire_descriptor_p = POINTER(quire_descriptor)


class quire_sync_event(Structure):
    """``quire_sync_event``: one event, valid during the callback only."""

    _fields_ = [
        ("version", c_uint32),
        ("type", c_int),
        ("state", c_int),
        ("status", c_int),
        ("message", c_char_p),
        ("record_id", c_char_p),
        ("reason", c_char_p),
        ("record_ids", POINTER(c_char_p)),
        ("record_id_count", c_size_t),
        ("completed", c_int64),
        ("total", c_int64),
        # Version 2.
        ("client_seq", c_int64),
        ("change_ids", POINTER(c_int64)),
        ("change_id_count", c_size_t),
    ]


#: ``quire_sync_event_fn``: ``void (*)(quire_descriptor *, const quire_sync_event *, void *)``,
#: called on the descriptor's event thread.
quire_sync_event_fn = ctypes.CFUNCTYPE(None, quire_descriptor_p, POINTER(quire_sync_event), c_void_p)
#: ``quire_token_provider_fn``: ``const char *(*)(quire_descriptor *, void *)``. Declared
#: to return ``c_void_p`` so that the binding can hand back memory it keeps alive.
quire_token_provider_fn = ctypes.CFUNCTYPE(c_void_p, quire_descriptor_p, c_void_p)


class quire_client_callbacks(Structure):
    """``quire_client_callbacks``. Build it with :func:`client_callbacks_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("on_event", quire_sync_event_fn),
        ("token_provider", quire_token_provider_fn),
        ("payload", c_void_p),
    ]


def client_callbacks_init() -> quire_client_callbacks:
    """``QUIRE_CLIENT_CALLBACKS_INIT`` through ``quire_client_callbacks_init``."""
    return _init(quire_client_callbacks(), "quire_client_callbacks_init", QUIRE_CLIENT_CALLBACKS_VERSION)


class quire_tool_manager(Structure):
    """The opaque ``struct quire_tool_manager``; only ever used through a pointer."""


#: ``quire_tool_manager *``.
quire_tool_manager_p = POINTER(quire_tool_manager)


class quire_tool_event(Structure):
    """``quire_tool_event``: one event, valid during the callback only."""

    _fields_ = [
        ("version", c_uint32),
        ("kind", c_int),
        ("from_tool", c_int),
        ("to_tool", c_int),
        ("from_name", c_char_p),
        ("to_name", c_char_p),
        ("object_number", c_int32),
        ("page_index", c_int32),
        ("uri", c_char_p),
        ("pointer", c_int),
        ("x", c_double),
        ("y", c_double),
    ]


#: ``quire_tool_event_fn``: ``void (*)(quire_tool_manager *, const quire_tool_event *, void *)``,
#: called on the thread of the manager's call, before it returns.
quire_tool_event_fn = ctypes.CFUNCTYPE(None, quire_tool_manager_p, POINTER(quire_tool_event), c_void_p)


class quire_tool_callbacks(Structure):
    """``quire_tool_callbacks``. Build it with :func:`tool_callbacks_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("on_event", quire_tool_event_fn),
        ("payload", c_void_p),
    ]


def tool_callbacks_init() -> quire_tool_callbacks:
    """``QUIRE_TOOL_CALLBACKS_INIT`` through ``quire_tool_callbacks_init``."""
    return _init(quire_tool_callbacks(), "quire_tool_callbacks_init", QUIRE_TOOL_CALLBACKS_VERSION)


class quire_tool_style(Structure):
    """``quire_tool_style``. Build it with :func:`tool_style_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("red", c_double),
        ("green", c_double),
        ("blue", c_double),
        ("border_width", c_double),
        ("opacity", c_double),
        ("font_size", c_double),
        ("tolerance", c_double),
        ("author", c_char_p),
        ("free_text", c_char_p),
    ]


def tool_style_init() -> quire_tool_style:
    """``QUIRE_TOOL_STYLE_INIT`` through ``quire_tool_style_init``."""
    return _init(quire_tool_style(), "quire_tool_style_init", QUIRE_TOOL_STYLE_VERSION)


#: ``quire_custom_tool_handle_fn``: ``int (*)(int32_t *out_handled, quire_tool *out_next,
#: const char **out_next_name, quire_tool_manager *, quire_pointer_kind, int32_t page_index,
#: double x, double y, void *payload)``.
quire_custom_tool_handle_fn = ctypes.CFUNCTYPE(
    c_int, POINTER(c_int32), POINTER(c_int32), POINTER(c_char_p), quire_tool_manager_p, c_int32, c_int32,
    c_double, c_double, c_void_p
)
#: ``quire_custom_tool_finish_fn``: ``int (*)(quire_tool_manager *, void *payload)``.
quire_custom_tool_finish_fn = ctypes.CFUNCTYPE(c_int, quire_tool_manager_p, c_void_p)
#: ``quire_custom_tool_release_fn``: ``void (*)(void *payload)``.
quire_custom_tool_release_fn = ctypes.CFUNCTYPE(None, c_void_p)


class quire_custom_tool(Structure):
    """``quire_custom_tool``. Build it with :func:`custom_tool_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("name", c_char_p),
        ("handle", quire_custom_tool_handle_fn),
        ("finish", quire_custom_tool_finish_fn),
        ("release", quire_custom_tool_release_fn),
        ("payload", c_void_p),
    ]


def custom_tool_init() -> quire_custom_tool:
    """``QUIRE_CUSTOM_TOOL_INIT`` through ``quire_custom_tool_init``."""
    return _init(quire_custom_tool(), "quire_custom_tool_init", QUIRE_CUSTOM_TOOL_VERSION)


class quire_pointer_event(Structure):
    """``quire_pointer_event``. Build it with :func:`pointer_event_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("kind", c_int),
        ("page_index", c_int32),
        ("x", c_double),
        ("y", c_double),
        ("modifiers", c_uint32),
    ]


def pointer_event_init() -> quire_pointer_event:
    """``QUIRE_POINTER_EVENT_INIT`` through ``quire_pointer_event_init``."""
    return _init(quire_pointer_event(), "quire_pointer_event_init", QUIRE_POINTER_EVENT_VERSION)


class quire_client_config(Structure):
    """``quire_client_config``. Build it with :func:`client_config_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("server_url", c_char_p),
        ("data_directory", c_char_p),
        ("auto_sync_delay", c_double),
        ("listen_wait_seconds", c_int32),
        ("request_timeout_seconds", c_int32),
    ]


def client_config_init() -> quire_client_config:
    """``QUIRE_CLIENT_CONFIG_INIT`` through ``quire_client_config_init``."""
    return _init(quire_client_config(), "quire_client_config_init", QUIRE_CLIENT_CONFIG_VERSION)


class quire_rect(Structure):
    """``quire_rect``: a rectangle in PDF user space units, left <= right, bottom <= top."""

    _fields_ = [
        ("left", c_double),
        ("bottom", c_double),
        ("right", c_double),
        ("top", c_double),
    ]


class quire_tool_preview(Structure):
    """``quire_tool_preview``. Build it with :func:`tool_preview_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("kind", c_int),
        ("tool", c_int),
        ("page_index", c_int32),
        ("rect", quire_rect),
        ("dx", c_double),
        ("dy", c_double),
        ("path_count", c_int32),
        ("closed", c_int32),
    ]


def tool_preview_init() -> quire_tool_preview:
    """``QUIRE_TOOL_PREVIEW_INIT`` through ``quire_tool_preview_init``."""
    return _init(quire_tool_preview(), "quire_tool_preview_init", QUIRE_TOOL_PREVIEW_VERSION)


class quire_annotation_info(Structure):
    """``quire_annotation_info`` (version 2): what ``quire_page_annotation_infos`` and
    ``quire_annotation_list_infos`` write for each annotation into the caller's buffer. The
    strings point into that buffer; an unset one is NULL. The binding reads the buffer with
    :mod:`struct` (quire._annotations.read_infos), lengths included: through ctypes, a
    ``c_char_p`` field would stop at a NUL the text may contain."""

    _fields_ = [
        ("version", c_uint32),
        ("page_index", c_int32),
        ("object_number", c_int32),
        ("in_reply_to", c_int32),
        ("flags", c_int32),
        ("rect", quire_rect),
        ("subtype", c_char_p),
        ("subtype_len", c_size_t),
        ("contents", c_char_p),
        ("contents_len", c_size_t),
        ("author", c_char_p),
        ("author_len", c_size_t),
        ("name", c_char_p),
        ("name_len", c_size_t),
        ("creation_date", c_char_p),
        ("creation_date_len", c_size_t),
        ("modification_date", c_char_p),
        ("modification_date_len", c_size_t),
        ("state", c_char_p),
        ("state_len", c_size_t),
        ("state_model", c_char_p),
        ("state_model_len", c_size_t),
        # Version 2.
        ("in_reply_to_id", c_char_p),
        ("in_reply_to_id_len", c_size_t),
    ]


class quire_text_page(Structure):
    """The opaque ``struct quire_text_page``; only ever used through a pointer."""


#: ``quire_text_page *``.
quire_text_page_p = POINTER(quire_text_page)


class quire_text_match_list(Structure):
    """The opaque ``struct quire_text_match_list``; only ever used through a pointer."""


#: ``quire_text_match_list *``.
quire_text_match_list_p = POINTER(quire_text_match_list)


class quire_text_char(Structure):
    """``quire_text_char``. Build it with :func:`text_char_init` (``QUIRE_TEXT_CHAR_INIT``)."""

    _fields_ = [
        ("version", c_uint32),
        ("box", quire_rect),
        ("font_size", c_double),
        ("is_generated", c_int32),
        ("line", c_int32),
        # version 2
        ("glyph_box", quire_rect),
        ("has_glyph_box", c_int32),
    ]


def text_char_init() -> quire_text_char:
    """``QUIRE_TEXT_CHAR_INIT`` through ``quire_text_char_init``."""
    return _init(quire_text_char(), "quire_text_char_init", QUIRE_TEXT_CHAR_VERSION)


class quire_text_search_options(Structure):
    """``quire_text_search_options``. Build it with :func:`text_search_options_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("match_case", c_int32),
        ("whole_word", c_int32),
        ("max_matches", c_int32),
        ("progress", quire_save_progress_fn),
        ("progress_payload", c_void_p),
    ]


def text_search_options_init() -> quire_text_search_options:
    """``QUIRE_TEXT_SEARCH_OPTIONS_INIT`` through ``quire_text_search_options_init``."""
    return _init(quire_text_search_options(), "quire_text_search_options_init", QUIRE_TEXT_SEARCH_OPTIONS_VERSION)


class quire_text_options(Structure):
    """``quire_text_options``. Build it with :func:`text_options_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("progress", quire_save_progress_fn),
        ("progress_payload", c_void_p),
    ]


def text_options_init() -> quire_text_options:
    """``QUIRE_TEXT_OPTIONS_INIT`` through ``quire_text_options_init``."""
    return _init(quire_text_options(), "quire_text_options_init", QUIRE_TEXT_OPTIONS_VERSION)


class quire_flatten_options(Structure):
    """``quire_flatten_options``. Build it with :func:`flatten_options_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("subtypes", c_char_p),
        ("keep_links", c_int32),
        ("progress", quire_save_progress_fn),
        ("progress_payload", c_void_p),
    ]


def flatten_options_init() -> quire_flatten_options:
    """``QUIRE_FLATTEN_OPTIONS_INIT`` through ``quire_flatten_options_init``."""
    return _init(quire_flatten_options(), "quire_flatten_options_init", QUIRE_FLATTEN_OPTIONS_VERSION)


class quire_export_options(Structure):
    """``quire_export_options``. Build it with :func:`export_options_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("format", c_int32),
        ("page_index", c_int32),
        ("progress", quire_save_progress_fn),
        ("progress_payload", c_void_p),
    ]


def export_options_init() -> quire_export_options:
    """``QUIRE_EXPORT_OPTIONS_INIT`` through ``quire_export_options_init``."""
    return _init(quire_export_options(), "quire_export_options_init", QUIRE_EXPORT_OPTIONS_VERSION)


class quire_import_options(Structure):
    """``quire_import_options``. Build it with :func:`import_options_init`."""

    _fields_ = [
        ("version", c_uint32),
        ("format", c_int32),
        ("progress", quire_save_progress_fn),
        ("progress_payload", c_void_p),
    ]


def import_options_init() -> quire_import_options:
    """``QUIRE_IMPORT_OPTIONS_INIT`` through ``quire_import_options_init``."""
    return _init(quire_import_options(), "quire_import_options_init", QUIRE_IMPORT_OPTIONS_VERSION)


# ----------------------------------------------------------------------------------------
# The function table: (name, restype, argtypes), in header order.
# ----------------------------------------------------------------------------------------

_CType = Any  # a ctypes type, or None for void

#: The output parameters of a length-query function (``char *buf, size_t buf_size, size_t
#: *out_len``), and of its variant for numbers (``double *buf, size_t capacity, size_t
#: *out_count``): they come first.
_TEXT: Tuple[_CType, ...] = (POINTER(c_char), c_size_t, POINTER(c_size_t))
_NUMBERS: Tuple[_CType, ...] = (POINTER(c_double), c_size_t, POINTER(c_size_t))


def _query(name: str, out: Tuple[_CType, ...], *after: _CType) -> Tuple[str, _CType, Tuple[_CType, ...]]:
    """The table entry of a length-query function: ``int name(<out>, <after>)``."""
    return (name, c_int, out + after)


_FUNCTIONS: Tuple[Tuple[str, _CType, Tuple[_CType, ...]], ...] = (
    # Versions
    ("quire_version", c_char_p, ()),
    ("quire_version_number", c_int32, ()),
    _query("quire_build_info", _TEXT),
    # Status codes and errors
    ("quire_status_string", c_char_p, (c_int,)),
    ("quire_last_error_message", c_char_p, ()),
    ("quire_last_error_code", c_int, ()),
    ("quire_clear_error", None, ()),
    # Documents
    ("quire_open_options_init", c_int, (POINTER(quire_open_options), ctypes.c_uint)),
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
    ("quire_file_access_init", c_int, (POINTER(quire_file_access), ctypes.c_uint)),
    (
        "quire_document_open_callback",
        c_int,
        (POINTER(quire_document_p), POINTER(quire_file_access), POINTER(quire_open_options)),
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
    _query("quire_document_warning", _TEXT, quire_document_p, c_int32),
    ("quire_document_metadata_count", c_int, (POINTER(c_int32), quire_document_p)),
    _query("quire_document_metadata_key", _TEXT, quire_document_p, c_int32),
    _query("quire_document_metadata", _TEXT, quire_document_p, c_char_p),
    ("quire_document_xref_form", c_int, (POINTER(c_int32), quire_document_p)),
    ("quire_document_object_count", c_int, (POINTER(c_int32), quire_document_p)),
    ("quire_document_is_linearized", c_int, (POINTER(c_int32), quire_document_p)),
    (
        "quire_document_encryption",
        c_int,
        (POINTER(c_int32), POINTER(c_int32), POINTER(c_uint32), POINTER(c_int32), quire_document_p),
    ),
    # Outline and page labels
    ("quire_document_outline_count", c_int, (POINTER(c_int32), quire_document_p)),
    (
        "quire_document_outline_item",
        c_int,
        (
            POINTER(c_int32),
            POINTER(c_int32),
            POINTER(c_int32),
            POINTER(c_int32),
            POINTER(c_int32),
            POINTER(c_int32),
            quire_document_p,
            c_int32,
        ),
    ),
    _query("quire_document_outline_title", _TEXT, quire_document_p, c_int32),
    _query("quire_document_outline_target", _TEXT, quire_document_p, c_int32),
    _query("quire_page_label", _TEXT, quire_document_p, c_int32),
    # Low-level objects
    ("quire_value_free", None, (quire_value_p,)),
    ("quire_document_trailer", c_int, (POINTER(quire_value_p), quire_document_p)),
    ("quire_document_object", c_int, (POINTER(quire_value_p), quire_document_p, c_int32)),
    ("quire_document_resolve", c_int, (POINTER(quire_value_p), quire_document_p, quire_value_p)),
    ("quire_value_type", c_int, (POINTER(c_int32), quire_value_p)),
    ("quire_value_bool", c_int, (POINTER(c_int32), quire_value_p)),
    ("quire_value_integer", c_int, (POINTER(c_int64), quire_value_p)),
    ("quire_value_number", c_int, (POINTER(c_double), quire_value_p)),
    ("quire_value_reference", c_int, (POINTER(c_int32), POINTER(c_int32), quire_value_p)),
    _query("quire_value_bytes", _TEXT, quire_value_p),
    _query("quire_value_text", _TEXT, quire_value_p),
    ("quire_value_count", c_int, (POINTER(c_int32), quire_value_p)),
    ("quire_value_array_get", c_int, (POINTER(quire_value_p), quire_value_p, c_int32)),
    _query("quire_value_dict_key", _TEXT, quire_value_p, c_int32),
    ("quire_value_dict_get", c_int, (POINTER(quire_value_p), quire_value_p, c_char_p)),
    _query("quire_value_to_pdf", _TEXT, quire_value_p),
    ("quire_value_parse", c_int, (POINTER(quire_value_p), c_char_p, c_size_t)),
    _query("quire_document_stream_data", _TEXT, quire_document_p, quire_value_p, c_int32),
    # Editing
    ("quire_document_set_object", c_int, (quire_document_p, c_int32, quire_value_p)),
    ("quire_document_set_dict_value", c_int, (quire_document_p, c_int32, c_char_p, quire_value_p)),
    ("quire_document_add_object", c_int, (POINTER(c_int32), quire_document_p, quire_value_p)),
    (
        "quire_document_add_stream",
        c_int,
        (POINTER(c_int32), quire_document_p, quire_value_p, c_void_p, c_size_t),
    ),
    ("quire_document_delete_object", c_int, (quire_document_p, c_int32)),
    ("quire_document_has_unsaved_changes", c_int, (POINTER(c_int32), quire_document_p)),
    # Saving
    ("quire_save_options_init", c_int, (POINTER(quire_save_options), ctypes.c_uint)),
    ("quire_document_save", c_int, (quire_document_p, POINTER(quire_save_options), c_char_p)),
    (
        "quire_document_save_to_callback",
        c_int,
        (quire_document_p, POINTER(quire_save_options), quire_write_fn, c_void_p),
    ),
    # Pages
    ("quire_page_box", c_int, (POINTER(quire_rect), quire_document_p, c_int32, c_int32)),
    ("quire_page_rotation", c_int, (POINTER(c_int32), quire_document_p, c_int32)),
    ("quire_page_annotation_count", c_int, (POINTER(c_int32), quire_document_p, c_int32)),
    # Annotations, replies and review states
    ("quire_annotation_new", c_int, (POINTER(quire_annotation_p), c_char_p, c_int32, POINTER(quire_rect))),
    ("quire_annotation_free", None, (quire_annotation_p,)),
    ("quire_page_annotation", c_int, (POINTER(quire_annotation_p), quire_document_p, c_int32, c_int32)),
    ("quire_document_annotation", c_int, (POINTER(quire_annotation_p), quire_document_p, c_int32)),
    ("quire_annotation_id", c_int, (POINTER(c_int32), quire_annotation_p)),
    ("quire_annotation_page_index", c_int, (POINTER(c_int32), quire_annotation_p)),
    _query("quire_annotation_subtype", _TEXT, quire_annotation_p),
    ("quire_annotation_rect", c_int, (POINTER(quire_rect), quire_annotation_p)),
    ("quire_annotation_set_rect", c_int, (quire_annotation_p, POINTER(quire_rect))),
    _query("quire_annotation_string", _TEXT, quire_annotation_p, c_int32),
    ("quire_annotation_set_string", c_int, (quire_annotation_p, c_int32, c_char_p)),
    ("quire_annotation_number", c_int, (POINTER(c_double), quire_annotation_p, c_int32)),
    ("quire_annotation_set_number", c_int, (quire_annotation_p, c_int32, c_double)),
    _query("quire_annotation_color", _NUMBERS, quire_annotation_p, c_int32),
    ("quire_annotation_set_color", c_int, (quire_annotation_p, c_int32, POINTER(c_double), c_size_t)),
    _query("quire_annotation_points", _NUMBERS, quire_annotation_p, c_int32),
    ("quire_annotation_set_points", c_int, (quire_annotation_p, c_int32, POINTER(c_double), c_size_t)),
    ("quire_annotation_ink_stroke_count", c_int, (POINTER(c_int32), quire_annotation_p)),
    _query("quire_annotation_ink_stroke", _NUMBERS, quire_annotation_p, c_int32),
    ("quire_annotation_add_ink_stroke", c_int, (quire_annotation_p, POINTER(c_double), c_size_t)),
    ("quire_annotation_is_reply", c_int, (POINTER(c_int32), quire_annotation_p)),
    ("quire_annotation_in_reply_to", c_int, (POINTER(c_int32), quire_annotation_p)),
    ("quire_document_add_annotation", c_int, (quire_document_p, quire_annotation_p)),
    ("quire_document_update_annotation", c_int, (quire_document_p, quire_annotation_p)),
    ("quire_document_delete_annotation", c_int, (quire_document_p, c_int32)),
    (
        "quire_document_add_reply",
        c_int,
        (POINTER(quire_annotation_p), quire_document_p, c_int32, c_char_p, c_char_p),
    ),
    (
        "quire_document_add_state_reply",
        c_int,
        (POINTER(quire_annotation_p), quire_document_p, c_int32, c_char_p, c_char_p, c_char_p),
    ),
    ("quire_document_set_in_reply_to", c_int, (quire_document_p, c_int32, c_int32)),
    ("quire_document_set_replies_enabled", c_int, (quire_document_p, c_int32)),
    ("quire_document_replies_enabled", c_int, (POINTER(c_int32), quire_document_p)),
    ("quire_document_comments", c_int, (POINTER(quire_annotation_list_p), quire_document_p, c_int32)),
    (
        "quire_document_review_summary",
        c_int,
        (POINTER(quire_annotation_list_p), POINTER(quire_annotation_list_p), quire_document_p, c_int32),
    ),
    (
        "quire_document_search_annotations",
        c_int,
        (POINTER(quire_annotation_list_p), quire_document_p, c_char_p),
    ),
    ("quire_annotation_list_count", c_int, (POINTER(c_int32), quire_annotation_list_p)),
    ("quire_annotation_list_get", c_int, (POINTER(quire_annotation_p), quire_annotation_list_p, c_int32)),
    ("quire_annotation_list_free", None, (quire_annotation_list_p,)),
    (
        "quire_page_annotation_infos",
        c_int,
        (c_void_p, c_size_t, POINTER(c_size_t), POINTER(c_int32), quire_document_p, c_int32, ctypes.c_uint),
    ),
    ("quire_page_annotations", c_int, (POINTER(quire_annotation_list_p), quire_document_p, c_int32)),
    (
        "quire_annotation_list_infos",
        c_int,
        (c_void_p, c_size_t, POINTER(c_size_t), POINTER(c_int32), quire_annotation_list_p, ctypes.c_uint),
    ),
    _query("quire_document_export_annotations_json", _TEXT, quire_document_p, c_int32),
    _query("quire_document_export_annotations_json_instant_comments", _TEXT, quire_document_p, c_int32),
    (
        "quire_document_import_annotations_json",
        c_int,
        (POINTER(c_int32), quire_document_p, c_char_p, c_size_t),
    ),
    # Forms
    ("quire_document_form_kind", c_int, (POINTER(c_int32), quire_document_p)),
    ("quire_document_field_count", c_int, (POINTER(c_int32), quire_document_p)),
    ("quire_document_field_index", c_int, (POINTER(c_int32), quire_document_p, c_char_p)),
    _query("quire_field_name", _TEXT, quire_document_p, c_int32),
    ("quire_field_type", c_int, (POINTER(c_int32), quire_document_p, c_int32)),
    ("quire_field_flags", c_int, (POINTER(c_uint32), quire_document_p, c_int32)),
    ("quire_field_max_length", c_int, (POINTER(c_int32), quire_document_p, c_int32)),
    ("quire_field_value_count", c_int, (POINTER(c_int32), quire_document_p, c_int32)),
    _query("quire_field_value", _TEXT, quire_document_p, c_int32, c_int32),
    ("quire_field_option_count", c_int, (POINTER(c_int32), quire_document_p, c_int32)),
    _query("quire_field_option", _TEXT, quire_document_p, c_int32, c_int32, c_int32),
    ("quire_field_widget_count", c_int, (POINTER(c_int32), quire_document_p, c_int32)),
    (
        "quire_field_widget",
        c_int,
        (POINTER(c_int32), POINTER(quire_rect), quire_document_p, c_int32, c_int32),
    ),
    ("quire_field_set_value", c_int, (quire_document_p, c_int32, c_char_p)),
    ("quire_field_set_values", c_int, (quire_document_p, c_int32, POINTER(c_char_p), c_int32)),
    ("quire_field_reset", c_int, (quire_document_p, c_int32)),
    ("quire_flatten_options_init", c_int, (POINTER(quire_flatten_options), ctypes.c_uint)),
    ("quire_document_flatten", c_int, (POINTER(c_int32), quire_document_p, POINTER(quire_flatten_options))),
    _query("quire_document_export_xfdf", _TEXT, quire_document_p),
    ("quire_document_import_xfdf", c_int, (POINTER(c_int32), quire_document_p, c_char_p, c_size_t)),
    # Long operations: annotations exported and imported in a format, with progress
    ("quire_export_options_init", c_int, (POINTER(quire_export_options), ctypes.c_uint)),
    (
        "quire_document_export_annotations",
        c_int,
        (quire_document_p, POINTER(quire_export_options), quire_write_fn, c_void_p),
    ),
    ("quire_import_options_init", c_int, (POINTER(quire_import_options), ctypes.c_uint)),
    (
        "quire_document_import_annotations",
        c_int,
        (POINTER(c_int32), quire_document_p, POINTER(quire_import_options), c_void_p, c_size_t),
    ),
    # Bookmarks
    ("quire_bookmark_new", c_int, (POINTER(quire_bookmark_p), c_int32, c_int32, c_char_p)),
    ("quire_bookmark_copy", c_int, (POINTER(quire_bookmark_p), quire_bookmark_p)),
    ("quire_bookmark_free", None, (quire_bookmark_p,)),
    _query("quire_bookmark_identifier", _TEXT, quire_bookmark_p),
    ("quire_bookmark_set_identifier", c_int, (quire_bookmark_p, c_char_p)),
    _query("quire_bookmark_name", _TEXT, quire_bookmark_p),
    ("quire_bookmark_set_name", c_int, (quire_bookmark_p, c_char_p)),
    ("quire_bookmark_action_kind", c_int, (POINTER(c_int32), quire_bookmark_p)),
    ("quire_bookmark_page_index", c_int, (POINTER(c_int32), quire_bookmark_p)),
    _query("quire_bookmark_action_text", _TEXT, quire_bookmark_p),
    ("quire_bookmark_sort_key", c_int, (POINTER(c_int64), quire_bookmark_p)),
    ("quire_bookmark_set_sort_key", c_int, (quire_bookmark_p, POINTER(c_int64))),
    ("quire_bookmark_sink_add", c_int, (quire_bookmark_sink_p, quire_bookmark_p)),
    ("quire_bookmark_provider_init", c_int, (POINTER(quire_bookmark_provider), ctypes.c_uint)),
    (
        "quire_document_set_bookmark_providers",
        c_int,
        (quire_document_p, POINTER(POINTER(quire_bookmark_provider)), c_size_t),
    ),
    ("quire_document_bookmark_count", c_int, (POINTER(c_int32), quire_document_p)),
    ("quire_document_bookmark", c_int, (POINTER(quire_bookmark_p), quire_document_p, c_int32, c_int32)),
    ("quire_document_find_bookmark", c_int, (POINTER(quire_bookmark_p), quire_document_p, c_char_p)),
    ("quire_document_add_bookmark", c_int, (quire_document_p, quire_bookmark_p)),
    ("quire_document_remove_bookmark", c_int, (quire_document_p, c_char_p)),
    ("quire_document_move_bookmark", c_int, (quire_document_p, c_char_p, c_int32)),
    ("quire_document_bookmark_sort_order", c_int, (POINTER(c_int32), quire_document_p)),
    ("quire_document_set_bookmark_sort_order", c_int, (quire_document_p, c_int32)),
    (
        "quire_document_set_bookmark_change_callback",
        c_int,
        (quire_document_p, quire_bookmark_change_fn, c_void_p),
    ),
    ("quire_document_export_bookmarks_to_outline", c_int, (POINTER(c_int32), quire_document_p)),
    # Checkpoints
    ("quire_checkpoint_options_init", c_int, (POINTER(quire_checkpoint_options), ctypes.c_uint)),
    (
        "quire_document_start_checkpoints",
        c_int,
        (POINTER(c_int32), quire_document_p, POINTER(quire_checkpoint_options)),
    ),
    ("quire_document_stop_checkpoints", c_int, (quire_document_p, c_int32)),
    ("quire_document_checkpoint", c_int, (quire_document_p,)),
    ("quire_document_checkpoint_async", c_int, (quire_document_p, quire_checkpoint_done_fn, c_void_p)),
    _query("quire_document_checkpoint_path", _TEXT, quire_document_p),
    (
        "quire_document_inspect_checkpoint",
        c_int,
        (POINTER(quire_checkpoint_info), quire_document_p, POINTER(quire_checkpoint_options)),
    ),
    # Sync service: the request handler
    ("quire_sync_config_init", c_int, (POINTER(quire_sync_config), ctypes.c_uint)),
    ("quire_sync_service_open", c_int, (POINTER(quire_sync_service_p), POINTER(quire_sync_config))),
    ("quire_sync_service_shutdown", c_int, (quire_sync_service_p,)),
    ("quire_sync_service_close", None, (quire_sync_service_p,)),
    (
        "quire_sync_service_handle",
        c_int,
        (
            POINTER(quire_sync_response_p), quire_sync_service_p, c_char_p, c_char_p,
            POINTER(quire_sync_header), c_size_t, c_void_p, c_size_t,
        ),
    ),
    ("quire_sync_response_status", c_int, (POINTER(c_int32), quire_sync_response_p)),
    ("quire_sync_response_header_count", c_int, (POINTER(c_size_t), quire_sync_response_p)),
    (
        "quire_sync_response_header",
        c_int,
        (POINTER(c_char_p), POINTER(c_char_p), quire_sync_response_p, c_size_t),
    ),
    ("quire_sync_response_body", c_int, (POINTER(c_void_p), POINTER(c_size_t), quire_sync_response_p)),
    ("quire_sync_response_free", None, (quire_sync_response_p,)),
    # Text
    ("quire_text_char_init", c_int, (POINTER(quire_text_char), ctypes.c_uint)),
    ("quire_text_search_options_init", c_int, (POINTER(quire_text_search_options), ctypes.c_uint)),
    ("quire_page_text_load", c_int, (POINTER(quire_text_page_p), quire_document_p, c_int32)),
    ("quire_text_page_free", None, (quire_text_page_p,)),
    ("quire_text_page_index", c_int, (POINTER(c_int32), quire_text_page_p)),
    ("quire_text_page_char_count", c_int, (POINTER(c_int32), quire_text_page_p)),
    _query("quire_text_page_text", _TEXT, quire_text_page_p),
    _query("quire_text_page_range_text", _TEXT, quire_text_page_p, c_int32, c_int32),
    ("quire_text_page_char", c_int, (POINTER(quire_text_char), quire_text_page_p, c_int32)),
    _query("quire_text_page_char_text", _TEXT, quire_text_page_p, c_int32),
    _query("quire_text_page_char_font", _TEXT, quire_text_page_p, c_int32),
    ("quire_text_page_line_count", c_int, (POINTER(c_int32), quire_text_page_p)),
    ("quire_text_page_line", c_int, (POINTER(c_int32), POINTER(c_int32), quire_text_page_p, c_int32)),
    ("quire_text_page_word_count", c_int, (POINTER(c_int32), quire_text_page_p)),
    ("quire_text_page_word", c_int, (POINTER(c_int32), POINTER(c_int32), quire_text_page_p, c_int32)),
    _query("quire_text_page_range_quads", _NUMBERS, quire_text_page_p, c_int32, c_int32),
    ("quire_text_page_char_at", c_int, (POINTER(c_int32), quire_text_page_p, c_double, c_double)),
    (
        "quire_text_page_select",
        c_int,
        (POINTER(c_int32), POINTER(c_int32), quire_text_page_p, c_double, c_double, c_double, c_double),
    ),
    ("quire_text_page_warning_count", c_int, (POINTER(c_int32), quire_text_page_p)),
    _query("quire_text_page_warning", _TEXT, quire_text_page_p, c_int32),
    (
        "quire_document_search_text",
        c_int,
        (POINTER(quire_text_match_list_p), quire_document_p, c_char_p, POINTER(quire_text_search_options), c_int32),
    ),
    ("quire_text_options_init", c_int, (POINTER(quire_text_options), ctypes.c_uint)),
    ("quire_document_text", c_int, (quire_document_p, POINTER(quire_text_options), quire_write_fn, c_void_p)),
    ("quire_text_match_list_count", c_int, (POINTER(c_int32), quire_text_match_list_p)),
    (
        "quire_text_match_list_get",
        c_int,
        (POINTER(c_int32), POINTER(c_int32), POINTER(c_int32), quire_text_match_list_p, c_int32),
    ),
    _query("quire_text_match_list_text", _TEXT, quire_text_match_list_p, c_int32),
    _query("quire_text_match_list_quads", _NUMBERS, quire_text_match_list_p, c_int32),
    ("quire_text_match_list_free", None, (quire_text_match_list_p,)),
    (
        "quire_document_add_text_markup",
        c_int,
        (POINTER(quire_annotation_p), quire_document_p, quire_text_page_p, c_int32, c_int32, c_int32),
    ),
    _query("quire_annotation_marked_text", _TEXT, quire_document_p, quire_annotation_p),
    # Sync client
    ("quire_client_callbacks_init", c_int, (POINTER(quire_client_callbacks), ctypes.c_uint)),
    ("quire_client_config_init", c_int, (POINTER(quire_client_config), ctypes.c_uint)),
    (
        "quire_client_open",
        c_int,
        (POINTER(quire_client_p), POINTER(quire_client_config), POINTER(quire_client_callbacks)),
    ),
    ("quire_client_close", None, (quire_client_p,)),
    ("quire_client_descriptor_for_jwt", c_int, (POINTER(quire_descriptor_p), quire_client_p, c_char_p)),
    ("quire_client_remove_document_storage", c_int, (quire_client_p, c_char_p)),
    ("quire_client_remove_unused_cache", c_int, (POINTER(c_size_t), quire_client_p)),
    _query("quire_descriptor_document_id", _TEXT, quire_descriptor_p),
    _query("quire_descriptor_layer", _TEXT, quire_descriptor_p),
    ("quire_descriptor_state", c_int, (POINTER(c_int), quire_descriptor_p)),
    ("quire_descriptor_download", c_int, (quire_descriptor_p, c_char_p)),
    ("quire_descriptor_document", c_int, (POINTER(quire_document_p), quire_descriptor_p)),
    ("quire_descriptor_sync", c_int, (quire_descriptor_p,)),
    ("quire_descriptor_sync_now", c_int, (quire_descriptor_p,)),
    ("quire_descriptor_download_now", c_int, (quire_descriptor_p, c_char_p)),
    ("quire_descriptor_wait_idle", c_int, (quire_descriptor_p,)),
    ("quire_descriptor_reauthenticate", c_int, (quire_descriptor_p, c_char_p)),
    ("quire_descriptor_set_auto_sync_delay", c_int, (quire_descriptor_p, c_double)),
    ("quire_descriptor_set_listening", c_int, (quire_descriptor_p, c_int)),
    ("quire_descriptor_pending_changes", c_int, (POINTER(c_size_t), quire_descriptor_p)),
    ("quire_descriptor_last_change_id", c_int, (POINTER(c_int64), quire_descriptor_p)),
    _query("quire_descriptor_records_json", _TEXT, quire_descriptor_p),
    ("quire_descriptor_repairs", c_int, (POINTER(c_int64), quire_descriptor_p)),
    ("quire_descriptor_remove_local_storage", c_int, (quire_descriptor_p,)),
    # Tools
    ("quire_tool_callbacks_init", c_int, (POINTER(quire_tool_callbacks), ctypes.c_uint)),
    ("quire_tool_style_init", c_int, (POINTER(quire_tool_style), ctypes.c_uint)),
    ("quire_page_device_to_page", c_int, (POINTER(c_double), POINTER(c_double), quire_document_p, c_int32, c_int32, c_int32, c_int32, c_int32, c_int32, c_double, c_double)),
    ("quire_page_page_to_device", c_int, (POINTER(c_double), POINTER(c_double), quire_document_p, c_int32, c_int32, c_int32, c_int32, c_int32, c_int32, c_double, c_double)),
    (
        "quire_page_hit_test",
        c_int,
        (POINTER(c_int32), POINTER(c_int32), quire_document_p, c_int32, c_double, c_double, c_double),
    ),
    ("quire_page_hit_test_text", c_int, (POINTER(c_int32), quire_document_p, c_int32, c_double, c_double, c_double)),
    (
        "quire_tool_manager_new",
        c_int,
        (POINTER(quire_tool_manager_p), quire_document_p, POINTER(quire_tool_callbacks)),
    ),
    ("quire_tool_manager_free", None, (quire_tool_manager_p,)),
    ("quire_tool_manager_set_style", c_int, (quire_tool_manager_p, POINTER(quire_tool_style))),
    ("quire_tool_manager_set_tool", c_int, (quire_tool_manager_p, c_int32)),
    ("quire_tool_manager_current_tool", c_int, (POINTER(c_int32), quire_tool_manager_p)),
    (
        "quire_tool_manager_send",
        c_int,
        (POINTER(c_int32), quire_tool_manager_p, c_int32, c_int32, c_double, c_double),
    ),
    ("quire_tool_manager_selection", c_int, (POINTER(c_int32), quire_tool_manager_p)),
    ("quire_tool_manager_delete_selection", c_int, (quire_tool_manager_p,)),
    ("quire_tool_manager_set_selection_contents", c_int, (quire_tool_manager_p, c_char_p)),
    ("quire_tool_manager_set_field_value", c_int, (quire_tool_manager_p, c_char_p)),
    ("quire_custom_tool_init", c_int, (POINTER(quire_custom_tool), ctypes.c_uint)),
    ("quire_tool_manager_register_tool", c_int, (quire_tool_manager_p, POINTER(quire_custom_tool))),
    ("quire_tool_manager_set_custom_tool", c_int, (quire_tool_manager_p, c_char_p)),
    ("quire_tool_manager_commit", c_int, (quire_tool_manager_p,)),
    ("quire_tool_manager_undo", c_int, (POINTER(c_int32), quire_tool_manager_p)),
    ("quire_tool_manager_redo", c_int, (POINTER(c_int32), quire_tool_manager_p)),
    ("quire_pointer_event_init", c_int, (POINTER(quire_pointer_event), ctypes.c_uint)),
    (
        "quire_tool_manager_send_event",
        c_int,
        (POINTER(c_int32), quire_tool_manager_p, POINTER(quire_pointer_event)),
    ),
    ("quire_tool_manager_style", c_int, (POINTER(quire_tool_style), quire_tool_manager_p)),
    ("quire_tool_manager_selection_count", c_int, (POINTER(c_int32), quire_tool_manager_p)),
    ("quire_tool_manager_selection_at", c_int, (POINTER(c_int32), quire_tool_manager_p, c_int32)),
    ("quire_tool_manager_select", c_int, (quire_tool_manager_p, c_int32, c_int32)),
    (
        "quire_tool_manager_select_rect",
        c_int,
        (POINTER(c_int32), quire_tool_manager_p, c_int32, POINTER(quire_rect), c_int32),
    ),
    _query("quire_tool_manager_selection_handles", _NUMBERS, quire_tool_manager_p),
    ("quire_tool_preview_init", c_int, (POINTER(quire_tool_preview), ctypes.c_uint)),
    ("quire_tool_manager_preview", c_int, (POINTER(quire_tool_preview), quire_tool_manager_p)),
    _query("quire_tool_manager_preview_path", _NUMBERS, quire_tool_manager_p, c_int32),
    ("quire_tool_manager_history_count", c_int, (POINTER(c_int32), quire_tool_manager_p, c_int32)),
    _query("quire_tool_manager_step_description", _TEXT, quire_tool_manager_p, c_int32, c_int32),
    ("quire_tool_manager_reply", c_int, (POINTER(c_int32), quire_tool_manager_p, c_char_p)),
    ("quire_tool_manager_set_state", c_int, (POINTER(c_int32), quire_tool_manager_p, c_char_p, c_char_p)),
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
        yield ("system loader", "libquire.so.%d.%d" % (QUIRE_VERSION_MAJOR, QUIRE_VERSION_MINOR) if QUIRE_VERSION_MAJOR == 0 else "libquire.so.%d" % QUIRE_VERSION_MAJOR)


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
    "declared_functions",
    "function_signatures",
    "open_options_init",
    "save_options_init",
    "text_char_init",
    "text_search_options_init",
    "check_version",
    "library_path",
    "lib",
    "LIBRARY_FILENAME",
    "LIBRARY_ENV_VAR",
    "PACKAGE_DIR",
]
