"""Quire: read, edit and save PDF documents from Python.

The Python binding of Quire, a PDF annotation and collaboration engine written in Swift
and shipped as a C library (``libquire``). Two layers, after pypdfium2:

- :mod:`quire._raw`, a ctypes declaration of every function of ``quire.h``;
- this package, the Pythonic layer: :class:`Document`, :class:`Page`, :class:`Rect`,
  :class:`OutlineItem`, :class:`Annotation` (annotations, replies and review states; see
  :mod:`quire._annotations`), bookmarks (:class:`BookmarkManager`), checkpoints, the
  low-level values (:class:`Name`, :class:`String`, :class:`Reference`, :class:`Stream`;
  see :mod:`quire._objects`), and exceptions derived from :class:`QuireError`.

Example::

    import quire

    with quire.Document("file.pdf") as doc:
        print(doc.page_count, doc.pdf_version, doc.metadata.get("Title"))
        for page in doc.pages:
            print(page.index, page.label, page.media_box.width, page.media_box.height, page.rotation)
        for item in doc.outline_items:
            print("  " * item.depth + item.title, item.page_index)

Annotating, then saving incrementally (the original bytes stay; see
:meth:`Document.save`)::

    with quire.Document("file.pdf") as doc:
        note = quire.Annotation.new("Text", 0, (72, 720, 96, 744))   # page 0, a rectangle
        note.contents, note.author = "Is this figure right?", "Ada"
        doc.add_annotation(note)               # /NM, dates, appearance, page's /Annots
        doc.add_reply(note, "Bob", "Yes, checked against the data.")
        doc.add_state_reply(note, "Bob", "Review", "Accepted")
        for root, replies in doc.threads():
            print(root.subtype, root.contents, [(r.author, r.contents) for r in replies])
        doc.save("file.pdf")                   # atomic; appends the changes

Any other change goes through the low-level objects (:meth:`Document.get_object`,
:meth:`Document.set_dict_value`, :meth:`Document.add_object`, ...), for example
``doc.set_dict_value(page_object_number, "Rotate", 90)``.

Importing the package loads the library (see :mod:`quire._raw` for where it is looked for)
and raises :class:`ImportError` if it is missing or of a major version this binding does
not know.
"""

from __future__ import annotations

import typing as _typing

from . import _raw
from ._annotations import (
    SUBTYPES,
    STATE_MODELS,
    TEXT_MARKUP,
    Annotation,
    AnnotationOrder,
    AnnotationThread,
    Measurement,
    format_pdf_date,
    parse_pdf_date,
)
from ._checkpoint import CheckpointExisting, CheckpointInfo, CheckpointState, CheckpointStrategy
from ._document import Action, Box, Document, Encryption, OutlineItem, Page, PageList, Permissions, RedactionResult
from ._pages import PageReport
from ._geometry import Rect
from ._text import Quad, TextChar, TextMatch, TextPage, TextSpan
from ._forms import FieldFlags, FieldOption, FieldType, FieldWidget, FormField, FormKind
from ._objects import MAX_NESTING_DEPTH, Name, Reference, Stream, String, Value, parse, unparse
from ._errors import (
    BufferTooSmallError,
    BusyError,
    DisabledError,
    FormatError,
    IndexOutOfRangeError,
    InternalError,
    InvalidArgumentError,
    LimitError,
    MissingFileError,
    NotFoundError,
    OutOfMemoryError,
    PasswordError,
    QuireError,
    QuireIOError,
    StaleError,
    ExistsError,
    VersionError,
    AuthenticationError,
    NetworkError,
    StateError,
    UnsupportedError,
    UserAbortError,
    status_string,
)

#: The version of this binding, which is the version of the header it was written for.
__version__ = _raw.QUIRE_VERSION_STRING

# Bookmarks, the sync client and service, the tools and signatures are imported when a program first
# uses one of their names (``quire.Client``, ``doc.bookmarks``, ...), not by ``import
# quire``: they need dataclasses (which imports inspect, ast, dis and tokenize), threads
# and callbacks that a program reading or annotating documents never uses, and that cost
# every such process about 1 MB (bench/PROFILE.md, "Memory"). The names are the same
# objects either way; ``dir(quire)`` lists them before they are loaded.
_LAZY = {
    "_bookmarks": ("BUILTIN_PROVIDER", "Bookmark", "BookmarkKind", "BookmarkManager", "BookmarkProvider", "BookmarkSortOrder"),
    "_sync": ("SyncService",),
    "_client": ("Client", "Descriptor", "SyncEvent", "SyncEventType", "SyncState"),
    "_signatures": ("DigestAlgorithm", "DocMDP", "Modification", "SignatureCoverage", "SignatureFormat", "SignatureGuard", "SignatureProblem", "SignatureProblemKind", "SignatureReport", "SigningIdentity"),
    "_tools": ("CustomTool", "HitKind", "PointerEvent", "PointerKind", "PreviewKind", "SelectionMode", "Tool", "ToolEvent", "ToolEventKind", "ToolManager", "ToolPreview", "ToolStyle", "device_to_page", "hit_test", "hit_test_text", "page_to_device"),
}
_LAZY_NAMES = {name: module for module, names in _LAZY.items() for name in names}

