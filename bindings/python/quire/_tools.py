"""The headless tool manager (after PDFTron's Tools framework): :class:`ToolManager`.

Quire draws nothing. The host renders pages as it likes (pypdfium2, a browser, ...) and
sends its pointer events in page coordinates; the manager passes each to its current tool,
which handles it or names the tool that replaces it (a tap on an annotation while panning
thus becomes an AnnotEdit selection). Annotation changes go through the document's
annotation API, so checkpoints and sync see them; each call that changes the document is
one undo step::

    with quire.Document("file.pdf") as doc:
        tools = quire.ToolManager(doc, on_event=print)
        tools.tool = quire.Tool.SQUARE
        tools.drag(0, (100, 100), (200, 150))           # a square on page 0
        tools.tap(0, (150, 125))                         # Pan -> AnnotEdit: selected
        tools.undo()
        doc.save("file.pdf")

Device pixels of a rendered page convert with :func:`device_to_page` and
:func:`page_to_device` (PDFium's ``FPDF_DeviceToPage`` / ``FPDF_PageToDevice``, without
their rounding); :func:`hit_test` tells what lies at a point.

Callbacks run on the thread of the manager's call, before it returns. An exception raised
in ``on_event`` is raised again by the call once it returns (the change it reported is made).
"""

from __future__ import annotations

import dataclasses
import os
from ctypes import byref, c_double, c_int32
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _raw
from ._annotations import AnnotationOrder, Measurement, file_argument, image_argument
from ._enums import IntEnum
from ._errors import InvalidArgumentError, check, text
from ._ffi import c_string, int32_index, optional_c_string, query_bytes, query_doubles
from ._geometry import Rect


def text_of_last_error() -> str:
    """The calling thread's last error message."""
    return text(_raw.lib.quire_last_error_message())

if TYPE_CHECKING:  # pragma: no cover
    from ._document import Document

__all__ = ["Tool", "PointerKind", "ToolEventKind", "HitKind", "ToolEvent", "ToolManager", "CustomTool", "PointerEvent",
           "ToolStyle", "ToolPreview", "PreviewKind", "SelectionMode",
           "device_to_page", "page_to_device", "hit_test", "hit_test_text"]

PointLike = Sequence[float]


class Tool(IntEnum):
    """The built-in tools (``QUIRE_TOOL_*``)."""

    PAN = _raw.QUIRE_TOOL_PAN  #: the default: decides which tool a hit needs
    ANNOT_EDIT = _raw.QUIRE_TOOL_ANNOT_EDIT  #: select, move, resize by handles
    INK = _raw.QUIRE_TOOL_INK  #: strokes from drags, committed on a tool change
    SQUARE = _raw.QUIRE_TOOL_SQUARE
    CIRCLE = _raw.QUIRE_TOOL_CIRCLE
    LINE = _raw.QUIRE_TOOL_LINE
    ARROW = _raw.QUIRE_TOOL_ARROW  #: a line with an open arrow at its end
    POLYGON = _raw.QUIRE_TOOL_POLYGON  #: a vertex per tap; a double tap closes it
    POLYLINE = _raw.QUIRE_TOOL_POLYLINE
    STICKY_NOTE = _raw.QUIRE_TOOL_STICKY_NOTE
    FREE_TEXT = _raw.QUIRE_TOOL_FREE_TEXT
    LINK = _raw.QUIRE_TOOL_LINK  #: reports where a tapped link leads
    FORM_FILL = _raw.QUIRE_TOOL_FORM_FILL  #: selects a tapped widget and reports it
    SIGNATURE = _raw.QUIRE_TOOL_SIGNATURE  #: ink committed with /Subj Signature
    HIGHLIGHT = _raw.QUIRE_TOOL_HIGHLIGHT  #: text markup over the text a drag selects
    UNDERLINE = _raw.QUIRE_TOOL_UNDERLINE
    STRIKEOUT = _raw.QUIRE_TOOL_STRIKEOUT
    SQUIGGLY = _raw.QUIRE_TOOL_SQUIGGLY
    REDACT = _raw.QUIRE_TOOL_REDACT  #: a Redact annotation over a drag's text, or its rectangle
    CARET = _raw.QUIRE_TOOL_CARET  #: a Caret where the user taps (then selected)
    CLOUD = _raw.QUIRE_TOOL_CLOUD  #: a cloudy Polygon (/IT PolygonCloud) from taps, as POLYGON
    CALLOUT = _raw.QUIRE_TOOL_CALLOUT  #: a FreeText callout: a drag from what it points at to its box
    DISTANCE = _raw.QUIRE_TOOL_DISTANCE  #: a distance (Line) from a drag, at :meth:`ToolManager.set_measurement`
    PERIMETER = _raw.QUIRE_TOOL_PERIMETER  #: a perimeter (PolyLine) from taps
    AREA = _raw.QUIRE_TOOL_AREA  #: an area (Polygon) from taps
    IMAGE_STAMP = _raw.QUIRE_TOOL_IMAGE_STAMP  #: a Stamp with :meth:`ToolManager.set_stamp_image`'s image, at a tap or in a drag
    FILE_ATTACHMENT = _raw.QUIRE_TOOL_FILE_ATTACHMENT  #: a FileAttachment with :meth:`ToolManager.set_attachment`'s file, at a tap
    CUSTOM = _raw.QUIRE_TOOL_CUSTOM  #: a host's tool (reported only)


