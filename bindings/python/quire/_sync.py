"""The sync service inside a Python server (``quire_sync_service_*``): documents, layers
and a change feed for Instant-style collaboration, with the protocol of
``docs/sync-protocol.md``. The host (any HTTP server) passes each request to
:meth:`SyncService.handle` and sends back what it returns; every rule is in the library.

Example, as a WSGI application served by waitress: ``examples/python/sync_server.py``.
"""

from __future__ import annotations

import ctypes
import threading
from ctypes import byref, c_char_p, c_int32, c_size_t, c_void_p
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

from . import _raw
from ._errors import check
from ._ffi import c_string

#: A response: the HTTP status, the headers as (name, value) pairs, and the body.
Response = Tuple[int, List[Tuple[str, str]], bytes]


class SyncService:
    """A sync service (``quire_sync_service``). Thread-safe: call :meth:`handle` from as
    many threads as the server has; a long poll blocks its thread (ctypes releases the GIL
    during the call, so other requests go on).

    ``store``: ``"sqlite:///absolute/path.db"`` or ``"sqlite::memory:"``; ``public_keys``:
    PEM texts that verify the JWTs (RS256, RS512, ES256, ES512); ``jwks``: a JWKS text;
    ``admin_token``: the admin API's token (``None``: no admin API).
    """

    def __init__(
        self,
        store: str = "sqlite::memory:",
        *,
        public_keys: Sequence[Union[str, bytes]] = (),
        jwks: Optional[str] = None,
        admin_token: Optional[str] = None,
        max_body_bytes: int = 0,
        max_upload_bytes: int = 0,
    ) -> None:
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
        handle = _raw.quire_sync_service_p()
        check(_raw.lib.quire_sync_service_open(byref(handle), byref(config)))
        self._handle: Optional[Any] = handle  # a quire_sync_service_p
        self._lock = threading.Lock()

    def handle(
        self, method: str, target: str, headers: Iterable[Tuple[str, str]] = (), body: bytes = b""
    ) -> Response:
        """Handles one request: ``method`` (``"GET"``, ...), ``target`` (the path and query
        as received), ``headers`` and ``body``; returns ``(status, headers, body)``."""
        handle = self._handle
        if handle is None:
            raise ValueError("the sync service is closed")
        pairs = [(c_string(n, "a header name"), c_string(v, "a header value")) for n, v in headers]
        array = (_raw.quire_sync_header * max(len(pairs), 1))(*[_raw.quire_sync_header(n, v) for n, v in pairs])
        data = bytes(body)
        response = _raw.quire_sync_response_p()
        check(_raw.lib.quire_sync_service_handle(
            byref(response), handle, c_string(method, "the method"), c_string(target, "the target"),
            array, len(pairs), data if data else None, len(data)))
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

    def shutdown(self) -> None:
        """Answers every long poll now; later requests get 503."""
        if self._handle is not None:
            check(_raw.lib.quire_sync_service_shutdown(self._handle))

    def close(self) -> None:
        """Shuts down and closes the service (idempotent). Call it once no thread is inside
        :meth:`handle`."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            _raw.lib.quire_sync_service_shutdown(handle)
            _raw.lib.quire_sync_service_close(handle)

    def __enter__(self) -> "SyncService":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
