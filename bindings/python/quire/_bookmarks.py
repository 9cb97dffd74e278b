"""User bookmarks: :class:`Bookmark`, :class:`BookmarkManager` and :class:`BookmarkProvider`.

Bookmarks are the reader's own marks, not the document's outline. A :class:`Bookmark` is
an immutable value (a frozen dataclass): to change one, make a changed copy with
:meth:`Bookmark.replace` and add it; adding a bookmark whose identifier the document
already has replaces that bookmark in place, keeping its position in the custom order.

A document's bookmarks are kept by a chain of providers (:attr:`BookmarkManager.providers`).
The default chain is the built-in provider alone (:data:`BUILTIN_PROVIDER`), which stores
bookmarks inside the PDF. Subclass :class:`BookmarkProvider` to keep them elsewhere::

    class Memory(quire.BookmarkProvider):
        def __init__(self):
            self.items = {}
        def load(self):
            return list(self.items.values())
        def add(self, bookmark):
            if bookmark.page_index is None:
                return False          # let the next provider have it
            self.items[bookmark.identifier] = bookmark
            return True
        def remove(self, bookmark):
            return self.items.pop(bookmark.identifier, None) is not None

    with quire.Document("file.pdf") as doc:
        doc.bookmarks.providers = [Memory(), quire.BUILTIN_PROVIDER]
        doc.bookmarks.add(quire.Bookmark.for_page(3, name="Results"))
        for b in doc.bookmarks.sorted(quire.BookmarkSortOrder.PAGE):
            print(b.page_index, b.name)
        doc.save("file.pdf")          # every provider is asked to persist

An exception raised inside a provider becomes ``QUIRE_EUSER`` in the library, and the
manager's call raises :class:`quire.UserAbortError` chained to it (``raise ... from``).
"""

from __future__ import annotations

import dataclasses
import weakref
import ctypes
from ctypes import POINTER, byref, c_int32, c_int64
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, List, Optional, Sequence, Union

from . import _raw
from ._errors import InternalError, InvalidArgumentError, NotFoundError, check, make_error
from ._ffi import c_string, query_bytes, text

if TYPE_CHECKING:  # pragma: no cover
    from ._document import Document


class BookmarkKind(IntEnum):
    """What a bookmark's action does (``QUIRE_BOOKMARK_*``)."""

    GOTO = _raw.QUIRE_BOOKMARK_GOTO  #: go to a page of the document
    URI = _raw.QUIRE_BOOKMARK_URI  #: open a URI
    NAMED = _raw.QUIRE_BOOKMARK_NAMED  #: a named action, such as NextPage
    OTHER = _raw.QUIRE_BOOKMARK_OTHER  #: any other action, as its dictionary in PDF syntax


class BookmarkSortOrder(IntEnum):
    """The orders bookmarks are listed in (``QUIRE_BOOKMARK_SORT_*``)."""

    CUSTOM = _raw.QUIRE_BOOKMARK_SORT_CUSTOM  #: insertion order, as rearranged by moves
    #: by page; bookmarks without a page last; ties keep the custom order
    PAGE = _raw.QUIRE_BOOKMARK_SORT_PAGE