class PointerKind(IntEnum):
    """The pointer events (``QUIRE_POINTER_*``)."""

    TAP = _raw.QUIRE_POINTER_TAP
    DOUBLE_TAP = _raw.QUIRE_POINTER_DOUBLE_TAP
    LONG_PRESS = _raw.QUIRE_POINTER_LONG_PRESS
    DRAG_BEGIN = _raw.QUIRE_POINTER_DRAG_BEGIN
    DRAG_MOVE = _raw.QUIRE_POINTER_DRAG_MOVE
    DRAG_END = _raw.QUIRE_POINTER_DRAG_END
    CANCEL = _raw.QUIRE_POINTER_CANCEL


class ToolEventKind(IntEnum):
    """What a :class:`ToolEvent` reports (``QUIRE_TOOL_EVENT_*``)."""

    TOOL_CHANGED = _raw.QUIRE_TOOL_EVENT_TOOL_CHANGED
    SELECTION_CHANGED = _raw.QUIRE_TOOL_EVENT_SELECTION_CHANGED
    ANNOTATION_ADDED = _raw.QUIRE_TOOL_EVENT_ANNOTATION_ADDED
    ANNOTATION_MODIFIED = _raw.QUIRE_TOOL_EVENT_ANNOTATION_MODIFIED
    ANNOTATION_REMOVED = _raw.QUIRE_TOOL_EVENT_ANNOTATION_REMOVED
    LINK_ACTIVATED = _raw.QUIRE_TOOL_EVENT_LINK_ACTIVATED
    FIELD_ACTIVATED = _raw.QUIRE_TOOL_EVENT_FIELD_ACTIVATED
    EDIT_REQUESTED = _raw.QUIRE_TOOL_EVENT_EDIT_REQUESTED
    UNHANDLED = _raw.QUIRE_TOOL_EVENT_UNHANDLED
    FIELD_CHANGED = _raw.QUIRE_TOOL_EVENT_FIELD_CHANGED  #: a form field's value was set


class HitKind(IntEnum):
    """What :func:`hit_test` found (``QUIRE_HIT_*``)."""

    NONE = _raw.QUIRE_HIT_NONE
    ANNOTATION = _raw.QUIRE_HIT_ANNOTATION
    LINK = _raw.QUIRE_HIT_LINK
    WIDGET = _raw.QUIRE_HIT_WIDGET


class SelectionMode(IntEnum):
    """How :meth:`ToolManager.select` changes the selection (``QUIRE_SELECT_*``)."""

    REPLACE = _raw.QUIRE_SELECT_REPLACE  #: the selection becomes what is given
    ADD = _raw.QUIRE_SELECT_ADD  #: what is given joins it
    TOGGLE = _raw.QUIRE_SELECT_TOGGLE  #: each given one leaves it when in it, else joins it
    REMOVE = _raw.QUIRE_SELECT_REMOVE  #: what is given leaves it


class PreviewKind(IntEnum):
    """What a :class:`ToolPreview` shows (``QUIRE_PREVIEW_*``)."""

    NONE = _raw.QUIRE_PREVIEW_NONE
    RECT = _raw.QUIRE_PREVIEW_RECT  #: a drag's rectangle (square, circle, free text, text markup so far)
    SEGMENT = _raw.QUIRE_PREVIEW_SEGMENT  #: a line's or arrow's two points
    INK = _raw.QUIRE_PREVIEW_INK  #: ink strokes, the last possibly still being drawn
    VERTICES = _raw.QUIRE_PREVIEW_VERTICES  #: a polygon's or polyline's vertices so far
    MOVE = _raw.QUIRE_PREVIEW_MOVE  #: the selection moved by ``offset``
    RESIZE = _raw.QUIRE_PREVIEW_RESIZE  #: the selected annotation resized to ``rect``
    SELECT = _raw.QUIRE_PREVIEW_SELECT  #: a rubber band


@dataclasses.dataclass(frozen=True)
class ToolStyle:
    """How new annotations look (:attr:`ToolManager.style`)."""

    color: Tuple[float, float, float] = (1.0, 0.0, 0.0)  #: /C, RGB in 0..1
    border_width: float = 2.0  #: points
    opacity: float = 1.0  #: /CA, 0..1
    font_size: float = 12.0  #: of free text
    tolerance: float = 4.0  #: hit-test tolerance in points
    author: Optional[str] = None  #: /T of new annotations, replies and review states
    free_text: str = "Text"  #: the text of new free text


@dataclasses.dataclass(frozen=True)
class ToolPreview:
    """What the current tool is drawing and has not made yet (:attr:`ToolManager.preview`),
    in user space of ``page_index``: a viewer draws it without redoing the tool's logic.

    ``rect`` is the drag's rectangle (for paths, their bounds; for a move, the moved
    selection's bounds); ``offset`` how far a move went; ``paths`` the x, y lists of a
    segment, of each ink stroke, of the vertices (``closed`` for a polygon)."""

    kind: PreviewKind
    tool: Tool
    page_index: int
    rect: Rect
    offset: Tuple[float, float] = (0.0, 0.0)
    paths: Tuple[Tuple[float, ...], ...] = ()
    closed: bool = False


