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
import io
import operator
import os
import threading
import warnings
import weakref
from ctypes import byref, c_int32
from typing import (
    TYPE_CHECKING,
    Any,
    BinaryIO,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
    overload,
)

from . import _raw
from ._annotations import (
    Annotation,
    AnnotationOrder,
    AnnotationThread,
    PageListing,
    page_threads,
    take_annotation,
    take_list,
)
from ._checkpoint import CheckpointExisting, CheckpointInfo, CheckpointState, CheckpointStrategy
from ._enums import IntEnum, IntFlag
from ._errors import (
    IndexOutOfRangeError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    StateError,
    check,
    make_error,
    raise_missing_file,
)
from ._ffi import OwnedHandle, c_string, int32_index, optional_c_string, query_bytes, text
from ._fields import Attribute
from ._forms import FormField, FormKind
from ._geometry import Rect, RectLike, c_rect, rect_from_c
from ._objects import Reference, Stream, Value, _parsed, _take
from ._pages import EncryptionOptions, PageIndices, PageReport, page_index_array, take_report
from ._text import MARKUP_KINDS, TextChar, TextMatch, TextPage, TextSpan
from ._text import search as _search_text

if TYPE_CHECKING:
    # Imported when first used (Document.bookmarks): quire._bookmarks needs dataclasses,
    # which imports inspect; a program that never lists bookmarks does not pay for them.
    from ._bookmarks import BookmarkManager
    import datetime

    from ._signatures import SignatureReport, SigningIdentity

#: The file types of io (what open() returns) whose write() keeps no reference to what it
#: is given, so that a save can hand them the library's bytes without copying them.
_IO_FILES = (io.FileIO, io.BufferedWriter, io.BufferedRandom)

#: What :class:`Document` opens: a file system path, or the bytes of a PDF.
PathType = Union[str, "os.PathLike[str]"]
BytesType = Union[bytes, bytearray, memoryview]
#: What :meth:`Document.from_reader` reads from: a binary file-like object (``seek`` and
#: ``read``), or a function ``(offset, length) -> bytes``.
ReaderType = Union[BinaryIO, Callable[[int, int], BytesType]]

# The readers of documents opened by Document.from_reader, by the token passed to the
# library as the callback's payload, until the library's release callback drops them: the
# read callback must outlive every use the library makes of it, which may be after
# quire_document_close if something else still holds the document.
_readers: Dict[int, Any] = {}
_reader_tokens = iter(range(1, 1 << 62))


def _release_reader_impl(payload: Optional[int]) -> None:
    _readers.pop(payload or 0, None)


# One callback for every reader, never freed: it runs while the library drops the last
# use of a reader, and a thunk must not be freed while it runs.
_release_reader: Any = _raw.quire_file_access_release_fn(_release_reader_impl)


class _ReaderSource(NamedTuple):
    """What :meth:`Document.from_reader` hands to :class:`Document`."""

    reader: Any
    size: Optional[int]


def _open_from_reader(out: Any, reader: Any, size: Optional[int], options: Any) -> int:
    """``quire_document_open_callback`` over ``reader`` (see :meth:`Document.from_reader`)."""
    if hasattr(reader, "read") and hasattr(reader, "seek"):
        lock = threading.Lock()
        if size is None:
            with lock:
                size = reader.seek(0, os.SEEK_END)

        def fetch(offset: int, length: int) -> Any:
            with lock:
                reader.seek(offset)
                return reader.read(length)

    elif callable(reader):
        if size is None:
            raise TypeError("Document.from_reader needs size= with a read function")
        fetch = reader
    else:
        raise TypeError("Document.from_reader reads a binary file object or a function (offset, length) -> bytes, not %s"
                        % type(reader).__name__)
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise InvalidArgumentError(_raw.QUIRE_EINVAL, "size must be an int of 0 or more, not %r" % (size,))
    failures: List[BaseException] = []

    def read(payload: Optional[int], offset: int, buffer: int, length: int) -> int:
        try:
            data = fetch(offset, length)
            data = data if isinstance(data, bytes) else memoryview(data).tobytes()  # an int is refused
            if len(data) != length:
                raise QuireReadError("the reader gave %d bytes at offset %d, %d asked for" % (len(data), offset, length))
            ctypes.memmove(buffer, data, length)
            return 0
        except BaseException as error:  # never into the library: it reads a failure
            del failures[:]
            failures.append(error)
            return 1

    callback = _raw.quire_file_access_read_fn(read)
    token = next(_reader_tokens)
    _readers[token] = (callback, reader)
    access = _raw.file_access_init()
    access.size = size
    access.read = callback
    access.release = _release_reader
    access.payload = token
    status = _raw.lib.quire_document_open_callback(byref(out), byref(access), byref(options))
    if status != _raw.QUIRE_OK and failures:
        if not isinstance(failures[0], Exception):
            raise failures[0]  # KeyboardInterrupt, SystemExit: the caller's, as they were
        try:
            check(status)
        except Exception as error:
            raise error from failures[0]
    return int(status)


class QuireReadError(OSError):
    """A reader of :meth:`Document.from_reader` gave fewer bytes than asked for."""


class Action(IntEnum):
    """What an outline item does when activated (ISO 32000-2 §12.6.4; ``QUIRE_ACTION_*``):

    - ``NONE``: no destination and no action;
    - ``GOTO``: go to a page of this document (a /Dest or a GoTo action);
    - ``GOTOR``: go to a page of another file; the target is its path;
    - ``URI``: open a URI; the target is the URI;
    - ``NAMED``: a named action such as NextPage; the target is the name;
    - ``LAUNCH``: launch an application or file; the target is its path;
    - ``OTHER``: another action type; the target is its /S name.
    """

    NONE = _raw.QUIRE_ACTION_NONE
    GOTO = _raw.QUIRE_ACTION_GOTO
    GOTOR = _raw.QUIRE_ACTION_GOTOR
    URI = _raw.QUIRE_ACTION_URI
    NAMED = _raw.QUIRE_ACTION_NAMED
    LAUNCH = _raw.QUIRE_ACTION_LAUNCH
    OTHER = _raw.QUIRE_ACTION_OTHER


class Permissions(IntFlag):
    """The permission bits of an encrypted document, /P (ISO 32000-2 Table 22), by their
    names. The value is the raw number: ``int(permissions)`` gives the 32 bits as written
    (reserved bits included), and a test reads ``Permissions.PRINT in permissions``.

    With revision 2 of the security handler only PRINT, MODIFY, COPY and ANNOTATE exist;
    the later bits are set. Quire reports the bits; it is for the application to honour
    them, as every PDF library leaves it. An owner password grants everything, whatever
    the bits say (see :attr:`Encryption.is_owner`)."""

    PRINT = 1 << 2
    """Bit 3: print (at low quality, unless PRINT_HIGH_QUALITY is set too)."""
    MODIFY = 1 << 3
    """Bit 4: change the contents, other than what the bits below cover."""
    COPY = 1 << 4
    """Bit 5: copy or extract text and graphics."""
    ANNOTATE = 1 << 5
    """Bit 6: add or change annotations, and fill in forms."""
    FILL_FORMS = 1 << 8
    """Bit 9: fill in form fields, even without ANNOTATE."""
    EXTRACT_ACCESSIBILITY = 1 << 9
    """Bit 10: extract for accessibility (deprecated in PDF 2.0)."""
    ASSEMBLE = 1 << 10
    """Bit 11: insert, rotate or delete pages; make bookmarks and thumbnails."""
    PRINT_HIGH_QUALITY = 1 << 11
    """Bit 12: print at full quality."""


class Encryption(NamedTuple):
    """How a document is encrypted (the standard security handler, ISO 32000-2 §7.6.4)."""

    method: str
    """The method used for streams: ``"RC4-40"``, ``"RC4-128"``, ``"AES-128"``,
    ``"AES-256"``, or ``"Identity"`` (crypt filters that leave the data as it is)."""
    revision: int
    """The security handler's revision, /R: 2 to 6."""
    permissions: Permissions
    """The permission bits, /P (ISO 32000-2 Table 22), as named flags
    (``Permissions.COPY in encryption.permissions``); an ``int``, the unsigned 32-bit
    number as written."""
    is_owner: bool
    """Whether the password given was the owner password rather than the user password."""


_XREF_FORMS = {
    _raw.QUIRE_XREF_TABLE: "table",
    _raw.QUIRE_XREF_STREAM: "stream",
    _raw.QUIRE_XREF_HYBRID: "hybrid",
    _raw.QUIRE_XREF_REBUILT: "rebuilt",
}

_ENCRYPTION_METHODS = {
    _raw.QUIRE_ENCRYPTION_RC4_40: "RC4-40",
    _raw.QUIRE_ENCRYPTION_RC4_128: "RC4-128",
    _raw.QUIRE_ENCRYPTION_AES_128: "AES-128",
    _raw.QUIRE_ENCRYPTION_AES_256: "AES-256",
    _raw.QUIRE_ENCRYPTION_IDENTITY: "Identity",
}


class RedactionResult(NamedTuple):
    """What :meth:`Document.apply_redactions` did (``quire_redaction_result``)."""

    #: The Redact annotations applied (and removed).
    redactions: int
    #: The pages whose content changed.
    pages: int
    #: The glyphs removed from the content.
    glyphs_removed: int
    #: The images removed whole (image XObjects drawn in a region, inline images).
    images_removed: int
    #: The images whose pixels in a region were blanked and re-encoded.
    images_blanked: int
    #: The vector paths removed (wholly inside a region).
    paths_removed: int
    #: The annotations and widgets removed because they intersect a region.
    annotations_removed: int


def _fill_array(fill: Optional[Sequence[float]]) -> Tuple[Any, int]:
    """A fill colour as a C array and its count (``None``: none)."""
    if fill is None:
        return None, 0
    values = [float(v) for v in fill]
    return (ctypes.c_double * max(len(values), 1))(*values), len(values)


class OutlineItem:
    """An item of the document outline (the bookmarks, ISO 32000-2 §12.3.3).

    :attr:`Document.outline` gives the top-level items, each with its :attr:`children`;
    :attr:`Document.outline_items` gives every item in reading order (depth first, parents
    before children), where :attr:`index` is the item's position. Items are snapshots:
    they do not change when the document does.
    """

    __slots__ = (
        "index",
        "title",
        "depth",
        "parent_index",
        "parent",
        "children",
        "is_open",
        "action",
        "page_index",
        "target",
        "__weakref__",
    )

    index: int
    """The position of the item in :attr:`Document.outline_items`."""
    title: str
    """The title, decoded (``""`` for an item without one)."""
    depth: int
    """0 for a top-level item, 1 for its children, and so on."""
    parent_index: Optional[int]
    """The :attr:`index` of the parent item; ``None`` for a top-level item."""
    parent: Optional["OutlineItem"]
    """The parent item; ``None`` for a top-level item."""
    children: List["OutlineItem"]
    """The child items, in order."""
    is_open: bool
    """Whether the item shows its children when the outline is first displayed."""
    action: Action
    """What the item does when activated."""
    page_index: Optional[int]
    """For :attr:`Action.GOTO` and :attr:`Action.GOTOR`, the zero-based target page;
    ``None`` otherwise, or when the destination does not resolve to a page."""
    target: Optional[str]
    """The URI (:attr:`Action.URI`), the file (:attr:`Action.GOTOR`,
    :attr:`Action.LAUNCH`), the action name (:attr:`Action.NAMED`) or the /S name
    (:attr:`Action.OTHER`); ``None`` for GoTo and for items without an action."""

    def __init__(
        self,
        index: int,
        title: str,
        depth: int,
        parent: Optional["OutlineItem"],
        is_open: bool,
        action: Action,
        page_index: Optional[int],
        target: Optional[str],
    ) -> None:
        self.index = index
        self.title = title
        self.depth = depth
        self.parent = parent
        self.parent_index = parent.index if parent is not None else None
        self.children = []
        self.is_open = is_open
        self.action = action
        self.page_index = page_index
        self.target = target

    def walk(self) -> Iterator["OutlineItem"]:
        """This item, then its descendants, depth first."""
        stack = [self]
        while stack:
            item = stack.pop()
            yield item
            stack.extend(reversed(item.children))

    def __repr__(self) -> str:
        where = ""
        if self.page_index is not None:
            where = " page %d" % self.page_index
        elif self.target is not None:
            where = " %r" % self.target
        return "<quire.OutlineItem %d %r depth %d %s%s>" % (
            self.index,
            self.title,
            self.depth,
            self.action.name,
            where,
        )


# The limit fields of quire_open_options, with their widths in bits.
_LIMIT_FIELDS: Dict[str, int] = {
    field[0]: ctypes.sizeof(field[1]) * 8
    for field in _raw.quire_open_options._fields_
    if field[0].startswith("max_")
}


def _build_options(password: Optional[Union[str, bytes]], limits: Dict[str, int]) -> _raw.quire_open_options:
    options = _raw.open_options_init()
    if password is not None:
        if not isinstance(password, (str, bytes)):
            raise TypeError("password must be str, bytes or None, not %s" % type(password).__name__)
        options.password = c_string(password, "the password")
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


#: How many pages' annotations a document keeps read (Document._page_listing).
_LISTED_PAGES = 64


