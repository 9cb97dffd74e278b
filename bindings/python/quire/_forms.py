"""Interactive forms (AcroForm): the fields of a document, their values and widgets.

``doc.fields`` lists the terminal fields in tree order; ``field.value = ...`` sets a value
with the rules of ISO 32000-2 §12.7 and regenerates the appearances of the field's
widgets (see ``quire_field_set_value`` in include/quire.h)::

    with quire.Document("form.pdf") as doc:
        for field in doc.fields:
            print(field.name, field.type, field.value)
        doc.field("address.city").value = "Lyon"
        doc.field("agree").value = "Yes"          # a check box's on-state
        doc.field("colours").value = ["Red", "Blue"]  # a multi-select list box
        doc.save("filled.pdf")

A field is a view of the document (it holds the document and its index), not a snapshot:
each property reads the document's current state (the library keeps the field tree until
the document changes, so reading every field of a large form walks the tree once). Errors are :class:`quire.QuireError`
subclasses: :class:`quire.StateError` for a read-only field,
:class:`quire.IndexOutOfRangeError` for a text longer than /MaxLen,
:class:`quire.InvalidArgumentError` for a value that is not a state or option of the field.
"""

from __future__ import annotations

from ctypes import byref, c_char_p, c_int32, c_uint32
from enum import Enum, IntFlag
from typing import TYPE_CHECKING, Any, List, NamedTuple, Optional, Sequence, Union

from . import _raw
from ._errors import check
from ._ffi import c_string, text
from ._geometry import Rect

if TYPE_CHECKING:
    from ._document import Document

__all__ = ["FieldFlags", "FieldOption", "FieldType", "FieldWidget", "FormField", "FormKind"]


class FieldType(Enum):
    """The type of a field (``QUIRE_FIELD_*``)."""

    TEXT = _raw.QUIRE_FIELD_TEXT
    CHECK_BOX = _raw.QUIRE_FIELD_CHECK_BOX
    RADIO_BUTTON = _raw.QUIRE_FIELD_RADIO_BUTTON
    COMBO_BOX = _raw.QUIRE_FIELD_COMBO_BOX
    LIST_BOX = _raw.QUIRE_FIELD_LIST_BOX
    PUSH_BUTTON = _raw.QUIRE_FIELD_PUSH_BUTTON
    SIGNATURE = _raw.QUIRE_FIELD_SIGNATURE
    UNKNOWN = _raw.QUIRE_FIELD_UNKNOWN


class FormKind(Enum):
    """What kind of form a document has (``QUIRE_FORM_*``)."""

    NONE = _raw.QUIRE_FORM_NONE
    ACROFORM = _raw.QUIRE_FORM_ACROFORM
    XFA_FOREGROUND = _raw.QUIRE_FORM_XFA_FOREGROUND
    XFA_ONLY = _raw.QUIRE_FORM_XFA_ONLY


class FieldFlags(IntFlag):
    """Field flags (/Ff, ISO 32000-2 §12.7.4.1)."""

    READ_ONLY = _raw.QUIRE_FIELD_FLAG_READ_ONLY
    REQUIRED = _raw.QUIRE_FIELD_FLAG_REQUIRED
    NO_EXPORT = _raw.QUIRE_FIELD_FLAG_NO_EXPORT
    MULTILINE = _raw.QUIRE_FIELD_FLAG_MULTILINE
    PASSWORD = _raw.QUIRE_FIELD_FLAG_PASSWORD
    NO_TOGGLE_TO_OFF = _raw.QUIRE_FIELD_FLAG_NO_TOGGLE_TO_OFF
    EDIT = _raw.QUIRE_FIELD_FLAG_EDIT
    MULTI_SELECT = _raw.QUIRE_FIELD_FLAG_MULTI_SELECT
    COMB = _raw.QUIRE_FIELD_FLAG_COMB


class FieldOption(NamedTuple):
    """A choice of a choice field, or an on-state of a button."""

    export_value: str
    display_text: str


class FieldWidget(NamedTuple):
    """A widget of a field: its page (``None`` when no page lists it) and rectangle."""

    page_index: Optional[int]
    rect: Rect


