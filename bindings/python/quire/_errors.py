"""Exceptions of the Quire binding: one class per ``QUIRE_E*`` status code.

Every non-OK status of the library raises a subclass of :class:`QuireError` that carries
the status (``code``) and the library's message for it (``message``, from
``quire_last_error_message()``). Where a builtin exception means the same thing, the class
also derives from it, so idiomatic ``except`` clauses work:

=========================  ==================  ===================================
class                      status              also a
=========================  ==================  ===================================
InvalidArgumentError       QUIRE_EINVAL        ValueError
OutOfMemoryError           QUIRE_ENOMEM        MemoryError
QuireIOError               QUIRE_EIO           OSError
NotFoundError              QUIRE_ENOTFOUND     KeyError (a LookupError)
  MissingFileError         QUIRE_ENOTFOUND     FileNotFoundError (opening a path)
FormatError                QUIRE_EFORMAT
PasswordError              QUIRE_EPASSWORD
UnsupportedError           QUIRE_EUNSUPPORTED
LimitError                 QUIRE_ELIMIT
IndexOutOfRangeError       QUIRE_ERANGE        IndexError
BufferTooSmallError        QUIRE_EBUFS
UserAbortError             QUIRE_EUSER
StateError                 QUIRE_ESTATE        ValueError
InternalError              QUIRE_EINTERNAL
DisabledError              QUIRE_EDISABLED
BusyError                  QUIRE_EBUSY
StaleError                 QUIRE_ESTALE
ExistsError                QUIRE_EEXIST
VersionError               QUIRE_EVERSION
AuthenticationError        QUIRE_EAUTH
NetworkError               QUIRE_ENETWORK      ConnectionError (an OSError)
=========================  ==================  ===================================

``NotFoundError`` is a ``KeyError`` because what the library reports as not found is, to
the caller, a key that names nothing: an annotation object number that names no
annotation (:meth:`quire.Document.annotation`, the reply, thread and delete methods), a
bookmark identifier, or a missing page (one that the page tree's /Count counts but the tree
does not hold, whose :class:`quire.Page` raises it when its boxes, rotation or annotations
are read). pygit2 raises ``KeyError`` for an object id that names nothing, for the same
reason. What else the library reports as not found (a metadata key, an outline item's
target, page labels, a dictionary key) the binding turns into ``None`` or leaves out.

The file given to :class:`quire.Document` that does not exist raises
:class:`MissingFileError`, a ``NotFoundError`` that is also a ``FileNotFoundError`` (with
``errno`` ENOENT and ``filename`` set), so that both ``except quire.NotFoundError`` and
``except FileNotFoundError`` catch it. Earlier versions of the binding made
``NotFoundError`` itself a ``FileNotFoundError``: code that caught a missing annotation
with ``except FileNotFoundError`` (or ``OSError``) must catch ``quire.NotFoundError`` (or
``KeyError``).

``UserAbortError`` is raised when a Python callback given to the library (the writer of
:meth:`quire.Document.save`) raised: the callback returned non-zero, the library aborted
with QUIRE_EUSER, and the callback's exception is chained as ``__cause__``.

``StateError`` is also what the binding itself raises when a closed
:class:`quire.Document`, or a :class:`quire.Page` of one, is used; like operations on a
closed Python file, it is a ``ValueError``.

A status this version of the binding does not know raises :class:`QuireError` itself.
"""

from __future__ import annotations

import errno
from typing import Dict, NoReturn, Optional, Type

from . import _raw


class QuireError(Exception):
    """A Quire call failed.

    Attributes:
        code: the ``QUIRE_E*`` status (a negative ``int``).
        message: the library's description of what failed (``quire_last_error_message()``),
            or the status string when the library gave none.
    """

    #: The status this class stands for (``None`` for the base class).
    status: Optional[int] = None

    code: int
    message: str

    def __init__(self, code: int, message: str) -> None:
        # One positional argument, so that the OSError-derived subclasses do not read the
        # arguments as (errno, strerror).
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return "%s(code=%d, message=%r)" % (type(self).__name__, self.code, self.message)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.code, self.message))


class InvalidArgumentError(QuireError, ValueError):
    """QUIRE_EINVAL: an argument is invalid."""

    status = _raw.QUIRE_EINVAL


class OutOfMemoryError(QuireError, MemoryError):
    """QUIRE_ENOMEM: memory could not be allocated."""

    status = _raw.QUIRE_ENOMEM


class QuireIOError(QuireError, OSError):
    """QUIRE_EIO: the operating system failed a read or a write."""

    status = _raw.QUIRE_EIO


class NotFoundError(QuireError, KeyError):
    """QUIRE_ENOTFOUND: what was asked for does not exist, such as an annotation object
    number that names no annotation. A ``KeyError``, as pygit2's lookups raise."""

    status = _raw.QUIRE_ENOTFOUND


class MissingFileError(NotFoundError, FileNotFoundError):
    """QUIRE_ENOTFOUND when opening a path: there is no file there. Both a
    :class:`NotFoundError` and a ``FileNotFoundError``; ``filename`` is the path."""


class FormatError(QuireError):
    """QUIRE_EFORMAT: the data is not a PDF, or is damaged beyond repair."""

    status = _raw.QUIRE_EFORMAT