@dataclasses.dataclass(frozen=True)
class Bookmark:
    """A user bookmark, as a value.

    ``kind`` says what it does; ``page_index`` is the page of a :attr:`BookmarkKind.GOTO`
    bookmark (``None`` otherwise); ``target`` is the URI, the named action's name, or the
    action dictionary in PDF syntax (``None`` for a go-to bookmark). ``sort_key`` is opaque:
    the document assigns it and uses it for the custom order; providers store it as it is.
    Make new bookmarks with the ``for_*`` constructors, which give them a new identifier.
    """

    identifier: str
    kind: BookmarkKind
    page_index: Optional[int] = None
    target: Optional[str] = None
    name: Optional[str] = None
    sort_key: Optional[int] = None

    # -- constructors ------------------------------------------------------------------------

    @classmethod
    def _new(cls, kind: BookmarkKind, page_index: int, target: Optional[str], name: Optional[str]) -> "Bookmark":
        handle = _raw.quire_bookmark_p()
        encoded = None if target is None else c_string(target, "the target")
        check(_raw.lib.quire_bookmark_new(byref(handle), int(kind), page_index, encoded))
        try:
            return dataclasses.replace(_from_handle(handle), name=name)
        finally:
            _raw.lib.quire_bookmark_free(handle)

    @classmethod
    def for_page(cls, page_index: int, name: Optional[str] = None) -> "Bookmark":
        """A new bookmark of the page at ``page_index`` (0-based)."""
        return cls._new(BookmarkKind.GOTO, int(page_index), None, name)

    @classmethod
    def for_uri(cls, uri: str, name: Optional[str] = None) -> "Bookmark":
        """A new bookmark that opens ``uri``."""
        return cls._new(BookmarkKind.URI, 0, uri, name)

    @classmethod
    def for_named_action(cls, action: str, name: Optional[str] = None) -> "Bookmark":
        """A new bookmark that performs the named action ``action`` (NextPage, ...)."""
        return cls._new(BookmarkKind.NAMED, 0, action, name)

    @classmethod
    def for_action(cls, pdf_action: str, name: Optional[str] = None) -> "Bookmark":
        """A new bookmark for any action, given as its dictionary in PDF syntax, such as
        ``"<< /S /JavaScript /JS (app.alert(1)) >>"``.

        Raises:
            FormatError: not one action dictionary with an /S name.
        """
        return cls._new(BookmarkKind.OTHER, 0, pdf_action, name)

    def replace(self, **changes: Any) -> "Bookmark":
        """A copy with ``changes`` (``name=``, ``sort_key=``, ...): the same identifier, so
        adding it replaces this bookmark."""
        return dataclasses.replace(self, **changes)

    # -- conversion --------------------------------------------------------------------------

    def _to_handle(self) -> Any:
        """A new ``quire_bookmark *`` holding this value; the caller frees it."""
        handle = _raw.quire_bookmark_p()
        kind = BookmarkKind(self.kind)
        if kind == BookmarkKind.GOTO:
            if self.page_index is None:
                raise InvalidArgumentError(_raw.QUIRE_EINVAL, "a GOTO bookmark needs a page_index")
            check(_raw.lib.quire_bookmark_new(byref(handle), int(kind), int(self.page_index), None))
        else:
            if self.target is None:
                raise InvalidArgumentError(_raw.QUIRE_EINVAL, "a %s bookmark needs a target" % kind.name)
            check(_raw.lib.quire_bookmark_new(byref(handle), int(kind), 0, c_string(self.target, "the target")))
        try:
            check(_raw.lib.quire_bookmark_set_identifier(handle, c_string(self.identifier, "the identifier")))
            name = None if self.name is None else c_string(self.name, "the name")
            check(_raw.lib.quire_bookmark_set_name(handle, name))
            key = None if self.sort_key is None else byref(c_int64(int(self.sort_key)))
            check(_raw.lib.quire_bookmark_set_sort_key(handle, key))
        except BaseException:
            _raw.lib.quire_bookmark_free(handle)
            raise
        return handle


def _from_handle(handle: Any) -> Bookmark:
    """The value of a ``quire_bookmark *`` (borrowed)."""

    def optional(function: Any) -> Optional[str]:
        try:
            return text(query_bytes(function, handle))
        except NotFoundError:
            return None

    kind = c_int32()
    check(_raw.lib.quire_bookmark_action_type(byref(kind), handle))
    page: Optional[int] = None
    if kind.value == _raw.QUIRE_BOOKMARK_GOTO:
        out = c_int32()
        check(_raw.lib.quire_bookmark_page_index(byref(out), handle))
        page = out.value
    key = c_int64()
    try:
        check(_raw.lib.quire_bookmark_sort_key(byref(key), handle))
        sort_key: Optional[int] = key.value
    except NotFoundError:
        sort_key = None
    return Bookmark(
        identifier=text(query_bytes(_raw.lib.quire_bookmark_identifier, handle)),
        kind=BookmarkKind(kind.value),
        page_index=page,
        target=None if page is not None else optional(_raw.lib.quire_bookmark_action_text),
        name=optional(_raw.lib.quire_bookmark_name),
        sort_key=sort_key,
    )