def _object_number(number: int) -> int:
    """An object number for the C layer (int32); a negative one is passed on, for the
    library to refuse with QUIRE_ERANGE."""
    value = operator.index(number)
    if not -(1 << 31) <= value < (1 << 31):
        raise IndexOutOfRangeError(_raw.QUIRE_ERANGE, "object number %d is out of range" % value)
    return value


#: A progress callback of a long operation: ``progress(done, total)``, where returning
#: ``True`` (or raising) cancels.
ProgressCallback = Callable[[int, int], Optional[bool]]


def _progress_callback(
    progress: Optional[ProgressCallback], failures: List[BaseException]
) -> Optional[Any]:
    """The C progress callback of a long operation (a save, a flatten, an import or
    export, a search, the text of a document) for ``progress`` (None for none): ``True``
    from ``progress``, or an exception (kept in ``failures``), cancels."""
    if progress is None:
        return None
    if not callable(progress):
        raise TypeError("progress is a callable taking (done, total), not %s" % type(progress).__name__)

    def callback(done: int, total: int, payload: Optional[int]) -> int:
        try:
            return 1 if progress(int(done), int(total)) is True else 0
        except BaseException as error:  # noqa: B902 - it must not escape into the library
            failures.append(error)
            return 1

    # The progress field of every long operation's options has this signature, and ctypes
    # makes one class per signature: it is also quire_flatten_options_progress_fn, ...
    return _raw.quire_save_options_progress_fn(callback)


def _raise_progress_failure(status: int, failures: List[BaseException]) -> None:
    """After a long operation: an exception the progress callback raised, as the cause of
    the :class:`UserAbortError` of the cancelled operation (other ``BaseException`` as it
    is)."""
    if not failures:
        return
    original = failures[0]
    if not isinstance(original, Exception):
        raise original
    raise make_error(status, text(_raw.lib.quire_last_error_message())) from original


def _save_options(full: bool, object_streams: bool) -> _raw.quire_save_options:
    if object_streams and not full:
        raise InvalidArgumentError(
            _raw.QUIRE_EINVAL, "object_streams=True needs full=True: an incremental save appends to the file as it is"
        )
    options = _raw.save_options_init()
    options.mode = _raw.QUIRE_SAVE_FULL if full else _raw.QUIRE_SAVE_INCREMENTAL
    options.object_streams = 1 if object_streams else 0
    return options


def _close_document(handle: Any, keepalive: Dict[str, Any]) -> None:
    """Closes a document handle; the callbacks in ``keepalive`` live until it returns."""
    _raw.lib.quire_document_close(handle)
    keepalive.clear()


