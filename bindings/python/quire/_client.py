"""The Instant-style sync client (``quire_client_*``, ``quire_descriptor_*``): a client of a
sync server (``docs/sync-protocol.md``) with a local data directory, one :class:`Descriptor`
per document and layer that a JWT names, downloads, an editable :class:`quire.Document`
whose changes are stored durably and synced both ways. See ``docs/sync-client.md``.

Example (``examples/python/instant_review.py`` does the whole review)::

    with quire.Client("http://127.0.0.1:8080", "/var/lib/reviewer") as client:
        descriptor = client.descriptor(jwt)
        descriptor.download(jwt, wait=True)  # raises why, when it fails
        doc = descriptor.document
        doc.add_annotation(...)          # pending, durably, before it returns
        descriptor.sync_now()            # pushed, and the server's changes pulled in
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
from ctypes import byref, c_int, c_size_t
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from . import _raw
from ._document import Document
from ._enums import IntEnum
from ._errors import StateError, check
from ._ffi import c_string, query_bytes


class SyncState(IntEnum):
    """A descriptor's state (``quire_sync_state``), as Instant's."""

    UNKNOWN = _raw.QUIRE_SYNC_STATE_UNKNOWN
    CLEAN = _raw.QUIRE_SYNC_STATE_CLEAN
    DIRTY = _raw.QUIRE_SYNC_STATE_DIRTY
    SENDING = _raw.QUIRE_SYNC_STATE_SENDING
    RECEIVING = _raw.QUIRE_SYNC_STATE_RECEIVING
    INVALID = _raw.QUIRE_SYNC_STATE_INVALID
    NEEDS_RESET = _raw.QUIRE_SYNC_STATE_NEEDS_RESET


class SyncEventType(IntEnum):
    """What a :class:`SyncEvent` reports (``quire_sync_event_type``)."""

    STATE_CHANGED = _raw.QUIRE_SYNC_EVENT_STATE_CHANGED
    DOWNLOAD_PROGRESS = _raw.QUIRE_SYNC_EVENT_DOWNLOAD_PROGRESS
    DOWNLOAD_FINISHED = _raw.QUIRE_SYNC_EVENT_DOWNLOAD_FINISHED
    DOWNLOAD_FAILED = _raw.QUIRE_SYNC_EVENT_DOWNLOAD_FAILED
    SYNC_FINISHED = _raw.QUIRE_SYNC_EVENT_SYNC_FINISHED
    SYNC_FAILED = _raw.QUIRE_SYNC_EVENT_SYNC_FAILED
    DOCUMENT_CHANGED = _raw.QUIRE_SYNC_EVENT_DOCUMENT_CHANGED
    CHANGE_DROPPED = _raw.QUIRE_SYNC_EVENT_CHANGE_DROPPED
    AUTHENTICATION_NEEDED = _raw.QUIRE_SYNC_EVENT_AUTHENTICATION_NEEDED
    REAUTHENTICATION_FINISHED = _raw.QUIRE_SYNC_EVENT_REAUTHENTICATION_FINISHED
    REAUTHENTICATION_FAILED = _raw.QUIRE_SYNC_EVENT_REAUTHENTICATION_FAILED
    RECORDS_REPAIRED = _raw.QUIRE_SYNC_EVENT_RECORDS_REPAIRED
    PRESENCE_CHANGED = _raw.QUIRE_SYNC_EVENT_PRESENCE_CHANGED


@dataclass(frozen=True)
class SyncEvent:
    """One event of a descriptor (a copy of ``quire_sync_event``)."""

    type: SyncEventType
    state: SyncState
    #: ``QUIRE_OK`` (0), or the status of a failure.
    status: int = 0
    message: Optional[str] = None
    #: CHANGE_DROPPED: the record whose local changes were dropped, and why
    #: (``"conflict"``, ``"invalid"`` or ``"forbidden"``: the token's collaboration
    #: permissions do not allow the change).
    record_id: Optional[str] = None
    reason: Optional[str] = None
    #: DOCUMENT_CHANGED: the records the server changed; RECORDS_REPAIRED: the records
    #: fetched again because the client's copy differed from the server's.
    record_ids: Tuple[str, ...] = field(default_factory=tuple)
    completed: int = 0
    total: int = 0
    #: CHANGE_DROPPED: the local change ids dropped (:attr:`Descriptor.last_change_id` after
    #: an edit gives its id), oldest first, and the refused mutation's client sequence number.
    change_ids: Tuple[int, ...] = field(default_factory=tuple)
    client_seq: int = 0
    #: CHANGE_DROPPED: the fields (``"text"``, ``"colour"``, ...) that lost to another
    #: client's change of the same fields; when the change's other fields were merged and
    #: kept, only these were dropped. Empty when the whole change was dropped.
    fields: Tuple[str, ...] = field(default_factory=tuple)
    #: PRESENCE_CHANGED: who is connected to the layer over quire-server's WebSocket, one
    #: dict per member (``user_id``, ``client_id``, ``since``, ``cursor``), oldest first.
    presence: Tuple[Dict[str, Any], ...] = field(default_factory=tuple)


def _text(p: Optional[bytes]) -> Optional[str]:
    return None if p is None else p.decode("utf-8", errors="replace")


_KNOWN_EVENTS = frozenset(int(t) for t in SyncEventType)

EventHandler = Callable[["Descriptor", SyncEvent], None]
TokenProvider = Callable[["Descriptor"], Optional[str]]


class Client:
    """A client of the sync server at ``server_url`` (``http://`` or ``https://``) that keeps
    its downloads in ``data_directory`` (``quire_client_open``).

    ``on_event(descriptor, event)`` is called with every descriptor's events, on that
    descriptor's event thread (not the caller's): keep it short, and never call
    :meth:`Descriptor.sync_now`, :meth:`Descriptor.wait_idle` or :meth:`close` from it.
    ``token_provider(descriptor)`` is asked for a fresh JWT when a descriptor has none or the
    server refused its token, on that descriptor's worker thread; ``None`` means none (the
    AUTHENTICATION_NEEDED event follows). An exception in either is kept in
    :attr:`callback_errors` (and ends a provider's call as "no token"), never a crash.

    ``auto_sync_delay``: seconds after a local change before the automatic sync (0: off;
    ``None``: the library's default, 1 s). The client is a context manager; :meth:`close`
    is idempotent.

    Raises:
        UnsupportedError: the library was built without its HTTP client.
        InvalidArgumentError: a URL that is not http(s), a setting out of range.
    """

    def __init__(
        self,
        server_url: str,
        data_directory: Union[str, "os.PathLike[str]"],
        *,
        on_event: Optional[EventHandler] = None,
        token_provider: Optional[TokenProvider] = None,
        auto_sync_delay: Optional[float] = None,
        listen_wait_seconds: int = 0,
        request_timeout_seconds: int = 0,
    ) -> None:
        config = _raw.client_config_init()
        config.server_url = c_string(server_url, "the server URL")
        config.data_directory = c_string(os.fsencode(os.fspath(data_directory)), "the data directory")
        if auto_sync_delay is not None:
            config.auto_sync_delay = float(auto_sync_delay)
        config.listen_wait_seconds = listen_wait_seconds
        config.request_timeout_seconds = request_timeout_seconds
        self._on_event = on_event
        self._token_provider = token_provider
        #: Exceptions raised by ``on_event`` or ``token_provider``, in order.
        self.callback_errors: List[BaseException] = []
        self._descriptors: Dict[int, Descriptor] = {}
        self._lock = threading.RLock()
        self._token_buffers: Dict[int, Any] = {}
        callbacks = _raw.client_callbacks_init()
        # The ctypes callbacks stay alive as long as the client (the library calls them
        # until quire_client_close returns).
        self._event_fn = _raw.quire_sync_event_fn(self._deliver)
        self._token_fn = _raw.quire_token_provider_fn(self._provide)
        if on_event is not None:
            callbacks.on_event = self._event_fn
        if token_provider is not None:
            callbacks.token_provider = self._token_fn
        handle = _raw.quire_client_p()
        check(_raw.lib.quire_client_open(byref(handle), byref(config), byref(callbacks)))
        self._handle: Optional[Any] = handle

    # -- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        """Stops every descriptor's listening, waits for their work and frees the client.
        Documents obtained from descriptors stay usable, no longer synced."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _raw.lib.quire_client_close(handle)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _live(self) -> Any:
        if self._handle is None:
            raise StateError(_raw.QUIRE_ESTATE, "the client is closed")
        return self._handle

    # -- callbacks (library threads) --------------------------------------------------

    def _descriptor_of(self, handle: Any) -> "Descriptor":
        address = ctypes.cast(handle, ctypes.c_void_p).value or 0
        with self._lock:
            d = self._descriptors.get(address)
            if d is None:
                d = Descriptor(self, ctypes.cast(address, _raw.quire_descriptor_p))
                self._descriptors[address] = d
            return d

    def _deliver(self, handle: Any, event_p: Any, payload: Any) -> None:
        try:
            e = event_p.contents
            ids: Tuple[str, ...] = ()
            if e.record_ids and e.record_id_count:
                ids = tuple(_text(e.record_ids[i]) or "" for i in range(e.record_id_count))
            changes: Tuple[int, ...] = ()
            client_seq = 0
            if e.version >= 2:
                client_seq = e.client_seq
                if e.change_ids and e.change_id_count:
                    changes = tuple(int(e.change_ids[i]) for i in range(e.change_id_count))
            fields: Tuple[str, ...] = ()
            if e.version >= 3 and e.fields and e.field_count:
                fields = tuple(_text(e.fields[i]) or "" for i in range(e.field_count))
            presence: Tuple[Dict[str, Any], ...] = ()
            if e.version >= 4 and e.presence:
                presence = tuple(json.loads(_text(e.presence) or "[]"))
            if e.type not in _KNOWN_EVENTS:
                return  # an event of a newer library than this binding knows
            event = SyncEvent(
                type=SyncEventType(e.type), state=SyncState(e.state), status=e.status, message=_text(e.message),
                record_id=_text(e.record_id), reason=_text(e.reason), record_ids=ids,
                completed=e.completed, total=e.total, change_ids=changes, client_seq=client_seq, fields=fields,
                presence=presence,
            )
            descriptor = self._descriptor_of(handle)
            if event.type in (SyncEventType.DOCUMENT_CHANGED, SyncEventType.CHANGE_DROPPED,
                              SyncEventType.RECORDS_REPAIRED):
                descriptor._forget_reads()
            if self._on_event is not None:
                self._on_event(descriptor, event)
        except BaseException as exc:  # never across the C boundary
            self.callback_errors.append(exc)

    def _provide(self, handle: Any, payload: Any) -> Optional[int]:
        try:
            if self._token_provider is None:
                return None
            token = self._token_provider(self._descriptor_of(handle))
            if token is None:
                return None
            buffer = ctypes.create_string_buffer(c_string(token, "the token"))
            address = ctypes.cast(handle, ctypes.c_void_p).value or 0
            with self._lock:
                self._token_buffers[address] = buffer  # alive until the next call
            return ctypes.addressof(buffer)
        except BaseException as exc:
            self.callback_errors.append(exc)
            return None

    # -- descriptors and storage ------------------------------------------------------

    def descriptor(self, jwt: str) -> "Descriptor":
        """The descriptor of the document and layer that ``jwt`` names (read, not verified:
        the server verifies), the same object for the same pair. The token is not kept.

        Raises:
            InvalidArgumentError: not a JWT with ``document_id`` and ``layer`` claims.
        """
        out = _raw.quire_descriptor_p()
        check(_raw.lib.quire_client_descriptor_for_jwt(byref(out), self._live(), c_string(jwt, "the token")))
        return self._descriptor_of(out)

    def remove_document_storage(self, document_id: str) -> None:
        """Removes a document's local storage: its PDF and every layer's store (pending
        changes included); its descriptors go back to :attr:`SyncState.UNKNOWN`."""
        check(_raw.lib.quire_client_remove_document_storage(self._live(), c_string(document_id, "the document id")))

    def remove_unused_cache(self) -> int:
        """Removes the cached PDFs of documents none of whose layers is stored; returns how
        many."""
        out = c_size_t()
        check(_raw.lib.quire_client_remove_unused_cache(byref(out), self._live()))
        return int(out.value)


class Descriptor:
    """A (document, layer) of a :class:`Client` (``quire_descriptor``); made by
    :meth:`Client.descriptor`, it lives as long as its client."""

    def __init__(self, client: Client, handle: Any) -> None:
        self._client = client
        self._handle = handle
        self._document: Optional[Document] = None

    def _live(self) -> Any:
        self._client._live()
        return self._handle

    @property
    def document_id(self) -> str:
        return query_bytes(_raw.lib.quire_descriptor_document_id, self._live()).decode("utf-8")

    @property
    def layer(self) -> str:
        return query_bytes(_raw.lib.quire_descriptor_layer, self._live()).decode("utf-8")

    @property
    def state(self) -> SyncState:
        """The state now (it changes on the library's threads)."""
        out = c_int()
        check(_raw.lib.quire_descriptor_state(byref(out), self._live()))
        return SyncState(out.value)

    @property
    def pending_changes(self) -> int:
        """How many local changes the server has not acknowledged yet."""
        out = c_size_t()
        check(_raw.lib.quire_descriptor_pending_changes(byref(out), self._live()))
        return int(out.value)

    def download(self, jwt: str, *, wait: bool = False) -> None:
        """Downloads the PDF (once per document) and the layer with ``jwt``: in the
        background (the DOWNLOAD_FINISHED or DOWNLOAD_FAILED event says when it ends;
        :meth:`wait_idle` waits for it and raises its failure), or with ``wait=True``, to
        the end (``quire_descriptor_download_now``).

        Raises:
            InvalidArgumentError: a token for another document or layer.
            BusyError: a download of this descriptor is running.
            AuthenticationError: (``wait=True``) the server refused the token: expired,
                signed by another key, without permission, or the document is gone.
            NetworkError: (``wait=True``) the server cannot be reached.
        """
        token = c_string(jwt, "the token")
        if wait:
            check(_raw.lib.quire_descriptor_download_now(self._live(), token))
        else:
            check(_raw.lib.quire_descriptor_download(self._live(), token))

    @property
    def document(self) -> Document:
        """The editable document (the same object each time). Its edits are stored as
        pending changes before they return; the server's changes appear in it after syncs.

        Raises:
            StateError: not downloaded.
        """
        if self._document is None or self._document.closed:
            out = _raw.quire_document_p()
            check(_raw.lib.quire_descriptor_document(byref(out), self._live()))
            self._document = Document._adopt(out)
        return self._document

    def _forget_reads(self) -> None:
        doc = self._document
        if doc is not None:
            with doc._lock:
                doc._listings.clear()

    def sync(self) -> None:
        """Starts a sync (push, then pull) on the worker thread."""
        check(_raw.lib.quire_descriptor_sync(self._live()))

    def sync_now(self) -> None:
        """Syncs and waits for the end.

        Raises:
            AuthenticationError: no token, or the server refused it.
            NetworkError: the server cannot be reached (the changes stay pending).
            StateError: not downloaded.
        """
        check(_raw.lib.quire_descriptor_sync_now(self._live()))
        self._forget_reads()

    def wait_idle(self) -> None:
        """Waits until the work queued so far and its events are done.

        Raises:
            QuireError: the failure of the last download queued, when it failed (and none
                succeeded since): a download never fails silently. Failed syncs are not
                raised here (their changes stay pending and are retried; :meth:`sync_now`
                raises them).
        """
        check(_raw.lib.quire_descriptor_wait_idle(self._live()))

    @property
    def last_change_id(self) -> int:
        """The id of the latest local change (0: none yet). Each call on the editable
        document that changes its records is one local change, numbered 1, 2, ...: read this
        after the call to know its id. A CHANGE_DROPPED event's :attr:`SyncEvent.change_ids`
        names the ones it drops."""
        out = ctypes.c_int64()
        check(_raw.lib.quire_descriptor_last_change_id(byref(out), self._live()))
        return int(out.value)

    def records(self) -> Dict[str, Dict[str, Any]]:
        """The client's records, by id: the server's records as last synced with the
        local changes not yet acknowledged on top. After a sync that ends CLEAN they equal
        the server's (and so does :meth:`records_json`, byte for byte)."""
        import json

        return {r["id"]: r for r in json.loads(self.records_json())["annotations"]}

    def records_json(self) -> bytes:
        """The client's records as annotation JSON (``{"annotations": [...]}``), each record
        canonical: compact, keys sorted, without ``pdfObjectId``."""
        return query_bytes(_raw.lib.quire_descriptor_records_json, self._live())

    @property
    def repairs(self) -> int:
        """How many times the client found its records differing from the server's and
        fetched them again (RECORDS_REPAIRED): 0 is the only expected value."""
        out = ctypes.c_int64()
        check(_raw.lib.quire_descriptor_repairs(byref(out), self._live()))
        return int(out.value)

    def reauthenticate(self, jwt: str) -> None:
        """Replaces the token (checked by the server on the worker thread:
        REAUTHENTICATION_FINISHED and a sync, or REAUTHENTICATION_FAILED).

        Raises:
            InvalidArgumentError: a token for another document or layer.
        """
        check(_raw.lib.quire_descriptor_reauthenticate(self._live(), c_string(jwt, "the token")))

    @property
    def auto_sync_delay(self) -> None:
        raise AttributeError("auto_sync_delay can only be set")

    @auto_sync_delay.setter
    def auto_sync_delay(self, seconds: float) -> None:
        """Seconds after a local change before the automatic sync (0: off)."""
        check(_raw.lib.quire_descriptor_set_auto_sync_delay(self._live(), float(seconds)))

    def listen(self, on: bool = True) -> None:
        """Starts (or stops) listening for the server's changes: each one starts a sync."""
        check(_raw.lib.quire_descriptor_set_listening(self._live(), 1 if on else 0))

    def remove_local_storage(self) -> None:
        """Removes this layer's local store (pending changes included); the PDF stays for
        the document's other layers. The state goes back to UNKNOWN."""
        check(_raw.lib.quire_descriptor_remove_local_storage(self._live()))
        self._document = None

    def __repr__(self) -> str:
        try:
            return "<quire.Descriptor %s/%s %s>" % (self.document_id, self.layer, self.state.name)
        except Exception:
            return "<quire.Descriptor (client closed)>"
