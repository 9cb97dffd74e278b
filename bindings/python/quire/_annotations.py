"""Annotations, replies and review states (ISO 32000-2 §12.5): :class:`Annotation`.

An :class:`Annotation` is a *value*: a snapshot of one annotation that owns its
``quire_annotation *`` handle and is independent of the document it was read from (the
library copies the annotation out). It stays valid, and readable, after its document is
closed; changing it changes nothing in a document until it is written back with
:meth:`quire.Document.update_annotation` (or added with
:meth:`quire.Document.add_annotation`). Lists the library returns (a thread, a review
history, search results) are turned into Python lists of independent annotations at once.

Lifetimes follow the rest of the binding: :meth:`Annotation.close` (or the end of a
``with`` block, or garbage collection through :func:`weakref.finalize`) releases the
handle; afterwards every property raises :class:`quire.StateError`.

Example, the PSPDFKit review scenario::

    import quire

    with quire.Document("file.pdf") as doc:
        note = doc.add_annotation(quire.Annotation.new("Text", 0, (72, 700, 96, 724)))
        doc.add_reply(note, "Bob", "Looks good")
        doc.add_state_reply(note, "Ada", "Review", "Accepted")
        for comment in doc.comments(note):
            print(comment.author, comment.contents)
        current, history = doc.review_summary(note)
        doc.save("file.pdf")

Thread safety: each annotation has its own lock, so one may be shared between threads.
"""

from __future__ import annotations

import datetime as _dt
import ctypes
import operator
import os
import re
import struct
import threading
import weakref
from ctypes import byref, c_double, c_int32, c_size_t
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Protocol, Sequence, Set, Tuple, Union, cast

from . import _raw
from ._enums import IntEnum
from ._errors import InternalError, InvalidArgumentError, StateError, UnsupportedError, check
from ._ffi import OwnedHandle, c_string, doubles, optional_c_string, query_doubles, query_short_bytes, text
from ._fields import Attribute, Field
from ._geometry import Rect, RectLike, c_rect, rect_from_c

#: What a PDF date string field accepts: the PDF date text, or a :class:`datetime.datetime`.
DateLike = Union[str, _dt.datetime]

#: The subtypes :meth:`Annotation.new` makes (and :meth:`quire.Document.add_annotation`
#: writes, with an appearance stream).
SUBTYPES: Tuple[str, ...] = (
    "Text",
    "FreeText",
    "Line",
    "Square",
    "Circle",
    "Polygon",
    "PolyLine",
    "Highlight",
    "Underline",
    "Squiggly",
    "StrikeOut",
    "Ink",
    "Stamp",
    "Caret",
    "FileAttachment",
    "Redact",
)

#: Subtypes of ISO 32000-2 §12.5.6 that Quire reads but does not create: :meth:`Annotation.new`
#: refuses them with :class:`quire.UnsupportedError` (any other name is not a subtype:
#: :class:`quire.InvalidArgumentError`).
_READ_ONLY_SUBTYPES = frozenset(
    (
        "Link", "Popup", "Sound", "Movie", "Screen", "Widget", "PrinterMark",
        "TrapNet", "Watermark", "3D", "Projection", "RichMedia",
    )
)

#: Text markup (ISO 32000-2 §12.5.6.10): what /QuadPoints mark. Without quad points, one
#: that is added or updated gets its rectangle as its one quadrilateral (the library does
#: it, for every language).
TEXT_MARKUP: Tuple[str, ...] = ("Highlight", "Underline", "Squiggly", "StrikeOut")

#: The state models and their states (``quire_document_add_state_reply``).
STATE_MODELS = {
    "Marked": ("Marked", "Unmarked"),
    "Review": ("Accepted", "Rejected", "Cancelled", "Completed", "None"),
}


# -- PDF dates -------------------------------------------------------------------------------

_PDF_DATE = re.compile(
    r"^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+\-])(?:(\d{2})'?(\d{2})?'?)?)?$"
)


def parse_pdf_date(text: str) -> Optional[_dt.datetime]:
    """A PDF date (``D:YYYYMMDDHHmmSSOHH'mm``, ISO 32000-2 §7.9.4) as a
    :class:`datetime.datetime`: timezone-aware when the date has a zone, naive otherwise;
    ``None`` when the text is not a PDF date."""
    match = _PDF_DATE.match(text.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, sign, tz_hour, tz_minute = match.groups()
    try:
        tzinfo: Optional[_dt.tzinfo] = None
        if sign in ("Z", "z"):
            tzinfo = _dt.timezone.utc
        elif sign in ("+", "-"):
            offset = _dt.timedelta(hours=int(tz_hour or 0), minutes=int(tz_minute or 0))
            tzinfo = _dt.timezone(-offset if sign == "-" else offset)
        return _dt.datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=tzinfo,
        )
    except ValueError:
        return None


