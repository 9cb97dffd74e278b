"""Low-level PDF values (ISO 32000-2 §7.3) as plain Python values.

The mapping, both ways:

=====================  ===========================================================
PDF                    Python
=====================  ===========================================================
null                   ``None``
boolean                ``bool``
integer                ``int`` (64-bit: a larger ``int`` raises ``OverflowError``)
real                   ``float`` (finite)
string                 :class:`String`, a ``bytes`` subclass; plain ``bytes``,
                       ``bytearray`` and ``memoryview`` are accepted as strings
name                   :class:`Name`, a ``str`` subclass: ``Name("Type")`` is ``/Type``
array                  ``list`` (a ``tuple`` is accepted too)
dictionary             ``dict`` with ``str`` keys, the names without their slash
                       (any ``Mapping`` with ``str`` keys is accepted)
indirect reference     :class:`Reference`, ``Reference(number, generation)``
stream                 :class:`Stream`: its dictionary as a read-only mapping, and a
                       handle on the library's copy, from which
                       :meth:`quire.Document.stream_data` reads the data
=====================  ===========================================================

Why strings are bytes: a PDF string is a sequence of bytes that is text only by
convention (PDFDocEncoding, UTF-16BE with a BOM, or UTF-8 with a BOM) and often is not
(``/ID``, encrypted data, byte strings of fonts). :class:`String` keeps the bytes exactly,
so a value read and written back is unchanged, and offers the decoded text through
:attr:`String.text` (decoded by the library, ``quire_value_text``) and the opposite,
:meth:`String.from_text`. A plain ``str`` is refused as a value, because it could mean
either a name or a string: write ``Name("Annot")`` or ``String.from_text("Hello")``.

Names are text in practice but bytes in the file; a name that is not UTF-8 is decoded
with ``surrogateescape``, so it too is written back byte for byte.

Conversions, one helper each way: Python values become library values by writing them in
PDF syntax (:func:`pdf_syntax`) and parsing that with ``quire_value_parse``
(:func:`_parsed`); library values become Python values by walking them with the typed
getters (:func:`_take`). Neither resolves references: a :class:`Reference` stays one until
:meth:`quire.Document.resolve` or :meth:`quire.Document.get_object` is asked. Both refuse
values nested deeper than :data:`MAX_NESTING_DEPTH` (:class:`quire.LimitError`), which
also stops a list that contains itself.
"""

from __future__ import annotations

import math
import weakref
from ctypes import byref, c_double, c_int32, c_int64
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Union

from . import _ffi, _raw
from ._errors import InternalError, InvalidArgumentError, LimitError, StateError, check
from ._ffi import query_bytes

if TYPE_CHECKING:  # pragma: no cover
    from ._document import Document

#: How deeply arrays and dictionaries may nest in a value the binding converts, either
#: way. It is the library's default ``max_nesting_depth``, and the fixed limit of
#: ``quire_value_parse``, so every value the library parses with its defaults fits.
MAX_NESTING_DEPTH = 256

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


# ----------------------------------------------------------------------------------------
# The value types
# ----------------------------------------------------------------------------------------


class Name(str):
    """A PDF name, without its slash: ``Name("Type")`` is ``/Type``.

    A ``str``, so it compares equal to the plain string (``Name("Type") == "Type"``) and
    works as a dictionary key. The bytes of a name that is not UTF-8 are kept through
    ``surrogateescape``; :attr:`raw` gives them back. A name cannot contain a NUL byte.
    """

    __slots__ = ()

    @property
    def raw(self) -> bytes:
        """The bytes of the name, as in the file after ``#xx`` escapes are undone."""
        return self.encode("utf-8", "surrogateescape")

    def __repr__(self) -> str:
        return "Name(%s)" % str.__repr__(self)


class String(bytes):
    """A PDF string: its bytes, exactly.

    A ``bytes``, so it compares equal to plain bytes with the same content, and plain
    bytes may be given wherever a string value is expected. :attr:`text` decodes it as a
    PDF text string; :meth:`from_text` makes one from text.
    """

    __slots__ = ()

    @property
    def text(self) -> str:
        """The string decoded as a PDF text string (UTF-16BE or UTF-8 with a byte order
        mark, else PDFDocEncoding), by the library (``quire_value_text``)."""
        with _parsed(self) as handle:
            return _ffi.text(query_bytes(_raw.lib.quire_value_text, handle))

    @classmethod
    def from_text(cls, text: str) -> "String":
        """A string that reads back as ``text``: plain ASCII as it is (ASCII is a subset of
        PDFDocEncoding), anything else as UTF-16BE with a byte order mark, which every PDF
        version reads."""
        if all(" " <= c <= "~" or c in "\t\n\r" for c in text):
            return cls(text.encode("ascii"))
        return cls(b"\xfe\xff" + text.encode("utf-16-be"))

    def __repr__(self) -> str:
        return "String(%s)" % bytes.__repr__(self)


