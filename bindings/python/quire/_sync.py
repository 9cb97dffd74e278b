"""The sync service inside a Python server (``quire_sync_service_*``): documents, layers
and a change feed for Instant-style collaboration, with the protocol of
``docs/sync-protocol.md``. The host (any HTTP server) passes each request to
:meth:`SyncService.handle` and sends back what it returns; every rule is in the library.

Example, as a WSGI application served by waitress: ``examples/python/sync_server.py``.
"""

from __future__ import annotations

import asyncio
import ctypes
import threading
from ctypes import byref, c_char_p, c_int32, c_size_t, c_void_p
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _raw
from ._errors import InvalidArgumentError, check
from ._ffi import c_string

#: A response: the HTTP status, the headers as (name, value) pairs, and the body.
Response = Tuple[int, List[Tuple[str, str]], bytes]


class SyncService:
    """A sync service (``quire_sync_service``). Thread-safe: call :meth:`handle` from as
    many threads as the server has; a long poll blocks its thread (ctypes releases the GIL
    during the call, so other requests go on).

    ``store`` (required: there is no default store, so that nothing is kept in memory by
    omission and lost on close): ``"sqlite:///absolute/path.db"``, ``"sqlite://relative.db"``
    (from the working directory, as quire-server takes it) or ``"sqlite::memory:"`` (for
    tests); with the library's PostgreSQL flavour (``QUIRE_LIBRARY=.../libquire-postgres.so``,
    built by ``make lib-postgres``) also ``"postgres://user@host:port/database"``, for
    several processes on one database (the default library raises
    :class:`quire.UnsupportedError` naming the flavour); ``public_keys``: PEM texts that verify the JWTs (RS256, RS512, ES256, ES512);
    ``jwks``: a JWKS text; ``admin_token``: the admin API's token (``None``: no admin API).
    The limits (0: the default): ``max_body_bytes`` (8 MiB), ``max_upload_bytes`` (a PDF,
    256 MiB), ``max_attachment_bytes`` (an image or file of an annotation, 8 MiB, at most
    64 MiB) and ``max_listeners`` (long polls waiting at once, 10,000).
    ``attachment_grace_seconds``: how old the last upload of an attachment that no record
    names must be before it is collected (``None``: the default hour; ``0``: at once, for
    tests; at most 2,147,483,647; negative is :class:`quire.InvalidArgumentError`).
    """

    def __init__(
        self,
        store: str,
        *,
        public_keys: Sequence[Union[str, bytes]] = (),
        jwks: Optional[str] = None,
        admin_token: Optional[str] = None,
        max_body_bytes: int = 0,
        max_upload_bytes: int = 0,
        max_attachment_bytes: int = 0,
        max_listeners: int = 0,
        attachment_grace_seconds: Optional[int] = None,
    ) -> None:
        if attachment_grace_seconds is not None and attachment_grace_seconds < 0:
            raise InvalidArgumentError(
                _raw.QUIRE_EINVAL, f"attachment_grace_seconds is {attachment_grace_seconds}: None for the default, or 0 or more")
        config = _raw.sync_config_init()
        keep: List[object] = []
        config.store = c_string(store, "the store")
        keys = [c_string(k if isinstance(k, bytes) else k.encode("utf-8"), "a public key") for k in public_keys]
        array = (c_char_p * max(len(keys), 1))(*keys)
        keep.append(array)
        config.public_keys = ctypes.cast(array, ctypes.POINTER(c_char_p))
        config.public_key_count = len(keys)
        if jwks is not None:
            config.jwks = c_string(jwks, "the JWKS")
        if admin_token is not None:
            config.admin_token = c_string(admin_token, "the admin token")
        config.max_body_bytes = max_body_bytes
        config.max_upload_bytes = max_upload_bytes
        config.max_attachment_bytes = max_attachment_bytes
        config.max_listeners = max_listeners
        # quire_sync_config version 3: 0 is the default, QUIRE_SYNC_GRACE_NONE no grace.
        if attachment_grace_seconds is not None:
            config.attachment_grace_seconds = attachment_grace_seconds or _raw.QUIRE_SYNC_GRACE_NONE
        handle = _raw.quire_sync_service_p()
        check(_raw.lib.quire_sync_service_open(byref(handle), byref(config)))
        self._handle: Optional[Any] = handle  # a quire_sync_service_p
        self._lock = threading.Lock()
        # The completions of handle_async that the library has yet to call, kept alive
        # until it does; close() waits for them.
        self._calls: Dict[int, Any] = {}
        self._calls_done = threading.Condition()

    def handle(
        self, method: str, target: str, headers: Iterable[Tuple[str, str]] = (), body: bytes = b""
    ) -> Response:
        """Handles one request: ``method`` (``"GET"``, ...), ``target`` (the path and query
        as received), ``headers`` and ``body``; returns ``(status, headers, body)``, for
        every request the library can be given (a NUL in the target is the library's 400;
        a NUL in the method or a header, which no C string carries, raises
        :class:`quire.InvalidArgumentError`)."""
        handle = self._open_handle()
        method_c, target_c, array, count, data = _request(method, target, headers, body)
        response = _raw.quire_sync_response_p()
        check(_raw.lib.quire_sync_service_handle(
            byref(response), handle, method_c, target_c, array, count, data if data else None, len(data)))
        return _read_response(response)

    async def handle_async(
        self, method: str, target: str, headers: Iterable[Tuple[str, str]] = (), body: bytes = b""
    ) -> Response:
        """:meth:`handle` for an asyncio server: awaits the response without holding a thread
        (``quire_sync_service_handle_async``), so a long poll costs no thread while it waits.
        Cancelling the awaiting task (the client went away) cancels the request in the
        library."""
        handle = self._open_handle()
        method_c, target_c, array, count, data = _request(method, target, headers, body)
        loop = asyncio.get_running_loop()
        future: "asyncio.Future[Response]" = loop.create_future()

        def settle(result: Response) -> None:
            if not future.done():
                future.set_result(result)

        def completed(response: Any, payload: Any) -> None:
            # On a library thread: read the response there (it is ours to free), then hand
            # the result to the loop.
            result = _read_response(response)
            with self._calls_done:
                self._calls.pop(key, None)
                self._calls_done.notify_all()
            try:
                loop.call_soon_threadsafe(settle, result)
            except RuntimeError:  # the loop closed in the meantime: no one waits
                pass

        callback = _raw.quire_sync_completion(completed)
        key = id(callback)
        with self._calls_done:
            self._calls[key] = callback  # kept alive until the library calls it
        call = _raw.quire_sync_call_p()
        try:
            check(_raw.lib.quire_sync_service_handle_async(
                byref(call), handle, method_c, target_c, array, count, data if data else None, len(data),
                callback, None))
        except BaseException:
            with self._calls_done:
                self._calls.pop(key, None)
            raise
        try:
            return await future
        except asyncio.CancelledError:
            _raw.lib.quire_sync_call_cancel(call)
            raise
        finally:
            _raw.lib.quire_sync_call_free(call)

    def _open_handle(self) -> Any:
        handle = self._handle
        if handle is None:
            raise ValueError("the sync service is closed")
        return handle

    def shutdown(self) -> None:
        """Answers every long poll now; later requests get 503."""
        if self._handle is not None:
            check(_raw.lib.quire_sync_service_shutdown(self._handle))

    def close(self) -> None:
        """Shuts down and closes the service (idempotent). Call it once no thread is inside
        :meth:`handle`; requests of :meth:`handle_async` in progress answer first (the
        shutdown ends their long polls) and it waits for them."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            _raw.lib.quire_sync_service_shutdown(handle)
            with self._calls_done:
                self._calls_done.wait_for(lambda: not self._calls, timeout=60)
            _raw.lib.quire_sync_service_close(handle)

    def __enter__(self) -> "SyncService":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _request(method: str, target: str, headers: Iterable[Tuple[str, str]], body: bytes) -> Tuple[Any, ...]:
    """The C arguments of a request: method, target, header array and count, body. A raw NUL
    in the target, which no C string carries, goes as ``%00``, which means the same octet
    and which the library answers with its 400."""
    pairs = [(c_string(n, "a header name"), c_string(v, "a header value")) for n, v in headers]
    array = (_raw.quire_sync_header * max(len(pairs), 1))(*[_raw.quire_sync_header(n, v) for n, v in pairs])
    return (c_string(method, "the method"), c_string(target.replace("\0", "%00"), "the target"),
            array, len(pairs), bytes(body))


def _read_response(response: Any) -> Response:
    """``(status, headers, body)`` of a ``quire_sync_response``, which this frees."""
    try:
        status = c_int32()
        check(_raw.lib.quire_sync_response_status(byref(status), response))
        count = c_size_t()
        check(_raw.lib.quire_sync_response_header_count(byref(count), response))
        out_headers: List[Tuple[str, str]] = []
        for k in range(count.value):
            name, value = c_char_p(), c_char_p()
            check(_raw.lib.quire_sync_response_header(byref(name), byref(value), response, k))
            out_headers.append(((name.value or b"").decode("utf-8"), (value.value or b"").decode("utf-8")))
        pointer, length = c_void_p(), c_size_t()
        check(_raw.lib.quire_sync_response_body(byref(pointer), byref(length), response))
        payload = ctypes.string_at(pointer.value, length.value) if pointer.value and length.value else b""
        return status.value, out_headers, payload
    finally:
        _raw.lib.quire_sync_response_free(response)
