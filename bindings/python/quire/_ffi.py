"""What every module of the Pythonic layer does at the C boundary, written once.

- :func:`text`: UTF-8 from the library, decoded leniently;
- :func:`c_string` and :func:`optional_c_string`: Python text for a ``const char *``;
- :func:`int32_index`: a Python int for an ``int32_t`` index, refused rather than wrapped;
- :func:`query_bytes`, :func:`query_short_bytes` and :func:`query_doubles`: the header's
  length-query pattern (call with a NULL buffer to learn the size, then with a buffer of
  that size; retry when the value grew in between);
- :func:`doubles`: a sequence of numbers as a ``double *`` and its count;
- :class:`OwnedHandle`: the lifetime of an object that owns a library handle (``close``,
  ``closed``, the context manager, :class:`quire.StateError` once closed).

Nothing here is public API.
"""

from __future__ import annotations

import ctypes
import operator
import threading
from ctypes import byref, c_double, c_size_t
from typing import Any, Callable, ClassVar, Iterable, List, Optional, Tuple, TypeVar, Union

from . import _raw
from ._errors import IndexOutOfRangeError, InvalidArgumentError, StateError, raise_status, text

__all__ = [
    "OwnedHandle",
    "c_string",
    "doubles",
    "int32_index",
    "optional_c_string",
    "query_bytes",
    "query_doubles",
    "query_short_bytes",
    "text",
]

_T = TypeVar("_T")
_Self = TypeVar("_Self", bound="OwnedHandle")

# ----------------------------------------------------------------------------------------
# Python -> C
# ----------------------------------------------------------------------------------------


def int32_index(value: Any, what: str) -> int:
    """``value`` (any integer: ``operator.index``) for an ``int32_t`` index. ctypes would
    keep only its low 32 bits (2**32 would be page 0): one beyond the range of ``int32_t``
    raises :class:`quire.IndexOutOfRangeError` instead.

    Raises:
        IndexOutOfRangeError: below -2**31 or from 2**31 on; ``what`` names it.
        TypeError: not an integer.
    """
    number = operator.index(value)
    if not -(2**31) <= number < 2**31:
        raise IndexOutOfRangeError(_raw.QUIRE_ERANGE, "%s %d is out of range (a 32-bit index)" % (what, number))
    return number


def c_string(value: Union[str, bytes], what: str) -> bytes:
    """``value`` (``str``, encoded as UTF-8, or ``bytes``) for a NUL-terminated C string.

    Raises:
        InvalidArgumentError: it contains a NUL character (C would cut it there).
        TypeError: it is neither ``str`` nor ``bytes``; ``what`` names it in the message.
    """
    if isinstance(value, str):
        data = value.encode("utf-8")
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
    else:
        raise TypeError("%s is a str, not %s" % (what, type(value).__name__))
    if b"\0" in data:
        raise InvalidArgumentError(_raw.QUIRE_EINVAL, "%s contains a NUL character" % what)
    return data


def optional_c_string(value: Optional[Union[str, bytes]], what: str) -> Optional[bytes]:
    """:func:`c_string`, with ``None`` passed on as NULL."""
    if value is None:
        return None
    if not isinstance(value, (str, bytes)):
        raise TypeError("%s is a str or None, not %s" % (what, type(value).__name__))
    return c_string(value, what)


def doubles(values: Iterable[float]) -> Tuple[Any, int]:
    """``values`` as a ``double`` array (never of length 0, so that it is never NULL) and
    the number of values."""
    numbers = [float(v) for v in values]
    return (c_double * max(len(numbers), 1))(*numbers), len(numbers)


# ----------------------------------------------------------------------------------------
# C -> Python: the length-query pattern
# ----------------------------------------------------------------------------------------

#: Calls after the first before a value that keeps growing raises BufferTooSmallError.
_MAX_QUERY_ATTEMPTS = 4
_SCRATCH_SIZE = 512
_scratch = threading.local()


def _query(
    function: Callable[..., int],
    args: Tuple[Any, ...],
    first_size: int,
    room: int,
    allocate: Callable[[int], Any],
    take: Callable[[Any, int], _T],
    empty: _T,
) -> _T:
    """The length-query loop: ``function(buf, size, byref(count), *args)``, first with a
    buffer of ``first_size`` items (NULL when 0), then with one of ``count + room`` items
    (``room`` is 1 for the NUL of a string) until the value fits. Any status other than
    QUIRE_OK and QUIRE_EBUFS raises."""
    count = c_size_t(0)
    size = first_size
    status = _raw.QUIRE_OK
    for _ in range(_MAX_QUERY_ATTEMPTS + 1):
        buffer = allocate(size) if size > 0 else None
        status = function(buffer, size, byref(count), *args)
        if status not in (_raw.QUIRE_OK, _raw.QUIRE_EBUFS):
            raise_status(status)
        if status == _raw.QUIRE_OK and buffer is not None:
            return take(buffer, min(count.value, size - room))
        size = count.value + room
        if size == 0:
            return empty
    raise_status(status)