class PasswordError(QuireError):
    """QUIRE_EPASSWORD: the document is encrypted and the password does not open it."""

    status = _raw.QUIRE_EPASSWORD


class UnsupportedError(QuireError):
    """QUIRE_EUNSUPPORTED: the document uses a feature Quire does not support."""

    status = _raw.QUIRE_EUNSUPPORTED


class LimitError(QuireError):
    """QUIRE_ELIMIT: a safety limit was exceeded (see the limits of :class:`Document`)."""

    status = _raw.QUIRE_ELIMIT


class IndexOutOfRangeError(QuireError, IndexError):
    """QUIRE_ERANGE: an index is out of range."""

    status = _raw.QUIRE_ERANGE


class BufferTooSmallError(QuireError):
    """QUIRE_EBUFS: a buffer is too small. The binding sizes its buffers itself, so this
    only escapes when a string keeps growing between calls."""

    status = _raw.QUIRE_EBUFS


class UserAbortError(QuireError):
    """QUIRE_EUSER: a callback aborted the operation."""

    status = _raw.QUIRE_EUSER


class StateError(QuireError, ValueError):
    """QUIRE_ESTATE: the object is in a state that does not allow the call; raised by the
    binding when a closed document, or a page of one, is used."""

    status = _raw.QUIRE_ESTATE


class InternalError(QuireError):
    """QUIRE_EINTERNAL: a bug in Quire; please report it with the message."""

    status = _raw.QUIRE_EINTERNAL


class DisabledError(QuireError):
    """QUIRE_EDISABLED: the feature is turned off for this document (replies and review
    states, while the document's replies switch is off)."""

    status = _raw.QUIRE_EDISABLED


class BusyError(QuireError):
    """QUIRE_EBUSY: a checkpoint is in use by another open document (in this process or
    another)."""

    status = _raw.QUIRE_EBUSY


class StaleError(QuireError):
    """QUIRE_ESTALE: a checkpoint was taken against a different version of the file, and
    is not applied."""

    status = _raw.QUIRE_ESTALE


class ExistsError(QuireError):
    """QUIRE_EEXIST: saved state exists that the call was asked not to replace (a
    checkpoint with unsaved changes, when starting checkpoints with
    ``existing="refuse"``). Nothing was changed."""

    status = _raw.QUIRE_EEXIST


class VersionError(QuireError):
    """QUIRE_EVERSION: a versioned struct is newer than the library knows (this binding is
    newer than the library it loaded)."""

    status = _raw.QUIRE_EVERSION


class AuthenticationError(QuireError):
    """QUIRE_EAUTH: the sync server refused the token (expired, not valid, or without the
    permission needed): reauthenticate (:meth:`quire.Descriptor.reauthenticate`)."""

    status = _raw.QUIRE_EAUTH


class NetworkError(QuireError, ConnectionError):
    """QUIRE_ENETWORK: the sync server cannot be reached, or failed; local changes are
    kept and go with the next sync."""

    status = _raw.QUIRE_ENETWORK


_BY_STATUS: Dict[int, Type[QuireError]] = {
    cls.status: cls
    for cls in (
        InvalidArgumentError,
        OutOfMemoryError,
        QuireIOError,
        NotFoundError,
        FormatError,
        PasswordError,
        UnsupportedError,
        LimitError,
        IndexOutOfRangeError,
        BufferTooSmallError,
        UserAbortError,
        StateError,
        InternalError,
        DisabledError,
        BusyError,
        StaleError,
        ExistsError,
        VersionError,
        AuthenticationError,
        NetworkError,
    )
    if cls.status is not None
}


def status_string(code: int) -> str:
    """The library's short English description of a status code, such as
    ``"invalid argument"`` (``quire_status_string``)."""
    return text(_raw.lib.quire_status_string(code))


def error_class(code: int) -> Type[QuireError]:
    """The exception class for a status code; :class:`QuireError` for an unknown one."""
    return _BY_STATUS.get(code, QuireError)


def make_error(code: int, message: str) -> QuireError:
    """An exception for ``code`` with ``message`` (the status string when empty)."""
    if not message:
        message = status_string(code)
    return error_class(code)(code, message)


def raise_status(code: int) -> NoReturn:
    """Raises the exception for the non-OK ``code`` just returned by a call on this thread,
    with the thread's last error message."""
    raise make_error(code, text(_raw.lib.quire_last_error_message()))


def raise_missing_file(path: str) -> NoReturn:
    """Raises :class:`MissingFileError` for ``path``, which the open call just on this
    thread reported as not found (QUIRE_ENOTFOUND), with the library's message."""
    error = MissingFileError(_raw.QUIRE_ENOTFOUND, make_error(_raw.QUIRE_ENOTFOUND, text(_raw.lib.quire_last_error_message())).message)
    error.errno = errno.ENOENT
    error.filename = path
    raise error


def check(code: int) -> None:
    """Raises the exception for ``code`` unless it is QUIRE_OK."""
    if code != _raw.QUIRE_OK:
        raise_status(code)


def text(value: Optional[bytes]) -> str:
    """UTF-8 from the library (a buffer, or a ``const char *`` that may be NULL), decoded
    leniently: invalid bytes become U+FFFD. The rest of the binding imports it from
    :mod:`quire._ffi`; it lives here, the lowest module, because the messages need it."""
    return (value or b"").decode("utf-8", errors="replace")
