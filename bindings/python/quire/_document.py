"""Documents and pages: the Pythonic layer over the raw functions of :mod:`quire._raw`.

Lifetimes follow pypdfium2: a :class:`Document` owns its ``quire_document *`` handle and
releases it on :meth:`Document.close`, at the end of a ``with`` block, or, failing both,
through :func:`weakref.finalize` once the document is garbage. A :class:`Page` holds a
strong reference to its document, so a page keeps its document open for as long as it is
reachable. Once a document is closed, every use of it or of one of its pages raises
:class:`quire.StateError` (a ``ValueError``); nothing touches the freed handle.

Thread safety: each document has a lock that every call on its handle holds, so a document
and its pages may be shared between threads (calls on one document are serialised; calls
on different documents run in parallel), and :meth:`Document.close` never frees the handle
under a call in progress.
"""

from __future__ import annotations

import ctypes
import operator
import os
import threading
import weakref
from ctypes import byref, c_int32, c_size_t
from enum import IntEnum
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Union, overload

from . import _raw
from ._errors import IndexOutOfRangeError, InternalError, InvalidArgumentError, StateError, check, raise_status

#: What :class:`Document` opens: a file system path, or the bytes of a PDF.
PathType = Union[str, "os.PathLike[str]"]
BytesType = Union[bytes, bytearray, memoryview]

# How many times the length-query helper re-asks when a string grows between its calls.
_MAX_QUERY_ATTEMPTS = 4


def _query_bytes(function: Callable[..., int], *args: Any) -> bytes:
    """Reads a string through the header's length-query pattern; the one helper every
    string getter goes through.

    ``function`` has the signature ``(char *buf, size_t buf_size, size_t *out_len, ...)``
    and ``args`` are its arguments after ``out_len``. It is called with a NULL buffer to
    learn the length, then with a buffer of ``length + 1`` bytes. The result is the raw
    bytes (binary-safe: a NUL inside the string is kept); decode them with :func:`_text`.
    Raises the :class:`QuireError` for any status other than QUIRE_OK or QUIRE_EBUFS.
    """
    length = c_size_t(0)
    status = function(None, 0, byref(length), *args)
    if status not in (_raw.QUIRE_OK, _raw.QUIRE_EBUFS):
        raise_status(status)
    for _ in range(_MAX_QUERY_ATTEMPTS):
        size = length.value + 1
        buffer = ctypes.create_string_buffer(size)
        status = function(buffer, size, byref(length), *args)
        if status == _raw.QUIRE_OK:
            return buffer.raw[: min(length.value, size - 1)]
        if status != _raw.QUIRE_EBUFS:
            raise_status(status)
    raise_status(status)


def _text(data: bytes) -> str:
    """UTF-8 from the library, decoded leniently: invalid bytes become U+FFFD."""
    return data.decode("utf-8", errors="replace")


class Rect(NamedTuple):
    """A rectangle in PDF user space units (1/72 inch), with ``left <= right`` and
    ``bottom <= top``."""

    left: float
    bottom: float
    right: float
    top: float

    @property
    def width(self) -> float:
        """``right - left``."""
        return self.right - self.left

    @property
    def height(self) -> float:
        """``top - bottom``."""
        return self.top - self.bottom


class Box(IntEnum):
    """The page boxes of ISO 32000-2 §14.11.2 (``QUIRE_BOX_*``)."""

    MEDIA = _raw.QUIRE_BOX_MEDIA
    """/MediaBox: the physical medium."""
    CROP = _raw.QUIRE_BOX_CROP
    """/CropBox: the visible region; defaults to the media box."""
    BLEED = _raw.QUIRE_BOX_BLEED
    """/BleedBox; defaults to the crop box."""
    TRIM = _raw.QUIRE_BOX_TRIM
    """/TrimBox; defaults to the crop box."""
    ART = _raw.QUIRE_BOX_ART
    """/ArtBox; defaults to the crop box."""


# The limit fields of quire_open_options, with their widths in bits.
_LIMIT_FIELDS: Dict[str, int] = {
    field[0]: ctypes.sizeof(field[1]) * 8
    for field in _raw.quire_open_options._fields_
    if field[0].startswith("max_")
}