def _take_bytes(buffer: Any, length: int) -> bytes:
    return ctypes.string_at(buffer, length)


def query_bytes(function: Callable[..., int], *args: Any, size_hint: int = 0) -> bytes:
    """Reads bytes through the header's length-query pattern; the one helper every string
    getter of the binding goes through.

    ``function`` has the signature ``(char *buf, size_t buf_size, size_t *out_len, ...)``
    and ``args`` are its arguments after ``out_len``. Without ``size_hint`` it is called
    with a NULL buffer to learn the length, then with a buffer of ``length + 1`` bytes;
    with one, a buffer of ``size_hint + 1`` bytes is tried first (for functions whose
    result is costly to compute twice, such as stream data). The result is the raw bytes
    (binary-safe: a NUL inside is kept). Raises the :class:`quire.QuireError` of any status
    other than QUIRE_OK or QUIRE_EBUFS, and :class:`quire.BufferTooSmallError` when the
    value keeps growing between calls.
    """
    first = size_hint + 1 if size_hint > 0 else 0
    return _query(function, args, first, 1, ctypes.create_string_buffer, _take_bytes, b"")


def _scratch_buffer() -> Any:
    """This thread's buffer for the first try of :func:`query_short_bytes`."""
    buffer = getattr(_scratch, "buffer", None)
    if buffer is None:
        buffer = _scratch.buffer = ctypes.create_string_buffer(_SCRATCH_SIZE)
    return buffer


def query_short_bytes(function: Callable[..., int], *args: Any) -> Optional[bytes]:
    """:func:`query_bytes` for short values read many times (an annotation's subtype and
    text fields): the first call passes a 512-byte buffer of this thread rather than
    NULL, so a value that fits takes one call instead of two; and QUIRE_ENOTFOUND (an unset
    field) gives ``None`` instead of an exception, which cost more than the call itself.
    Reading the annotations of a large document this way took half the binding's time
    off. A longer value falls back to :func:`query_bytes`."""
    length = c_size_t(0)
    buffer = _scratch_buffer()
    status = function(buffer, _SCRATCH_SIZE, byref(length), *args)
    if status == _raw.QUIRE_OK:
        # Copied out before anything else on this thread can use the buffer again.
        return ctypes.string_at(buffer, min(length.value, _SCRATCH_SIZE - 1))
    if status == _raw.QUIRE_ENOTFOUND:
        return None
    if status != _raw.QUIRE_EBUFS:
        raise_status(status)
    return query_bytes(function, *args, size_hint=length.value)


def _double_array(count: int) -> Any:
    return (c_double * count)()


def _take_doubles(buffer: Any, count: int) -> List[float]:
    return list(buffer[:count])


def query_doubles(function: Callable[..., int], *args: Any) -> List[float]:
    """Reads numbers through the length-query pattern for numbers:
    ``function(double *buf, size_t capacity, size_t *out_count, *args)``."""
    return _query(function, args, 0, 0, _double_array, _take_doubles, [])


# ----------------------------------------------------------------------------------------
# Handles
# ----------------------------------------------------------------------------------------


class OwnedHandle:
    """The lifetime of an object that owns a library handle (pypdfium2's pattern).

    Subclasses set ``_handle`` (the handle, ``None`` once closed), ``_finalizer`` (the
    :class:`weakref.finalize` that releases it, so that garbage collection releases an
    object nobody closed) and ``_lock`` (a ``threading.RLock`` every call on the handle
    holds), and name what they are in ``_closed_message``.
    """

    __slots__ = ()

    _handle: Any
    _finalizer: Any
    _lock: Any
    _closed_message: ClassVar[str] = "the object is closed"

    def close(self) -> None:
        """Releases the handle. Calling it again does nothing."""
        with self._lock:
            self._handle = None
            if self._finalizer is not None:
                self._finalizer()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._handle is None

    def __enter__(self: _Self) -> _Self:
        self._live()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _live(self) -> Any:
        """The handle; raises :class:`quire.StateError` once closed. Call it with the lock
        held, and use the handle only while holding it."""
        handle = self._handle
        if handle is None:
            raise StateError(_raw.QUIRE_ESTATE, self._closed_message)
        return handle