def format_pdf_date(moment: _dt.datetime) -> str:
    """A :class:`datetime.datetime` as a PDF date, ``D:YYYYMMDDHHmmSS+HH'mm'``; a naive
    datetime is taken as UTC (written with ``Z``)."""
    text = moment.strftime("D:%Y%m%d%H%M%S")
    offset = moment.utcoffset()
    if offset is None or offset == _dt.timedelta(0):
        return text + "Z"
    sign = "+" if offset >= _dt.timedelta(0) else "-"
    minutes = abs(int(offset.total_seconds())) // 60
    return text + "%s%02d'%02d'" % (sign, minutes // 60, minutes % 60)


# The fields of an annotation, each made by one of these factories; see quire._fields for
# why they are descriptors rather than property() (typed: mypy and editors see each field's
# own type).


def _string_field(field: int, doc: str) -> Field[Annotation, Optional[str], Optional[str]]:
    return Field(lambda a: a._get_string(field), lambda a, value: a._set_string(field, value), doc)


def _date_field(field: int, doc: str) -> Field[Annotation, Optional[str], Optional[DateLike]]:
    return Field(lambda a: a._get_string(field), lambda a, value: a._set_string(field, _date_text(value)), doc)


def _number_field(field: int, doc: str) -> Field[Annotation, Optional[float], float]:
    return Field(lambda a: a._get_number(field), lambda a, value: a._set_number(field, value), doc)


def _color_field(which: int, doc: str) -> Field[Annotation, Tuple[float, ...], Optional[Sequence[float]]]:
    return Field(lambda a: a._get_color(which), lambda a, value: a._set_color(which, value), doc)


def _points_field(kind: int, doc: str) -> Field[Annotation, List[float], Optional[Sequence[float]]]:
    return Field(lambda a: a._get_points(kind), lambda a, value: a._set_points(kind, value), doc)


class Measurement(NamedTuple):
    """The scale of a measurement annotation (ISO 32000-2 §12.9): ``from_value``
    ``from_unit`` on the page is ``to_value`` ``to_unit`` in the world, shown with
    ``precision`` decimals (0 to 4). Page units: ``'pt'``, ``'in'``, ``'mm'``, ``'cm'``;
    world units those and ``'ft'``, ``'m'``, ``'yd'``, ``'km'``, ``'mi'``."""

    from_value: float
    from_unit: str
    to_value: float
    to_unit: str
    precision: int = 2


class AnnotationOrder(IntEnum):
    """Moves in a page's drawing order (``QUIRE_ANNOT_*``): its /Annots, drawn first to
    last, so the last is on top."""

    FORWARD = _raw.QUIRE_ANNOT_FORWARD  #: one step later: over the next annotation
    BACKWARD = _raw.QUIRE_ANNOT_BACKWARD  #: one step earlier: under the previous one
    TO_FRONT = _raw.QUIRE_ANNOT_TO_FRONT  #: last: over every other
    TO_BACK = _raw.QUIRE_ANNOT_TO_BACK  #: first: under every other


def image_argument(data: Union[bytes, bytearray, memoryview, "os.PathLike[str]", str],
                   content_type: Optional[str]) -> Tuple[bytes, str]:
    """The bytes of an image argument (bytes, or the path of a file) and its media type:
    ``content_type``, else told from the bytes (PNG's signature, else JPEG). What
    :meth:`Annotation.set_image` and the tool manager's stamp image take alike."""
    if isinstance(data, (str, os.PathLike)):
        data = Path(data).read_bytes()
    raw = bytes(data)
    if content_type is None:
        content_type = "image/png" if raw[:8] == b"\x89PNG\r\n\x1a\n" else "image/jpeg"
    return raw, content_type


def file_argument(data: Union[bytes, bytearray, memoryview, "os.PathLike[str]", str],
                  file_name: Optional[str], caller: str) -> Tuple[bytes, str]:
    """The bytes and name of a file argument: bytes with ``file_name``, or the path of a
    file, whose name is the default ``file_name``. ``caller`` names the method in the
    TypeError for bytes without a name. What :meth:`Annotation.set_file` and the tool
    manager's attachment take alike."""
    if isinstance(data, (str, os.PathLike)):
        path = Path(data)
        data = path.read_bytes()
        file_name = path.name if file_name is None else file_name
    if file_name is None:
        raise TypeError("%s needs a file_name with bytes" % caller)
    return bytes(data), file_name


class Annotation(OwnedHandle):
    """One annotation, as a value owned by Python (``quire_annotation``).

    Read them from :attr:`quire.Page.annotations`, :meth:`quire.Document.annotation` and the
    thread functions of :class:`quire.Document`, or make one with :meth:`new`. Text fields
    read as ``None`` when unset and are cleared by assigning ``None``; number fields read as
    ``None`` when unset. An annotation is independent of its document: it outlives it, and
    setting its properties only changes the value until it is written back with
    :meth:`quire.Document.update_annotation`. What relates it to other annotations
    (:attr:`replies`, :attr:`popup`, :attr:`parent`) is read from the document it came
    from, at the time it is asked.

    Use it as a context manager or call :meth:`close` to release it early; closing twice
    does nothing. After :meth:`close` every property raises :class:`quire.StateError`.
    """

    __slots__ = ("_handle", "_finalizer", "_lock", "_owner", "_listing", "_info", "_snapshot", "_snapshot_index", "__weakref__")

    _handle: Any  # a _raw.quire_annotation_p, None once closed
    _finalizer: Any  # weakref.finalize releasing the handle
    _lock: Any  # threading.RLock
    # A weak reference to the document the annotation was read from or added to (None for
    # one made by new and not added): what replies, popup and parent ask.
    _owner: Optional[weakref.ref[_Owner]]
    # The page listing that holds this object when it came from Page.annotations: changing
    # or closing the annotation marks it stale, so that the page is read again. Weak, so
    # that an annotation kept does not keep the rest of its page.
    _listing: Optional[weakref.ref[PageListing]]
    # What the bulk read gave (an _Info), while the value is unchanged: the fields a viewer
    # lists are read from it without a call. None for other annotations, and once the
    # value changes or closes.
    _info: Optional[_Info]
    # An annotation read in bulk has no handle of its own until one is needed (_handle is
    # _PENDING): it is copied then from the library's snapshot of the page (a
    # quire_annotation_list that does not change), item _snapshot_index.
    _snapshot: Optional[_Snapshot]
    _snapshot_index: int
    _closed_message = "the annotation is closed"

    def __init__(self) -> None:
        raise TypeError("make annotations with quire.Annotation.new(subtype, page_index, rect)")

    @classmethod
    def _adopt(cls, handle: Any) -> Annotation:
        """Wraps a new ``quire_annotation *`` that this object now owns."""
        if not handle:
            raise InternalError(_raw.QUIRE_EINTERNAL, "the library returned QUIRE_OK and a NULL annotation")
        self = object.__new__(cls)
        self._lock = threading.RLock()
        self._handle = handle
        self._finalizer = weakref.finalize(self, _raw.lib.quire_annotation_free, handle)
        self._owner = None
        self._listing = None
        self._info = None
        self._snapshot = None
        self._snapshot_index = 0
        return self

    @classmethod
    def _listed(cls, snapshot: _Snapshot, index: int, info: _Info, owner: Optional[_Owner]) -> Annotation:
        """Item ``index`` of a bulk read: no handle until a call needs one (see _live)."""
        self = object.__new__(cls)
        self._lock = threading.RLock()
        self._handle = _PENDING
        self._finalizer = None
        self._owner = weakref.ref(owner) if owner is not None else None
        self._listing = None
        self._info = info
        self._snapshot = snapshot
        self._snapshot_index = index
        return self

    def _live(self) -> Any:
        """The handle (made now from the snapshot for an annotation read in bulk); raises
        :class:`quire.StateError` once closed. Call it with the lock held."""
        handle = self._handle
        if handle is _PENDING:
            snapshot = self._snapshot
            if snapshot is None:  # pragma: no cover - set together with _PENDING
                raise InternalError(_raw.QUIRE_EINTERNAL, "an annotation read in bulk lost its snapshot")
            out = _raw.quire_annotation_p()
            check(_raw.lib.quire_annotation_list_get(byref(out), snapshot.handle, self._snapshot_index))
            if not out:
                raise InternalError(_raw.QUIRE_EINTERNAL, "the library returned QUIRE_OK and a NULL annotation")
            self._handle = handle = out
            self._finalizer = weakref.finalize(self, _raw.lib.quire_annotation_free, out)
            self._snapshot = None
        elif handle is None:
            raise StateError(_raw.QUIRE_ESTATE, self._closed_message)
        return handle

    @classmethod
    def new(cls, subtype: str, page_index: int, rect: RectLike) -> Annotation:
        """A new annotation of ``subtype`` (one of :data:`SUBTYPES`, such as ``"Square"``) for
        page ``page_index`` (0-based) at ``rect``; it is in no document until
        :meth:`quire.Document.add_annotation` adds it. Text markup (:data:`TEXT_MARKUP`)
        needs :attr:`quad_points`; when it has none as it is added, its rectangle is used.

        Raises:
            InvalidArgumentError: a name that is not an annotation subtype (such as
                ``"Bogus"``, or ``"square"``: subtypes are case-sensitive), a malformed
                rectangle, a negative page.
            UnsupportedError: a subtype that Quire reads but does not create, such as
                ``"Link"``, ``"Popup"`` or ``"Widget"``.
        """
        if not isinstance(subtype, str):
            raise TypeError("subtype is a str such as 'Square', not %s" % type(subtype).__name__)
        _check_creatable(subtype)
        out = _raw.quire_annotation_p()
        where = c_rect(rect)
        check(_raw.lib.quire_annotation_new(byref(out), c_string(subtype, "the subtype"), operator.index(page_index), byref(where)))
        return cls._adopt(out)

    # -- lifetime (closed and the context manager: OwnedHandle) ------------------------------

    def close(self) -> None:
        """Releases the handle. Calling it again does nothing."""
        self._changed()
        super().close()
        self._snapshot = None

    def _replace(self, handle: Any) -> None:
        """Takes ``handle`` (a fresh read of the same annotation) in place of the current one."""
        with self._lock:
            self._live()
            self._changed()
            self._finalizer()
            self._handle = handle
            self._finalizer = weakref.finalize(self, _raw.lib.quire_annotation_free, handle)

    def _changed(self) -> None:
        """Called before the value changes: the page listing that holds it is stale, and
        what the bulk read gave no longer describes it."""
        self._info = None
        reference = self._listing
        listing = reference() if reference is not None else None
        if listing is not None:
            listing.stale = True

    def _source(self) -> Optional[_Owner]:
        """The document the annotation was read from or added to; ``None`` for one in no
        document. Raises :class:`StateError` when that document is gone."""
        owner = self._owner
        if owner is None:
            return None
        document = owner()
        if document is None:
            raise StateError(_raw.QUIRE_ESTATE, "the document this annotation was read from is closed")
        return document

    # -- helpers -----------------------------------------------------------------------------

    def _get_int(self, function: Callable[..., int]) -> int:
        out = c_int32()
        with self._lock:
            check(function(byref(out), self._live()))
        return out.value

    def _get_optional_int(self, function: Callable[..., int]) -> Optional[int]:
        """``function(int32_t *out, annotation)``, with QUIRE_ENOTFOUND as ``None``."""
        out = c_int32()
        with self._lock:
            status = function(byref(out), self._live())
        if status == _raw.QUIRE_ENOTFOUND:
            return None
        check(status)
        return out.value

    def _get_string(self, field: int) -> Optional[str]:
        info = self._info
        if info is not None:
            slot = _INFO_STRINGS.get(field)
            if slot is not None:
                return cast(Optional[str], info[slot])
        with self._lock:
            data = query_short_bytes(_raw.lib.quire_annotation_string, self._live(), field)
        return None if data is None else text(data)

    def _set_string(self, field: int, value: Optional[Union[str, bytes]]) -> None:
        data = optional_c_string(value, "the value")
        with self._lock:
            self._changed()
            check(_raw.lib.quire_annotation_set_string(self._live(), field, data))

    def _get_number(self, field: int) -> Optional[float]:
        out = c_double()
        with self._lock:
            status = _raw.lib.quire_annotation_number(byref(out), self._live(), field)
        if status == _raw.QUIRE_ENOTFOUND:
            return None
        check(status)
        return out.value

    def _set_number(self, field: int, value: float) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("a number field takes an int or a float, not %s" % type(value).__name__)
        with self._lock:
            self._changed()
            check(_raw.lib.quire_annotation_set_number(self._live(), field, float(value)))

    def _get_color(self, which: int) -> Tuple[float, ...]:
        out = (c_double * 4)()
        count = c_size_t()
        with self._lock:
            check(_raw.lib.quire_annotation_color(out, 4, byref(count), self._live(), which))
        if not 0 <= count.value <= 4:
            raise InternalError(_raw.QUIRE_EINTERNAL, "quire_annotation_color gave %d components" % count.value)
        return tuple(out[: count.value])

    def _set_color(self, which: int, value: Optional[Sequence[float]]) -> None:
        array, count = doubles(value or ())
        with self._lock:
            self._changed()
            check(_raw.lib.quire_annotation_set_color(self._live(), which, array, count))

    def _get_points(self, kind: int) -> List[float]:
        with self._lock:
            return query_doubles(_raw.lib.quire_annotation_points, self._live(), kind)

    def _set_points(self, kind: int, value: Optional[Sequence[float]]) -> None:
        array, count = doubles(value or ())
        with self._lock:
            self._changed()
            check(_raw.lib.quire_annotation_set_points(self._live(), kind, array, count))

    # -- identity ----------------------------------------------------------------------------

    @property
    def id(self) -> Optional[int]:
        """The object number of the annotation in its document (what the reply and thread
        methods take); ``None`` for one not added yet, or one written directly in a page's
        /Annots (it can be read but not replied to)."""
        info = self._info
        if info is not None:
            return info.id
        return self._get_optional_int(_raw.lib.quire_annotation_id)

    @property
    def page_index(self) -> int:
        """The page of the annotation (0-based)."""
        info = self._info
        if info is not None:
            return info.page_index
        return self._get_int(_raw.lib.quire_annotation_page_index)

    @property
    def subtype(self) -> str:
        """/Subtype, such as ``"Square"``; any subtype reads, including those Quire does not
        create."""
        info = self._info
        if info is not None:
            return info.subtype
        with self._lock:
            data = query_short_bytes(_raw.lib.quire_annotation_subtype, self._live())
        if data is None:  # pragma: no cover - every annotation has a subtype
            raise InternalError(_raw.QUIRE_EINTERNAL, "quire_annotation_subtype found no subtype")
        return text(data)

    @property
    def rect(self) -> Rect:
        """/Rect, as a :class:`quire.Rect`; assign any ``(left, bottom, right, top)``."""
        info = self._info
        if info is not None:
            return info.rect
        out = _raw.quire_rect()
        with self._lock:
            check(_raw.lib.quire_annotation_rect(byref(out), self._live()))
        return rect_from_c(out)

    @rect.setter
    def rect(self, value: RectLike) -> None:
        where = c_rect(value)
        with self._lock:
            self._changed()
            check(_raw.lib.quire_annotation_set_rect(self._live(), byref(where)))

    # -- text fields -------------------------------------------------------------------------

    contents = _string_field(_raw.QUIRE_ANNOT_CONTENTS, "/Contents: the text.")
    author = _string_field(_raw.QUIRE_ANNOT_AUTHOR, "/T: the author.")
    subject = _string_field(_raw.QUIRE_ANNOT_SUBJECT, "/Subj: the subject.")
    name = _string_field(_raw.QUIRE_ANNOT_UNIQUE_NAME, "/NM: the unique name (a UUID for new annotations).")
    icon = _string_field(_raw.QUIRE_ANNOT_ICON, "/Name: a note's icon or a stamp's name.")
    custom_data = _string_field(
        _raw.QUIRE_ANNOT_CUSTOM_DATA,
        "The application's own data (JSON text), which Quire keeps with the annotation and "
        "carries through annotation JSON.",
    )

    # -- dates -------------------------------------------------------------------------------

    created = _date_field(
        _raw.QUIRE_ANNOT_CREATION_DATE,
        "/CreationDate as written, a PDF date (``D:YYYYMMDDHHmmSSOHH'mm``); assign a PDF date "
        "string, a :class:`datetime.datetime`, or ``None``.",
    )
    modified = _date_field(
        _raw.QUIRE_ANNOT_MODIFICATION_DATE,
        "/M as written, a PDF date; assign a PDF date string, a :class:`datetime.datetime`, or ``None``.",
    )

    @property
    def created_datetime(self) -> Optional[_dt.datetime]:
        """:attr:`created` as a :class:`datetime.datetime` (``None`` when unset or malformed)."""
        written = self.created
        return parse_pdf_date(written) if written is not None else None

    @property
    def modified_datetime(self) -> Optional[_dt.datetime]:
        """:attr:`modified` as a :class:`datetime.datetime` (``None`` when unset or malformed)."""
        written = self.modified
        return parse_pdf_date(written) if written is not None else None

    @property
    def line_endings(self) -> Tuple[Optional[str], Optional[str]]:
        """The two /LE line endings (start, end) of a Line or PolyLine, such as ``('None',
        'OpenArrow')``; each ``None`` when unset. Assign a pair of names of ISO 32000-2
        Table 179: None, Square, Circle, Diamond, OpenArrow, ClosedArrow, Butt, ROpenArrow,
        RClosedArrow, Slash."""
        return (self._get_string(_raw.QUIRE_ANNOT_LINE_START), self._get_string(_raw.QUIRE_ANNOT_LINE_END))

    @line_endings.setter
    def line_endings(self, value: Optional[Tuple[Optional[str], Optional[str]]]) -> None:
        start, end = value if value is not None else (None, None)
        with self._lock:
            self._set_string(_raw.QUIRE_ANNOT_LINE_START, start)
            self._set_string(_raw.QUIRE_ANNOT_LINE_END, end)

    # -- number fields -----------------------------------------------------------------------

    opacity = _number_field(_raw.QUIRE_ANNOT_OPACITY, "/CA, 0 to 1 (``None`` when unset).")
    border_width = _number_field(_raw.QUIRE_ANNOT_BORDER_WIDTH, "/BS /W (``None`` when unset).")
    border_style = _string_field(
        _raw.QUIRE_ANNOT_BORDER_STYLE,
        "/BS /S, the border style: ``'S'`` solid, ``'D'`` dashed (see :attr:`dash_pattern`), "
        "``'B'`` beveled, ``'I'`` inset, ``'U'`` underline (``None`` when unset: solid).",
    )
    dash_pattern = _points_field(
        _raw.QUIRE_ANNOT_DASH_PATTERN,
        "/BS /D: the dash and gap lengths of a dashed border ([] when unset: 3 on, 3 off); "
        "at most 16 lengths of 0 or more, not all 0.",
    )
    cloudy_intensity = _number_field(
        _raw.QUIRE_ANNOT_CLOUDY_INTENSITY,
        "The intensity of a cloudy border (/BE /S /C /I), 0 to 10 (``None`` when the border has "
        "no effect; assigning 0 removes it). Drawn on Square, Circle and Polygon as Acrobat draws it; "
        "adding or updating a cloudy Square or Circle sets :attr:`rect` to the cloud's bounds and "
        ":attr:`rect_differences` to the inset to its outline, as Acrobat writes them.",
    )
    intent = _string_field(
        _raw.QUIRE_ANNOT_INTENT,
        "/IT, the intent: ``'FreeTextCallout'`` or ``'FreeTextTypeWriter'`` for free text "
        "(``None`` when unset).",
    )
    callout_line = _points_field(
        _raw.QUIRE_ANNOT_CALLOUT_LINE,
        "/CL of a free text callout: ``[x1, y1, x3, y3]`` or ``[x1, y1, x2, y2, x3, y3]``, from the "
        "point it points at (where ``line_endings[0]`` is drawn) to the text box ([] when unset).",
    )

    @property
    def alignment(self) -> Optional[int]:
        """/Q of free text and redaction overlay text: 0 left, 1 centred, 2 right (``None`` when
        unset: left)."""
        value = self._get_number(_raw.QUIRE_ANNOT_ALIGNMENT)
        return int(value) if value is not None else None

    @alignment.setter
    def alignment(self, value: int) -> None:
        self._set_number(_raw.QUIRE_ANNOT_ALIGNMENT, operator.index(value))

    overlay_text = _string_field(
        _raw.QUIRE_ANNOT_OVERLAY_TEXT,
        "/OverlayText of a Redact annotation: drawn over the fill colour (:attr:`interior_color`) "
        "when the redaction is applied (``None`` when unset).",
    )

    @property
    def repeat_overlay_text(self) -> bool:
        """/Repeat of a Redact annotation: whether the overlay text repeats to fill the region."""
        return self._get_number(_raw.QUIRE_ANNOT_REPEAT) == 1

    @repeat_overlay_text.setter
    def repeat_overlay_text(self, value: bool) -> None:
        self._set_number(_raw.QUIRE_ANNOT_REPEAT, 1 if value else 0)

    @property
    def measurement(self) -> Optional[Measurement]:
        """The scale of a measurement (a distance on a Line, a perimeter on a PolyLine, an
        area on a Polygon) as a :class:`quire.Measurement`, or ``None``. Assign one (or a
        tuple of its fields) to make the annotation a measurement: when it is added or
        written back its /Measure is written, :attr:`intent` becomes LineDimension,
        PolyLineDimension or PolygonDimension and :attr:`contents` the measured value as
        viewers show it (``'12.50 cm'``, ``'3.20 sq m'``); ``None`` removes the scale.
        :class:`quire.InvalidArgumentError` for a value not above 0, an unknown unit, a
        precision outside 0 to 4 or another subtype."""
        with self._lock:
            from_unit = self._get_string(_raw.QUIRE_ANNOT_MEASURE_FROM_UNIT)
            if from_unit is None:
                return None
            return Measurement(
                cast(float, self._get_number(_raw.QUIRE_ANNOT_MEASURE_FROM_VALUE)),
                from_unit,
                cast(float, self._get_number(_raw.QUIRE_ANNOT_MEASURE_TO_VALUE)),
                cast(str, self._get_string(_raw.QUIRE_ANNOT_MEASURE_TO_UNIT)),
                int(cast(float, self._get_number(_raw.QUIRE_ANNOT_MEASURE_PRECISION))),
            )

    @measurement.setter
    def measurement(self, value: Optional[Union[Measurement, Tuple[float, str, float, str], Tuple[float, str, float, str, int]]]) -> None:
        with self._lock:
            self._changed()
            if value is None:
                check(_raw.lib.quire_annotation_set_measurement(self._live(), 0.0, None, 0.0, None, 2))
                return
            m = Measurement(*value)
            check(_raw.lib.quire_annotation_set_measurement(
                self._live(), float(m.from_value), c_string(m.from_unit, "from_unit"), float(m.to_value),
                c_string(m.to_unit, "to_unit"), operator.index(m.precision)))

    @property
    def measured_value(self) -> Optional[float]:
        """The measured value in the scale's world unit (square units for an area), computed
        from the geometry (read-only; ``None`` without a scale or geometry)."""
        return self._get_number(_raw.QUIRE_ANNOT_MEASURED_VALUE)

    @property
    def rotation(self) -> int:
        """/Rotate of FreeText and Stamp: 0, 90, 180 or 270 degrees counterclockwise. The
        appearance is drawn turned inside :attr:`rect`, which should be the turned box."""
        value = self._get_number(_raw.QUIRE_ANNOT_ROTATION)
        return int(value) if value is not None else 0

    @rotation.setter
    def rotation(self, value: int) -> None:
        self._set_number(_raw.QUIRE_ANNOT_ROTATION, operator.index(value))

    @property
    def caption(self) -> bool:
        """/Cap of a Line: its :attr:`contents` drawn as a caption, placed by
        :attr:`caption_position` and :attr:`caption_offset` (a measured distance's value then
        takes that place instead of Quire's own label's). ``False`` when unset."""
        return self._get_number(_raw.QUIRE_ANNOT_CAPTION) == 1

    @caption.setter
    def caption(self, value: bool) -> None:
        self._set_number(_raw.QUIRE_ANNOT_CAPTION, 1 if value else 0)

    caption_position = _string_field(
        _raw.QUIRE_ANNOT_CAPTION_POSITION,
        "/CP of a Line with a caption: ``'Inline'`` (centred in the line, which is broken around "
        "it; the default) or ``'Top'`` (on top of the line); ``None`` when unset.",
    )
    caption_offset = _points_field(
        _raw.QUIRE_ANNOT_CAPTION_OFFSET,
        "/CO of a Line with a caption: ``[along, across]``, its offset along the line (positive "
        "to the right, as it reads) and across it (positive up); ``[]`` when unset.",
    )

    blend_mode = _string_field(
        _raw.QUIRE_ANNOT_BLEND_MODE,
        "/BM, the blend mode of the appearance: ``'Normal'``, ``'Multiply'``, ``'Screen'``, "
        "``'Overlay'``, ``'Darken'``, ``'Lighten'``, ``'ColorDodge'``, ``'ColorBurn'``, "
        "``'HardLight'``, ``'SoftLight'``, ``'Difference'``, ``'Exclusion'``, ``'Hue'``, "
        "``'Saturation'``, ``'Color'`` or ``'Luminosity'`` (``None`` when unset).",
    )

    rich_text = _string_field(
        _raw.QUIRE_ANNOT_RICH_TEXT,
        "/RC, rich text: XHTML with ``p``, ``b``, ``i`` and ``span`` and their ``style`` "
        "(``font-weight``, ``font-style``, ``color``, ``font-size``, ``font-family``, "
        "``text-decoration``, ``text-align``). Setting it sanitizes it and sets "
        ":attr:`contents` to its plain text (:class:`quire.FormatError` when it is not "
        "well-formed); a FreeText draws it with its styles.",
    )

    default_style = _string_field(
        _raw.QUIRE_ANNOT_DEFAULT_STYLE,
        "/DS, a FreeText's default style string (``'font: 12pt Helvetica; color:#FF0000'``): "
        "the base style of :attr:`rich_text`'s runs and, without rich text, the style "
        ":attr:`contents` is drawn in (``None`` when unset).",
    )

    symbol = _string_field(
        _raw.QUIRE_ANNOT_SYMBOL, "/Sy of a Caret: ``'P'`` (a paragraph symbol follows) or ``'None'``."
    )
    rect_differences = _points_field(
        _raw.QUIRE_ANNOT_RECT_DIFFERENCES,
        "/RD: how far the drawing lies inside :attr:`rect`, ``[left, bottom, right, top]`` "
        "([] when unset).",
    )

    # -- free text ---------------------------------------------------------------------------

    default_appearance = _string_field(
        _raw.QUIRE_ANNOT_DEFAULT_APPEARANCE, "/DA of free text, such as ``'/Helv 12 Tf 0 g'``."
    )

    @property
    def font_size(self) -> Optional[float]:
        """The font size in /DA of free text (read-only; ``None`` when unset)."""
        return self._get_number(_raw.QUIRE_ANNOT_FONT_SIZE)

    # -- flags -------------------------------------------------------------------------------

    @property
    def flags(self) -> int:
        """/F, ISO 32000-2 Table 167 (0 when unset): 2 is Hidden, 4 is Print."""
        info = self._info
        if info is not None:
            return info.flags
        value = self._get_number(_raw.QUIRE_ANNOT_FLAGS)
        return int(value) if value is not None else 0

    @flags.setter
    def flags(self, value: int) -> None:
        self._set_number(_raw.QUIRE_ANNOT_FLAGS, operator.index(value))

    # -- colours and geometry ----------------------------------------------------------------

    color = _color_field(
        _raw.QUIRE_ANNOT_COLOR,
        "/C as a tuple of 0 (unset), 1 (gray), 3 (RGB) or 4 (CMYK) components from 0 to 1; "
        "assign such a sequence, or ``None`` or ``()`` to clear it.",
    )
    interior_color = _color_field(_raw.QUIRE_ANNOT_INTERIOR_COLOR, "/IC, as :attr:`color`.")
    quad_points = _points_field(
        _raw.QUIRE_ANNOT_QUAD_POINTS,
        "/QuadPoints of text markup: 8 numbers per quadrilateral ([] when unset); assign any "
        "sequence of numbers, or ``None`` to clear them.",
    )
    line = _points_field(_raw.QUIRE_ANNOT_LINE, "/L of a line: ``[x1, y1, x2, y2]`` ([] when unset).")
    vertices = _points_field(
        _raw.QUIRE_ANNOT_VERTICES, "/Vertices of polygons and polylines: x, y pairs ([] when unset)."
    )

    def set_image(self, data: Union[bytes, bytearray, memoryview, "os.PathLike[str]", str, None],
                  content_type: Optional[str] = None) -> None:
        """Gives a Stamp an image (PNG or JPEG bytes, or the path of such a file), stored and
        drawn as its appearance when the annotation is added or written back
        (:meth:`quire.Document.add_annotation`, :meth:`quire.Document.update_annotation`).
        ``content_type`` is ``'image/png'`` or ``'image/jpeg'``; by default it is told from
        the bytes. The image is checked now: :class:`quire.FormatError` when it is not a PNG
        or JPEG that Quire reads, :class:`quire.LimitError` past 16 MiB or 40 million pixels.
        ``None`` forgets an image not stored yet."""
        if data is None:
            with self._lock:
                self._changed()
                check(_raw.lib.quire_annotation_set_image(self._live(), None, 0, None))
            return
        raw, content_type = image_argument(data, content_type)
        with self._lock:
            self._changed()
            check(_raw.lib.quire_annotation_set_image(self._live(), raw, len(raw), content_type.encode("utf-8")))

    def set_file(self, data: Union[bytes, bytearray, memoryview, "os.PathLike[str]", str, None],
                 file_name: Optional[str] = None, content_type: Optional[str] = None,
                 description: Optional[str] = None) -> None:
        """Gives a FileAttachment the file to embed: bytes (with ``file_name``), or the path
        of a file (whose name is the default ``file_name``). It is stored in the document,
        compressed, when the annotation is added or written back
        (:meth:`quire.Document.add_annotation`, :meth:`quire.Document.update_annotation`);
        :attr:`icon` (``'PushPin'``, the default, ``'Paperclip'``, ``'Graph'`` or
        ``'Tag'``) is drawn in :attr:`color`. ``content_type`` is a media type such as
        ``'application/pdf'`` (``None`` for none); ``description`` is shown by viewers.
        :class:`quire.InvalidArgumentError` for a name with a path separator or a bad media
        type, :class:`quire.LimitError` past 64 MiB. ``None`` forgets a file not stored yet.
        The annotation JSON (``pspdfkit/file``) and XFDF carry the file, and a synced
        document uploads it as an attachment of its layer's record."""
        if data is None:
            with self._lock:
                self._changed()
                check(_raw.lib.quire_annotation_set_file(self._live(), None, 0, None, None, None))
            return
        raw, file_name = file_argument(data, file_name, "set_file")
        with self._lock:
            self._changed()
            check(_raw.lib.quire_annotation_set_file(self._live(), raw, len(raw), c_string(file_name, "the file name"),
                                                     optional_c_string(content_type, "the content type"),
                                                     optional_c_string(description, "the description")))

    file_name: Attribute[Annotation, Optional[str]] = Attribute(
        lambda a: a._get_string(_raw.QUIRE_ANNOT_FILE_NAME),
        "The name of a FileAttachment's file (``None`` without one); read-only: :meth:`set_file` gives it.",
    )
    file_description: Attribute[Annotation, Optional[str]] = Attribute(
        lambda a: a._get_string(_raw.QUIRE_ANNOT_FILE_DESCRIPTION), "The description of a FileAttachment's file; read-only."
    )
    file_content_type: Attribute[Annotation, Optional[str]] = Attribute(
        lambda a: a._get_string(_raw.QUIRE_ANNOT_FILE_CONTENT_TYPE), "The media type of a FileAttachment's file; read-only."
    )

    @property
    def ink(self) -> List[List[float]]:
        """/InkList: the strokes, each a list of x, y pairs; assign a list of strokes (it
        replaces them all; ``[]`` or ``None`` removes them)."""
        with self._lock:
            handle = self._live()
            count = self._get_int(_raw.lib.quire_annotation_ink_stroke_count)
            return [query_doubles(_raw.lib.quire_annotation_ink_stroke, handle, i) for i in range(count)]

    @ink.setter
    def ink(self, strokes: Optional[Sequence[Sequence[float]]]) -> None:
        arrays = [doubles(stroke) for stroke in (strokes or ())]
        with self._lock:
            handle = self._live()
            self._changed()
            check(_raw.lib.quire_annotation_add_ink_stroke(handle, None, 0))
            for array, count in arrays:
                check(_raw.lib.quire_annotation_add_ink_stroke(handle, array, count))

    def add_ink_stroke(self, points: Sequence[float]) -> None:
        """Appends an ink stroke of x, y pairs."""
        array, count = doubles(points)
        if count == 0:
            raise InvalidArgumentError(_raw.QUIRE_EINVAL, "an ink stroke has at least one point")
        with self._lock:
            self._changed()
            check(_raw.lib.quire_annotation_add_ink_stroke(self._live(), array, count))

    # -- replies -----------------------------------------------------------------------------

    state = _string_field(
        _raw.QUIRE_ANNOT_STATE,
        "/State of a state reply, such as ``'Accepted'`` (checked with :attr:`state_model` when "
        "written to a document).",
    )
    state_model = _string_field(_raw.QUIRE_ANNOT_STATE_MODEL, "/StateModel of a state reply: ``'Marked'`` or ``'Review'``.")
    reply_type = _string_field(_raw.QUIRE_ANNOT_REPLY_TYPE, "/RT: ``'R'`` (a reply) or ``'Group'``.")

    @property
    def is_reply(self) -> bool:
        """Whether the annotation replies to another: it has /IRT, or it replies to an
        annotation no longer in the document (:attr:`in_reply_to_id`)."""
        info = self._info
        if info is not None:
            return info.in_reply_to is not None or info.in_reply_to_id is not None
        return self._get_int(_raw.lib.quire_annotation_is_reply) != 0

    @property
    def in_reply_to_id(self) -> Optional[str]:
        """The id of the annotation this one replies to when that annotation is no longer
        in the document (it was deleted, or a synced layer's record names one this document
        lacks): links are ids (docs/annotation-json.md, "Links"). ``None`` otherwise, or
        when :attr:`in_reply_to` names an annotation. Read-only."""
        return self._get_string(_raw.QUIRE_ANNOT_IN_REPLY_TO_ID)

    @property
    def in_reply_to(self) -> Optional[int]:
        """The object number of the annotation this one replies to; ``None`` when it is not
        a reply, or when the annotation it replies to is no longer in the document (see
        :attr:`in_reply_to_id`). Change it with :meth:`quire.Document.set_in_reply_to`."""
        info = self._info
        if info is not None:
            return info.in_reply_to
        return self._get_optional_int(_raw.lib.quire_annotation_in_reply_to)

    @property
    def is_state_reply(self) -> bool:
        """Whether the annotation is a reply that sets a review or marked state."""
        return self.is_reply and self.state is not None

    # -- related annotations, read from the document -----------------------------------------

    @property
    def replies(self) -> List[Annotation]:
        """The annotations that reply to this one directly (their /IRT names it), text and
        state replies alike, in /Annots order, read from the document it came from: the
        replies of replies are theirs (:meth:`quire.Document.threads` flattens a whole
        thread, :meth:`quire.Document.comments` sorts one by date). ``[]`` for an
        annotation in no document.

        Raises:
            StateError: its document is closed.
        """
        document = self._source()
        return [] if document is None else document._annotation_replies(self)

    @property
    def popup(self) -> Optional[Annotation]:
        """The pop-up window annotation of this one (its /Popup, a ``"Popup"`` annotation
        of the page), read from the document it came from; ``None`` when it has none, or
        for an annotation in no document. The popup's :attr:`parent` leads back here.

        Raises:
            StateError: its document is closed.
        """
        document = self._source()
        return None if document is None else document._annotation_link(self, "Popup")

    @property
    def parent(self) -> Optional[Annotation]:
        """For a popup, the annotation it belongs to (its /Parent); ``None`` for other
        annotations (a widget's /Parent is a form field, not an annotation) and for an
        annotation in no document.

        Raises:
            StateError: its document is closed.
        """
        document = self._source()
        return None if document is None else document._annotation_link(self, "Parent")

    def __repr__(self) -> str:
        if self._handle is None:
            return "<quire.Annotation closed>"
        try:
            number = self.id
            where = " %d" % number if number is not None else ""
            reply = " in reply to %d" % self.in_reply_to if self.in_reply_to is not None else ""
            state = " %s:%s" % (self.state_model, self.state) if self.state is not None else ""
            return "<quire.Annotation%s %s page %d%s%s>" % (where, self.subtype, self.page_index, reply, state)
        except Exception:  # pragma: no cover - repr must not raise
            return "<quire.Annotation>"


def _check_creatable(subtype: str) -> None:
    """Raises unless :meth:`quire.Document.add_annotation` can add an annotation of
    ``subtype``, so that :meth:`Annotation.new` fails where the mistake is made."""
    if subtype in SUBTYPES:
        return
    creatable = ", ".join(SUBTYPES)
    if subtype in _READ_ONLY_SUBTYPES:
        raise UnsupportedError(
            _raw.QUIRE_EUNSUPPORTED,
            "Quire reads %s annotations but does not create them; it creates %s" % (subtype, creatable),
        )
    close = [known for known in SUBTYPES + tuple(_READ_ONLY_SUBTYPES) if known.lower() == subtype.lower()]
    hint = " (subtypes are case-sensitive: %r)" % close[0] if close else ""
    raise InvalidArgumentError(
        _raw.QUIRE_EINVAL, "%r is not an annotation subtype%s; Quire creates %s" % (subtype, hint, creatable)
    )


class _Owner(Protocol):
    """What an annotation asks of the document it came from (quire.Document), so that this
    module needs nothing from quire._document."""

    def _annotation_replies(self, annotation: Annotation) -> List[Annotation]: ...

    def _annotation_link(self, annotation: Annotation, key: str) -> Optional[Annotation]: ...


class PageListing:
    """The annotations of one page as a document read them (quire.Page.annotations), kept
    until the document changes (it drops its listings) or one of the annotations does
    (which marks the listing :attr:`stale`)."""

    __slots__ = ("annotations", "stale", "_replies", "_numbers", "__weakref__")

    def __init__(self, annotations: List[Annotation]) -> None:
        self.annotations = annotations
        self.stale = False
        self._replies: Optional[Dict[int, List[Annotation]]] = None
        self._numbers: Optional[Dict[int, Annotation]] = None
        for annotation in annotations:
            annotation._listing = weakref.ref(self)

    def by_number(self, number: int) -> Optional[Annotation]:
        """The annotation of the page that is object ``number``, if any."""
        if self._numbers is None:
            self._numbers = {}
            for annotation in self.annotations:
                own = annotation.id
                if own is not None:
                    self._numbers.setdefault(own, annotation)
        return self._numbers.get(number)

    def replies_to(self, number: int) -> List[Annotation]:
        """The annotations of the page whose /IRT is object ``number``, in /Annots order."""
        if self._replies is None:
            self._replies = {}
            for annotation in self.annotations:
                target = annotation.in_reply_to
                if target is not None and target != annotation.id:
                    self._replies.setdefault(target, []).append(annotation)
        return self._replies.get(number, [])


class AnnotationThread(NamedTuple):
    """A thread of annotations (:meth:`quire.Document.threads`): an annotation that replies
    to none, and every reply below it."""

    root: Annotation
    """The annotation the thread starts from."""
    replies: List[Annotation]
    """Every reply below :attr:`root`, nested ones flattened depth first: each reply is
    followed by its own replies, siblings in /Annots order. State replies are included
    (:attr:`Annotation.is_state_reply` tells them apart). :meth:`with_depth` gives each
    with its depth, for indenting."""

    def with_depth(self) -> List[Tuple[Annotation, int]]:
        """Each of :attr:`replies`, in the same order, with its depth in the thread: 1 for a
        reply to :attr:`root`, 2 for a reply to such a reply, and so on::

            for thread in doc.threads():
                print(thread.root.contents)
                for reply, depth in thread.with_depth():
                    print("  " * depth + (reply.contents or ""))
        """
        depths: Dict[int, int] = {}
        if self.root.id is not None:
            depths[self.root.id] = 0
        out: List[Tuple[Annotation, int]] = []
        for reply in self.replies:
            parent = reply.in_reply_to
            depth = (depths.get(parent, 0) if parent is not None else 0) + 1
            if reply.id is not None:
                depths[reply.id] = depth
            out.append((reply, depth))
        return out


def page_threads(listing: PageListing) -> List[AnnotationThread]:
    """The threads of one page: its annotations that reply to no annotation of the page,
    each with the replies below it; popups are left out (they belong to their parent). A
    reply whose /IRT names no annotation of the page starts a thread of its own, and so
    does the first annotation of a cycle of /IRT, so that every annotation is in one."""
    items = listing.annotations
    seen: Set[int] = {id(a) for a in items if a.subtype == "Popup"}

    def flatten(root: Annotation) -> List[Annotation]:
        seen.add(id(root))
        replies: List[Annotation] = []
        number = root.id
        stack = list(reversed(listing.replies_to(number))) if number is not None else []
        while stack:
            reply = stack.pop()
            if id(reply) in seen:
                continue
            seen.add(id(reply))
            replies.append(reply)
            below = reply.id
            if below is not None:
                stack.extend(reversed(listing.replies_to(below)))
        return replies

    def is_root(annotation: Annotation) -> bool:
        target = annotation.in_reply_to
        return target is None or target == annotation.id or listing.by_number(target) is None

    threads = [AnnotationThread(a, flatten(a)) for a in items if id(a) not in seen and is_root(a)]
    for annotation in items:  # what a cycle of /IRT keeps from every root
        if id(annotation) not in seen:
            threads.append(AnnotationThread(annotation, flatten(annotation)))
    return threads


def _date_text(value: Optional[DateLike]) -> Optional[str]:
    if isinstance(value, _dt.datetime):
        return format_pdf_date(value)
    return value


def take_annotation(out: Any, owner: Optional[_Owner] = None) -> Annotation:
    """Wraps a ``quire_annotation *`` that a call on ``owner`` just returned (owned by the
    caller)."""
    annotation = Annotation._adopt(out)
    if owner is not None:
        annotation._owner = weakref.ref(owner)
    return annotation


def take_list(handle: Any, owner: Optional[_Owner] = None) -> List[Annotation]:
    """The annotations of a new ``quire_annotation_list *`` that a call on ``owner``
    returned (now owned here), as independent values, read in bulk: the fields a viewer
    lists come from one ``quire_annotation_list_infos`` call, and each annotation copies
    its own handle out of the list only when a call needs it. The list is released when
    the last of its annotations no longer needs it."""
    if not handle:
        return []
    snapshot = _Snapshot(handle)
    return [Annotation._listed(snapshot, index, info, owner) for index, info in enumerate(read_infos(handle))]


class _Info(NamedTuple):
    """What ``quire_annotation_info`` (version 2) holds of one annotation, decoded."""

    id: Optional[int]
    page_index: int
    in_reply_to: Optional[int]
    flags: int
    rect: Rect
    subtype: str
    contents: Optional[str]
    author: Optional[str]
    name: Optional[str]
    created: Optional[str]
    modified: Optional[str]
    state: Optional[str]
    state_model: Optional[str]
    in_reply_to_id: Optional[str]


#: The string fields of quire_annot_string_field that _Info holds: their index in it.
_INFO_STRINGS: Dict[int, int] = {
    _raw.QUIRE_ANNOT_CONTENTS: 6,
    _raw.QUIRE_ANNOT_AUTHOR: 7,
    _raw.QUIRE_ANNOT_UNIQUE_NAME: 8,
    _raw.QUIRE_ANNOT_CREATION_DATE: 9,
    _raw.QUIRE_ANNOT_MODIFICATION_DATE: 10,
    _raw.QUIRE_ANNOT_STATE: 11,
    _raw.QUIRE_ANNOT_STATE_MODEL: 12,
    _raw.QUIRE_ANNOT_IN_REPLY_TO_ID: 13,
}

#: ``_handle`` of an annotation read in bulk that has not needed its own handle yet.
_PENDING: Any = object()

#: quire_annotation_info (version 2) as the struct module reads it: native sizes and
#: alignment, as the C compiler lays it out (checked against ctypes' layout at import).
_INFO_LAYOUT = struct.Struct("@Iiiiidddd" + "PN" * 9)
if _INFO_LAYOUT.size != ctypes.sizeof(_raw.quire_annotation_info):  # pragma: no cover - a platform check
    raise ImportError("quire_annotation_info is %d bytes to ctypes but %d to struct" % (
        ctypes.sizeof(_raw.quire_annotation_info), _INFO_LAYOUT.size))


class _Snapshot:
    """A ``quire_annotation_list *`` that annotations read in bulk copy their handles from;
    released (weakref.finalize) when none of them needs it any more."""

    __slots__ = ("handle", "__weakref__")

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        weakref.finalize(self, _raw.lib.quire_annotation_list_free, handle)


class _InfoBuffer(threading.local):
    """The buffer of this thread that ``quire_annotation_list_infos`` fills: doubles, so
    that it has the alignment the call requires; it grows to the largest page read."""

    def __init__(self) -> None:
        self.size = 64 * 1024
        self.buffer: Any = (c_double * (self.size // 8))()


_info_buffer = _InfoBuffer()


def read_infos(handle: Any) -> List[_Info]:
    """The ``quire_annotation_info`` of every item of the ``quire_annotation_list *``
    ``handle``, decoded: one call in the common case (a buffer of this thread is tried
    first; a larger list gives QUIRE_EBUFS with the size, and a second call)."""
    scratch = _info_buffer
    length = c_size_t(0)
    count = c_int32(0)
    status = _raw.lib.quire_annotation_list_infos(
        scratch.buffer, scratch.size, byref(length), byref(count), handle, _raw.QUIRE_ANNOTATION_INFO_VERSION
    )
    if status == _raw.QUIRE_EBUFS:
        size = (length.value + 1 + 7) // 8 * 8  # the block and the NUL after it
        scratch.buffer = (c_double * (size // 8))()
        scratch.size = size
        status = _raw.lib.quire_annotation_list_infos(
            scratch.buffer, scratch.size, byref(length), byref(count), handle, _raw.QUIRE_ANNOTATION_INFO_VERSION
        )
    check(status)
    n = count.value
    if n == 0:
        return []
    # One copy of the bytes written, then plain slicing (memory-safe whatever the offsets):
    # a ctypes access per field, or a function call per string, cost more than the call.
    data = ctypes.string_at(scratch.buffer, length.value)
    base = ctypes.addressof(scratch.buffer)
    end = len(data) - _INFO_LAYOUT.size
    unpack = _INFO_LAYOUT.unpack_from
    new = tuple.__new__
    infos: List[_Info] = []
    for address in struct.unpack_from("@%dP" % n, data, 0):
        start = address - base
        if not 0 <= start <= end:
            raise InternalError(_raw.QUIRE_EINTERNAL, "quire_annotation_list_infos gave a struct outside the buffer")
        (_version, page, number, target, flags, left, bottom, right, top,
         subtype, subtype_len, contents, contents_len, author, author_len, name, name_len,
         created, created_len, modified, modified_len, state, state_len, model, model_len,
         parent, parent_len) = unpack(data, start)
        subtype -= base
        infos.append(new(_Info, (
            number or None, page, target or None, flags, new(Rect, (left, bottom, right, top)),
            data[subtype : subtype + subtype_len].decode("utf-8", "replace"),
            data[contents - base : contents - base + contents_len].decode("utf-8", "replace") if contents else None,
            data[author - base : author - base + author_len].decode("utf-8", "replace") if author else None,
            data[name - base : name - base + name_len].decode("utf-8", "replace") if name else None,
            data[created - base : created - base + created_len].decode("utf-8", "replace") if created else None,
            data[modified - base : modified - base + modified_len].decode("utf-8", "replace") if modified else None,
            data[state - base : state - base + state_len].decode("utf-8", "replace") if state else None,
            data[model - base : model - base + model_len].decode("utf-8", "replace") if model else None,
            data[parent - base : parent - base + parent_len].decode("utf-8", "replace") if parent else None,
        )))
    return infos


__all__ = ["Annotation", "AnnotationThread", "SUBTYPES", "STATE_MODELS", "TEXT_MARKUP", "parse_pdf_date", "format_pdf_date"]