class Reference(NamedTuple):
    """An indirect reference, ``number generation R``. Resolve it with
    :meth:`quire.Document.resolve` or :meth:`quire.Document.get_object`."""

    number: int
    generation: int = 0

    def __repr__(self) -> str:
        return "Reference(%d, %d)" % (self.number, self.generation)


class Stream(Mapping[str, Any]):
    """A stream object read from a document: its dictionary, as a read-only mapping
    (``stream["Length"]``, ``dict(stream)``, :attr:`dictionary`), and the data, which
    :meth:`read` (or :meth:`quire.Document.stream_data`) reads on demand.

    A stream belongs to the document it was read from: it holds the library's copy of the
    stream (a ``quire_value *``), whose data is found in that document's file, and may be
    used only with that document (another document raises :class:`InvalidArgumentError`).
    It keeps the document alive. After a full save the document continues from a
    rewritten file, where the stream's data is no longer where the stream says, so a
    stream read before a full save raises :class:`quire.StateError`: read it again.

    To change a stream's dictionary, use :meth:`quire.Document.set_dict_value` on its
    object; to give it new data, add a new stream with :meth:`quire.Document.add_stream`
    and point the references at it. :meth:`quire.Document.set_object` with a stream
    copies it, data included, to another object number.

    Two streams are equal only when they are the same object.
    """

    __slots__ = ("_dictionary", "_handle", "_document", "_epoch", "_finalizer", "__weakref__")

    def __init__(self, dictionary: Dict[str, Any], handle: Any, document: "Document", epoch: int) -> None:
        # Made by the binding only; the handle becomes the stream's, released with it.
        self._dictionary = dictionary
        self._handle = handle
        self._document = document
        self._epoch = epoch
        self._finalizer = weakref.finalize(self, _raw.lib.quire_value_free, handle)

    @property
    def dictionary(self) -> Dict[str, Any]:
        """The stream's dictionary, as a new ``dict``."""
        return dict(self._dictionary)

    @property
    def document(self) -> "Document":
        """The document the stream was read from."""
        return self._document

    def read(self, decoded: bool = True) -> bytes:
        """The data: decoded (filters undone; image codecs such as DCT stay encoded) or,
        with ``decoded=False``, as stored in the file (decrypted if the file is
        encrypted). The same as ``document.stream_data(self, decoded=...)``."""
        return self._document.stream_data(self, decoded=decoded)

    def _handle_for(self, document: "Document") -> Any:
        """The handle, for a call on ``document`` (whose lock the caller holds)."""
        if document is not self._document:
            raise InvalidArgumentError(
                _raw.QUIRE_EINVAL, "this stream was read from %r and cannot be used with %r" % (self._document, document)
            )
        if document._epoch != self._epoch:
            raise StateError(
                _raw.QUIRE_ESTATE,
                "this stream was read before a full save rewrote %r; read it again" % (document,),
            )
        return self._handle

    def __getitem__(self, key: str) -> Any:
        return self._dictionary[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dictionary)

    def __len__(self) -> int:
        return len(self._dictionary)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return object.__hash__(self)

    def __repr__(self) -> str:
        return "Stream(%r)" % (self._dictionary,)


#: A PDF value as this binding represents it.
Value = Union[None, bool, int, float, String, bytes, Name, List[Any], Dict[str, Any], Reference, Stream]


# ----------------------------------------------------------------------------------------
# Python -> PDF syntax -> library value
# ----------------------------------------------------------------------------------------

# Bytes that a name may hold as they are: regular characters (ISO 32000-2 §7.2.3) other
# than '#', which starts an escape.
_NAME_LITERAL = frozenset(b for b in range(0x21, 0x7F) if b not in b"()<>[]{}/%#")


def _name_syntax(name: str) -> bytes:
    data = name.encode("utf-8", "surrogateescape")
    if b"\0" in data:
        raise InvalidArgumentError(_raw.QUIRE_EINVAL, "a PDF name cannot contain a NUL character: %r" % (name,))
    return b"/" + b"".join(bytes((b,)) if b in _NAME_LITERAL else b"#%02X" % b for b in data)