class Document(OwnedHandle):
    """An open PDF document.

    ``source`` is a path (``str`` or :class:`os.PathLike`) or the bytes of a PDF
    (``bytes``, ``bytearray`` or ``memoryview``; they are copied, so the caller may reuse
    them). ``password`` is the user or owner password of an encrypted document. The
    keyword arguments are safety limits (``quire_open_options``); 0, the default, means
    the library's default. Past a limit, opening or reading raises :class:`LimitError`.

    ==========================  =========================================================
    limit                       what it bounds (library default)
    ==========================  =========================================================
    max_nesting_depth           nesting of arrays and dictionaries in one object (256;
                                capped at 1024); deeper objects read as null, with a
                                warning
    max_page_tree_depth         depth of the page tree (1024)
    max_xref_chain              cross-reference sections followed through /Prev (1024)
    max_objects                 highest object number (10000000)
    max_stream_bytes            bytes one stream may decode to (256 MiB)
    max_total_decoded_bytes     bytes all streams together may decode to (2 GiB)
    max_decompression_ratio     decoded/encoded size of one stream past 1 MiB (1000)
    max_pages                   pages the page tree may expand to (1048575)
    ==========================  =========================================================

    Besides reading (pages, metadata, :attr:`outline`, :attr:`encryption`), a document
    gives access to its objects (:attr:`trailer`, :meth:`get_object`, :meth:`resolve`,
    :meth:`stream_data`; see :mod:`quire._objects` for how PDF values map to Python),
    edits them (:meth:`set_object`, :meth:`set_dict_value`, :meth:`add_object`,
    :meth:`add_stream`, :meth:`delete_object`) and saves the result (:meth:`save`,
    :meth:`save_to_bytes`), incrementally by default.

    Use it as a context manager, or call :meth:`close`; a document that is neither is
    closed when it is garbage collected. After :meth:`close`, every method and property
    (and those of its pages) raises :class:`StateError`.

    Raises:
        MissingFileError: no file at ``source`` (a :class:`NotFoundError` and a
            ``FileNotFoundError``).
        FormatError: not a PDF, or damaged beyond repair; also for empty bytes.
        PasswordError: encrypted, and ``password`` does not open it.
        QuireIOError, UnsupportedError, LimitError: as their names say.
        InvalidArgumentError: a limit out of range, a NUL character in the path or password.
        TypeError: ``source`` is neither a path nor bytes.
    """

    _closed_message = "the document is closed"

    def __init__(
        self,
        source: Union[PathType, BytesType, _ReaderSource],
        password: Optional[Union[str, bytes]] = None,
        *,
        max_nesting_depth: int = 0,
        max_page_tree_depth: int = 0,
        max_xref_chain: int = 0,
        max_objects: int = 0,
        max_stream_bytes: int = 0,
        max_total_decoded_bytes: int = 0,
        max_decompression_ratio: int = 0,
        max_pages: int = 0,
    ) -> None:
        self._lock = threading.RLock()
        self._handle: Optional[Any] = None  # a _raw.quire_document_p while open
        # The annotations of each page read so far, by page index: see _page_listing.
        self._listings: Dict[int, PageListing] = {}
        self._finalizer: Optional[weakref.finalize[[Any, Dict[str, Any]], Document]] = None
        self._name: Optional[str] = None
        # Incremented by each full save, after which streams read before it are stale.
        self._epoch = 0

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
                "max_pages": max_pages,
            },
        )
        out = _raw.quire_document_p()
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
            status = _raw.lib.quire_document_open_memory(byref(out), data, len(data), byref(options))
        elif isinstance(source, _ReaderSource):
            status = _open_from_reader(out, source.reader, source.size, options)
        elif isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            encoded = c_string(os.fsencode(path), "the path")
            self._name = os.fsdecode(path)
            status = _raw.lib.quire_document_open(byref(out), encoded, byref(options))
            if status == _raw.QUIRE_ENOTFOUND:
                raise_missing_file(os.fsdecode(path))
        else:
            raise TypeError(
                "a Document opens a path (str or os.PathLike) or bytes, not %s" % type(source).__name__
            )
        check(status)
        if not out:
            raise InternalError(_raw.QUIRE_EINTERNAL, "the library returned QUIRE_OK and a NULL document")
        self._handle = out
        # What the library may call back until the document is closed (bookmark providers,
        # the change callback): kept alive by the finalizer itself, so that garbage
        # collection cannot free a callback before the close that releases it.
        self._keepalive: Dict[str, Any] = {}
        self._bookmarks: Optional[BookmarkManager] = None
        self._finalizer = weakref.finalize(self, _close_document, out, self._keepalive)

    @classmethod
    def _adopt(cls, handle: Any) -> "Document":
        """A :class:`Document` around a handle the library gave (a new reference, owned from
        now on): the sync client's downloads, :meth:`extract`."""
        doc = cls.__new__(cls)
        doc._lock = threading.RLock()
        doc._listings = {}
        doc._name = None
        doc._epoch = 0
        doc._handle = handle
        doc._keepalive = {}
        doc._bookmarks = None
        doc._finalizer = weakref.finalize(doc, _close_document, handle, doc._keepalive)
        return doc

    @classmethod
    def open(cls, path: PathType, password: Optional[Union[str, bytes]] = None, **limits: int) -> "Document":
        """Opens the PDF file at ``path``; the arguments are as for :class:`Document`."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError("Document.open takes a path (str or os.PathLike); use Document.from_bytes for bytes")
        return cls(path, password, **limits)

    @classmethod
    def from_reader(
        cls,
        reader: ReaderType,
        size: Optional[int] = None,
        password: Optional[Union[str, bytes]] = None,
        **limits: int,
    ) -> "Document":
        """Opens a PDF whose bytes ``reader`` serves on demand (``quire_document_open_callback``,
        as PDFium's ``FPDF_LoadCustomDocument``): a binary file-like object with ``seek`` and
        ``read`` (``size`` defaults to its length), or a function ``(offset, length) -> bytes``
        (``size`` required) over a database blob, an object store's range reads, and so on.

        The library reads only what it needs, when it needs it (the header, the end, the
        cross-reference, then the objects that calls ask for), in blocks of up to 64 KB, each
        once; ``reader`` must give exactly the bytes asked for. It is called on the thread
        that uses the document, never twice at once, for at most 4 MiB a call, and kept
        alive until the library is done with it (after :meth:`close`); it must not use this
        document. An exception from it, or short data, fails the open with
        :class:`QuireIOError` (the reader's exception as its ``__cause__``); later, it fails
        the call that needed those bytes with :class:`QuireIOError`, and they are asked for
        again next time. The other arguments are as for :class:`Document`.
        """
        return cls(_ReaderSource(reader, size), password, **limits)

    @classmethod
    def from_bytes(cls, data: BytesType, password: Optional[Union[str, bytes]] = None, **limits: int) -> "Document":
        """Opens a PDF from its bytes; the arguments are as for :class:`Document`."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("Document.from_bytes takes bytes, bytearray or memoryview; use Document.open for paths")
        return cls(data, password, **limits)

    # -- lifetime (closed and the context manager: OwnedHandle) --------------------------

    def close(self) -> None:
        """Closes the document and releases its handle. Calling it again does nothing.
        Annotations read from it stay readable (they are values)."""
        super().close()
        self._listings.clear()

    def _live_handle(self) -> Any:
        """The handle, for a call that may change the document; raises :class:`StateError`
        once the document is closed. Call it with the lock held, and use the handle only
        while holding it.

        It forgets the annotations read per page (:meth:`_page_listing`): a call goes
        through here unless it is known only to read (:meth:`_read_handle`), so that every
        edit, save, import, checkpoint load or bookmark change, and any call added later,
        is followed by fresh reads. Correct first, then fast."""
        handle = self._live()
        self._listings.clear()
        return handle

    def _read_handle(self) -> Any:
        """The handle, for a call that only reads the document: the annotations read per
        page stay. Otherwise as :meth:`_live_handle`."""
        return self._live()

    def _get_int(self, function: Callable[..., int], *args: Any) -> int:
        """Calls ``function(int32_t *out, doc, *args)``, which only reads, and returns ``*out``."""
        out = c_int32()
        with self._lock:
            check(function(byref(out), self._read_handle(), *args))
        return out.value

    def _get_string(self, function: Callable[..., int], *args: Any) -> bytes:
        """Calls a length-query ``function(buf, buf_size, out_len, doc, *args)``, which only
        reads."""
        with self._lock:
            return query_bytes(function, self._read_handle(), *args)

    # -- properties ----------------------------------------------------------------------

    @property
    def name(self) -> Optional[str]:
        """The path the document was opened from; ``None`` when opened from bytes."""
        return self._name

    @property
    def page_count(self) -> int:
        """The number of pages, as PDFium and MuPDF count them: the page tree root's /Count
        when it is an integer from 1 to ``max_pages``, else the number of pages found in the
        tree. A damaged file's /Count may count pages that the tree does not hold: those
        pages are in :attr:`pages`, but reading them raises :class:`NotFoundError` (see
        :class:`Page`)."""
        return self._get_int(_raw.lib.quire_document_page_count)

    @property
    def pdf_version(self) -> str:
        """The PDF version the document declares, such as ``"1.7"``: the header's, raised by
        the catalog's /Version when that is later."""
        major = c_int32()
        minor = c_int32()
        with self._lock:
            check(_raw.lib.quire_document_pdf_version(byref(major), byref(minor), self._read_handle()))
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
            return [text(self._get_string(_raw.lib.quire_document_warning, i)) for i in range(count)]

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
                result.setdefault(text(key), text(value))
        return result

    @property
    def pages(self) -> "PageList":
        """The pages, as a sequence: ``len(doc.pages)``, ``doc.pages[-1]``, iteration. Its
        length is :attr:`page_count`, missing pages included (see :class:`PageList`)."""
        self._read_handle()
        return PageList(self)

    # -- document structure --------------------------------------------------------------

    @property
    def xref_form(self) -> str:
        """The form of the newest cross-reference section: ``"table"`` (a classic ``xref``
        table), ``"stream"`` (a cross-reference stream), ``"hybrid"`` (a table with an
        /XRefStm stream) or ``"rebuilt"`` (none was usable: rebuilt by scanning)."""
        form = self._get_int(_raw.lib.quire_document_xref_form)
        try:
            return _XREF_FORMS[form]
        except KeyError:
            raise InternalError(_raw.QUIRE_EINTERNAL, "quire_document_xref_form gave an unknown form %d" % form) from None

    @property
    def object_count(self) -> int:
        """The number of objects the cross-reference lists (in use and free), plus objects
        added since opening. Object numbers run from 0 to ``object_count - 1``."""
        return self._get_int(_raw.lib.quire_document_object_count)

    @property
    def is_linearized(self) -> bool:
        """Whether the file is linearized ("fast web view"). An incremental save keeps the
        flag's object; a full save drops linearization."""
        return self._get_int(_raw.lib.quire_document_is_linearized) != 0

    @property
    def encryption(self) -> Optional[Encryption]:
        """How the document is encrypted, or ``None`` when it is not."""
        method = c_int32()
        revision = c_int32()
        permissions = ctypes.c_uint32()
        is_owner = c_int32()
        with self._lock:
            check(
                _raw.lib.quire_document_encryption(
                    byref(method), byref(revision), byref(permissions), byref(is_owner), self._read_handle()
                )
            )
        if method.value == _raw.QUIRE_ENCRYPTION_NONE:
            return None
        name = _ENCRYPTION_METHODS.get(method.value)
        if name is None:
            raise InternalError(
                _raw.QUIRE_EINTERNAL, "quire_document_encryption gave an unknown method %d" % method.value
            )
        return Encryption(name, revision.value, Permissions(permissions.value), is_owner.value != 0)

    # -- outline -------------------------------------------------------------------------

    @property
    def outline_items(self) -> List[OutlineItem]:
        """Every outline item, all levels, in reading order (depth first, parents before
        children); empty when the document has no outline. A cycle in the outline is cut,
        with a warning. Each access reads the outline anew."""
        lib = _raw.lib
        items: List[OutlineItem] = []
        depth = c_int32()
        parent = c_int32()
        child_count = c_int32()
        is_open = c_int32()
        action = c_int32()
        page_index = c_int32()
        with self._lock:
            handle = self._read_handle()
            count = self._get_int(lib.quire_document_outline_count)
            for index in range(count):
                check(
                    lib.quire_document_outline_item(
                        byref(depth),
                        byref(parent),
                        byref(child_count),
                        byref(is_open),
                        byref(action),
                        byref(page_index),
                        handle,
                        index,
                    )
                )
                title = text(query_bytes(lib.quire_document_outline_title, handle, index))
                try:
                    target: Optional[str] = text(query_bytes(lib.quire_document_outline_target, handle, index))
                except NotFoundError:
                    target = None
                parent_item: Optional[OutlineItem] = None
                if parent.value >= 0:
                    if parent.value >= index:
                        raise InternalError(
                            _raw.QUIRE_EINTERNAL,
                            "outline item %d names item %d as its parent, which does not come before it"
                            % (index, parent.value),
                        )
                    parent_item = items[parent.value]
                try:
                    kind = Action(action.value)
                except ValueError:
                    kind = Action.OTHER
                has_page = kind in (Action.GOTO, Action.GOTOR) and page_index.value >= 0
                item = OutlineItem(
                    index,
                    title,
                    depth.value,
                    parent_item,
                    is_open.value != 0,
                    kind,
                    page_index.value if has_page else None,
                    target,
                )
                if parent_item is not None:
                    parent_item.children.append(item)
                items.append(item)
        return items

    @property
    def outline(self) -> List[OutlineItem]:
        """The top-level outline items, each with its :attr:`OutlineItem.children` (the
        tree of :attr:`outline_items`); empty when the document has no outline."""
        return [item for item in self.outline_items if item.parent is None]

    # -- low-level objects ---------------------------------------------------------------

    def _get_value(self, function: Callable[..., int], *args: Any) -> Value:
        """Calls ``function(quire_value **out, doc, *args)`` and converts the new value."""
        out = _raw.quire_value_p()
        with self._lock:
            check(function(byref(out), self._read_handle(), *args))
            return _take(out, self, self._epoch)

    @property
    def trailer(self) -> Dict[str, Value]:
        """The trailer dictionary of the newest revision, with unsaved changes, such as
        ``{"Root": Reference(1, 0), "Size": 12, ...}``. Each access returns a new dict."""
        value = self._get_value(_raw.lib.quire_document_trailer)
        if not isinstance(value, dict):
            raise InternalError(_raw.QUIRE_EINTERNAL, "the trailer is not a dictionary")
        return value

    def get_object(self, number: Union[int, Reference]) -> Value:
        """Indirect object ``number`` (or the object a :class:`Reference` names, by number),
        with unsaved changes; ``None`` for a free or missing object. References inside it
        are not resolved.

        Raises:
            IndexOutOfRangeError: a negative number.
        """
        if isinstance(number, Reference):
            number = number.number
        return self._get_value(_raw.lib.quire_document_object, _object_number(number))

    def resolve(self, value: Value) -> Value:
        """``value`` resolved: a :class:`Reference` becomes the object it names (a chain of
        references is followed; a cycle, or a free object, gives ``None``); any other value
        comes back as the library reads it. Only the outer value is resolved, not the
        references inside an array or a dictionary."""
        out = _raw.quire_value_p()
        with self._lock:
            handle = self._read_handle()
            with _parsed(value, self) as c_value:
                check(_raw.lib.quire_document_resolve(byref(out), handle, c_value))
            return _take(out, self, self._epoch)

    def stream_data(self, stream: Stream, decoded: bool = True) -> bytes:
        """The data of ``stream``, a :class:`Stream` read from this document: decoded
        (filters undone; image codecs such as DCT or JPX stay encoded) or, with
        ``decoded=False``, as stored in the file (decrypted if the file is encrypted).

        Raises:
            UnsupportedError: a filter Quire does not know.
            LimitError: a decode limit (``max_stream_bytes``, ...).
            InvalidArgumentError: a stream of another document.
            TypeError: not a :class:`Stream`.
        """
        if not isinstance(stream, Stream):
            raise TypeError("stream_data takes a quire.Stream, not %s" % type(stream).__name__)
        form = _raw.QUIRE_STREAM_DECODED if decoded else _raw.QUIRE_STREAM_RAW
        # The library computes the data on every call, so a buffer that is probably large
        # enough is tried first: /DL (the decoded length) or /Length (the stored one).
        hint = 0
        for key in (("DL", "Length") if decoded else ("Length",)):
            length = stream.get(key)
            if isinstance(length, int) and not isinstance(length, bool) and 0 < length <= (64 << 20):
                hint = length * (1 if key == "DL" or not decoded else 4) + 16
                break
        with self._lock:
            handle = self._read_handle()
            return query_bytes(
                _raw.lib.quire_document_stream_data,
                handle,
                stream._handle_for(self),
                form,
                size_hint=hint,
            )

    # -- editing -------------------------------------------------------------------------

    def set_object(self, number: Union[int, Reference], value: Value) -> None:
        """Replaces indirect object ``number`` with ``value`` (unsaved until :meth:`save`).
        A :class:`Stream` of this document is copied with its data.

        Raises:
            InvalidArgumentError: object 0, or the /Encrypt dictionary.
            IndexOutOfRangeError: a number that is not in use.
        """
        if isinstance(number, Reference):
            number = number.number
        number = _object_number(number)
        with self._lock:
            handle = self._live_handle()
            with _parsed(value, self) as c_value:
                check(_raw.lib.quire_document_set_object(handle, number, c_value))

    def set_dict_value(self, number: Union[int, Reference], key: str, value: Value) -> None:
        """Sets ``key`` (a name without its slash, such as ``"Annots"``) of the dictionary
        or stream that is indirect object ``number`` to ``value``; ``None`` removes the key.

        Raises:
            InvalidArgumentError: the object is not a dictionary or a stream.
            IndexOutOfRangeError: a number that is not in use.
        """
        if isinstance(number, Reference):
            number = number.number
        number = _object_number(number)
        if not isinstance(key, str):
            raise TypeError("key is a str (a name without the slash), not %s" % type(key).__name__)
        encoded = c_string(key.encode("utf-8", "surrogateescape"), "the key")
        with self._lock:
            handle = self._live_handle()
            if value is None:
                check(_raw.lib.quire_document_set_dict_value(handle, number, encoded, None))
                return
            if isinstance(value, Stream):
                raise TypeError("a stream cannot be a dictionary value: refer to it with its quire.Reference")
            with _parsed(value, self) as c_value:
                check(_raw.lib.quire_document_set_dict_value(handle, number, encoded, c_value))

    def add_object(self, value: Value) -> Reference:
        """Adds ``value`` as a new indirect object and returns a reference to it
        (generation 0).

        Raises:
            LimitError: past ``max_objects``.
        """
        out = c_int32()
        with self._lock:
            handle = self._live_handle()
            with _parsed(value, self) as c_value:
                check(_raw.lib.quire_document_add_object(byref(out), handle, c_value))
        return Reference(out.value, 0)

    def add_stream(self, dictionary: Optional[Mapping[str, Value]] = None, data: BytesType = b"") -> Reference:
        """Adds a new stream object with ``dictionary`` (``None`` for an empty one) and
        ``data``, already encoded for the filters the dictionary names (for example
        ``{"Filter": Name("FlateDecode")}`` and ``zlib.compress(...)``); the library writes
        /Length itself. Returns a reference to it.

        Raises:
            LimitError: past ``max_objects``.
        """
        if dictionary is not None and not isinstance(dictionary, Mapping):
            raise TypeError("dictionary is a mapping or None, not %s" % type(dictionary).__name__)
        if isinstance(dictionary, Stream):
            raise TypeError("dictionary is a plain mapping; use set_object to copy a stream")
        payload = bytes(data)
        out = c_int32()
        with self._lock:
            handle = self._live_handle()
            if dictionary is None:
                check(_raw.lib.quire_document_add_stream(byref(out), handle, None, payload, len(payload)))
            else:
                with _parsed(dict(dictionary), self) as c_value:
                    check(_raw.lib.quire_document_add_stream(byref(out), handle, c_value, payload, len(payload)))
        return Reference(out.value, 0)

    def delete_object(self, number: Union[int, Reference]) -> None:
        """Deletes indirect object ``number``: references to it read as null, and saving
        writes it as a free entry.

        Raises:
            InvalidArgumentError: object 0, the catalog or the /Encrypt dictionary.
            IndexOutOfRangeError: a number that is not in use.
        """
        if isinstance(number, Reference):
            number = number.number
        number = _object_number(number)
        with self._lock:
            check(_raw.lib.quire_document_delete_object(self._live_handle(), number))

    @property
    def bookmarks(self) -> BookmarkManager:
        """The user bookmarks of this document (:class:`quire.BookmarkManager`): add,
        remove, move, list in an order, and the chain of providers that store them."""
        self._read_handle()
        if self._bookmarks is None:
            from ._bookmarks import BookmarkManager

            self._bookmarks = BookmarkManager(self)
        return self._bookmarks

    @property
    def has_unsaved_changes(self) -> bool:
        """Whether the document has edits that no save has written yet."""
        return self._get_int(_raw.lib.quire_document_has_unsaved_changes) != 0

    # -- annotations, replies and review states -------------------------------------------

    def _annotation_number(self, target: Union[int, "Annotation", Reference], what: str = "the annotation") -> int:
        """The object number of ``target``: an ``int``, a :class:`Reference` or an
        :class:`Annotation` of this document (one not added yet raises)."""
        if isinstance(target, Annotation):
            number = target.id
            if number is None:
                raise InvalidArgumentError(
                    _raw.QUIRE_EINVAL,
                    "%s is not in a document (add it first, or it is written directly in a page's /Annots)" % what,
                )
            return number
        if isinstance(target, Reference):
            return _object_number(target.number)
        if isinstance(target, bool) or not isinstance(target, int):
            raise TypeError("%s is an object number (int) or a quire.Annotation, not %s" % (what, type(target).__name__))
        return _object_number(target)

    def _new_annotation(self, function: Callable[..., int], *args: Any, changes: bool = True) -> Annotation:
        """Calls ``function(quire_annotation **out, doc, *args)``; ``changes=False`` for a
        function that only reads."""
        out = _raw.quire_annotation_p()
        with self._lock:
            check(function(byref(out), self._live_handle() if changes else self._read_handle(), *args))
        return take_annotation(out, self)

    def _read_list(self, function: Callable[..., int], *args: Any) -> List[Annotation]:
        """Calls ``function(quire_annotation_list **out, doc, *args)``, which only reads."""
        out = _raw.quire_annotation_list_p()
        with self._lock:
            check(function(byref(out), self._read_handle(), *args))
        return take_list(out, self)

    def _page_listing(self, index: int) -> PageListing:
        """The annotations of page ``index``, read once and kept until the document changes
        (every call through :meth:`_live_handle` drops them) or one of them does (which
        marks the listing stale). Reading a page in a loop reads it once."""
        with self._lock:
            listing = self._listings.pop(index, None)
            if listing is None or listing.stale:
                # One call for the page's snapshot, one for what a viewer lists of each
                # annotation (quire_annotation_list_infos): the annotations make their
                # own handles only when a call needs one.
                out = _raw.quire_annotation_list_p()
                check(_raw.lib.quire_page_annotations(byref(out), self._read_handle(), index))
                listing = PageListing(take_list(out, self))
            # Most recently used last; the least recently used page goes past the limit, so
            # that a walk over a large document does not keep every annotation alive.
            self._listings[index] = listing
            while len(self._listings) > _LISTED_PAGES:
                del self._listings[next(iter(self._listings))]
            return listing

    def _annotation_replies(self, annotation: Annotation) -> List[Annotation]:
        """What :attr:`Annotation.replies` reads."""
        number = annotation.id
        if number is None:
            return []
        return list(self._page_listing(annotation.page_index).replies_to(number))

    def _annotation_link(self, annotation: Annotation, key: str) -> Optional[Annotation]:
        """The annotation that entry ``key`` (/Popup, /Parent) of ``annotation``'s object
        refers to, preferably as listed on its page; ``None`` when there is none, or it is
        not an annotation that a page lists."""
        number = annotation.id
        if number is None:
            return None
        value = self.get_object(number)
        target = value.get(key) if isinstance(value, dict) else None
        if not isinstance(target, Reference):
            return None
        found = self._page_listing(annotation.page_index).by_number(target.number)
        if found is not None:
            return found
        try:
            return self.annotation(target.number)
        except NotFoundError:
            return None

    def _refresh(self, annotation: Annotation) -> None:
        """Re-reads ``annotation`` from the document, in place."""
        number = annotation.id
        if number is None:
            return
        out = _raw.quire_annotation_p()
        with self._lock:
            check(_raw.lib.quire_document_annotation(byref(out), self._read_handle(), number))
        if not out:
            raise InternalError(_raw.QUIRE_EINTERNAL, "the library returned QUIRE_OK and a NULL annotation")
        annotation._replace(out)

    def annotation(self, number: Union[int, Reference]) -> Annotation:
        """The annotation that is indirect object ``number``, wherever its page is (a new
        :class:`Annotation`, independent of the document).

        Raises:
            NotFoundError: no page lists that object as an annotation.
        """
        return self._new_annotation(_raw.lib.quire_document_annotation, self._annotation_number(number), changes=False)

    def annotation_record_id(self, annotation: Annotation) -> str:
        """The record id of ``annotation`` (an :class:`Annotation` read from or stored in
        this document): the ``id`` of its record in :meth:`export_annotations_json` and on
        the sync server, which :class:`quire.SyncEvent`'s ``record_id`` and ``record_ids``
        name. Its /QuireID, else its /NM, else its object number, made unique in page order
        (docs/annotation-json.md), so this reads every page up to the annotation's.

        Raises:
            NotFoundError: its page does not list it (not added yet, or deleted since).
        """
        if not isinstance(annotation, Annotation):
            raise TypeError("annotation_record_id takes a quire.Annotation, not %s" % type(annotation).__name__)
        with self._lock, annotation._lock:
            data = query_bytes(_raw.lib.quire_document_annotation_record_id, self._read_handle(), annotation._live())
        return text(data)

    def annotation_by_record_id(self, record_id: str) -> Annotation:
        """The annotation whose record id (:meth:`annotation_record_id`) is ``record_id``: what
        a sync event names, as an annotation to read or change (a new :class:`Annotation`,
        independent of the document). Reads every page; to look up many ids, read
        :meth:`export_annotations_json` once instead.

        Raises:
            NotFoundError: no annotation has that record id.
            InvalidArgumentError: ``record_id`` is empty or contains a NUL character.
        """
        return self._new_annotation(_raw.lib.quire_document_annotation_by_record_id,
                                    c_string(record_id, "record_id"), changes=False)

    def add_annotation(self, annotation: Annotation) -> Annotation:
        """Adds ``annotation`` (from :meth:`Annotation.new`, or a copy read from any document)
        to its page: a new object with a unique name (/NM), creation and modification dates
        and a generated appearance stream; flags 0 become Print (4), except for state
        replies. Text markup (Highlight, Underline, Squiggly, StrikeOut) without
        :attr:`~Annotation.quad_points` gets its rectangle as its one quadrilateral.
        ``annotation`` is updated to what was stored (its :attr:`~Annotation.id`, name,
        dates, quad points) and returned; it belongs to this document from then on
        (:attr:`~Annotation.replies` and :attr:`~Annotation.popup` read it).

        Raises:
            InvalidArgumentError: an invalid reply target or state.
            IndexOutOfRangeError: its page is not in the document.
            UnsupportedError: a subtype Quire does not create.
            DisabledError: a reply while :attr:`replies_enabled` is off.
        """
        return self._write_annotation(_raw.lib.quire_document_add_annotation, annotation, "add_annotation")

    def update_annotation(self, annotation: Annotation) -> Annotation:
        """Writes the changed ``annotation`` back to its object: the fields that differ from
        what is stored are rewritten (other entries are kept), the modification date and
        the appearance renewed. Text markup without quad points gets its rectangle, as in
        :meth:`add_annotation`. ``annotation`` is updated to what was stored and returned.

        Raises:
            NotFoundError: it is not in the document.
            DisabledError: a change of its reply or state while :attr:`replies_enabled` is off.
        """
        return self._write_annotation(_raw.lib.quire_document_update_annotation, annotation, "update_annotation")

    def _write_annotation(self, function: Callable[..., int], annotation: Annotation, name: str) -> Annotation:
        """Calls ``function(doc, annotation)``, which writes ``annotation`` to the document
        and updates it to what was stored."""
        if not isinstance(annotation, Annotation):
            raise TypeError("%s takes a quire.Annotation, not %s" % (name, type(annotation).__name__))
        with self._lock, annotation._lock:
            handle = self._live_handle()
            annotation._changed()
            check(function(handle, annotation._live()))
            annotation._owner = weakref.ref(self)
        return annotation

    def delete_annotation(self, annotation: Union[int, Annotation, Reference]) -> None:
        """Deletes an annotation (an object number or an :class:`Annotation` of this
        document) and its popup from its page and the document.

        Raises:
            NotFoundError: no such annotation.
        """
        number = self._annotation_number(annotation)
        with self._lock:
            check(_raw.lib.quire_document_delete_annotation(self._live_handle(), number))

    def move_annotation(self, annotation: Union[int, Annotation, Reference],
                        order: Union[AnnotationOrder, str]) -> bool:
        """Moves an annotation (an object number or an :class:`Annotation` of this
        document) in its page's drawing order (/Annots: the last is drawn on top):
        :attr:`AnnotationOrder.FORWARD`, ``BACKWARD``, ``TO_FRONT``, ``TO_BACK`` (or their
        names in lowercase, such as ``'to_front'``). Popups are stepped over. Returns
        whether it moved (``False``: it was already there, and nothing is written). The
        change is the page's /Annots, saved incrementally as any other.

        Raises:
            NotFoundError: no such annotation.
            StateError: a certification that forbids annotation changes.
        """
        number = self._annotation_number(annotation)
        if isinstance(order, str):
            order = AnnotationOrder[order.upper()]
        moved = ctypes.c_int32(0)
        with self._lock:
            check(_raw.lib.quire_document_move_annotation(ctypes.byref(moved), self._live_handle(), number,
                                                          AnnotationOrder(order)))
        return bool(moved.value)

    def annotation_file(self, annotation: Union[int, Annotation, Reference]) -> bytes:
        """The bytes of the file that a FileAttachment (an object number or an
        :class:`Annotation` of this document) embeds; its name, media type and description
        are :attr:`Annotation.file_name`, :attr:`Annotation.file_content_type` and
        :attr:`Annotation.file_description`.

        Raises:
            NotFoundError: no such annotation, or it embeds no file.
            FormatError: the file's stream cannot be decoded.
            LimitError: the file is over 64 MiB decoded.
        """
        number = self._annotation_number(annotation)
        with self._lock:
            return query_bytes(_raw.lib.quire_document_annotation_file, self._live_handle(), number)

    def add_reply(
        self, target: Union[int, Annotation, Reference], author: Optional[str], contents: str
    ) -> Annotation:
        """Adds a text reply by ``author`` (``None`` for none) with ``contents`` to
        ``target`` (an object number or an :class:`Annotation`); returns the new reply.

        Raises:
            NotFoundError: no such target.
            DisabledError: :attr:`replies_enabled` is off.
        """
        return self._add_reply(_raw.lib.quire_document_add_reply, target, author, contents=contents)

    def add_state_reply(
        self, target: Union[int, Annotation, Reference], author: Optional[str], model: str, state: str
    ) -> Annotation:
        """Adds a state reply: ``author`` (``None`` for none) sets ``state`` in ``model``
        (``"Marked"``: Marked, Unmarked; ``"Review"``: Accepted, Rejected, Cancelled,
        Completed, None) on ``target``. The reply is hidden (flag 2): viewers list it in
        the thread, not on the page. Returns the new reply.

        Its /Contents are written for readers that show only text (viewers that know
        state models show the state instead): ``"<author> set the state to <state>"``,
        such as ``"Bob set the state to Accepted"``; with ``author=None`` the author part
        is empty (``" set the state to Accepted"``). Its /T is ``author``, its
        :attr:`~Annotation.state_model` and :attr:`~Annotation.state` are ``model`` and
        ``state``. Assign other contents and :meth:`update_annotation` to change them.

        Raises:
            InvalidArgumentError: an unknown model, or a state of another model.
            NotFoundError: no such target.
            DisabledError: :attr:`replies_enabled` is off.
        """
        return self._add_reply(_raw.lib.quire_document_add_state_reply, target, author, model=model, state=state)

    def _add_reply(
        self, function: Callable[..., int], target: Union[int, Annotation, Reference], author: Optional[str], **texts: str
    ) -> Annotation:
        """Calls ``function(out, doc, target, author, *texts)``, a function that adds a reply;
        ``texts`` are named for the messages of the errors they may raise."""
        number = self._annotation_number(target, "the target")
        encoded = [c_string(value, "the " + what) for what, value in texts.items()]
        return self._new_annotation(function, number, optional_c_string(author, "the author"), *encoded)

    def set_in_reply_to(
        self,
        annotation: Union[int, Annotation, Reference],
        target: Optional[Union[int, Annotation, Reference]],
    ) -> None:
        """Makes ``annotation`` reply to ``target``, or to nothing when ``target`` is
        ``None`` (then its state is cleared too). The target must be on the same page and
        the change may not make a cycle. An :class:`Annotation` given as ``annotation`` is
        re-read, so that it shows the change.

        Raises:
            InvalidArgumentError: another page, a cycle.
            NotFoundError: no such annotation or target.
            DisabledError: :attr:`replies_enabled` is off.
        """
        number = self._annotation_number(annotation)
        target_number = -1 if target is None else self._annotation_number(target, "the target")
        with self._lock:
            check(_raw.lib.quire_document_set_in_reply_to(self._live_handle(), number, target_number))
            if isinstance(annotation, Annotation):
                self._refresh(annotation)

    @property
    def replies_enabled(self) -> bool:
        """Whether replies and review states are on for this document (the default). While
        off, the methods that create or change replies and states raise
        :class:`DisabledError`; reading annotations works."""
        return self._get_int(_raw.lib.quire_document_replies_enabled) != 0

    @replies_enabled.setter
    def replies_enabled(self, enabled: bool) -> None:
        with self._lock:
            check(_raw.lib.quire_document_set_replies_enabled(self._live_handle(), 1 if enabled else 0))

    def comments(self, target: Union[int, Annotation, Reference]) -> List[Annotation]:
        """The comments of ``target`` (PSPDFKit's model): the annotation itself, then every
        reply below it that is not a state reply, nested replies flattened, sorted by
        creation date (stable on ties).

        Raises:
            NotFoundError: no such annotation.
        """
        return self._read_list(_raw.lib.quire_document_comments, self._annotation_number(target))

    def review_summary(
        self, target: Union[int, Annotation, Reference]
    ) -> Tuple[List[Annotation], List[Annotation]]:
        """The review of ``target`` as ``(current, history)``: ``current`` holds each
        author's latest state reply (authors in the order they first appear), ``history``
        every state reply below it, oldest first.

        Raises:
            NotFoundError: no such annotation.
        """
        number = self._annotation_number(target)
        current = _raw.quire_annotation_list_p()
        history = _raw.quire_annotation_list_p()
        with self._lock:
            status = _raw.lib.quire_document_review_summary(byref(current), byref(history), self._read_handle(), number)
        try:
            check(status)
        finally:
            if status != _raw.QUIRE_OK:
                _raw.lib.quire_annotation_list_free(current)
                _raw.lib.quire_annotation_list_free(history)
        try:
            current_items = take_list(current, self)
        except BaseException:
            _raw.lib.quire_annotation_list_free(history)
            raise
        return current_items, take_list(history, self)

    # -- forms ---------------------------------------------------------------------------

    @property
    def form_kind(self) -> FormKind:
        """What kind of form the document has (:class:`quire.FormKind`): XFA forms are
        reported, never filled."""
        return FormKind(self._get_int(_raw.lib.quire_document_form_kind))

    @property
    def fields(self) -> List[FormField]:
        """The terminal fields of the form in tree order (:class:`quire.FormField`); empty
        without a form. Set a value with ``field.value = ...``.

        Raises:
            LimitError: a field tree deeper than 32 levels or of more than 200,000
                dictionaries.
        """
        return [FormField(self, k) for k in range(self._get_int(_raw.lib.quire_document_field_count))]

    def add_font(self, path: PathType) -> None:
        """Adds a font file (TrueType outlines; a collection's first face) that generated
        appearances try first for characters the font of their ``/DA`` lacks: field values,
        FreeText contents and stamp names, in any script (docs/forms.md, "Text in any
        script"). Fonts added earlier are tried first, then the files of the
        ``QUIRE_FONTS`` environment variable and the system's fonts (DejaVu, Noto, Droid
        Sans Fallback, ...). Only the glyphs drawn are embedded. The list belongs to this
        document; it is not saved in the file.

        A value with a character no font has is refused by ``field.value = ...`` (and by
        adding or updating an annotation) with :class:`UnsupportedError`, which names it.

        Raises:
            QuireIOError: the file cannot be read.
            FormatError: not a font.
            UnsupportedError: no TrueType outlines (a CFF-based OpenType font), or a
                licence that forbids embedding.
        """
        with self._lock:
            check(_raw.lib.quire_document_add_font(self._live_handle(), c_string(os.fspath(path), "path")))

    def field(self, name: str) -> FormField:
        """The field whose fully qualified name is ``name``.

        Raises:
            NotFoundError: no field has that name.
        """
        return FormField(self, self._get_int(_raw.lib.quire_document_field_index, c_string(name, "name")))

    def flatten(
        self,
        subtypes: Optional[Sequence[str]] = None,
        *,
        keep_links: bool = True,
        progress: Optional[ProgressCallback] = None,
    ) -> int:
        """Burns annotations into the page content (their normal appearances, placed as ISO
        32000-2 §12.5.5 says) and removes them; returns how many were drawn. ``subtypes``
        chooses which (``["Widget"]`` for form fields only); ``None`` is every subtype but
        links and popups. Replies and hidden annotations are removed, not drawn; with no
        widget left, the form goes too. ``keep_links=False`` removes links as well.

        ``progress``, if given, is called as ``progress(done, total)`` with the pages done
        and their total, on the calling thread; returning ``True`` (or raising) cancels.
        All or nothing: on an error or a cancel the document is as it was.

        Raises:
            UserAbortError: ``progress`` cancelled (its exception, if it raised, chained).
        """
        options = _raw.flatten_options_init()
        if subtypes is not None:
            options.subtypes = c_string(",".join(subtypes), "subtypes")
        options.keep_links = 1 if keep_links else 0
        out = c_int32()
        with self._lock:
            self._with_progress(progress, options, lambda: _raw.lib.quire_document_flatten(
                byref(out), self._live_handle(), byref(options)))
        return out.value

    def _with_progress(self, progress: Optional[ProgressCallback], options: Any, call: Callable[[], int]) -> None:
        """Runs ``call`` (a C call taking ``options``) with ``progress`` as the options'
        progress callback; raises what the call returned, with an exception the callback
        raised as its cause."""
        failures: List[BaseException] = []
        c_progress = _progress_callback(progress, failures)
        if c_progress is not None:
            options.progress = c_progress  # alive until the call returns
        status = call()
        _raise_progress_failure(status, failures)
        check(status)

    def _export(self, fmt: int, index: int, progress: Optional[ProgressCallback]) -> bytes:
        """The annotations in format ``fmt`` (``QUIRE_FORMAT_*``) through
        ``quire_document_export_annotations``: one pass, the pieces collected here."""
        options = _raw.export_options_init()
        options.format = fmt
        options.page_index = index
        pieces: List[bytes] = []

        def write(data: Optional[int], size: int, payload: Optional[int]) -> int:
            if size and data is not None:
                pieces.append(ctypes.string_at(data, size))
            return 0

        c_write = _raw.quire_write_fn(write)
        with self._lock:
            self._with_progress(progress, options, lambda: _raw.lib.quire_document_export_annotations(
                self._read_handle(), byref(options), c_write, None))
        return b"".join(pieces)

    def _import(self, fmt: int, data: Union[str, BytesType], progress: Optional[ProgressCallback]) -> int:
        """Imports ``data`` in format ``fmt`` through ``quire_document_import_annotations``."""
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        options = _raw.import_options_init()
        options.format = fmt
        out = c_int32()
        with self._lock:
            self._with_progress(progress, options, lambda: _raw.lib.quire_document_import_annotations(
                byref(out), self._live_handle(), byref(options), payload, len(payload)))
        return out.value

    def export_xfdf(self, *, progress: Optional[ProgressCallback] = None) -> str:
        """The annotations (with replies and review states) and field values as XFDF
        (ISO 19444-1), the XML Acrobat and PDFTron exchange; docs/forms.md lists its
        elements and attributes.

        ``progress``, if given, is called as ``progress(done, total)``, two steps per page
        (its annotations read, then written); returning ``True`` (or raising) cancels with
        :class:`UserAbortError`."""
        return text(self._export(_raw.QUIRE_FORMAT_XFDF, -1, progress))

    def import_xfdf(self, xfdf: Union[str, bytes], *, progress: Optional[ProgressCallback] = None) -> int:
        """Imports XFDF (``str`` or UTF-8 ``bytes``): annotations are added, or updated when
        their name (/NM) is already on their page; replies are linked by ``inreplyto``;
        field values are set (a value a field refuses becomes a warning). Returns how many
        annotations and values were imported. All or nothing: on an error, nothing is.

        ``progress``, if given, is called as ``progress(done, total)``, a step per
        annotation and per field value; returning ``True`` (or raising) cancels, and
        nothing is imported.

        Raises:
            FormatError: not well-formed XML, a DOCTYPE (never accepted: no entity is
                expanded), an annotation without page or rect, a reply to an unknown name.
            IndexOutOfRangeError: an annotation on a page the document does not have.
            LimitError: more than 64 MiB, 64 levels or 1,000,000 elements.
            UserAbortError: ``progress`` cancelled.
        """
        return self._import(_raw.QUIRE_FORMAT_XFDF, xfdf, progress)

    def annotations(self) -> Iterator[Annotation]:
        """Every annotation of the document, page after page, each page in /Annots order (as
        :attr:`Page.annotations` gives them; a missing page, which /Count counts but the
        page tree does not hold, has none). Replies and popups are annotations too; see
        :meth:`threads` for annotations with their replies."""
        for index in range(self.page_count):
            try:
                items = self.pages[index].annotations
            except NotFoundError:
                continue  # counted by /Count, missing from the page tree
            yield from items

    def threads(self) -> List[AnnotationThread]:
        """The threads of the document, page after page: each annotation that replies to
        no other (a root) with every reply below it, nested replies flattened depth first
        (:class:`AnnotationThread`, a ``(root, replies)`` pair). State replies are among the
        replies (:attr:`Annotation.is_state_reply`); popups are left out, reached through
        :attr:`Annotation.popup`. A reply whose /IRT names no annotation of its page starts
        a thread of its own, as does the first annotation of a cycle of /IRT, so that every
        annotation other than a popup is in exactly one thread::

            for root, replies in doc.threads():
                print(root.subtype, root.contents)
                for reply in replies:
                    print("  ", reply.author, reply.contents)

        Each thread's :meth:`AnnotationThread.with_depth` gives the replies with their depth
        (1 for a reply to the root, 2 for a reply to a reply, ...), for indenting.
        """
        threads: List[AnnotationThread] = []
        for index in range(self.page_count):
            try:
                listing = self._page_listing(index)
            except NotFoundError:
                continue
            threads.extend(page_threads(listing))
        return threads

    def search_annotations(self, text: str) -> List[Annotation]:
        """The annotations and replies of all pages whose contents contain ``text``, ignoring
        case, in page order; an empty ``text`` finds nothing."""
        return self._read_list(_raw.lib.quire_document_search_annotations, c_string(text, "the text"))

    def search(
        self,
        query: str,
        *,
        page: Optional[Union[int, "Page"]] = None,
        match_case: bool = False,
        whole_word: bool = False,
        max_matches: int = 0,
        progress: Optional[ProgressCallback] = None,
    ) -> List[TextMatch]:
        """Every match of ``query`` in the text of the document (or of ``page``), in page
        and text order: case-insensitive unless ``match_case``; white space in the query
        matches any white space, line breaks included; a word hyphenated at a line end
        matches unhyphenated. Each match has its page, character range, text and quads
        (for :meth:`add_text_markup`). ``max_matches`` 0: all.

        ``progress``, if given, is called as ``progress(done, total)`` with the pages
        searched and their total; returning ``True`` (or raising) cancels with
        :class:`UserAbortError`.

        Raises:
            InvalidArgumentError: an empty query, a negative ``max_matches``.
            IndexOutOfRangeError: no such page.
            UserAbortError: ``progress`` cancelled.
        """
        index = -1 if page is None else (page.index if isinstance(page, Page) else operator.index(page))
        if index < 0 and page is not None:
            raise IndexOutOfRangeError(_raw.QUIRE_ERANGE, "page index %d is out of range" % index)
        failures: List[BaseException] = []
        c_progress = _progress_callback(progress, failures)
        return _search_text(self, query, index, match_case, whole_word, max_matches, c_progress,
                            lambda status: _raise_progress_failure(status, failures))

    def text(self, *, progress: Optional[ProgressCallback] = None) -> str:
        """The text of every page, as pdftotext writes it: each page's text
        (:attr:`Page.text`) followed by a form feed, so that ``doc.text().split("\\f")``
        gives the pages (and a last empty string); a page that /Count counts but the page
        tree lacks is empty.

        ``progress``, if given, is called as ``progress(done, total)`` with the pages read
        and their total; returning ``True`` (or raising) cancels with
        :class:`UserAbortError`."""
        options = _raw.text_options_init()
        pieces: List[bytes] = []

        def write(data: Optional[int], size: int, payload: Optional[int]) -> int:
            if size and data is not None:
                pieces.append(ctypes.string_at(data, size))
            return 0

        c_write = _raw.quire_write_fn(write)
        with self._lock:
            self._with_progress(progress, options, lambda: _raw.lib.quire_document_text(
                self._read_handle(), byref(options), c_write, None))
        return text(b"".join(pieces))

    def add_text_markup(self, span: Union[TextMatch, TextSpan], subtype: str = "Highlight") -> Annotation:
        """Creates a ``subtype`` annotation (Highlight, Underline, StrikeOut or Squiggly)
        over a search match or a span of a page's text (a word, a line, a selection), with
        /QuadPoints that cover exactly its glyphs (one quad per line), the kind's default
        colour and a generated appearance, through the ordinary creation path (checkpoints
        and the journal see it). Returns the annotation as stored; change its colour or
        author and :meth:`update_annotation` to keep the change.

        Raises:
            InvalidArgumentError: an unknown subtype, or a span of no glyph.
            IndexOutOfRangeError: the span is not on the page as it is now.
        """
        if subtype not in MARKUP_KINDS:
            raise InvalidArgumentError(_raw.QUIRE_EINVAL, "subtype is one of %s, not %r" % (", ".join(MARKUP_KINDS), subtype))
        out = _raw.quire_annotation_p()
        with TextPage._load(self, span.page_index) as page_text:
            with self._lock, page_text._lock:
                check(_raw.lib.quire_document_add_text_markup(
                    byref(out), self._live_handle(), page_text._live(), MARKUP_KINDS[subtype], span.first, span.length))
        return take_annotation(out, self)

    def add_highlight(self, span: Union[TextMatch, TextSpan]) -> Annotation:
        """:meth:`add_text_markup` with a Highlight."""
        return self.add_text_markup(span, "Highlight")

    def add_redactions(
        self,
        query: str,
        *,
        match_case: bool = False,
        whole_word: bool = False,
        fill: Optional[Sequence[float]] = (0.0, 0.0, 0.0),
        overlay_text: Optional[str] = None,
    ) -> int:
        """Marks every match of ``query`` (as :meth:`search` finds it) for redaction, one
        Redact annotation per match, filled with ``fill`` (1, 3 or 4 components from 0 to
        1; ``None``: no fill) and ``overlay_text`` when applied. Returns how many were
        added. Nothing is removed until :meth:`apply_redactions`. All or nothing.

        Raises:
            InvalidArgumentError: an empty query, a bad colour.
        """
        options = _raw.text_search_options_init()
        options.match_case = 1 if match_case else 0
        options.whole_word = 1 if whole_word else 0
        colour, count = _fill_array(fill)
        out = c_int32()
        with self._lock:
            check(_raw.lib.quire_document_add_redactions_matching(
                byref(out), self._live_handle(), c_string(query, "query"), byref(options), colour, count,
                optional_c_string(overlay_text, "overlay_text")))
        return out.value

    def apply_redactions(
        self,
        *,
        text: bool = True,
        images: bool = True,
        graphics: bool = True,
        annotations: bool = True,
        remove_metadata: bool = False,
        remove_embedded_files: bool = False,
        remove_javascript: bool = False,
    ) -> RedactionResult:
        """Applies every Redact annotation (see docs/redaction.md): removes for good the
        glyphs whose box intersects a region (the text that stays keeps its positions),
        the images in the regions (removed, or their pixels blanked), the vector paths
        wholly inside one, and the annotations and widgets that intersect one; fills the
        regions and draws their overlay text; removes the Redact annotations. The flags
        choose what is removed and the document cleanup (/Metadata and /Info, embedded
        files, JavaScript). What was done differently from the rules (an image removed
        whole because its encoding is not re-encoded) is in :attr:`warnings`.

        The next save must be a full one (``full=True``): an incremental save is
        refused with :class:`StateError`, since it would keep the original bytes. All or
        nothing: on an error the document is as it was.

        Raises:
            PasswordError: an encrypted document not opened with its owner password.
            FormatError: a page whose content cannot be read to its end.
            StateError: a certified document that refuses the change, or a synced one.
        """
        options = _raw.redaction_options_init()
        options.text = 1 if text else 0
        options.images = 1 if images else 0
        options.graphics = 1 if graphics else 0
        options.annotations = 1 if annotations else 0
        options.remove_metadata = 1 if remove_metadata else 0
        options.remove_embedded_files = 1 if remove_embedded_files else 0
        options.remove_javascript = 1 if remove_javascript else 0
        out = _raw.quire_redaction_result()
        out.version = _raw.QUIRE_REDACTION_RESULT_VERSION
        with self._lock:
            check(_raw.lib.quire_document_apply_redactions(byref(out), self._live_handle(), byref(options)))
        return RedactionResult(out.redactions, out.pages, out.glyphs_removed, out.images_removed, out.images_blanked,
                               out.paths_removed, out.annotations_removed)

    def marked_text(self, annotation: Annotation) -> str:
        """The text a markup annotation covers: the characters of its page whose centres
        lie in its /QuadPoints (PSPDFKit's ``highlightedString``); ``""`` without quads."""
        with self._lock, annotation._lock:
            return text(query_bytes(_raw.lib.quire_annotation_marked_text, self._read_handle(), annotation._live()))

    def export_annotations_json(
        self,
        page: Optional[Union[int, "Page"]] = None,
        *,
        instant_comments: bool = False,
        progress: Optional[ProgressCallback] = None,
    ) -> str:
        """The annotations of page ``page`` (an index or a :class:`Page`; ``None`` for every
        page) as JSON shaped after PSPDFKit's Instant JSON, extended with replies and review
        states (docs/annotation-json.md). Deterministic: the same annotations give the same
        text.

        With ``instant_comments=True``, the replies that PSPDFKit's Instant comments can
        hold (notes replying to an exported annotation that is not itself a reply, without
        a state) are written as the top-level ``comments`` of their root instead of as
        records, so that a PSPDFKit import shows the thread; what a comment cannot hold
        (the reply's rectangle, flags, colour, icon) is left out.

        The JSON also has Instant JSON's ``pdfId`` (the file's /ID in hexadecimal) and, for
        every page (``page=None``), ``formFieldValues``: one ``pspdfkit/form-field-value`` record per text, check box,
        radio button, combo box and list box field.

        ``progress``, if given, is called as ``progress(done, total)``, two steps per page
        (its annotations read, then written); returning ``True`` (or raising) cancels with
        :class:`UserAbortError`.

        Raises:
            IndexOutOfRangeError: no such page.
            UserAbortError: ``progress`` cancelled.
        """
        if isinstance(page, Page):
            index = page.index
        elif page is None:
            index = -1
        else:
            index = operator.index(page)
            if index < 0:
                raise IndexOutOfRangeError(_raw.QUIRE_ERANGE, "page index %d is out of range" % index)
        fmt = _raw.QUIRE_FORMAT_JSON_INSTANT_COMMENTS if instant_comments else _raw.QUIRE_FORMAT_JSON
        return text(self._export(fmt, index, progress))

    def import_annotations_json(self, data: Union[str, BytesType], *, progress: Optional[ProgressCallback] = None) -> int:
        """Imports annotation JSON (what :meth:`export_annotations_json` writes, or plain
        Instant JSON): an annotation whose name (/NM) is already on its page is updated, any
        other is created; replies are linked by name. Instant JSON's ``comments`` become
        replies to their ``rootId``, xhtml text becomes sanitized rich text (/RC), and
        ``pspdfkit/image`` records with their ``attachments`` become image stamps
        (docs/annotation-json.md). ``formFieldValues`` set the form's fields by name with
        the rules of :attr:`FormField.value` (a value equal to the field's is left alone);
        ``formFields`` are matched by name and type, never created. ``skippedPdfObjectIds``
        deletes the listed annotations that no record replaces; when ``pdfId`` names another
        file, the JSON's object numbers are ignored (a warning in :attr:`warnings`). All or
        nothing: on an error, nothing was imported, form values included. Returns the
        number of annotations (comments included) created or updated.

        ``progress``, if given, is called as ``progress(done, total)``, two steps per
        record (created or updated, then completed); returning ``True`` (or raising)
        cancels, and nothing is imported (:class:`UserAbortError`).

        Raises:
            FormatError: malformed JSON, an unknown annotation type, a reply or comment
                whose parent is missing, XHTML that is not well-formed, an image that does
                not decode, a form value for a field the document lacks or that is not one
                of its states or options (the message names the field).
            LimitError: rich text over 1 MiB or nested deeper than 64, an image over 16 MiB
                or 40 million pixels, a form text over 1 Mi characters.
            DisabledError: replies while :attr:`replies_enabled` is off.
            StateError: a form value for a read-only field.
            IndexOutOfRangeError: a text value longer than the field's /MaxLen.
            UnsupportedError: a value for a push button or a signature field.
            UserAbortError: ``progress`` cancelled.
        """
        return self._import(_raw.QUIRE_FORMAT_JSON, data, progress)

    # -- page operations and encryption (docs/pages.md) ---------------------------------

    def merge(self, source: "Document", pages: Optional[PageIndices] = None, *, at: Optional[int] = None) -> PageReport:
        """Copies pages of ``source`` into this document (``quire_document_import_pages``):
        ``pages`` (an index or an iterable of them, in that order; negative ones count from
        the end of ``source``), or every page when ``None``; inserted at index ``at`` (by
        default after the last page). The pages bring along what hangs on them (their
        annotations with replies and popups, links, form fields merged into this
        document's form, outline items, named destinations, page labels, user bookmarks),
        by the rules of docs/pages.md. ``source`` is only read.

        Returns the :class:`PageReport`: the form fields renamed because their names were
        taken here, and warnings.

        Raises:
            InvalidArgumentError: ``source`` is this document, or ``pages`` is empty.
            IndexOutOfRangeError: a page of ``source`` or ``at`` out of range.
            StateError: either document is closed, or this one is synced.
            LimitError: past ``max_pages`` or ``max_objects``.
        Nothing changes when it raises.
        """
        if not isinstance(source, Document):
            raise TypeError("merge takes a quire.Document, not %s" % type(source).__name__)
        report = _raw.quire_page_report_p()
        with self._lock, source._lock:
            source_handle = source._read_handle()
            handle = self._live_handle()
            if pages is None:
                indices, count = None, 0
            else:
                indices, count = page_index_array(pages, source.page_count)
                if count == 0:
                    raise InvalidArgumentError(_raw.QUIRE_EINVAL, "no pages were given (None merges every page)")
            position = self.page_count if at is None else int32_index(at, "the index to insert at")
            check(_raw.lib.quire_document_import_pages(byref(report), handle, source_handle, indices, count, position))
        return take_report(report)

    def extract(self, pages: PageIndices) -> "Document":
        """A new document of ``pages`` (an index or an iterable of them, in that order;
        negative ones count from the end) with what travels with them, as :meth:`merge`
        brings it, and this document's information dictionary
        (``quire_document_extract_pages``). It is in memory and unsaved: save it with
        ``full=True`` (:meth:`save`), after :meth:`encrypt` if it should be encrypted. This
        document does not change. Split a document by extracting each part::

            with quire.Document("book.pdf") as book:
                for start in range(0, book.page_count, 10):
                    with book.extract(range(start, min(start + 10, book.page_count))) as part:
                        part.save("part-%03d.pdf" % (start // 10), full=True)

        Raises:
            InvalidArgumentError: ``pages`` is empty.
            IndexOutOfRangeError: a page out of range.
        """
        out = _raw.quire_document_p()
        with self._lock:
            indices, count = page_index_array(pages, self.page_count)
            check(_raw.lib.quire_document_extract_pages(byref(out), self._read_handle(), indices, count))
        return Document._adopt(out)

    def encrypt(
        self,
        user_password: Optional[Union[str, bytes]] = None,
        owner_password: Optional[Union[str, bytes]] = None,
        *,
        method: str = "AES-256",
        permissions: Optional[Union[Permissions, int]] = None,
        encrypt_metadata: bool = True,
        current_owner_password: Optional[Union[str, bytes]] = None,
    ) -> None:
        """Encrypts the document at the next save, or changes the passwords and permissions
        of an encrypted one (``quire_document_set_encryption``). The save must be a full one
        (``save(..., full=True)``); an incremental save raises :class:`StateError` while
        the change is pending. After the save the document continues from the encrypted
        bytes, as if opened with the owner password.

        ``user_password`` opens the document with ``permissions``; ``None`` or empty: anyone
        can open it. ``owner_password`` opens it with every permission; ``None`` or empty:
        the user password. ``method`` is ``"AES-256"`` (the default; PDF 2.0, revision 6)
        or ``"AES-128"`` (revision 4, for older readers); RC4 is refused. ``permissions``
        are :class:`Permissions` flags (default: all). ``encrypt_metadata=False`` leaves
        the XMP metadata readable.

        An encrypted document changes only with its owner password: the one it was opened
        with, or ``current_owner_password``.

        Raises:
            PasswordError: the document was opened with its user password and
                ``current_owner_password`` is missing or wrong (nothing changes).
            UnsupportedError: an RC4 method.
            InvalidArgumentError: an unknown method; a password the method cannot hold.
            StateError: the document is closed or synced.
        """
        options = EncryptionOptions(user_password, owner_password, method, permissions, encrypt_metadata)
        current = optional_c_string(current_owner_password, "the current owner password")
        with self._lock:
            check(_raw.lib.quire_document_set_encryption(self._live_handle(), byref(options.options), current))

    def decrypt(self, owner_password: Optional[Union[str, bytes]] = None) -> None:
        """Removes the document's encryption at the next save, which must be a full one
        (``save(..., full=True)``); ``owner_password`` is needed when the document was
        opened with its user password. Does nothing visible on a document that is not
        encrypted (the next full save writes it unencrypted anyway).

        Raises:
            PasswordError: no or a wrong owner password (nothing changes).
            StateError: the document is closed or synced.
        """
        current = optional_c_string(owner_password, "the owner password")
        with self._lock:
            check(_raw.lib.quire_document_set_encryption(self._live_handle(), None, current))

    # -- saving --------------------------------------------------------------------------

    def save(
        self,
        target: Union[PathType, BinaryIO],
        *,
        full: bool = False,
        object_streams: bool = False,
        in_place: bool = False,
        progress: Optional[Callable[[int, int], Optional[bool]]] = None,
    ) -> None:
        """Saves the document.

        ``target`` is a path (``str`` or :class:`os.PathLike`), written atomically: the
        library writes a temporary file beside it, flushes it to disk and renames it over
        ``target``, so ``target`` holds either the old or the new file, even if the
        process dies; it may be the file the document was opened from. ``target`` may
        also be a binary file object (anything with ``write(bytes)``), which receives the
        file in pieces (not atomically).

        By default the save is incremental: the changed objects are appended to the
        original bytes, which stay as they were (signatures and earlier revisions stay
        valid). ``full=True`` rewrites the file: objects are renumbered and unreachable
        ones dropped (so :class:`Reference` values and :class:`Stream` objects read before
        are stale afterwards), and ``object_streams=True`` packs objects into object
        streams with a cross-reference stream (PDF 1.5). An encrypted document stays
        encrypted with its own key and passwords.

        After a successful save the document continues from the saved file: it has no
        unsaved changes, and a later incremental save appends to what was written.

        ``in_place=True`` appends the update to ``target`` itself, which must be the file
        the document was opened from or last saved to, without copying it: the cost is the
        change's, not the file's (one annotation on a 100 MB file writes a few hundred
        bytes). It checks first that the file is unchanged since it was read and that no
        other process is appending to it; the order of its writes (the update, a flush, then
        the final ``startxref`` in one write, and a flush) means that a process killed at
        any moment leaves a file that opens, as the old or the new revision.

        ``progress``, if given, is called as ``progress(done, total)`` with the objects
        written so far and their total, every 64 objects and once with ``done == total``,
        on the calling thread. Returning ``True`` (or raising) cancels the save before
        anything is written: :class:`UserAbortError` is raised (with the exception chained),
        and the document keeps its unsaved changes.

        Raises:
            QuireIOError: the file could not be written (``target`` is unchanged).
            UnsupportedError: an incremental save of a file whose cross-reference was
                rebuilt by repair: save with ``full=True``.
            UserAbortError: ``target.write`` raised; the exception it raised is chained
                (``__cause__``), and the document keeps its unsaved changes.
            InvalidArgumentError: ``object_streams`` without ``full``; a NUL in the path;
                ``in_place`` with ``full``, with a file object, or to another file than the
                document's.
            StaleError: ``in_place`` and the file changed since the document read it (or the
                document was opened from bytes): save without ``in_place``.
            BusyError: ``in_place`` and another process is appending to the file.
        """
        options = _save_options(full, object_streams)
        if in_place:
            if full:
                raise InvalidArgumentError(_raw.QUIRE_EINVAL, "in_place=True appends an incremental update: not with full=True")
            if not isinstance(target, (str, os.PathLike)):
                raise InvalidArgumentError(_raw.QUIRE_EINVAL, "in_place=True writes to the document's own file: give its path")
            options.mode = _raw.QUIRE_SAVE_APPEND_IN_PLACE
        progress_failures: List[BaseException] = []
        c_progress = _progress_callback(progress, progress_failures)
        if c_progress is not None:
            options.progress = c_progress  # alive until the call returns
        if isinstance(target, (str, os.PathLike)):
            path = c_string(os.fsencode(os.fspath(target)), "the path")
            with self._lock:
                self._before_save()
                status = _raw.lib.quire_document_save(self._live_handle(), byref(options), path)
                if status == _raw.QUIRE_OK and full:
                    self._epoch += 1
            _raise_progress_failure(status, progress_failures)
            self._check_save(status)
            return
        write = getattr(target, "write", None)
        if not callable(write):
            raise TypeError(
                "save takes a path (str or os.PathLike) or a binary file object, not %s" % type(target).__name__
            )
        # A file of io's own (what open() returns) writes or buffers a piece before write
        # returns and keeps no reference to it: it is given the library's bytes in place,
        # without a copy (1 MB less at the peak of a 100 MB save). Any other object gets
        # bytes of its own, which it may keep.
        self._save_through(write, options, full, in_place=type(target) in _IO_FILES)

    # -- digital signatures ----------------------------------------------------------------

    def sign(
        self,
        target: Union[PathType, BinaryIO],
        identity: "SigningIdentity",
        *,
        field: Optional[str] = None,
        page: int = 0,
        rect: Optional[Sequence[float]] = None,
        format: Union[str, int] = "pades",
        digest: Union[str, int] = "sha256",
        name: Optional[str] = None,
        reason: Optional[str] = None,
        location: Optional[str] = None,
        contact_info: Optional[str] = None,
        signing_time: Optional["datetime.datetime"] = None,
        look: Optional[str] = None,
        ink: Optional[Union[Annotation, int]] = None,
        certify: Optional[int] = None,
        timestamp: Optional[Callable[[bytes], bytes]] = None,
        reserved_size: int = 0,
    ) -> None:
        """Signs and saves the signed file to ``target`` (a path, written atomically, or a
        binary file object): one incremental update after the document's file, holding the
        unsaved changes, the signature field, its appearance and the signature. The
        document then continues from the signed file (docs/signatures.md).

        ``identity`` is a :class:`quire.SigningIdentity`. ``field`` names an unsigned
        signature field to sign, or the new field to create on ``page`` at ``rect``
        (``(left, bottom, right, top)``; ``None``: an invisible field; default names
        Signature1, Signature2, ...). ``format`` is ``"pades"`` (ETSI.CAdES.detached) or
        ``"pkcs7"`` (adbe.pkcs7.detached); ``digest`` ``"sha256"``, ``"sha384"`` or
        ``"sha512"``. ``look`` is ``"text"`` (who, when, reason, location: the default with a
        rect) or ``"invisible"``; ``ink=annotation`` draws that ink annotation (what the
        Signature tool drew) in the field and removes it. ``signing_time`` is the claimed
        time (/M; default now). ``certify=1, 2 or 3`` makes a certification signature with
        those DocMDP permissions. ``timestamp`` is a callable taking a DER RFC 3161
        TimeStampReq and returning the authority's DER TimeStampResp (PAdES B-T); Quire
        opens no connection. ``reserved_size`` (0: sized to fit) is the /Contents space.

        All or nothing: on an error the document is as it was and ``target`` is not written.

        Raises:
            StateError: the field is signed already; a certification on a signed document;
                any signature on a document certified with P = 1.
            UnsupportedError: an encrypted or repaired document.
            IndexOutOfRangeError: no such page.
            UserAbortError: ``timestamp`` or ``target.write`` raised (chained).
            QuireIOError: the time stamp response is not a granted token over this
                signature; the file could not be written.
        """
        from ._signatures import sign

        sign(self, target, identity, field=field, page=page, rect=rect, format=format, digest=digest, name=name,
             reason=reason, location=location, contact_info=contact_info, signing_time=signing_time, look=look,
             ink=ink, certify=certify, timestamp=timestamp, reserved_size=reserved_size)

    def signatures(
        self,
        trust_roots: Any = None,
        *,
        intermediates: Any = None,
        at: Optional["datetime.datetime"] = None,
    ) -> "List[SignatureReport]":
        """Every signed signature field of the document's file, validated
        (:class:`quire.SignatureReport`): integrity, coverage, what changed after it and
        whether its DocMDP allows that, the signer's chain to ``trust_roots`` (PEM: bytes,
        text or a path, or a list of them; ``None`` trusts none), at the signing time (or
        ``at``), the time stamp, and each problem. Unsaved changes are not looked at.

        Raises:
            InvalidArgumentError: trust roots or intermediates that are not PEM certificates.
            LimitError: more than 1,000 signatures.
        """
        from ._signatures import validate

        return validate(self, trust_roots, intermediates, at)

    def set_signature_guard(self, guard: Union[str, int]) -> None:
        """What annotation and form changes do when the document's certification signature
        (DocMDP) does not allow them: ``"refuse"`` (:class:`StateError`, the default),
        ``"warn"`` (made, with a warning in :attr:`warnings`) or ``"allow"``."""
        from ._signatures import SignatureGuard, _enum

        value = _enum(SignatureGuard, guard, "guard")
        with self._lock:
            check(_raw.lib.quire_document_set_signature_guard(self._live_handle(), value))

    @property
    def certification_broken(self) -> bool:
        """Whether the unsaved changes, saved incrementally, would break the document's
        certification signature (``False`` without one)."""
        return bool(self._get_int(_raw.lib.quire_document_certification_broken))

    # -- checkpoints ---------------------------------------------------------------------

    def start_checkpoints(
        self,
        strategy: Union[CheckpointStrategy, str] = CheckpointStrategy.MANUAL,
        *,
        interval: float = 10.0,
        directory: Optional[PathType] = None,
        uid: Optional[str] = None,
        existing: Union[CheckpointExisting, str] = CheckpointExisting.LOAD,
        load: Optional[bool] = None,
    ) -> bool:
        """Starts keeping checkpoints of the unsaved changes, for crash recovery
        (``quire_document_start_checkpoints``): ``strategy`` is a :class:`CheckpointStrategy`,
        ``MANUAL`` (only :meth:`checkpoint` writes one), ``TIMED`` (every ``interval``
        seconds, in the background) or ``IMMEDIATE`` (every change is on disk before its
        call returns); the names ``"manual"``, ``"timed"`` and ``"immediate"`` work too.
        ``directory`` defaults to ``$XDG_STATE_HOME/quire/checkpoints``; ``uid`` names the
        checkpoint (by default derived from the path; required for documents opened from
        bytes). Saving the document writes the changes and empties the checkpoint once the
        file is durable.

        ``existing`` (a :class:`CheckpointExisting`, or its string) says what to do with a
        checkpoint that is already there (left by a crash, or by a program that closed the
        document unsaved): ``LOAD`` (``"load"``, the default) applies it as unsaved
        changes; ``REFUSE`` (``"refuse"``) leaves it and raises :class:`ExistsError` if it
        holds unsaved changes (ask your user, then start again with ``LOAD`` or
        ``DISCARD``; :meth:`inspect_checkpoint` says what is there); ``DISCARD``
        (``"discard"``) throws it away, the only choice that loses recovery data. The
        older ``load=True`` means ``"load"`` and ``load=False`` means ``"refuse"``
        (deprecated: use ``existing``).

        Returns whether an existing checkpoint was applied.

        Raises:
            BusyError: another open document, in any process, holds this checkpoint.
            StaleError: the checkpoint was taken against another version of the file
                (nothing is applied and it stays; start again with ``existing="discard"``
                to drop it).
            ExistsError: ``existing="refuse"`` and the checkpoint holds unsaved changes.
            FormatError: the checkpoint is damaged (it stays, for inspection).
            InvalidArgumentError: an unknown strategy or ``existing``, a bad interval, no
                ``uid`` for a document opened from bytes.
        """
        if load is not None:
            warnings.warn(
                "start_checkpoints(load=...) is deprecated: use existing='load' or existing='refuse'",
                DeprecationWarning,
                stacklevel=2,
            )
            existing = CheckpointExisting.LOAD if load else CheckpointExisting.REFUSE
        if existing not in self._EXISTING:
            raise InvalidArgumentError(
                _raw.QUIRE_EINVAL,
                "existing is quire.CheckpointExisting.LOAD, REFUSE or DISCARD ('load', 'refuse' or 'discard'), not %r"
                % (existing,),
            )
        chosen = CheckpointStrategy._of(strategy)
        options = _raw.checkpoint_options_init()
        options.strategy = int(chosen)
        options.interval_seconds = float(interval)
        if directory is not None:
            options.directory = c_string(os.fsencode(os.fspath(directory)), "the directory")
        if uid is not None:
            options.uid = c_string(uid, "the uid")
        options.existing = self._EXISTING[CheckpointExisting(existing)]
        loaded = c_int32()
        with self._lock:
            check(_raw.lib.quire_document_start_checkpoints(byref(loaded), self._live_handle(), byref(options)))
        return bool(loaded.value)

    _EXISTING = {
        CheckpointExisting.LOAD: _raw.QUIRE_CHECKPOINT_EXISTING_LOAD,
        CheckpointExisting.REFUSE: _raw.QUIRE_CHECKPOINT_EXISTING_REFUSE,
        CheckpointExisting.DISCARD: _raw.QUIRE_CHECKPOINT_EXISTING_DISCARD,
    }
    _CHECKPOINT_STATES = {
        _raw.QUIRE_CHECKPOINT_NONE: CheckpointState.NONE,
        _raw.QUIRE_CHECKPOINT_EMPTY: CheckpointState.EMPTY,
        _raw.QUIRE_CHECKPOINT_CHANGES: CheckpointState.CHANGES,
        _raw.QUIRE_CHECKPOINT_STALE: CheckpointState.STALE,
        _raw.QUIRE_CHECKPOINT_DAMAGED: CheckpointState.DAMAGED,
    }

    def inspect_checkpoint(self, *, directory: Optional[PathType] = None, uid: Optional[str] = None) -> "CheckpointInfo":
        """What the checkpoint that :meth:`start_checkpoints` with the same ``directory``
        and ``uid`` would find holds, without applying, locking or changing anything
        (``quire_document_inspect_checkpoint``): so that a program can ask its user
        "Recover unsaved changes?" before it starts checkpoints::

            info = doc.inspect_checkpoint()
            if info.state == "changes" and ask_user(info):
                doc.start_checkpoints("immediate")                     # loads it
            else:
                doc.start_checkpoints("immediate", existing="discard")
        """
        options = _raw.checkpoint_options_init()
        if directory is not None:
            options.directory = c_string(os.fsencode(os.fspath(directory)), "the directory")
        if uid is not None:
            options.uid = c_string(uid, "the uid")
        info = _raw.quire_checkpoint_info(version=_raw.QUIRE_CHECKPOINT_INFO_VERSION)
        with self._lock:
            check(_raw.lib.quire_document_inspect_checkpoint(byref(info), self._read_handle(), byref(options)))
        return CheckpointInfo(self._CHECKPOINT_STATES.get(info.state, CheckpointState.DAMAGED), int(info.size),
                              float(info.modified), int(info.changed_objects), bool(info.in_use))

    def stop_checkpoints(self, remove: bool = False) -> None:
        """Stops keeping checkpoints; the checkpoint file stays for recovery unless
        ``remove``."""
        with self._lock:
            check(_raw.lib.quire_document_stop_checkpoints(self._live_handle(), 1 if remove else 0))

    def checkpoint(self, *, wait: bool = True, done: Optional[Callable[[int], Any]] = None) -> None:
        """Writes a checkpoint of every unsaved change. With ``wait`` (the default) it
        returns once the checkpoint is on disk; otherwise it is written on a background
        thread, which calls ``done(status)`` when it is (an exception in ``done`` is
        ignored, as it has nowhere to go)."""
        with self._lock:
            if wait:
                check(_raw.lib.quire_document_checkpoint(self._live_handle()))
                return

            def finished(status: int, payload: Any) -> None:
                if done is not None:
                    try:
                        done(status)
                    except Exception:  # noqa: BLE001 - a background thread has no caller to raise to
                        pass

            callback = _raw.quire_checkpoint_done_fn(finished)
            # Kept until the document is closed: the library may call it at any time before.
            self._keepalive.setdefault("checkpoint callbacks", []).append(callback)
            check(_raw.lib.quire_document_checkpoint_async(self._live_handle(), callback, None))

    @property
    def checkpoint_path(self) -> Optional[str]:
        """The checkpoint file while checkpoints are kept, else ``None``."""
        try:
            return os.fsdecode(self._get_string(_raw.lib.quire_document_checkpoint_path))
        except StateError:
            self._read_handle()
            return None

    def save_to_bytes(
        self,
        *,
        full: bool = False,
        object_streams: bool = False,
        progress: Optional[Callable[[int, int], Optional[bool]]] = None,
    ) -> bytes:
        """The saved file as bytes (through ``quire_document_save_to_callback``); the
        arguments, the continuation from the saved bytes and the errors are as for
        :meth:`save`. For an incremental save the bytes are the whole file: the original
        bytes, then the update."""
        pieces: List[bytes] = []
        options = _save_options(full, object_streams)
        progress_failures: List[BaseException] = []
        c_progress = _progress_callback(progress, progress_failures)
        if c_progress is not None:
            options.progress = c_progress
        self._save_through(pieces.append, options, full, progress_failures)
        return b"".join(pieces)

    def _save_through(
        self,
        write: Callable[[Any], Any],
        options: _raw.quire_save_options,
        full: bool,
        progress_failures: Optional[List[BaseException]] = None,
        in_place: bool = False,
    ) -> None:
        """Saves through ``write``, called with consecutive pieces of the file. An
        exception raised by ``write`` aborts the save (the callback returns non-zero, the
        library returns QUIRE_EUSER) and is chained to the :class:`UserAbortError`;
        ``KeyboardInterrupt`` and other non-``Exception`` exceptions are raised as they
        are, once the library has returned. With ``in_place``, ``write`` gets a
        memoryview of the library's buffer, valid only until it returns."""
        failures: List[BaseException] = []

        def callback(data: Optional[int], size: int, payload: Optional[int]) -> int:
            # Runs inside the library's call: nothing may escape, or ctypes would print it
            # and return 0, which the library reads as "continue".
            try:
                if size:
                    if not data:
                        raise InternalError(_raw.QUIRE_EINTERNAL, "the write callback got NULL data of %d bytes" % size)
                    if in_place:
                        write(memoryview((ctypes.c_char * size).from_address(data)).cast("B"))
                    else:
                        write(ctypes.string_at(data, size))
                return 0
            except BaseException as error:  # noqa: B902 - every exception becomes QUIRE_EUSER
                failures.append(error)
                return 1

        c_callback = _raw.quire_write_fn(callback)  # alive until the call returns
        with self._lock:
            self._before_save()
            status = _raw.lib.quire_document_save_to_callback(self._live_handle(), byref(options), c_callback, None)
            if status == _raw.QUIRE_OK and full:
                self._epoch += 1
        _raise_progress_failure(status, progress_failures or [])
        if failures:
            original = failures[0]
            if not isinstance(original, Exception):
                raise original
            message = text(_raw.lib.quire_last_error_message())
            if status == _raw.QUIRE_OK:
                raise InternalError(
                    _raw.QUIRE_EINTERNAL,
                    "the write callback failed but the library reported success",
                ) from original
            error = make_error(status, message)
            raise error from original
        self._check_save(status)

    def _before_save(self) -> None:
        if self._bookmarks is not None:
            self._bookmarks._calls.reset()

    def _check_save(self, status: int) -> None:
        """Raises for a save's status; an exception a bookmark provider raised while
        persisting is chained."""
        if self._bookmarks is not None:
            self._bookmarks._calls.run(status)
        else:
            check(status)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        source = repr(self._name) if self._name is not None else "<bytes>"
        return "<quire.Document %s %s>" % (source, state)


class PageList(Sequence["Page"]):
    """The pages of a :class:`Document`, as a sequence of :class:`Page`, with the page
    operations: :meth:`insert`, :meth:`delete`, :meth:`move`, :meth:`rotate`,
    :meth:`set_box` (and :meth:`Document.merge`, :meth:`Document.extract`). A :class:`Page`
    is an index: after an operation, ``pages[i]`` is whatever page stands at ``i``.

    Indexing takes negative indices and slices; an index out of range raises
    :class:`IndexOutOfRangeError` (an ``IndexError``). Its length is asked of the document
    each time, so using it after the document is closed raises :class:`StateError`.

    Its length is :attr:`Document.page_count`, which follows the page tree's /Count as
    PDFium does. When a damaged file's /Count counts pages that the tree does not hold,
    those pages (always the last ones) are in the sequence too: indexing and iterating never
    raise for them, but reading one of their properties raises :class:`NotFoundError`::

        for page in doc.pages:
            try:
                size = page.media_box
            except quire.NotFoundError:
                continue  # counted by /Count, missing from the page tree
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
                "page index %d is out of range for a document of %d page%s"
                % (operator.index(index), count, "" if count == 1 else "s"),
            )
        return Page(self._document, position)

    def __iter__(self) -> Iterator["Page"]:
        for i in range(len(self)):
            yield Page(self._document, i)

    # -- page operations (docs/pages.md): each changes all or nothing ---------------------

    def insert(self, index: int, count: int = 1, *, media_box: Optional[RectLike] = None, rotation: int = 0) -> None:
        """Inserts ``count`` blank pages at ``index`` (0 to ``len(pages)``, which appends),
        each with ``media_box`` (default US Letter, 0 0 612 792) and ``rotation`` (a
        multiple of 90, clockwise). They join the page label range of the page before them.

        Raises:
            IndexOutOfRangeError: ``index`` outside 0 to ``len(pages)``.
            InvalidArgumentError: ``count`` below 1, a media box without area, a rotation
                that is not a multiple of 90.
        """
        box = None if media_box is None else c_rect(media_box)
        document = self._document
        with document._lock:
            check(
                _raw.lib.quire_document_insert_pages(
                    document._live_handle(),
                    int32_index(index, "the index to insert at"),
                    int32_index(count, "the number of pages"),
                    None if box is None else byref(box),
                    int32_index(rotation, "the rotation"),
                )
            )

    def delete(self, pages: PageIndices) -> PageReport:
        """Deletes ``pages`` (an index or an iterable of them; negative ones count from the
        end) with their annotations, the form fields of their widgets, and the outline
        items, named destinations and user bookmarks that go to them; page labels follow.
        Returns the :class:`PageReport` (its warnings say what was dropped).

        Raises:
            IndexOutOfRangeError: an index out of range.
            InvalidArgumentError: no pages, an index given twice, or every page (a document
                keeps one).
        """
        report = _raw.quire_page_report_p()
        document = self._document
        with document._lock:
            indices, count = page_index_array(pages, len(self))
            check(_raw.lib.quire_document_delete_pages(byref(report), document._live_handle(), indices, count))
        return take_report(report)

    def move(self, pages: PageIndices, to: int) -> None:
        """Moves ``pages`` (an index or an iterable of them) so that afterwards they stand,
        in the order given, from index ``to`` on (0 to ``len(pages)`` minus their number);
        the other pages keep their order. Everything that names the pages follows them.

        Raises:
            IndexOutOfRangeError: an index or ``to`` out of range.
            InvalidArgumentError: no pages, or an index given twice.
        """
        document = self._document
        with document._lock:
            indices, count = page_index_array(pages, len(self))
            check(
                _raw.lib.quire_document_move_pages(
                    document._live_handle(), indices, count, int32_index(to, "the destination index")
                )
            )

    def rotate(self, pages: PageIndices, quarter_turns: int = 1) -> None:
        """Turns ``pages`` by ``quarter_turns`` quarter turns clockwise (negative:
        counterclockwise), added to each page's own :attr:`Page.rotation`.

        Raises:
            IndexOutOfRangeError: an index out of range.
            InvalidArgumentError: no pages, or an index given twice.
        """
        document = self._document
        with document._lock:
            indices, count = page_index_array(pages, len(self))
            check(
                _raw.lib.quire_document_rotate_pages(
                    document._live_handle(), indices, count, int32_index(quarter_turns, "the quarter turns")
                )
            )

    def set_box(self, pages: PageIndices, kind: Union[Box, int], rect: Optional[RectLike]) -> None:
        """Sets box ``kind`` (:class:`Box`) of ``pages`` to ``rect``; ``None`` removes it
        (it then defaults as :meth:`Page.box` says; the media box cannot be removed).

        Raises:
            IndexOutOfRangeError: an index out of range.
            InvalidArgumentError: no pages, an index given twice, an unknown box, a
                rectangle without area, removing the media box.
        """
        box = None if rect is None else c_rect(rect)
        document = self._document
        with document._lock:
            indices, count = page_index_array(pages, len(self))
            check(
                _raw.lib.quire_document_set_page_box(
                    document._live_handle(), indices, count, operator.index(kind), None if box is None else byref(box)
                )
            )

    def __repr__(self) -> str:
        return "<quire.PageList of %r>" % (self._document,)


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


def _page_box(kind: Box, doc: str) -> Attribute[Page, Rect]:
    """A property of :class:`Page` that reads box ``kind`` (typed; see quire._fields)."""
    return Attribute(lambda page: page.box(kind), doc)


class Page:
    """A page of a :class:`Document`, by its zero-based index.

    Get pages from :attr:`Document.pages`. A page keeps its document alive; once the
    document is closed, its properties raise :class:`StateError`. Two pages are equal when
    they are the same index of the same document.

    A missing page (one that the page tree's /Count counts but the tree does not hold; see
    :class:`PageList`) is a ``Page`` too: its :attr:`index` and :attr:`label` work, and its
    boxes, :attr:`rotation`, :attr:`annotation_count` and :attr:`annotations` raise
    :class:`NotFoundError`.
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

    def add_redaction(
        self,
        regions: Union[RectLike, Sequence[RectLike], TextMatch, TextSpan],
        *,
        fill: Optional[Sequence[float]] = (0.0, 0.0, 0.0),
        overlay_text: Optional[str] = None,
    ) -> Annotation:
        """Marks ``regions`` of this page for redaction with one Redact annotation: a
        rectangle, a list of them (PDF user space), or a search match or text span (the
        boxes of its quads). ``fill`` (1, 3 or 4 components from 0 to 1; ``None``: no fill)
        and ``overlay_text`` are what the regions get when applied. Nothing is removed
        until :meth:`Document.apply_redactions`; until then it is an ordinary annotation.

        Raises:
            InvalidArgumentError: no region, one empty, not finite or off the page, a bad colour.
        """
        if isinstance(regions, (TextMatch, TextSpan)):
            boxes: List[Sequence[float]] = []
            for q in regions.quads:
                xs, ys = q[0::2], q[1::2]
                boxes.append((min(xs), min(ys), max(xs), max(ys)))
        elif isinstance(regions, Rect) or (len(regions) == 4 and all(isinstance(v, (int, float)) for v in regions)):
            boxes = [regions]  # type: ignore[list-item]
        else:
            boxes = list(regions)  # type: ignore[arg-type]
        numbers: List[float] = []
        for box in boxes:
            r = c_rect(box)
            numbers += [r.left, r.bottom, r.right, r.top]
        array = (ctypes.c_double * max(len(numbers), 1))(*numbers)
        colour, count = _fill_array(fill)
        out = _raw.quire_annotation_p()
        document = self._document
        with document._lock:
            check(_raw.lib.quire_page_add_redaction(byref(out), document._live_handle(), self._index, array, len(numbers),
                                                    colour, count, optional_c_string(overlay_text, "overlay_text")))
        return take_annotation(out, document)

    def box(self, kind: Union[Box, int] = Box.MEDIA) -> Rect:
        """A page box, with inheritance and the specification's defaults applied: a missing
        or malformed /MediaBox is US Letter (with a warning), a missing crop box is the
        media box, a missing bleed, trim or art box is the crop box. Returned as written,
        not clipped to the media box."""
        rect = _raw.quire_rect()
        document = self._document
        with document._lock:
            check(_raw.lib.quire_page_box(byref(rect), document._read_handle(), self._index, operator.index(kind)))
        return rect_from_c(rect)

    media_box = _page_box(Box.MEDIA, "/MediaBox: the physical medium.")
    crop_box = _page_box(Box.CROP, "/CropBox: the visible region; the media box when absent.")
    bleed_box = _page_box(Box.BLEED, "/BleedBox; the crop box when absent.")
    trim_box = _page_box(Box.TRIM, "/TrimBox; the crop box when absent.")
    art_box = _page_box(Box.ART, "/ArtBox; the crop box when absent.")

    @property
    def rotation(self) -> int:
        """The rotation in degrees clockwise: 0, 90, 180 or 270 (/Rotate, inherited)."""
        return self._document._get_int(_raw.lib.quire_page_rotation, self._index)

    @property
    def annotation_count(self) -> int:
        """The number of annotations: the dictionaries of the page's /Annots array."""
        return self._document._get_int(_raw.lib.quire_page_annotation_count, self._index)

    @property
    def annotations(self) -> List[Annotation]:
        """The annotations of the page, in /Annots order, as :class:`Annotation` values.

        The page is read once and kept: each access gives a new list (yours to change), of
        the same :class:`Annotation` objects, until the document changes (any edit, save,
        import or checkpoint load) or one of those objects is changed or closed; then the
        next access reads the page again. So ``page.annotations[i]`` in a loop reads the
        page once, and an object you change and write back with
        :meth:`Document.update_annotation` is the one the list held. To keep a value that
        other code may change, read it anew with :meth:`Document.annotation`."""
        return list(self._document._page_listing(self._index).annotations)

    @property
    def label(self) -> Optional[str]:
        """The page label from the document's /PageLabels (ISO 32000-2 §12.4.2), such as
        ``"iii"`` or ``"A-4"``; ``None`` when the document has no page labels. Labels number
        the counted pages, so a missing page has one too."""
        try:
            return text(self._document._get_string(_raw.lib.quire_page_label, self._index))
        except NotFoundError:
            return None

    def text_page(self) -> TextPage:
        """The page's text as a :class:`quire.TextPage`: characters with boxes and quads,
        words, lines, selection. A snapshot; close it or let it be collected.

        Raises:
            NotFoundError: a missing page.
        """
        return TextPage._load(self._document, self._index)

    @property
    def text(self) -> str:
        """The page's plain text, in the order its content shows it, with a space between
        words and a line break between lines."""
        with self.text_page() as t:
            return t.text

    def chars(self) -> List[TextChar]:
        """Every character of the page's text, with its box, quad and font size."""
        with self.text_page() as t:
            return t.chars

    def words(self) -> List[TextSpan]:
        """The page's words, each with its text and quads."""
        with self.text_page() as t:
            return t.words

    def lines(self) -> List[TextSpan]:
        """The page's lines, each with its text and quads."""
        with self.text_page() as t:
            return t.lines

    def select(self, start: Tuple[float, float], end: Tuple[float, float]) -> Optional[TextSpan]:
        """The text a drag from ``start`` to ``end`` (points in user space) selects; ``None``
        on a page without text. See :meth:`TextPage.select`."""
        with self.text_page() as t:
            return t.select(start, end)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Page):
            return NotImplemented
        return self._document is other._document and self._index == other._index

    def __hash__(self) -> int:
        return hash((id(self._document), self._index))

    def __repr__(self) -> str:
        return "<quire.Page %d of %r>" % (self._index, self._document)