_UNSET: Any = object()


@dataclasses.dataclass(frozen=True)
class ToolEvent:
    """One event of a :class:`ToolManager`, as a value.

    ``object_number`` is the annotation's (``None`` when there is none); ``from_tool`` and
    ``to_tool`` are set for :attr:`ToolEventKind.TOOL_CHANGED`; ``uri`` or ``page_index``
    say where an activated link leads; an :attr:`ToolEventKind.UNHANDLED` event carries the
    dropped pointer event (``pointer``, ``page_index``, ``point``).
    """

    kind: ToolEventKind
    object_number: Optional[int] = None
    from_tool: Optional[Tool] = None
    to_tool: Optional[Tool] = None
    page_index: Optional[int] = None
    uri: Optional[str] = None
    pointer: Optional[PointerKind] = None
    point: Optional[Tuple[float, float]] = None
    from_name: Optional[str] = None  #: TOOL_CHANGED from a :class:`CustomTool`: its name
    to_name: Optional[str] = None  #: TOOL_CHANGED to a :class:`CustomTool`: its name


@dataclasses.dataclass(frozen=True)
class PointerEvent:
    """A pointer event as a :class:`CustomTool` receives it."""

    kind: PointerKind
    page_index: int
    point: Tuple[float, float]


class CustomTool:
    """A tool of the host's, which takes part in the manager's loop like a built-in one.

    Subclass it, give it a ``name``, and register it with :meth:`ToolManager.register`;
    make it current with ``manager.tool = "its name"``. :meth:`handle` returns whether it
    handled the event; when it returns False, :meth:`next_tool` names the tool that
    replaces it (a :class:`Tool`, or the name of a registered custom tool), which gets the
    same event. An exception raised in :meth:`handle` or :meth:`finish` fails the
    manager's call with :class:`quire.UserAbortError`, chained to it. The tool must not
    call its manager from these methods (:class:`quire.StateError`)."""

    name: str = ""

    def handle(self, event: PointerEvent) -> bool:
        """Handles one event; the default handles nothing."""
        return False

    def next_tool(self) -> Union[Tool, str]:
        """The tool that replaces this one after :meth:`handle` returned False."""
        return Tool.PAN

    def finish(self) -> None:
        """The tool stops being current."""


def _event_from_c(e: _raw.quire_tool_event) -> ToolEvent:
    kind = ToolEventKind(e.kind)
    number = e.object_number or None
    if kind == ToolEventKind.TOOL_CHANGED:
        from_name = e.from_name.decode("utf-8", "replace") if e.from_name is not None else None
        to_name = e.to_name.decode("utf-8", "replace") if e.to_name is not None else None
        return ToolEvent(kind, from_tool=Tool(e.from_tool), to_tool=Tool(e.to_tool), from_name=from_name, to_name=to_name)
    if kind == ToolEventKind.LINK_ACTIVATED:
        uri = e.uri.decode("utf-8", "replace") if e.uri is not None else None
        return ToolEvent(kind, number, page_index=e.page_index if e.page_index >= 0 else None, uri=uri)
    if kind == ToolEventKind.UNHANDLED:
        return ToolEvent(kind, pointer=PointerKind(e.pointer), page_index=e.page_index, point=(e.x, e.y))
    return ToolEvent(kind, number)


def _point(point: PointLike) -> Tuple[float, float]:
    values = [float(v) for v in point]
    if len(values) != 2:
        raise InvalidArgumentError(_raw.QUIRE_EINVAL, "a point has 2 numbers (x, y)")
    return values[0], values[1]


def _view(view: Sequence[int]) -> Tuple[int, int, int, int, int]:
    values = [int32_index(v, "a view's value") for v in view]
    if len(values) == 4:
        values.append(0)
    if len(values) != 5:
        raise InvalidArgumentError(_raw.QUIRE_EINVAL, "a view is (start_x, start_y, size_x, size_y[, rotate])")
    return values[0], values[1], values[2], values[3], values[4]


def device_to_page(document: "Document", page_index: int, view: Sequence[int], point: PointLike) -> Tuple[float, float]:
    """A device pixel of page ``page_index`` rendered into ``view`` = ``(start_x, start_y,
    size_x, size_y[, rotate])`` (``rotate`` in quarter turns clockwise, on top of /Rotate),
    in PDF user space; as PDFium's ``FPDF_DeviceToPage`` without its rounding.

    Raises:
        InvalidArgumentError: ``rotate`` not 0..3, an empty size, a non-finite point.
        IndexOutOfRangeError: no such page.
    """
    x, y = c_double(), c_double()
    px, py = _point(point)
    page = int32_index(page_index, "page index")
    with document._lock:
        check(_raw.lib.quire_page_device_to_page(byref(x), byref(y), document._read_handle(), page, *_view(view), px, py))
    return x.value, y.value