class BookmarkProvider:
    """Base class of custom bookmark providers: where bookmarks are stored.

    The manager offers a new bookmark to each provider of its chain in order until one's
    :meth:`add` returns ``True``; asks each in order to :meth:`remove` a bookmark until
    the one that holds it returns ``True``; lists the union of what :meth:`load` gave and
    what was added since; and calls :meth:`save` when the document is saved. :meth:`load`
    is called once, on first use. Methods run on the thread that called the document and
    must not call the document's bookmark methods (that raises :class:`quire.StateError`
    inside the provider). An exception they raise fails the manager's call with
    :class:`quire.UserAbortError`, chained to it.
    """

    def load(self) -> Iterable[Bookmark]:
        """The bookmarks this provider holds."""
        return []

    def add(self, bookmark: Bookmark) -> bool:
        """Take ``bookmark`` (replacing one with its identifier) and return ``True``, or
        return ``False`` to let the next provider have it."""
        return False

    def remove(self, bookmark: Bookmark) -> bool:
        """Remove ``bookmark`` (by identifier) and return ``True`` if this provider held it."""
        return False

    def save(self) -> None:
        """Persist the bookmarks; called when the document is saved."""


class _BuiltinProvider:
    """The built-in provider: bookmarks stored in the PDF, in a private catalog entry
    (``/QUIR_Bookmarks``) that other viewers ignore. It accepts every bookmark; its changes
    are unsaved changes of the document, written by the next save."""

    def __repr__(self) -> str:
        return "quire.BUILTIN_PROVIDER"


#: The built-in provider, for :attr:`BookmarkManager.providers`.
BUILTIN_PROVIDER = _BuiltinProvider()

ProviderLike = Union[BookmarkProvider, _BuiltinProvider]


class _Calls:
    """Runs library calls that may call back into Python, and turns an exception a
    callback stored into the call's exception (chained)."""

    def __init__(self) -> None:
        self.failures: List[BaseException] = []

    def reset(self) -> None:
        """Forgets what an earlier call left: call before each library call."""
        self.failures = []

    def run(self, status: int) -> None:
        failures, self.failures = self.failures, []
        if failures:
            original = failures[0]
            if not isinstance(original, Exception):
                raise original
            if status == _raw.QUIRE_OK:
                raise original  # a change callback failed after the change was made
            message = text(_raw.lib.quire_last_error_message())
            raise make_error(status, message) from original
        check(status)

    def guard(self, body: Callable[[], int]) -> int:
        """Calls ``body`` (a callback's work) and returns its result, or stores the
        exception and returns 1 (QUIRE_EUSER)."""
        try:
            return body()
        except BaseException as error:  # noqa: B902 - every exception becomes a status
            self.failures.append(error)
            return 1


def _c_provider(provider: BookmarkProvider, calls: _Calls, keep: List[Any]) -> _raw.quire_bookmark_provider:
    """The ``quire_bookmark_provider`` of a Python provider; its callbacks go in ``keep``."""

    def load(sink: Any, payload: Any) -> int:
        def body() -> int:
            for bookmark in provider.load():
                if not isinstance(bookmark, Bookmark):
                    raise TypeError("%r.load() gave %r, not a quire.Bookmark" % (provider, bookmark))
                handle = bookmark._to_handle()
                try:
                    check(_raw.lib.quire_bookmark_sink_add(sink, handle))
                finally:
                    _raw.lib.quire_bookmark_free(handle)
            return 0

        return calls.guard(body)

    def decide(method: Callable[[Bookmark], Any]) -> Callable[[Any, Any, Any], int]:
        def callback(out: Any, bookmark: Any, payload: Any) -> int:
            def body() -> int:
                out[0] = 1 if method(_from_handle(bookmark)) else 0
                return 0

            return calls.guard(body)

        return callback

    def save(payload: Any) -> int:
        def body() -> int:
            provider.save()
            return 0

        return calls.guard(body)

    spec = _raw.bookmark_provider_init()
    spec.load = _raw.quire_bookmark_provider_load_fn(load)
    spec.add = _raw.quire_bookmark_provider_add_fn(decide(provider.add))
    spec.remove = _raw.quire_bookmark_provider_remove_fn(decide(provider.remove))
    spec.save = _raw.quire_bookmark_provider_save_fn(save)
    keep.extend([spec.load, spec.add, spec.remove, spec.save, provider])
    return spec