class FormField:
    """A terminal field of a document's form (see the module's documentation)."""

    __slots__ = ("_document", "_index")

    def __init__(self, document: "Document", index: int) -> None:
        self._document = document
        self._index = index

    def __repr__(self) -> str:
        return "<FormField %r %s>" % (self.name, self.type.name)

    def _int(self, function: Any, *args: Any) -> int:
        return self._document._get_int(function, self._index, *args)

    def _text(self, function: Any, *args: Any) -> str:
        return text(self._document._get_string(function, self._index, *args))

    @property
    def index(self) -> int:
        """The field's index in tree order."""
        return self._index

    @property
    def name(self) -> str:
        """The fully qualified name: the partial names from the root, joined with periods."""
        return self._text(_raw.lib.quire_field_name)

    @property
    def type(self) -> FieldType:
        """The field's type."""
        return FieldType(self._int(_raw.lib.quire_field_get_kind))

    @property
    def flags(self) -> FieldFlags:
        """The field flags (/Ff, inherited)."""
        out = c_uint32()
        doc = self._document
        with doc._lock:
            check(_raw.lib.quire_field_flags(byref(out), doc._read_handle(), self._index))
        return FieldFlags(out.value)

    @property
    def is_read_only(self) -> bool:
        """Whether the field is read-only: setting its value raises :class:`StateError`."""
        return FieldFlags.READ_ONLY in self.flags

    @property
    def is_required(self) -> bool:
        """Whether the field is required."""
        return FieldFlags.REQUIRED in self.flags

    @property
    def max_length(self) -> Optional[int]:
        """/MaxLen of a text field: the most characters its value may have; ``None`` when
        it has none (and for other types)."""
        n = self._int(_raw.lib.quire_field_max_length)
        return None if n < 0 else n

    @property
    def values(self) -> List[str]:
        """Every value: none when unset, one for most fields, several for a multi-select
        list box."""
        count = self._int(_raw.lib.quire_field_value_count)
        return [self._text(_raw.lib.quire_field_value, k) for k in range(count)]

    @property
    def value(self) -> Union[str, List[str], None]:
        """The value: a string (``"Off"`` for a button that is off), a list for a list box,
        ``None`` when unset. Assign a string, or a list of strings to a list box; the
        appearances of the field's widgets are regenerated."""
        values = self.values
        if self.type is FieldType.LIST_BOX:
            return values
        return values[0] if values else None

    @value.setter
    def value(self, value: Union[str, Sequence[str]]) -> None:
        doc = self._document
        if isinstance(value, (str, bytes)):
            data = c_string(value, "value")
            with doc._lock:
                check(_raw.lib.quire_field_set_value(doc._live_handle(), self._index, data))
            return
        items = [c_string(v, "value") for v in value]
        array = (c_char_p * max(len(items), 1))(*items)
        with doc._lock:
            check(_raw.lib.quire_field_set_values(doc._live_handle(), self._index, array, len(items)))

    def reset(self) -> None:
        """Resets the field to its default value (/DV), or clears it."""
        doc = self._document
        with doc._lock:
            check(_raw.lib.quire_field_reset(doc._live_handle(), self._index))

    @property
    def options(self) -> List[FieldOption]:
        """The choices of a combo or list box; the on-states of a check box or radio group."""
        count = self._int(_raw.lib.quire_field_option_count)
        return [
            FieldOption(
                self._text(_raw.lib.quire_field_option, k, _raw.QUIRE_FIELD_OPTION_EXPORT),
                self._text(_raw.lib.quire_field_option, k, _raw.QUIRE_FIELD_OPTION_DISPLAY),
            )
            for k in range(count)
        ]

    @property
    def widgets(self) -> List[FieldWidget]:
        """The widgets of the field: page and rectangle of each."""
        count = self._int(_raw.lib.quire_field_widget_count)
        doc = self._document
        out: List[FieldWidget] = []
        for k in range(count):
            page = c_int32()
            rect = _raw.quire_rect()
            with doc._lock:
                check(_raw.lib.quire_field_widget(byref(page), byref(rect), doc._read_handle(), self._index, k))
            out.append(FieldWidget(None if page.value < 0 else page.value,
                                   Rect(rect.left, rect.bottom, rect.right, rect.top)))
        return out