def page_to_device(document: "Document", page_index: int, view: Sequence[int], point: PointLike) -> Tuple[float, float]:
    """The inverse of :func:`device_to_page` (``FPDF_PageToDevice`` without rounding)."""
    x, y = c_double(), c_double()
    px, py = _point(point)
    page = int32_index(page_index, "page index")
    with document._lock:
        check(_raw.lib.quire_page_page_to_device(byref(x), byref(y), document._read_handle(), page, *_view(view), px, py))
    return x.value, y.value


def hit_test(document: "Document", page_index: int, point: PointLike, tolerance: float = 0.0) -> Tuple[HitKind, Optional[int]]:
    """The topmost drawn annotation at ``point`` (user space) within ``tolerance`` points:
    ``(kind, object_number)``; ``(HitKind.NONE, None)`` for empty space. Hidden and no-view
    annotations, replies and popups are not hit.

    Raises:
        InvalidArgumentError: a non-finite point, a negative tolerance.
        IndexOutOfRangeError: no such page.
    """
    kind, number = c_int32(), c_int32()
    px, py = _point(point)
    page = int32_index(page_index, "page index")
    with document._lock:
        check(_raw.lib.quire_page_hit_test(byref(kind), byref(number), document._read_handle(), page, px, py, float(tolerance)))
    return HitKind(kind.value), (number.value or None)


def hit_test_text(document: "Document", page_index: int, point: PointLike, tolerance: float = 0.0) -> Optional[int]:
    """The text character at ``point`` (user space) of page ``page_index``: the index of
    the first character (as :meth:`Page.text_page` numbers them) whose box, grown by
    ``tolerance`` points on each side, holds the point; ``None`` when no character is there
    (generated spaces and line breaks are never hit). Unlike :meth:`TextPage.char_at`,
    which answers the nearest character, this tells whether a point is on text at all. The
    page's text is extracted on each call.

    Raises:
        InvalidArgumentError: a non-finite point, a negative tolerance.
        IndexOutOfRangeError: no such page.
        FormatError, LimitError: the page's content cannot be read.
    """
    index = c_int32()
    px, py = _point(point)
    page = int32_index(page_index, "page index")
    with document._lock:
        check(_raw.lib.quire_page_hit_test_text(byref(index), document._read_handle(), page, px, py, float(tolerance)))
    return None if index.value < 0 else index.value


