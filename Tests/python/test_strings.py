"""The length-query helper that every string getter goes through, driven by a stand-in for
a C function, to reach the paths real files rarely take: a string that grows between the
two calls, NUL bytes inside a string, invalid UTF-8, an error status."""

from __future__ import annotations

import ctypes
from typing import Any, List

import pytest

import quire
from quire import _raw
from quire._ffi import query_bytes as _query_bytes, query_short_bytes as _query_short_bytes, text as _text


class FakeStringFunction:
    """Behaves like `int f(char *buf, size_t buf_size, size_t *out_len, ...)` over a list of
    successive values (the string may change between calls)."""

    def __init__(self, values: List[bytes], status: int = _raw.QUIRE_OK) -> None:
        self.values = values
        self.status = status
        self.calls: List[int] = []

    def __call__(self, buf: Any, buf_size: int, out_len: Any, *args: Any) -> int:
        self.calls.append(buf_size)
        if self.status != _raw.QUIRE_OK:
            return self.status
        value = self.values[min(len(self.calls) - 1, len(self.values) - 1)]
        out_len._obj.value = len(value)  # out_len is byref(c_size_t)
        if buf is None or buf_size < len(value) + 1:
            return _raw.QUIRE_EBUFS
        ctypes.memmove(buf, value + b"\0", len(value) + 1)
        return _raw.QUIRE_OK


def test_query_asks_the_length_then_reads():
    function = FakeStringFunction([b"Title"])
    assert _query_bytes(function) == b"Title"
    assert function.calls == [0, 6]


def test_query_empty_string():
    function = FakeStringFunction([b""])
    assert _query_bytes(function) == b""
    assert function.calls == [0, 1]


def test_query_retries_when_the_string_grows():
    function = FakeStringFunction([b"ab", b"abcdef", b"abcdef"])
    assert _query_bytes(function) == b"abcdef"
    assert function.calls == [0, 3, 7]


def test_query_gives_up_on_a_string_that_never_stops_growing():
    function = FakeStringFunction([b"x" * n for n in range(1, 20)])
    with pytest.raises(quire.BufferTooSmallError):
        _query_bytes(function)


def test_query_is_binary_safe_and_decoding_is_lenient():
    function = FakeStringFunction([b"a\0b\xff"])
    data = _query_bytes(function)
    assert data == b"a\0b\xff"
    assert _text(data) == "a\0b\ufffd"


def test_query_raises_the_status():
    _raw.quire_clear_error()
    with pytest.raises(quire.IndexOutOfRangeError) as info:
        _query_bytes(FakeStringFunction([], status=_raw.QUIRE_ERANGE))
    # No library message on this thread: the status string stands in.
    assert info.value.message == quire.status_string(_raw.QUIRE_ERANGE)


# The one-call variant for short, often-read values (annotation subtypes and text fields).


def test_short_query_reads_in_one_call_when_the_value_fits():
    function = FakeStringFunction([b"Highlight"])
    assert _query_short_bytes(function) == b"Highlight"
    assert len(function.calls) == 1


def test_short_query_falls_back_for_a_long_value():
    value = b"x" * 5000
    function = FakeStringFunction([value])
    assert _query_short_bytes(function) == value
    assert len(function.calls) == 2 and function.calls[1] == len(value) + 1


def test_short_query_retries_when_the_value_grows():
    function = FakeStringFunction([b"y" * 600, b"y" * 700, b"y" * 700])
    assert _query_short_bytes(function) == b"y" * 700


def test_short_query_gives_none_for_an_unset_field():
    assert _query_short_bytes(FakeStringFunction([], status=_raw.QUIRE_ENOTFOUND)) is None


def test_short_query_raises_other_statuses():
    with pytest.raises(quire.IndexOutOfRangeError):
        _query_short_bytes(FakeStringFunction([], status=_raw.QUIRE_ERANGE))


def test_short_query_result_is_a_copy():
    first = _query_short_bytes(FakeStringFunction([b"first"]))
    _query_short_bytes(FakeStringFunction([b"second value"]))
    assert first == b"first"