def _encode_c_string(value: Union[str, bytes], what: str) -> bytes:
    data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    if b"\0" in data:
        raise InvalidArgumentError(_raw.QUIRE_EINVAL, "%s contains a NUL character" % what)
    return data


def _build_options(password: Optional[Union[str, bytes]], limits: Dict[str, int]) -> _raw.quire_open_options:
    options = _raw.open_options_init()
    if password is not None:
        if not isinstance(password, (str, bytes)):
            raise TypeError("password must be str, bytes or None, not %s" % type(password).__name__)
        options.password = _encode_c_string(password, "the password")
    for name, value in limits.items():
        bits = _LIMIT_FIELDS[name]
        number = operator.index(value)
        if not 0 <= number < (1 << bits):
            raise InvalidArgumentError(
                _raw.QUIRE_EINVAL,
                "%s must be between 0 (the library's default) and %d, not %d" % (name, (1 << bits) - 1, number),
            )
        setattr(options, name, number)
    return options


class Document:
    """An open PDF document.

    ``source`` is a path (``str`` or :class:`os.PathLike`) or the bytes of a PDF
    (``bytes``, ``bytearray`` or ``memoryview``; they are copied, so the caller may reuse
    them). ``password`` is the user or owner password of an encrypted document. The
    keyword arguments are safety limits (``quire_open_options``); 0, the default, means
    the library's default. Past a limit, opening or reading raises :class:`LimitError`.

    Use it as a context manager, or call :meth:`close`; a document that is neither is
    closed when it is garbage collected. After :meth:`close`, every method and property
    (and those of its pages) raises :class:`StateError`.

    Raises:
        NotFoundError: no file at ``source`` (also a ``FileNotFoundError``).
        FormatError: not a PDF, or damaged beyond repair; also for empty bytes.
        PasswordError: encrypted, and ``password`` does not open it.
        QuireIOError, UnsupportedError, LimitError: as their names say.
        InvalidArgumentError: a limit out of range, a NUL character in the path or password.
        TypeError: ``source`` is neither a path nor bytes.
    """

    def __init__(
        self,
        source: Union[PathType, BytesType],
        password: Optional[Union[str, bytes]] = None,
        *,
        max_nesting_depth: int = 0,
        max_page_tree_depth: int = 0,
        max_xref_chain: int = 0,
        max_objects: int = 0,
        max_stream_bytes: int = 0,
        max_total_decoded_bytes: int = 0,
        max_decompression_ratio: int = 0,
    ) -> None:
        self._lock = threading.RLock()
        self._handle: Optional[Any] = None  # a _raw.quire_document_p while open
        self._finalizer: Optional[weakref.finalize[[Any], Document]] = None
        self._name: Optional[str] = None

        options = _build_options(
            password,
            {
                "max_nesting_depth": max_nesting_depth,
                "max_page_tree_depth": max_page_tree_depth,
                "max_xref_chain": max_xref_chain,
                "max_objects": max_objects,
                "max_stream_bytes": max_stream_bytes,
                "max_total_decoded_bytes": max_total_decoded_bytes,
                "max_decompression_ratio": max_decompression_ratio,
            },
        )
        out = _raw.quire_document_p()
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
            status = _raw.lib.quire_document_open_memory(byref(out), data, len(data), byref(options))
        elif isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            encoded = _encode_c_string(os.fsencode(path), "the path")
            self._name = os.fsdecode(path)
            status = _raw.lib.quire_document_open(byref(out), encoded, byref(options))
        else:
            raise TypeError(
                "a Document opens a path (str or os.PathLike) or bytes, not %s" % type(source).__name__
            )
        check(status)
        if not out:
            raise InternalError(_raw.QUIRE_EINTERNAL, "the library returned QUIRE_OK and a NULL document")
        self._handle = out
        self._finalizer = weakref.finalize(self, _raw.lib.quire_document_close, out)

    @classmethod
    def open(cls, path: PathType, password: Optional[Union[str, bytes]] = None, **limits: int) -> "Document":
        """Opens the PDF file at ``path``; the arguments are as for :class:`Document`."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError("Document.open takes a path (str or os.PathLike); use Document.from_bytes for bytes")
        return cls(path, password, **limits)

    @classmethod
    def from_bytes(cls, data: BytesType, password: Optional[Union[str, bytes]] = None, **limits: int) -> "Document":
        """Opens a PDF from its bytes; the arguments are as for :class:`Document`."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("Document.from_bytes takes bytes, bytearray or memoryview; use Document.open for paths")
        return cls(data, password, **limits)

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the document and releases its handle. Calling it again does nothing."""
        with self._lock:
            self._handle = None
            if self._finalizer is not None:
                self._finalizer()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._handle is None

    def __enter__(self) -> "Document":
        self._live_handle()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _live_handle(self) -> Any:
        """The handle; raises :class:`StateError` once the document is closed. Call it with
        the lock held, and use the handle only while holding it."""
        handle = self._handle
        if handle is None:
            raise StateError(_raw.QUIRE_ESTATE, "the document is closed")
        return handle

    def _get_int(self, function: Callable[..., int], *args: Any) -> int:
        """Calls ``function(int32_t *out, doc, *args)`` and returns ``*out``."""
        out = c_int32()
        with self._lock:
            check(function(byref(out), self._live_handle(), *args))
        return out.value

    def _get_string(self, function: Callable[..., int], *args: Any) -> bytes:
        """Calls a length-query ``function(buf, buf_size, out_len, doc, *args)``."""
        with self._lock:
            return _query_bytes(function, self._live_handle(), *args)

    # -- properties ----------------------------------------------------------------------

    @property
    def name(self) -> Optional[str]:
        """The path the document was opened from; ``None`` when opened from bytes."""
        return self._name

    @property
    def page_count(self) -> int:
        """The number of pages."""
        return self._get_int(_raw.lib.quire_document_page_count)

    @property
    def pdf_version(self) -> str:
        """The PDF version the document declares, such as ``"1.7"``: the header's, raised by
        the catalog's /Version when that is later."""
        major = c_int32()
        minor = c_int32()
        with self._lock:
            check(_raw.lib.quire_document_pdf_version(byref(major), byref(minor), self._live_handle()))
        return "%d.%d" % (major.value, minor.value)

    @property
    def is_encrypted(self) -> bool:
        """Whether the document is encrypted (its trailer has an /Encrypt dictionary)."""
        return self._get_int(_raw.lib.quire_document_is_encrypted) != 0

    @property
    def is_repaired(self) -> bool:
        """Whether the parser repaired the document while opening it; :attr:`warnings` say
        what it repaired."""
        return self._get_int(_raw.lib.quire_document_is_repaired) != 0

    @property
    def warnings(self) -> List[str]:
        """The warnings recorded so far: damage recovered from, not errors. The list may
        grow as more of the document is read; each access returns a new list."""
        with self._lock:
            count = self._get_int(_raw.lib.quire_document_warning_count)
            return [_text(self._get_string(_raw.lib.quire_document_warning, i)) for i in range(count)]

    @property
    def metadata(self) -> Dict[str, str]:
        """The document information dictionary (/Info), such as ``{"Title": ...}``, in file
        order; each access returns a new dict. Text strings are decoded, dates returned as
        written (``D:YYYYMMDDHHmmSSOHH'mm``), names, numbers and booleans as their PDF text.
        """
        result: Dict[str, str] = {}
        with self._lock:
            count = self._get_int(_raw.lib.quire_document_metadata_count)
            for i in range(count):
                key = self._get_string(_raw.lib.quire_document_metadata_key, i)
                if b"\0" in key:
                    # Cannot be looked up through a NUL-terminated key (PDF names cannot
                    # contain NUL, so only a damaged file gets here).
                    continue
                value = self._get_string(_raw.lib.quire_document_metadata, key)
                result.setdefault(_text(key), _text(value))
        return result

    @property
    def pages(self) -> "PageList":
        """The pages, as a sequence: ``len(doc.pages)``, ``doc.pages[-1]``, iteration."""
        self._live_handle()
        return PageList(self)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        source = repr(self._name) if self._name is not None else "<bytes>"
        return "<quire.Document %s %s>" % (source, state)