def _real_syntax(number: float) -> bytes:
    if not math.isfinite(number):
        raise InvalidArgumentError(_raw.QUIRE_EINVAL, "a PDF number must be finite, not %r" % (number,))
    # The shortest digits that read back as the same double, positional (PDF has no
    # exponent form), always with a decimal point so that it stays a real. repr() is
    # already positional except past 1e16 and below 1e-4; only those go through Decimal,
    # imported then (the decimal module costs a process 0.3 MB that most never need).
    text = repr(number)
    if "e" in text:
        from decimal import Decimal

        text = format(Decimal(text), "f")
    if "." not in text:
        text += ".0"
    return text.encode("ascii")


def _write(value: Any, out: List[bytes], depth: int) -> None:
    if value is None:
        out.append(b"null")
    elif value is True:
        out.append(b"true")
    elif value is False:
        out.append(b"false")
    elif isinstance(value, Reference):
        number, generation = int(value.number), int(value.generation)
        if number < 0 or generation < 0:
            raise InvalidArgumentError(_raw.QUIRE_EINVAL, "a reference cannot have a negative number: %r" % (value,))
        out.append(b"%d %d R" % (number, generation))
    elif isinstance(value, Name):
        out.append(_name_syntax(value))
    elif isinstance(value, str):
        raise TypeError(
            "a plain str is ambiguous as a PDF value: use quire.Name(%r) for a name, or "
            "quire.String.from_text(%r) (or bytes) for a string" % (value, value)
        )
    elif isinstance(value, int):
        number = int(value)
        if not _INT64_MIN <= number <= _INT64_MAX:
            raise OverflowError("%d does not fit a PDF integer (64 bits)" % number)
        out.append(b"%d" % number)
    elif isinstance(value, float):
        out.append(_real_syntax(value))
    elif isinstance(value, (bytes, bytearray, memoryview)):
        out.append(b"<" + bytes(value).hex().encode("ascii") + b">")
    elif isinstance(value, Stream):
        raise TypeError(
            "a stream cannot be a direct value inside another: it is an indirect object; "
            "refer to it with its quire.Reference"
        )
    elif isinstance(value, (list, tuple)):
        if depth >= MAX_NESTING_DEPTH:
            raise _too_deep()
        out.append(b"[")
        for item in value:
            _write(item, out, depth + 1)
            out.append(b" ")
        out.append(b"]")
    elif isinstance(value, Mapping):
        if depth >= MAX_NESTING_DEPTH:
            raise _too_deep()
        out.append(b"<<")
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError("dictionary keys are str (names without the slash), not %s" % type(key).__name__)
            out.append(_name_syntax(key))
            out.append(b" ")
            _write(item, out, depth + 1)
            out.append(b" ")
        out.append(b">>")
    else:
        raise TypeError("%s is not a PDF value" % type(value).__name__)


def _too_deep() -> LimitError:
    return LimitError(
        _raw.QUIRE_ELIMIT, "the value nests arrays and dictionaries deeper than %d levels" % MAX_NESTING_DEPTH
    )


def pdf_syntax(value: Value) -> bytes:
    """``value`` written in PDF syntax, as the binding hands it to ``quire_value_parse``
    (strings in hexadecimal). For the library's own, canonical writing use
    :func:`unparse`. A :class:`Stream` cannot be written (it is more than syntax)."""
    out: List[bytes] = []
    _write(value, out, 0)
    return b"".join(out)


class _parsed:
    """``with _parsed(value) as handle``: a library value for the Python ``value``, released
    at the end of the block. The one way Python values reach the library: written in PDF
    syntax, then parsed by ``quire_value_parse``. A :class:`Stream` is passed as the
    handle it holds (it must come from ``document``, whose lock the caller holds)."""

    __slots__ = ("_value", "_document", "_handle", "_owned")

    def __init__(self, value: Value, document: Optional["Document"] = None) -> None:
        self._value = value
        self._document = document
        self._handle: Any = None
        self._owned = False

    def __enter__(self) -> Any:
        value = self._value
        if isinstance(value, Stream):
            if self._document is None:
                handle = value._handle
            else:
                handle = value._handle_for(self._document)
            self._handle = handle
            return handle
        syntax = pdf_syntax(value)
        out = _raw.quire_value_p()
        check(_raw.lib.quire_value_parse(byref(out), syntax, len(syntax)))
        if not out:
            raise InternalError(_raw.QUIRE_EINTERNAL, "quire_value_parse returned QUIRE_OK and a NULL value")
        self._handle = out
        self._owned = True
        return out

    def __exit__(self, *exc_info: object) -> None:
        if self._owned:
            _raw.lib.quire_value_free(self._handle)
        self._handle = None
        self._owned = False


# ----------------------------------------------------------------------------------------
# Library value -> Python
# ----------------------------------------------------------------------------------------