class ToolManager:
    """A tool manager for ``document``, with :attr:`Tool.PAN` current.

    ``on_event`` (optional) is called with each :class:`ToolEvent`; the manager keeps its
    document alive. Close it (or use it as a context manager) to release it; pending ink
    strokes are dropped then (call :meth:`commit` first to keep them).
    """

    def __init__(self, document: "Document", on_event: Optional[Callable[[ToolEvent], Any]] = None) -> None:
        self._document = document
        self._on_event = on_event
        self._failures: List[BaseException] = []
        self._custom: Dict[str, Any] = {}  # name -> (tool, its C callbacks, kept strings)
        self._signing: Optional[Any] = None  # sign_drawn_signatures' options, kept
        self.events: List[ToolEvent] = []  #: every event so far (also with ``on_event``)

        def deliver(manager: Any, event: Any, payload: Any) -> None:
            try:
                value = _event_from_c(event.contents)
                self.events.append(value)
                if self._on_event is not None:
                    self._on_event(value)
            except BaseException as error:  # noqa: B902 - raised again by the call
                self._failures.append(error)

        self._callback = _raw.quire_tool_event_fn(deliver)
        callbacks = _raw.tool_callbacks_init()
        callbacks.on_event = self._callback
        out = _raw.quire_tool_manager_p()
        with document._lock:
            check(_raw.lib.quire_tool_manager_new(byref(out), document._read_handle(), byref(callbacks)))
        self._handle: Optional[Any] = out

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Releases the manager. Calling it again does nothing."""
        handle, self._handle = self._handle, None
        if handle:
            _raw.lib.quire_tool_manager_free(handle)

    def __enter__(self) -> "ToolManager":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def _call(self, function: Callable[..., int], *args: Any, changes: bool = True) -> None:
        from ._errors import StateError

        if not self._handle:
            raise StateError(_raw.QUIRE_ESTATE, "the tool manager is closed")
        self._failures = []
        with self._document._lock:
            # A change: the document's cached annotation listings are dropped.
            if changes:
                self._document._live_handle()
            else:
                self._document._read_handle()
            status = function(*args)
        failures, self._failures = self._failures, []
        if failures and status != _raw.QUIRE_OK and isinstance(failures[0], Exception):
            from ._errors import make_error

            raise make_error(status, text_of_last_error()) from failures[0]
        check(status)
        if failures:
            raise failures[0]

    # -- the Signature tool's signing ---------------------------------------------------

    def sign_drawn_signatures(self, path: Optional[Any], identity: Any = None, **options: Any) -> None:
        """Makes :attr:`Tool.SIGNATURE` sign the field it draws in (issue 37): a drawing
        centred in an unsigned signature field signs that field, with the drawing as its
        look, and the signed file is written to ``path`` (the document continues from it).
        ``identity`` is a :class:`quire.SigningIdentity`; ``options`` are those of
        :meth:`quire.Document.sign` (``field``, ``look`` and ``ink`` do not apply). A
        drawing elsewhere stays ink. ``path=None`` turns it off. A failed signing raises
        from the call that committed the drawing; the ink stays."""
        import os

        from ._errors import InvalidArgumentError
        from ._signatures import _SignOptions

        if path is None:
            self._call(lambda: _raw.lib.quire_tool_manager_set_signing(self._handle, None, None), changes=False)
            self._signing = None
            return
        for key in ("field", "look", "ink"):
            if key in options:
                raise InvalidArgumentError(_raw.QUIRE_EINVAL, "%s does not apply: the drawing chooses the field and the look" % key)
        built = _SignOptions(identity, **options)
        c_path = c_string(os.fsencode(os.fspath(path)), "the path")
        with identity._lock:
            built.options.identity = identity._live()
            self._call(lambda: _raw.lib.quire_tool_manager_set_signing(self._handle, byref(built.options), c_path),
                       changes=False)
        self._signing = built  # its time-stamping callback lives as long as signing is on

    # -- tools and events ----------------------------------------------------------------

    @property
    def tool(self) -> Tool:
        """The current tool; setting it finishes the old one (pending strokes are committed).

        Raises:
            InvalidArgumentError: :attr:`Tool.CUSTOM`.
        """
        out = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_current_tool(byref(out), self._handle), changes=False)
        return Tool(out.value)

    @tool.setter
    def tool(self, tool: Union[Tool, str]) -> None:
        if isinstance(tool, str):
            name = c_string(tool, "tool")
            self._call(lambda: _raw.lib.quire_tool_manager_set_custom_tool(self._handle, name))
        else:
            self._call(lambda: _raw.lib.quire_tool_manager_set_tool(self._handle, int(tool)))

    def register(self, tool: CustomTool) -> None:
        """Registers a :class:`CustomTool` under ``tool.name`` (replacing one of that name).

        Raises:
            InvalidArgumentError: an empty name.
        """
        name = c_string(tool.name, "tool.name")
        keep: List[Any] = []

        def handle(out_handled: Any, out_next: Any, out_next_name: Any, manager: Any, kind: int, page_index: int,
                   x: float, y: float, payload: Any) -> int:
            try:
                if tool.handle(PointerEvent(PointerKind(kind), page_index, (x, y))):
                    out_handled[0] = 1
                    return 0
                out_handled[0] = 0
                nxt = tool.next_tool()
                if isinstance(nxt, str):
                    raw = c_string(nxt, "next_tool()")
                    keep[:] = [raw]  # alive until the library copied it (before the next call)
                    out_next[0] = _raw.QUIRE_TOOL_CUSTOM
                    out_next_name[0] = raw
                else:
                    out_next[0] = int(nxt)
                return 0
            except BaseException as error:  # noqa: B902 - becomes QUIRE_EUSER
                self._failures.append(error)
                return 1

        def finish(manager: Any, payload: Any) -> int:
            try:
                tool.finish()
                return 0
            except BaseException as error:  # noqa: B902 - becomes QUIRE_EUSER
                self._failures.append(error)
                return 1

        c_tool = _raw.custom_tool_init()
        c_tool.name = name
        callbacks = (_raw.quire_custom_tool_handle_fn(handle), _raw.quire_custom_tool_finish_fn(finish))
        c_tool.handle, c_tool.finish = callbacks
        self._call(lambda: _raw.lib.quire_tool_manager_register_tool(self._handle, byref(c_tool)), changes=False)
        self._custom[tool.name] = (tool, callbacks, keep)

    def send(self, kind: PointerKind, page_index: int, point: PointLike, shift: bool = False) -> bool:
        """Sends one pointer event at ``point`` (user space) of page ``page_index``; returns
        whether a tool handled it. With ``shift`` (the Shift key held): a tap toggles an
        annotation in the selection, a drag on empty space draws a rubber band.

        Raises:
            InvalidArgumentError: a non-finite point.
            IndexOutOfRangeError: no such page (also one beyond 32 bits, which is never
                wrapped to another page).
        """
        handled = c_int32()
        x, y = _point(point)
        page = int32_index(page_index, "page index")
        if not shift:
            self._call(lambda: _raw.lib.quire_tool_manager_send(byref(handled), self._handle, int(kind), page, x, y))
            return bool(handled.value)
        event = _raw.pointer_event_init()
        event.kind, event.page_index, event.x, event.y = int(kind), page, x, y
        event.modifiers = _raw.QUIRE_MODIFIER_SHIFT
        self._call(lambda: _raw.lib.quire_tool_manager_send_event(byref(handled), self._handle, byref(event)))
        return bool(handled.value)

    def tap(self, page_index: int, point: PointLike, shift: bool = False) -> bool:
        """Sends a tap (with ``shift``: toggles the annotation there in the selection)."""
        return self.send(PointerKind.TAP, page_index, point, shift)

    def double_tap(self, page_index: int, point: PointLike) -> bool:
        """Sends a double tap."""
        return self.send(PointerKind.DOUBLE_TAP, page_index, point)

    def drag(self, page_index: int, start: PointLike, end: PointLike, *through: PointLike, shift: bool = False) -> None:
        """Sends a drag: begin at ``start``, a move to each of ``through``, end at ``end``
        (with ``shift`` from empty space: a rubber band that adds what it meets)."""
        self.send(PointerKind.DRAG_BEGIN, page_index, start, shift)
        for p in through:
            self.send(PointerKind.DRAG_MOVE, page_index, p, shift)
        self.send(PointerKind.DRAG_END, page_index, end, shift)

    # -- style ---------------------------------------------------------------------------

    @property
    def style(self) -> ToolStyle:
        """How new annotations look; setting it replaces every field (:meth:`set_style`
        changes some)."""
        out = _raw.tool_style_init()
        self._call(lambda: _raw.lib.quire_tool_manager_style(byref(out), self._handle), changes=False)
        return ToolStyle(
            color=(out.red, out.green, out.blue),
            border_width=out.border_width,
            opacity=out.opacity,
            font_size=out.font_size,
            tolerance=out.tolerance,
            author=out.author.decode("utf-8", "replace") if out.author is not None else None,
            free_text=out.free_text.decode("utf-8", "replace") if out.free_text is not None else "Text",
        )

    @style.setter
    def style(self, value: ToolStyle) -> None:
        style = _raw.tool_style_init()
        rgb = [float(c) for c in value.color]
        if len(rgb) != 3:
            raise InvalidArgumentError(_raw.QUIRE_EINVAL, "color is 3 numbers (red, green, blue)")
        style.red, style.green, style.blue = rgb
        style.border_width, style.opacity = float(value.border_width), float(value.opacity)
        style.font_size, style.tolerance = float(value.font_size), float(value.tolerance)
        keep = [c_string(value.author, "author") if value.author is not None else None,
                c_string(value.free_text, "free_text") if value.free_text is not None else None]
        style.author, style.free_text = keep[0], keep[1]
        self._call(lambda: _raw.lib.quire_tool_manager_set_style(self._handle, byref(style)))

    def set_style(self, color: Sequence[float] = _UNSET, border_width: float = _UNSET, opacity: float = _UNSET,
                  font_size: float = _UNSET, tolerance: float = _UNSET, author: Optional[str] = _UNSET,
                  free_text: Optional[str] = _UNSET) -> None:
        """Changes how new annotations look: the fields given, the others kept
        (``author=None`` removes the author; ``free_text=None`` is "Text").

        Raises:
            InvalidArgumentError: a value out of its range (nothing changes then).
        """
        changes: Dict[str, Any] = {}
        for name, value in (("color", color), ("border_width", border_width), ("opacity", opacity),
                            ("font_size", font_size), ("tolerance", tolerance), ("author", author),
                            ("free_text", free_text)):
            if value is not _UNSET:
                changes[name] = value
        if "color" in changes:
            changes["color"] = tuple(float(c) for c in changes["color"])
        if "free_text" in changes and changes["free_text"] is None:
            changes["free_text"] = "Text"
        self.style = dataclasses.replace(self.style, **changes)

    # -- what a viewer draws ---------------------------------------------------------------

    @property
    def preview(self) -> Optional[ToolPreview]:
        """What the current tool is drawing and has not made yet (a drag's rectangle or
        segment, ink strokes, polygon vertices, a move, a resize, a rubber band), or
        ``None``: draw it after each event."""
        out = _raw.tool_preview_init()
        self._call(lambda: _raw.lib.quire_tool_manager_preview(byref(out), self._handle), changes=False)
        if out.kind == _raw.QUIRE_PREVIEW_NONE:
            return None
        paths = []
        for k in range(out.path_count):
            paths.append(tuple(self._numbers(_raw.lib.quire_tool_manager_preview_path, k)))
        r = out.rect
        return ToolPreview(PreviewKind(out.kind), Tool(out.tool), out.page_index, Rect(r.left, r.bottom, r.right, r.top),
                           (out.dx, out.dy), tuple(paths), bool(out.closed))

    def _numbers(self, function: Callable[..., int], *args: Any) -> List[float]:
        result: List[float] = []

        def read() -> int:
            result[:] = query_doubles(function, self._handle, *args)
            return _raw.QUIRE_OK

        self._call(read, changes=False)
        return result

    @property
    def selection_handles(self) -> List[Tuple[float, float]]:
        """The selection's eight resize handles in user space (corners: left-bottom,
        right-bottom, left-top, right-top; then the middles of the left, right, bottom and
        top edges), or none unless one annotation is selected, drawn and movable."""
        xy = self._numbers(_raw.lib.quire_tool_manager_selection_handles)
        return [(xy[i], xy[i + 1]) for i in range(0, len(xy) - 1, 2)]

    # -- history ---------------------------------------------------------------------------

    def _history(self, which: int) -> List[str]:
        count = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_history_count(byref(count), self._handle, which), changes=False)
        out: List[str] = []

        def read() -> int:
            for k in range(count.value):
                out.append(query_bytes(_raw.lib.quire_tool_manager_step_description, self._handle, which, k)
                           .decode("utf-8", "replace"))
            return _raw.QUIRE_OK

        self._call(read, changes=False)
        return out

    @property
    def can_undo(self) -> bool:
        """Whether :meth:`undo` has a step to undo."""
        count = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_history_count(byref(count), self._handle, _raw.QUIRE_HISTORY_UNDO),
                   changes=False)
        return count.value > 0

    @property
    def can_redo(self) -> bool:
        """Whether :meth:`redo` has a step to redo."""
        count = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_history_count(byref(count), self._handle, _raw.QUIRE_HISTORY_REDO),
                   changes=False)
        return count.value > 0

    @property
    def undo_steps(self) -> List[str]:
        """What each step undo would take does, the next one first ("Move Square",
        "Delete 2 annotations", "Reply to Note"): an Edit menu's "Undo ..." items."""
        return self._history(_raw.QUIRE_HISTORY_UNDO)

    @property
    def redo_steps(self) -> List[str]:
        """What each step redo would take does, the next one first."""
        return self._history(_raw.QUIRE_HISTORY_REDO)

    # -- selection and editing -----------------------------------------------------------

    @property
    def selection(self) -> Optional[int]:
        """The selected annotation's object number (the first, with several selected), or
        ``None``."""
        out = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_selection(byref(out), self._handle), changes=False)
        return out.value or None

    @property
    def selected(self) -> List[int]:
        """The object numbers of every selected annotation, in the order they were selected."""
        count = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_selection_count(byref(count), self._handle), changes=False)
        out: List[int] = []
        number = c_int32()
        for k in range(count.value):
            self._call(lambda: _raw.lib.quire_tool_manager_selection_at(byref(number), self._handle, k), changes=False)
            out.append(number.value)
        return out

    def select(self, annotation: Union[int, Iterable[int], None], mode: SelectionMode = SelectionMode.REPLACE) -> None:
        """Changes the selection by an annotation's object number (or several) as ``mode``
        says; ``None`` with :attr:`SelectionMode.REPLACE` clears it.

        Raises:
            NotFoundError: a number that is no annotation of the document.
        """
        if annotation is None:
            numbers: List[int] = [0]
        elif isinstance(annotation, int):
            numbers = [annotation]
        else:
            numbers = [int(n) for n in annotation]
            if not numbers and mode == SelectionMode.REPLACE:
                numbers = [0]
        for k, number in enumerate(numbers):
            number = int32_index(number, "object number")
            m = SelectionMode.ADD if mode == SelectionMode.REPLACE and k > 0 else mode
            self._call(lambda: _raw.lib.quire_tool_manager_select(self._handle, number, int(m)), changes=False)

    def select_rect(self, page_index: int, rect: Sequence[float], mode: SelectionMode = SelectionMode.REPLACE) -> int:
        """Changes the selection, as ``mode`` says, by the annotations of page
        ``page_index`` whose rectangle meets ``rect`` = (left, bottom, right, top) in user
        space (a rubber band: drawn annotations, not links or widgets); returns how many.

        Raises:
            InvalidArgumentError: a rectangle that is not 4 finite numbers.
            IndexOutOfRangeError: no such page.
        """
        values = [float(v) for v in rect]
        if len(values) != 4:
            raise InvalidArgumentError(_raw.QUIRE_EINVAL, "a rectangle is 4 numbers (left, bottom, right, top)")
        where = _raw.quire_rect(*values)
        page = int32_index(page_index, "page index")
        count = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_select_rect(byref(count), self._handle, page, byref(where), int(mode)),
                   changes=False)
        return count.value

    def delete_selection(self) -> None:
        """Deletes the selected annotations (one undo step).

        Raises:
            StateError: nothing is selected, or one of them is locked (/F 128: ISO 32000-2
                12.5.3 forbids deleting it; nothing is deleted then).
        """
        self._call(lambda: _raw.lib.quire_tool_manager_delete_selection(self._handle))

    def set_measurement(self, scale: Optional[Sequence[Any]]) -> None:
        """Sets the scale of the measurement tools (:attr:`Tool.DISTANCE`, ``PERIMETER``,
        ``AREA``) for the annotations they make from now on: a :class:`quire.Measurement`
        (or a tuple of its fields); ``None`` goes back to 1 in = 1 in with 2 decimals.

        Raises:
            InvalidArgumentError: a scale :attr:`quire.Annotation.measurement` refuses.
        """
        if scale is None:
            self._call(lambda: _raw.lib.quire_tool_manager_set_measurement(self._handle, 0.0, None, 0.0, None, 2),
                       changes=False)
            return
        m = Measurement(*scale)
        from_unit, to_unit = c_string(m.from_unit, "from_unit"), c_string(m.to_unit, "to_unit")
        self._call(lambda: _raw.lib.quire_tool_manager_set_measurement(self._handle, float(m.from_value), from_unit,
                                                                       float(m.to_value), to_unit, int(m.precision)),
                   changes=False)

    def set_stamp_image(self, data: Union[bytes, bytearray, memoryview, "os.PathLike[str]", str, None],
                        content_type: Optional[str] = None) -> None:
        """Gives :attr:`Tool.IMAGE_STAMP` the image it places from now on: PNG or JPEG
        bytes, or the path of such a file (``content_type`` told from the bytes by
        default), as :meth:`quire.Annotation.set_image` takes them. A tap places it centred
        there, a pixel a point (the longer side at most 200 points); a drag fits it into
        the dragged rectangle, keeping its proportions. ``None`` removes it (a tap with the
        tool then raises :class:`quire.StateError`).

        Raises:
            FormatError: not a PNG or JPEG that Quire reads.
            LimitError: past 16 MiB or 40 million pixels.
        """
        if data is None:
            self._call(lambda: _raw.lib.quire_tool_manager_set_stamp_image(self._handle, None, 0, None), changes=False)
            return
        raw, content_type = image_argument(data, content_type)
        kind = c_string(content_type, "content_type")
        self._call(lambda: _raw.lib.quire_tool_manager_set_stamp_image(self._handle, raw, len(raw), kind), changes=False)

    def set_attachment(self, data: Union[bytes, bytearray, memoryview, "os.PathLike[str]", str, None],
                       file_name: Optional[str] = None, content_type: Optional[str] = None,
                       description: Optional[str] = None) -> None:
        """Gives :attr:`Tool.FILE_ATTACHMENT` the file it attaches from now on: bytes (with
        ``file_name``) or the path of a file (whose name is the default ``file_name``), as
        :meth:`quire.Annotation.set_file` takes them. A tap places a FileAttachment (its
        PushPin icon, 16 by 20 points, with its top-left there) that embeds the file.
        ``None`` removes it (a tap with the tool then raises :class:`quire.StateError`).

        Raises:
            InvalidArgumentError: a name with a path separator, a bad media type.
            LimitError: past 64 MiB.
        """
        if data is None:
            self._call(lambda: _raw.lib.quire_tool_manager_set_attachment(self._handle, None, 0, None, None, None),
                       changes=False)
            return
        raw, file_name = file_argument(data, file_name, "set_attachment")
        name = c_string(file_name, "the file name")
        kind = optional_c_string(content_type, "the content type")
        about = optional_c_string(description, "the description")
        self._call(lambda: _raw.lib.quire_tool_manager_set_attachment(self._handle, raw, len(raw), name, kind, about),
                   changes=False)

    def move_selection(self, order: Union[AnnotationOrder, str]) -> int:
        """Moves the selected annotations in their pages' drawing order
        (:class:`quire.AnnotationOrder`, or its name in lowercase such as ``'forward'``) as
        one undo step ("Bring Forward Square"). Returns how many moved.

        Raises:
            StateError: nothing is selected.
            NotFoundError: the selected annotations are gone.
        """
        if isinstance(order, str):
            order = AnnotationOrder[order.upper()]
        moved = c_int32(0)
        which = AnnotationOrder(order)
        self._call(lambda: _raw.lib.quire_tool_manager_move_selection(byref(moved), self._handle, which))
        return moved.value

    def set_selection_contents(self, text: Optional[str]) -> None:
        """Sets the selected annotation's /Contents (``None`` removes it; one undo step).

        Raises:
            StateError: nothing or several selected, or its contents are locked (/F 512).
        """
        raw = c_string(text, "text") if text is not None else None
        self._call(lambda: _raw.lib.quire_tool_manager_set_selection_contents(self._handle, raw))

    def set_field_value(self, value: str) -> None:
        """Sets the value of the form field whose widget is selected (tap it with
        :attr:`Tool.FORM_FILL` first), with the forms model's rules: text, "Off" or an
        on-state, a choice (list boxes: one per line). One undo step.

        Raises:
            StateError: nothing selected, or a read-only field.
            NotFoundError: the selection is no field's widget.
            InvalidArgumentError: a value the field does not take.
        """
        raw = c_string(value, "value")
        self._call(lambda: _raw.lib.quire_tool_manager_set_field_value(self._handle, raw))

    def reply(self, text: str) -> int:
        """Adds a text reply with ``text`` to the selected annotation, by the style's author
        (one undo step); returns the reply's object number.

        Raises:
            StateError: nothing or several selected.
            DisabledError: replies are off for the document.
        """
        raw = c_string(text, "text")
        out = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_reply(byref(out), self._handle, raw))
        return out.value

    def set_state(self, state: str, model: str = "Review") -> int:
        """Sets a review state on the selected annotation: a state reply by the style's
        author ("Review": Accepted, Rejected, Cancelled, Completed, None; "Marked": Marked,
        Unmarked), one undo step; returns its object number.

        Raises:
            StateError: nothing or several selected.
            InvalidArgumentError: an unknown model, or a state of another model.
        """
        raw_state, raw_model = c_string(state, "state"), c_string(model, "model")
        out = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_set_state(byref(out), self._handle, raw_model, raw_state))
        return out.value

    def commit(self) -> None:
        """Commits what the current tool holds (ink strokes, polygon vertices)."""
        self._call(lambda: _raw.lib.quire_tool_manager_commit(self._handle))

    def undo(self) -> bool:
        """Undoes the last step (one gesture) exactly: every object it changed gets back
        its state before it (an undone deletion is the same object, at its place in the
        stacking order; no date is stamped again). False when there was none.

        Raises:
            StateError: an annotation the step changed was changed outside the manager
                since (a script, a collaborator's synced change, another manager): the step
                is refused and dropped, and nothing changes.
        """
        done = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_undo(byref(done), self._handle))
        return bool(done.value)

    def redo(self) -> bool:
        """Redoes the last undone step exactly; False when there was none.

        Raises:
            StateError: refused as :meth:`undo` is.
        """
        done = c_int32()
        self._call(lambda: _raw.lib.quire_tool_manager_redo(byref(done), self._handle))
        return bool(done.value)