class BookmarkManager:
    """The bookmarks of a document (:attr:`quire.Document.bookmarks`).

    Iterating gives the bookmarks in the custom order; ``len()`` counts them. The manager
    lives as long as its document; after the document is closed, every method raises
    :class:`quire.StateError`.
    """

    def __init__(self, document: "Document") -> None:
        self._document = weakref.proxy(document)
        self._calls = _Calls()
        self._providers: List[ProviderLike] = [BUILTIN_PROVIDER]
        self._on_change: Optional[Callable[["BookmarkManager"], Any]] = None

    def _call(self, function: Any, *args: Any) -> None:
        document = self._document
        with document._lock:
            self._calls.reset()
            status = function(document._live_handle(), *args)
        self._calls.run(status)

    def _get_bookmark(self, function: Any, *args: Any) -> Bookmark:
        document = self._document
        handle = _raw.quire_bookmark_p()
        with document._lock:
            self._calls.reset()
            status = function(byref(handle), document._live_handle(), *args)
        self._calls.run(status)
        if not handle:
            raise InternalError(_raw.QUIRE_EINTERNAL, "the library returned QUIRE_OK and a NULL bookmark")
        try:
            return _from_handle(handle)
        finally:
            _raw.lib.quire_bookmark_free(handle)

    # -- reading -----------------------------------------------------------------------------

    def __len__(self) -> int:
        out = c_int32()
        document = self._document
        with document._lock:
            self._calls.reset()
            status = _raw.lib.quire_document_bookmark_count(byref(out), document._live_handle())
        self._calls.run(status)
        return out.value

    def sorted(self, order: BookmarkSortOrder = BookmarkSortOrder.CUSTOM) -> List[Bookmark]:
        """Every bookmark in ``order``, without changing the manager's state."""
        order = BookmarkSortOrder(order)
        return [self._get_bookmark(_raw.lib.quire_document_bookmark, int(order), i) for i in range(len(self))]

    def __iter__(self) -> Iterator[Bookmark]:
        return iter(self.sorted(BookmarkSortOrder.CUSTOM))

    def get(self, identifier: str) -> Optional[Bookmark]:
        """The bookmark with ``identifier``, or ``None``."""
        try:
            return self._get_bookmark(_raw.lib.quire_document_find_bookmark, c_string(identifier, "the identifier"))
        except NotFoundError:
            return None

    # -- changing ----------------------------------------------------------------------------

    def add(self, bookmark: Bookmark) -> None:
        """Adds ``bookmark``, or replaces the bookmark with its identifier in place.

        Raises:
            IndexOutOfRangeError: a go-to bookmark past the last page.
            UnsupportedError: no provider accepts it.
            UserAbortError: a provider raised (chained).
        """
        if not isinstance(bookmark, Bookmark):
            raise TypeError("add takes a quire.Bookmark, not %s" % type(bookmark).__name__)
        handle = bookmark._to_handle()
        try:
            self._call(_raw.lib.quire_document_add_bookmark, handle)
        finally:
            _raw.lib.quire_bookmark_free(handle)

    @staticmethod
    def _identifier(bookmark: Union[Bookmark, str]) -> bytes:
        return c_string(bookmark.identifier if isinstance(bookmark, Bookmark) else bookmark, "the identifier")

    def remove(self, bookmark: Union[Bookmark, str]) -> None:
        """Removes a bookmark (or the one with that identifier).

        Raises:
            NotFoundError: no provider holds it.
        """
        self._call(_raw.lib.quire_document_remove_bookmark, self._identifier(bookmark))

    def move(self, bookmark: Union[Bookmark, str], index: int) -> None:
        """Moves a bookmark to ``index`` of the custom order.

        Raises:
            NotFoundError, IndexOutOfRangeError.
        """
        self._call(_raw.lib.quire_document_move_bookmark, self._identifier(bookmark), int(index))

    def export_to_outline(self) -> int:
        """Writes the bookmarks into the outline, in :attr:`sort_order`, so that other
        viewers show them (items of an earlier export are replaced); returns how many.
        The changes are unsaved changes, written by the next save."""
        out = c_int32()
        self._call(lambda handle: _raw.lib.quire_document_export_bookmarks_to_outline(byref(out), handle))
        return out.value

    # -- configuration -----------------------------------------------------------------------

    @property
    def sort_order(self) -> BookmarkSortOrder:
        """The order a user interface should show the bookmarks in (a setting of the open
        document, not stored in the file); also the order of :meth:`export_to_outline`."""
        out = c_int32()
        self._call(lambda handle: _raw.lib.quire_document_bookmark_sort_order(byref(out), handle))
        return BookmarkSortOrder(out.value)

    @sort_order.setter
    def sort_order(self, order: BookmarkSortOrder) -> None:
        self._call(_raw.lib.quire_document_set_bookmark_sort_order, int(BookmarkSortOrder(order)))

    @property
    def providers(self) -> List[ProviderLike]:
        """The chain of providers, in order: :class:`BookmarkProvider` objects and
        :data:`BUILTIN_PROVIDER`. Assigning a list replaces the chain; the new providers
        are asked for their bookmarks on next use. The manager keeps them alive."""
        return list(self._providers)

    @providers.setter
    def providers(self, chain: Sequence[ProviderLike]) -> None:
        chain = list(chain)
        keep: List[Any] = []
        specs = []
        for provider in chain:
            if provider is BUILTIN_PROVIDER:
                specs.append(_raw.bookmark_provider_builtin())
            elif isinstance(provider, BookmarkProvider):
                specs.append(_c_provider(provider, self._calls, keep))
            else:
                raise TypeError("a bookmark provider is a quire.BookmarkProvider or quire.BUILTIN_PROVIDER, not %r" % (provider,))
        # An array of pointers to the structs (the struct may grow in later versions).
        structs = (_raw.quire_bookmark_provider * max(len(specs), 1))(*specs)
        array = (POINTER(_raw.quire_bookmark_provider) * max(len(specs), 1))(
            *[ctypes.pointer(structs[k]) for k in range(len(specs))])
        keep.append((structs, array))
        document = self._document
        with document._lock:
            self._calls.reset()
            status = _raw.lib.quire_document_set_bookmark_providers(document._live_handle(), array, len(specs))
            if status == _raw.QUIRE_OK:
                # The callbacks must outlive the library's use of them: until the chain is
                # replaced again or the document is closed (see Document._keepalive).
                document._keepalive["bookmark providers"] = keep
                self._providers = chain
        self._calls.run(status)

    @property
    def on_change(self) -> Optional[Callable[["BookmarkManager"], Any]]:
        """Called with the manager after each change to the bookmarks (add, replace,
        remove, move, a new provider chain); ``None`` for none. An exception it raises is
        raised by the call that made the change (the change is made)."""
        return self._on_change

    @on_change.setter
    def on_change(self, callback: Optional[Callable[["BookmarkManager"], Any]]) -> None:
        document = self._document
        if callback is None:
            c_callback: Any = _raw.quire_bookmark_change_fn()
        else:
            manager = weakref.proxy(self)

            def changed(doc: Any, payload: Any) -> None:
                self._calls.guard(lambda: (callback(manager), 0)[1])

            c_callback = _raw.quire_bookmark_change_fn(changed)
        with document._lock:
            self._calls.reset()
            status = _raw.lib.quire_document_set_bookmark_change_callback(document._live_handle(), c_callback, None)
            if status == _raw.QUIRE_OK:
                document._keepalive["bookmark change"] = c_callback
                self._on_change = callback
        self._calls.run(status)

    def __repr__(self) -> str:
        return "<quire.BookmarkManager of %r>" % (self._document,)


__all__ = ["BUILTIN_PROVIDER", "Bookmark", "BookmarkKind", "BookmarkManager", "BookmarkProvider", "BookmarkSortOrder"]