class PageList(Sequence["Page"]):
    """The pages of a :class:`Document`, as a read-only sequence of :class:`Page`.

    Indexing takes negative indices and slices; an index out of range raises
    :class:`IndexOutOfRangeError` (an ``IndexError``). Its length is asked of the document
    each time, so using it after the document is closed raises :class:`StateError`.
    """

    __slots__ = ("_document",)

    def __init__(self, document: Document) -> None:
        self._document = document

    @property
    def document(self) -> Document:
        """The document the pages belong to."""
        return self._document

    def __len__(self) -> int:
        return self._document.page_count

    @overload
    def __getitem__(self, index: int) -> "Page": ...

    @overload
    def __getitem__(self, index: slice) -> List["Page"]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union["Page", List["Page"]]:
        count = len(self)
        if isinstance(index, slice):
            return [Page(self._document, i) for i in range(*index.indices(count))]
        position = operator.index(index)
        if position < 0:
            position += count
        if not 0 <= position < count:
            raise IndexOutOfRangeError(
                _raw.QUIRE_ERANGE,
                "page index %d is out of range for a document of %d pages" % (operator.index(index), count),
            )
        return Page(self._document, position)

    def __iter__(self) -> Iterator["Page"]:
        for i in range(len(self)):
            yield Page(self._document, i)

    def __repr__(self) -> str:
        return "<quire.PageList of %r>" % (self._document,)