def _name(data: bytes) -> Name:
    return Name(data.decode("utf-8", "surrogateescape"))


def _take(handle: Any, document: Optional["Document"], epoch: int = 0, depth: int = 0) -> Value:
    """Converts the library value ``handle`` to Python, and takes it: the handle is
    released, or becomes the handle of the :class:`Stream` it is. Children are taken in
    turn (``quire_value_array_get`` and ``quire_value_dict_get`` give new handles).
    References are not resolved. ``document`` (whose lock the caller holds) and its
    ``epoch`` are recorded in streams."""
    kept = False
    try:
        lib = _raw.lib
        kind = c_int32()
        check(lib.quire_value_get_kind(byref(kind), handle))
        kind_value = kind.value
        if kind_value == _raw.QUIRE_VALUE_NULL:
            return None
        if kind_value == _raw.QUIRE_VALUE_BOOL:
            flag = c_int32()
            check(lib.quire_value_bool(byref(flag), handle))
            return flag.value != 0
        if kind_value == _raw.QUIRE_VALUE_INTEGER:
            integer = c_int64()
            check(lib.quire_value_integer(byref(integer), handle))
            return integer.value
        if kind_value == _raw.QUIRE_VALUE_REAL:
            real = c_double()
            check(lib.quire_value_number(byref(real), handle))
            return real.value
        if kind_value == _raw.QUIRE_VALUE_STRING:
            return String(query_bytes(lib.quire_value_bytes, handle))
        if kind_value == _raw.QUIRE_VALUE_NAME:
            return _name(query_bytes(lib.quire_value_bytes, handle))
        if kind_value == _raw.QUIRE_VALUE_REFERENCE:
            number = c_int32()
            generation = c_int32()
            check(lib.quire_value_reference(byref(number), byref(generation), handle))
            return Reference(number.value, generation.value)
        if kind_value not in (_raw.QUIRE_VALUE_ARRAY, _raw.QUIRE_VALUE_DICTIONARY, _raw.QUIRE_VALUE_STREAM):
            raise InternalError(_raw.QUIRE_EINTERNAL, "quire_value_get_kind gave an unknown type %d" % kind_value)
        if depth >= MAX_NESTING_DEPTH:
            raise _too_deep()
        count = c_int32()
        check(lib.quire_value_count(byref(count), handle))
        if kind_value == _raw.QUIRE_VALUE_ARRAY:
            items: List[Any] = []
            for index in range(count.value):
                child = _raw.quire_value_p()
                check(lib.quire_value_array_get(byref(child), handle, index))
                items.append(_take(child, document, epoch, depth + 1))
            return items
        entries: Dict[str, Any] = {}
        for index in range(count.value):
            key = query_bytes(lib.quire_value_dict_key, handle, index)
            if b"\0" in key:
                # Cannot be asked for through a NUL-terminated key; only an escape #00 in a
                # damaged file makes one.
                continue
            child = _raw.quire_value_p()
            check(lib.quire_value_dict_get(byref(child), handle, key))
            entries[key.decode("utf-8", "surrogateescape")] = _take(child, document, epoch, depth + 1)
        if kind_value == _raw.QUIRE_VALUE_DICTIONARY:
            return entries
        if document is None:
            raise InternalError(_raw.QUIRE_EINTERNAL, "a stream value outside a document")
        stream = Stream(entries, handle, document, epoch)
        kept = True
        return stream
    finally:
        if not kept:
            _raw.lib.quire_value_free(handle)


# ----------------------------------------------------------------------------------------
# Module functions
# ----------------------------------------------------------------------------------------


def parse(syntax: Union[str, bytes]) -> Value:
    """Parses one value from PDF syntax, such as ``"<< /Type /Annot /Rect [0 0 10 10] >>"``
    (``quire_value_parse``). Raises :class:`quire.FormatError` for text that is not one
    complete value, and :class:`quire.LimitError` past :data:`MAX_NESTING_DEPTH`. A
    ``str`` is encoded as UTF-8. Streams cannot be parsed (they live in documents)."""
    data = syntax.encode("utf-8") if isinstance(syntax, str) else bytes(syntax)
    out = _raw.quire_value_p()
    check(_raw.lib.quire_value_parse(byref(out), data, len(data)))
    return _take(out, None)


def unparse(value: Value) -> bytes:
    """``value`` in the library's PDF syntax (``quire_value_to_pdf``), such as
    ``b"<</Type /Annot >>"``; a :class:`Stream` is written as its dictionary."""
    with _parsed(value) as handle:
        return query_bytes(_raw.lib.quire_value_to_pdf, handle)
