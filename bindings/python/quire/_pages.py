"""Page operations and encryption (include/quire/pages.h, include/quire/encryption.h): the
conversions that :class:`quire.PageList` (insert, delete, move, rotate, set_box) and
:class:`quire.Document` (merge, extract, encrypt, decrypt) share. The rules (what travels
with a page, how a clash of field names is renamed) are the library's: docs/pages.md."""

from __future__ import annotations

import ctypes
from ctypes import byref, c_int32
from typing import Any, Iterable, List, NamedTuple, Optional, Tuple, Union

from . import _raw
from ._errors import InvalidArgumentError, check, text
from ._ffi import c_string, int32_index, query_bytes

#: One page index, or several (any iterable of integers: a list, a ``range``...).
PageIndices = Union[int, Iterable[int]]


class PageReport(NamedTuple):
    """What a page operation did beyond the pages (``quire_page_report``)."""

    renamed: List[Tuple[str, str]]
    """The form fields renamed because their names were taken in the document, as
    ``(before, after)`` pairs of partial names: ``("Name", "Name_2")``."""
    warnings: List[str]
    """What the operation dropped or changed besides the pages (a structure tree, outline
    items, named destinations, links into pages left behind). They are also added to
    :attr:`Document.warnings`."""


def page_index_array(pages: PageIndices, count: int, what: str = "page index") -> Tuple[Any, int]:
    """``pages`` (an index or an iterable of them; a negative index counts from the end of
    ``count`` pages, as a sequence does) as an ``int32_t`` array and its length. An index
    out of range is passed on for the library to refuse (with nothing changed)."""
    if isinstance(pages, (str, bytes)):
        raise TypeError("pages are given as an integer or an iterable of integers, not %s" % type(pages).__name__)
    try:
        values = [int32_index(pages, what)]
    except TypeError:
        values = [int32_index(page, what) for page in pages]  # type: ignore[union-attr]
    values = [value + count if -count <= value < 0 else value for value in values]
    return (c_int32 * max(len(values), 1))(*values), len(values)


def take_report(handle: Any) -> PageReport:
    """Reads the report behind ``handle`` and frees it."""
    lib = _raw.lib
    try:
        renamed: List[Tuple[str, str]] = []
        warnings: List[str] = []
        count = c_int32()
        check(lib.quire_page_report_renamed_count(byref(count), handle))
        for i in range(count.value):
            renamed.append(
                (
                    text(query_bytes(lib.quire_page_report_renamed, handle, i, 0)),
                    text(query_bytes(lib.quire_page_report_renamed, handle, i, 1)),
                )
            )
        check(lib.quire_page_report_warning_count(byref(count), handle))
        warnings = [text(query_bytes(lib.quire_page_report_warning, handle, i)) for i in range(count.value)]
        return PageReport(renamed, warnings)
    finally:
        lib.quire_page_report_free(handle)


_METHODS = {
    "AES-256": _raw.QUIRE_ENCRYPTION_AES_256,
    "AES-128": _raw.QUIRE_ENCRYPTION_AES_128,
    # Named so that asking for them fails with the library's message (UnsupportedError).
    "RC4-40": _raw.QUIRE_ENCRYPTION_RC4_40,
    "RC4-128": _raw.QUIRE_ENCRYPTION_RC4_128,
}


class EncryptionOptions:
    """A filled ``quire_encryption_options`` and the password bytes it points to (kept
    alive with it for the call)."""

    def __init__(
        self,
        user_password: Optional[Union[str, bytes]],
        owner_password: Optional[Union[str, bytes]],
        method: str,
        permissions: Optional[int],
        encrypt_metadata: bool,
    ) -> None:
        options = _raw.encryption_options_init()
        code = _METHODS.get(method)
        if code is None:
            raise InvalidArgumentError(
                _raw.QUIRE_EINVAL, "method is %r; it is one of %s" % (method, ", ".join(repr(m) for m in _METHODS))
            )
        options.method = code
        self._user = c_string(user_password, "the user password") if user_password is not None else None
        self._owner = c_string(owner_password, "the owner password") if owner_password is not None else None
        options.user_password = self._user
        options.owner_password = self._owner
        if permissions is not None:
            options.permissions = ctypes.c_uint32(int(permissions) & 0xFFFFFFFF).value
        options.encrypt_metadata = 1 if encrypt_metadata else 0
        self.options = options