if _typing.TYPE_CHECKING:
    from ._bookmarks import BUILTIN_PROVIDER, Bookmark, BookmarkKind, BookmarkManager, BookmarkProvider, BookmarkSortOrder
    from ._sync import SyncService
    from ._client import Client, Descriptor, SyncEvent, SyncEventType, SyncState
    from ._signatures import DigestAlgorithm, DocMDP, Modification, SignatureCoverage, SignatureFormat, SignatureGuard, SignatureProblem, SignatureProblemKind, SignatureReport, SigningIdentity
    from ._tools import CustomTool, HitKind, PointerEvent, PointerKind, PreviewKind, SelectionMode, Tool, ToolEvent, ToolEventKind, ToolManager, ToolPreview, ToolStyle, device_to_page, hit_test, hit_test_text, page_to_device
else:

    def __getattr__(name: str) -> "_typing.Any":
        """Loads the module of a lazily imported name (or the module itself) on first use."""
        module = _LAZY_NAMES.get(name)
        if module is None and name not in _LAZY:
            raise AttributeError("module %r has no attribute %r" % (__name__, name))
        import importlib

        loaded = importlib.import_module("." + (module or name), __name__)
        if module is None:
            return loaded
        value = getattr(loaded, name)
        globals()[name] = value
        return value


def __dir__() -> "_typing.List[str]":
    """The package's names, those imported when first used included (and not the
    machinery of the lazy import itself)."""
    return sorted((set(globals()) - _HIDDEN) | set(_LAZY_NAMES) | set(_LAZY))


_HIDDEN = {"_typing", "_LAZY", "_LAZY_NAMES", "_HIDDEN", "__dir__", "__getattr__"}



def version() -> str:
    """The version of the loaded library, as ``"MAJOR.MINOR.PATCH"`` (``quire_version``)."""
    return (_raw.lib.quire_version() or b"").decode("utf-8", errors="replace")


def version_number() -> int:
    """The version of the loaded library as ``MAJOR * 1000000 + MINOR * 1000 + PATCH``."""
    return int(_raw.lib.quire_version_number())


def library_path() -> str:
    """The path (or loader name) of the ``libquire`` that was loaded."""
    return _raw.library_path()


def build_info() -> _typing.Dict[str, _typing.Any]:
    """What the loaded library is, for bug reports (``quire_build_info``; ``quire doctor``
    prints the same for the command-line tool): ``version``, ``abi`` and ``soname``
    (``"0.5"``, ``"libquire.so.0.5"``), ``build`` (``"release"`` or ``"debug"``),
    ``features`` (booleans: ``sync_service``, ``sync_client``, ``tls``, ``postgresql``),
    ``checkpoint_directory`` (where checkpoints go by default), ``environment`` (the
    variables that change it), ``limits`` (the defaults of the open options) and
    ``platform``; this binding adds ``library_path`` and ``python``."""
    import json
    import platform

    from ._ffi import query_bytes

    info: _typing.Dict[str, _typing.Any] = json.loads(query_bytes(_raw.lib.quire_build_info).decode("utf-8"))
    info["library_path"] = library_path()
    info["python"] = platform.python_version()
    return info


__all__ = [
    "PageReport",
    "Action",
    "Annotation",
    "AnnotationOrder",
    "AnnotationThread",
    "BUILTIN_PROVIDER",
    "Bookmark",
    "BookmarkKind",
    "BookmarkManager",
    "BookmarkProvider",
    "BookmarkSortOrder",
    "Box",
    "BufferTooSmallError",
    "BusyError",
    "DisabledError",
    "Document",
    "CheckpointInfo",
    "CheckpointState",
    "CheckpointExisting",
    "SyncService",
    "Client",
    "Descriptor",
    "SyncEvent",
    "SyncEventType",
    "SyncState",
    "AuthenticationError",
    "NetworkError",
    "CheckpointStrategy",
    "Encryption",
    "FormatError",
    "IndexOutOfRangeError",
    "InternalError",
    "InvalidArgumentError",
    "LimitError",
    "MAX_NESTING_DEPTH",
    "MissingFileError",
    "Name",
    "NotFoundError",
    "OutlineItem",
    "OutOfMemoryError",
    "Page",
    "PageList",
    "PasswordError",
    "Permissions",
    "RedactionResult",
    "QuireError",
    "QuireIOError",
    "Rect",
    "Reference",
    "StaleError",
    "ExistsError",
    "FieldFlags",
    "FieldOption",
    "FieldType",
    "FieldWidget",
    "FormField",
    "FormKind",
    "VersionError",
    "StateError",
    "Stream",
    "Quad",
    "TextChar",
    "TextMatch",
    "TextPage",
    "TextSpan",
    "STATE_MODELS",
    "String",
    "Measurement",
    "SUBTYPES",
    "TEXT_MARKUP",
    "UnsupportedError",
    "UserAbortError",
    "Value",
    "library_path",
    "build_info",
    "Tool",
    "CustomTool",
    "PointerEvent",
    "ToolEvent",
    "ToolEventKind",
    "ToolManager",
    "PointerKind",
    "HitKind",
    "ToolStyle",
    "ToolPreview",
    "PreviewKind",
    "SelectionMode",
    "device_to_page",
    "page_to_device",
    "hit_test",
    "hit_test_text",
    "SigningIdentity",
    "SignatureReport",
    "SignatureProblem",
    "SignatureProblemKind",
    "SignatureFormat",
    "SignatureCoverage",
    "SignatureGuard",
    "DigestAlgorithm",
    "DocMDP",
    "Modification",
    "format_pdf_date",
    "parse",
    "parse_pdf_date",
    "unparse",
    "status_string",
    "version",
    "version_number",
]