class Page:
    """A page of a :class:`Document`, by its zero-based index.

    Get pages from :attr:`Document.pages`. A page keeps its document alive; once the
    document is closed, its properties raise :class:`StateError`. Two pages are equal when
    they are the same index of the same document.
    """

    __slots__ = ("_document", "_index", "__weakref__")

    def __init__(self, document: Document, index: int) -> None:
        self._document = document
        self._index = index

    @property
    def document(self) -> Document:
        """The document the page belongs to."""
        return self._document

    @property
    def index(self) -> int:
        """The zero-based page index."""
        return self._index

    def box(self, kind: Union[Box, int] = Box.MEDIA) -> Rect:
        """A page box, with inheritance and the specification's defaults applied: a missing
        or malformed /MediaBox is US Letter (with a warning), a missing crop box is the
        media box, a missing bleed, trim or art box is the crop box. Returned as written,
        not clipped to the media box."""
        rect = _raw.quire_rect()
        document = self._document
        with document._lock:
            check(_raw.lib.quire_page_box(byref(rect), document._live_handle(), self._index, operator.index(kind)))
        return Rect(rect.left, rect.bottom, rect.right, rect.top)

    @property
    def media_box(self) -> Rect:
        """/MediaBox: the physical medium."""
        return self.box(Box.MEDIA)

    @property
    def crop_box(self) -> Rect:
        """/CropBox: the visible region; the media box when absent."""
        return self.box(Box.CROP)

    @property
    def bleed_box(self) -> Rect:
        """/BleedBox; the crop box when absent."""
        return self.box(Box.BLEED)

    @property
    def trim_box(self) -> Rect:
        """/TrimBox; the crop box when absent."""
        return self.box(Box.TRIM)

    @property
    def art_box(self) -> Rect:
        """/ArtBox; the crop box when absent."""
        return self.box(Box.ART)

    @property
    def rotation(self) -> int:
        """The rotation in degrees clockwise: 0, 90, 180 or 270 (/Rotate, inherited)."""
        return self._document._get_int(_raw.lib.quire_page_rotation, self._index)

    @property
    def annotation_count(self) -> int:
        """The number of annotations: the dictionaries of the page's /Annots array."""
        return self._document._get_int(_raw.lib.quire_page_annotation_count, self._index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Page):
            return NotImplemented
        return self._document is other._document and self._index == other._index

    def __hash__(self) -> int:
        return hash((id(self._document), self._index))

    def __repr__(self) -> str:
        return "<quire.Page %d of %r>" % (self._index, self._document)
