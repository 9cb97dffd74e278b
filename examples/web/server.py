#!/usr/bin/env python3
"""A review page in the browser, on Quire's tool manager (examples/web/README.md).

    PYTHONPATH=bindings/python python3 examples/web/server.py examples/sample.pdf

then open the address it prints. The server holds one document and a ``quire.ToolManager``
per reviewer (the name the page sends as ``user``: the author of what they add, with their
own colour, width and undo history; one reviewer's undo never overwrites another's work).
The page shows a page image rendered here with pypdfium2, sends its pointer events in the
image's device pixels, and this server converts them to PDF user space with
``quire.device_to_page`` (the page's crop box, /Rotate and the image's size: the same
conversion PDFium's ``FPDF_DeviceToPage`` makes) and feeds them to the manager, which turns
them into annotations. Every answer is the new state: the annotations of the page, the
selection, the current tool, and the revision of the page image to load.

Only Python's standard library (http.server with a thread per request), the ``quire``
package, and pypdfium2 with Pillow for the page images. One lock serialises everything
that touches the document: a ``quire.Document`` is used by one thread at a time.

The input file is never written: "Save" writes the reviewed document to ``--output``.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import math
import mimetypes
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlparse

import pypdfium2 as pdfium

import quire

STATIC = Path(__file__).resolve().parent / "static"
LOG = logging.getLogger("quire-review")

# The tools the page offers, by the names the page uses.
TOOLS: Dict[str, quire.Tool] = {
    "pan": quire.Tool.PAN,
    "square": quire.Tool.SQUARE,
    "circle": quire.Tool.CIRCLE,
    "arrow": quire.Tool.ARROW,
    "ink": quire.Tool.INK,
    "note": quire.Tool.STICKY_NOTE,
    "free_text": quire.Tool.FREE_TEXT,
    "highlight": quire.Tool.HIGHLIGHT,
    "polygon": quire.Tool.POLYGON,
}
# What the page shows as the current tool for tools the loop switches to by itself.
TOOL_NAMES: Dict[quire.Tool, str] = {tool: name for name, tool in TOOLS.items()}
TOOL_NAMES[quire.Tool.ANNOT_EDIT] = "pan"  # Pan handed a tap on an annotation to AnnotEdit
TOOL_NAMES[quire.Tool.LINK] = "pan"
TOOL_NAMES[quire.Tool.FORM_FILL] = "pan"

POINTERS: Dict[str, quire.PointerKind] = {
    "tap": quire.PointerKind.TAP,
    "double_tap": quire.PointerKind.DOUBLE_TAP,
    "long_press": quire.PointerKind.LONG_PRESS,
    "drag_begin": quire.PointerKind.DRAG_BEGIN,
    "drag_move": quire.PointerKind.DRAG_MOVE,
    "drag_end": quire.PointerKind.DRAG_END,
    "cancel": quire.PointerKind.CANCEL,
}

MAX_BODY = 64 * 1024  # a request body is one small JSON object
MAX_SCALE = 4.0


class RequestError(Exception):
    """A mistake of the caller: answered with ``status`` and a JSON error."""

    def __init__(self, status: HTTPStatus, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _status_of(error: quire.QuireError) -> HTTPStatus:
    if isinstance(error, (quire.InvalidArgumentError, quire.IndexOutOfRangeError)):
        return HTTPStatus.BAD_REQUEST
    if isinstance(error, quire.NotFoundError):
        return HTTPStatus.NOT_FOUND
    if isinstance(error, quire.StateError):
        return HTTPStatus.CONFLICT
    return HTTPStatus.UNPROCESSABLE_ENTITY


DEFAULT_USER = "Reviewer"
MAX_USERS = 64  # reviewers (each a tool manager of their own) one server keeps
HIGHLIGHT = (1.0, 0.92, 0.0)  # highlights are yellow, drawn with a multiply blend
STATES = ("Accepted", "Rejected", "Cancelled", "Completed", "None")
ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)


def _hex(rgb: Tuple[float, float, float]) -> str:
    return "#%02x%02x%02x" % tuple(int(round(max(0.0, min(1.0, c)) * 255)) for c in rgb)


def _rgb(value: Any, what: str) -> Tuple[float, float, float]:
    """A colour from the page: "#rrggbb", or three numbers in 0..1."""
    if isinstance(value, str) and len(value) == 7 and value.startswith("#"):
        try:
            return tuple(int(value[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]
        except ValueError:
            pass
    if (isinstance(value, list) and len(value) == 3
            and all(isinstance(c, (int, float)) and not isinstance(c, bool) and 0 <= c <= 1 for c in value)):
        return float(value[0]), float(value[1]), float(value[2])
    raise RequestError(HTTPStatus.BAD_REQUEST, "bad_color", "%s must be \"#rrggbb\" or three numbers in 0..1" % what)


class Reviewer:
    """One person reviewing: a tool manager of their own (their own undo history, which
    refuses to undo over another reviewer's changes), their author name, colours and width."""

    def __init__(self, review: "Review", name: str) -> None:
        self.name = name
        self.color: Tuple[float, float, float] = (1.0, 0.0, 0.0)
        self.highlight: Tuple[float, float, float] = HIGHLIGHT
        self.tools = quire.ToolManager(review.document, on_event=review._on_event)
        self.tools.set_style(author=name, color=self.color)

    def apply_colors(self) -> None:
        """The style's colour for the current tool: the highlight colour for highlights."""
        wanted = self.highlight if self.tools.tool == quire.Tool.HIGHLIGHT else self.color
        if tuple(self.tools.style.color) != tuple(wanted):
            self.tools.set_style(color=wanted)


class Review:
    """The document under review, its reviewers' tool managers and the page images:
    everything behind one lock."""

    def __init__(self, source: Path, output: Path, scale: float) -> None:
        self.source, self.output, self.scale = source, output, scale
        self.lock = threading.Lock()
        self.document = quire.Document(str(source))
        self.revision = 0  # bumped by every change of the document
        self.saved_revision = 0  # the revision the last Save wrote
        self.events: List[str] = []  # the managers' events during the current request
        self.reviewers: Dict[str, Reviewer] = {}
        self._images: Dict[Tuple[int, float], Tuple[int, bytes, int, int]] = {}  # (page, zoom) -> (revision, png, w, h)

    def close(self) -> None:
        for reviewer in self.reviewers.values():
            reviewer.tools.close()
        self.document.close()

    def reviewer(self, body: Dict[str, Any]) -> Reviewer:
        """The reviewer a request names (``user``: their author name)."""
        name = body.get("user", DEFAULT_USER)
        if not isinstance(name, str) or not 0 < len(name.strip()) <= 64 or "\0" in name:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_user", "user must be a name of 1 to 64 characters")
        name = name.strip()
        reviewer = self.reviewers.get(name)
        if reviewer is None:
            if len(self.reviewers) >= MAX_USERS:
                raise RequestError(HTTPStatus.CONFLICT, "too_many_users", "this server keeps %d reviewers" % MAX_USERS)
            reviewer = self.reviewers[name] = Reviewer(self, name)
        return reviewer

    def _on_event(self, event: quire.ToolEvent) -> None:
        text = event.kind.name.lower()
        if event.object_number is not None:
            text += " %d" % event.object_number
        if event.to_tool is not None and event.from_tool is not None:
            text += " %s -> %s" % (event.from_tool.name.lower(), event.to_tool.name.lower())
        if event.uri is not None:
            text += " " + event.uri
        self.events.append(text)
        LOG.info("tool event: %s", text)
        if event.kind in (quire.ToolEventKind.ANNOTATION_ADDED, quire.ToolEventKind.ANNOTATION_MODIFIED,
                          quire.ToolEventKind.ANNOTATION_REMOVED, quire.ToolEventKind.FIELD_CHANGED):
            self.revision += 1

    # -- the page image ------------------------------------------------------------------

    def _check_page(self, page: Any) -> int:
        if not isinstance(page, int) or isinstance(page, bool) or not 0 <= page < self.document.page_count:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_page",
                               "page must be an index from 0 to %d, not %r" % (self.document.page_count - 1, page))
        return page

    @staticmethod
    def _check_zoom(zoom: Any) -> float:
        if zoom is None:
            return 1.0
        if not isinstance(zoom, (int, float)) or isinstance(zoom, bool) or zoom not in ZOOMS:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_zoom", "zoom must be one of %s" % ", ".join(map(str, ZOOMS)))
        return float(zoom)

    def image(self, page: int, zoom: float = 1.0) -> Tuple[bytes, int, int]:
        """The PNG of ``page`` at ``zoom`` as the document is now, and its size in pixels:
        rendered by PDFium from the document's current bytes (Quire draws nothing), kept
        until the next change."""
        cached = self._images.get((page, zoom))
        if cached is not None and cached[0] == self.revision:
            return cached[1], cached[2], cached[3]
        data = self.document.save_to_bytes()
        pdf = pdfium.PdfDocument(data)
        try:
            pdf.init_forms()  # form fields drawn by PDFium's form filler, with their values
            bitmap = pdf[page].render(scale=self.scale * zoom, draw_annots=True, may_draw_forms=True)
            picture = bitmap.to_pil()
            out = io.BytesIO()
            picture.save(out, format="PNG")
            png, width, height = out.getvalue(), picture.width, picture.height
        finally:
            pdf.close()
        self._images[(page, zoom)] = (self.revision, png, width, height)
        return png, width, height

    def view(self, page: int, zoom: float = 1.0) -> Tuple[int, int, int, int, int]:
        """The device rectangle the page image fills, for ``quire.device_to_page``."""
        _, width, height = self.image(page, zoom)
        return 0, 0, width, height, 0

    # -- state -------------------------------------------------------------------------------

    def _device_rect(self, page: int, view: Any, r: Any) -> List[float]:
        x0, y0 = quire.page_to_device(self.document, page, view, (r[0], r[3]))
        x1, y1 = quire.page_to_device(self.document, page, view, (r[2], r[1]))
        return [min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)]

    def _thread(self, number: int) -> Optional[Dict[str, Any]]:
        """The replies and review states of annotation ``number``."""
        try:
            comments = self.document.comments(number)[1:]
            current, history = self.document.review_summary(number)
        except quire.QuireError:
            return None

        def entry(a: quire.Annotation) -> Dict[str, Any]:
            created = a.created_datetime
            return {"object": a.id, "author": a.author, "contents": a.contents, "state": a.state,
                    "created": created.isoformat() if created is not None else None}

        return {"object": number, "replies": [entry(a) for a in comments],
                "states": [entry(a) for a in current], "history": [entry(a) for a in history]}

    def state(self, page: int, reviewer: Reviewer, zoom: float = 1.0) -> Dict[str, Any]:
        self._check_page(page)
        view = self.view(page, zoom)
        tools = reviewer.tools
        selected = tools.selected
        selection = selected[0] if selected else None
        # Form fields by their widgets' rects on this page (a widget names no field number).
        fields: Dict[Tuple[float, float, float, float], Dict[str, Any]] = {}
        for field in self.document.fields:
            value = field.value
            for widget in field.widgets:
                if widget.page_index == page:
                    r = widget.rect
                    fields[(r.left, r.bottom, r.right, r.top)] = {
                        "name": field.name,
                        "type": field.type.name.lower(),
                        "value": "\n".join(value) if isinstance(value, list) else value,
                        "options": [o.export_value for o in field.options],
                        "read_only": field.is_read_only,
                    }
        listing = self.document.pages[page].annotations
        replies: Dict[int, int] = {}
        for a in listing:
            if a.in_reply_to is not None and not a.is_state_reply:
                replies[a.in_reply_to] = replies.get(a.in_reply_to, 0) + 1
        annotations = []
        for a in listing:
            # Not drawn on the page, so not listed: popups, replies, hidden (2) and no-view (32).
            if a.subtype == "Popup" or a.is_reply or a.flags & (2 | 32):
                continue
            r = a.rect
            color = tuple(a.color)
            annotations.append({
                "object": a.id,
                "subtype": a.subtype,
                "rect": [r.left, r.bottom, r.right, r.top],
                "device": self._device_rect(page, view, (r.left, r.bottom, r.right, r.top)),
                "contents": a.contents,
                "author": a.author,
                "color": _hex(color) if len(color) == 3 else None,
                "replies": replies.get(a.id, 0) if a.id is not None else 0,
                "selected": a.id is not None and a.id in selected,
                "field": fields.get((r.left, r.bottom, r.right, r.top)) if a.subtype == "Widget" else None,
            })
        preview = None
        p = tools.preview
        if p is not None and p.page_index == page:
            def device(xy: Any) -> List[List[float]]:
                return [list(quire.page_to_device(self.document, page, view, (xy[i], xy[i + 1])))
                        for i in range(0, len(xy) - 1, 2)]
            preview = {"kind": p.kind.name.lower(), "tool": p.tool.name.lower(),
                       "device": self._device_rect(page, view, p.rect),
                       "paths": [device(path) for path in p.paths], "closed": p.closed}
        handles = [quire.page_to_device(self.document, page, view, h) for h in tools.selection_handles]
        try:
            if selection is not None and self.document.annotation(selection).page_index != page:
                handles = []
        except quire.NotFoundError:  # another reviewer deleted it
            handles = []
        tool = tools.tool
        undo_steps, redo_steps = tools.undo_steps, tools.redo_steps
        style = tools.style
        return {
            "document": self.source.name,
            "output": str(self.output),
            "user": reviewer.name,
            "page": page,
            "page_count": self.document.page_count,
            "zoom": zoom,
            "zooms": list(ZOOMS),
            "tool": TOOL_NAMES.get(tool, tool.name.lower()),
            "manager_tool": tool.name.lower(),
            "selection": selection,
            "selected": selected,
            "revision": self.revision,
            "image": {"url": "/api/page/%d.png?zoom=%s&revision=%d" % (page, zoom, self.revision),
                      "width": view[2], "height": view[3]},
            "annotations": annotations,
            "preview": preview,
            "handles": [list(h) for h in handles],
            "thread": self._thread(selection) if selection is not None else None,
            "states": list(STATES),
            "style": {"color": _hex(reviewer.color), "highlight": _hex(reviewer.highlight),
                      "border_width": style.border_width, "author": style.author},
            "undo": undo_steps[0] if undo_steps else None,
            "redo": redo_steps[0] if redo_steps else None,
            "events": list(self.events),
            "unsaved": self.revision != self.saved_revision,
        }

    # -- actions ---------------------------------------------------------------------------

    def pointer(self, body: Dict[str, Any], reviewer: Reviewer, zoom: float) -> int:
        page = self._check_page(body.get("page"))
        kind = POINTERS.get(body.get("kind"))  # type: ignore[arg-type]
        if kind is None:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_kind",
                               "kind must be one of %s, not %r" % (", ".join(POINTERS), body.get("kind")))
        x, y = body.get("x"), body.get("y")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y)):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_point", "x and y must be numbers (device pixels)")
        if not all(math.isfinite(v) for v in (x, y)):  # type: ignore[arg-type]
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_point", "x and y must be finite")
        shift = body.get("shift", False)
        if not isinstance(shift, bool):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_shift", "shift must be true or false")
        # A drag may leave the image (the page captures the pointer): it stops at the edge,
        # so that what it makes stays on the page.
        view = self.view(page, zoom)
        x = min(max(float(x), 0.0), float(view[2]))  # type: ignore[arg-type]
        y = min(max(float(y), 0.0), float(view[3]))  # type: ignore[arg-type]
        # Device pixels of the image the page shows to user space: Quire's conversion.
        point = quire.device_to_page(self.document, page, view, (x, y))
        handled = reviewer.tools.send(kind, page, point, shift=shift)
        LOG.info("%s: pointer %s%s page %d device (%.1f, %.1f) -> user space (%.2f, %.2f): %s", reviewer.name,
                 kind.name.lower(), " shift" if shift else "", page, x, y, point[0], point[1],
                 "handled" if handled else "dropped")
        return page

    def set_tool(self, body: Dict[str, Any], reviewer: Reviewer) -> None:
        tool = TOOLS.get(body.get("tool"))  # type: ignore[arg-type]
        if tool is None:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_tool",
                               "tool must be one of %s, not %r" % (", ".join(TOOLS), body.get("tool")))
        reviewer.tools.tool = tool
        reviewer.apply_colors()

    def set_style(self, body: Dict[str, Any], reviewer: Reviewer) -> None:
        if "color" in body:
            reviewer.color = _rgb(body["color"], "color")
        if "highlight" in body:
            reviewer.highlight = _rgb(body["highlight"], "highlight")
        if "border_width" in body:
            width = body["border_width"]
            if not isinstance(width, (int, float)) or isinstance(width, bool) or not 0 <= width <= 50:
                raise RequestError(HTTPStatus.BAD_REQUEST, "bad_width", "border_width must be a number from 0 to 50")
            reviewer.tools.set_style(border_width=float(width))
        reviewer.apply_colors()

    def select(self, body: Dict[str, Any], reviewer: Reviewer) -> int:
        """Selects an annotation from the list (``shift``: toggles it); returns its page."""
        number = body.get("object")
        if number is None:
            reviewer.tools.select(None)
            return self._check_page(body.get("page", 0))
        if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_object", "object must be an annotation's object number")
        annotation = self.document.annotation(number)
        mode = quire.SelectionMode.TOGGLE if body.get("shift") is True else quire.SelectionMode.REPLACE
        reviewer.tools.select(number, mode)
        return annotation.page_index

    def set_contents(self, body: Dict[str, Any], reviewer: Reviewer) -> None:
        text = body.get("text")
        if text is not None and not isinstance(text, str):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_text", "text must be a string or null")
        reviewer.tools.set_selection_contents(text or None)

    def reply(self, body: Dict[str, Any], reviewer: Reviewer) -> None:
        text = body.get("text")
        if not isinstance(text, str) or not text.strip():
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_text", "a reply needs some text")
        reviewer.tools.reply(text)

    def set_review_state(self, body: Dict[str, Any], reviewer: Reviewer) -> None:
        state = body.get("state")
        if state not in STATES:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_state", "state must be one of %s" % ", ".join(STATES))
        reviewer.tools.set_state(state)

    def set_field_value(self, body: Dict[str, Any], reviewer: Reviewer) -> None:
        value = body.get("value")
        if not isinstance(value, str):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_value", "value must be a string")
        reviewer.tools.set_field_value(value)

    def undo(self, reviewer: Reviewer) -> None:
        if not reviewer.tools.undo():
            raise RequestError(HTTPStatus.CONFLICT, "nothing_to_undo", "there is nothing to undo")
        self.revision += 1

    def redo(self, reviewer: Reviewer) -> None:
        if not reviewer.tools.redo():
            raise RequestError(HTTPStatus.CONFLICT, "nothing_to_redo", "there is nothing to redo")
        self.revision += 1

    def save(self) -> None:
        for reviewer in self.reviewers.values():
            reviewer.tools.commit()  # pending ink strokes
        self.document.save(str(self.output))
        self.saved_revision = self.revision
        LOG.info("saved %s", self.output)


class Handler(BaseHTTPRequestHandler):
    """The routes: the page and its files, the state, the page image, the actions."""

    server_version = "quire-review/1"
    review: Review  # set on the class by main()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        LOG.debug("%s " + format, self.address_string(), *args)

    # -- answers ----------------------------------------------------------------------------

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: HTTPStatus, value: Any) -> None:
        self._send(status, json.dumps(value).encode(), "application/json")

    def _error(self, status: HTTPStatus, code: str, message: str) -> None:
        log = LOG.error if status >= 500 else LOG.warning
        log("%s %s: %d %s: %s", self.command, self.path, status, code, message)
        self._json(status, {"error": {"code": code, "message": message}})

    def _body(self) -> Dict[str, Any]:
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_length", "Content-Length is not a number")
        if length < 0 or length > MAX_BODY:
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "too_large",
                               "a request body is at most %d bytes" % MAX_BODY)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            value = json.loads(raw)
        except ValueError as error:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_json", "the body is not JSON: %s" % error)
        if not isinstance(value, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_json", "the body must be a JSON object")
        return value

    def _handle(self, route: Any) -> None:
        started = time.monotonic()
        review = self.review
        try:
            with review.lock:
                review.events = []
                route()
        except RequestError as error:
            self._error(error.status, error.code, error.message)
        except quire.QuireError as error:
            self._error(_status_of(error), type(error).__name__, str(error))
        except Exception as error:  # the example's own bug: logged with its traceback
            LOG.exception("%s %s failed", self.command, self.path)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal", "%s: %s" % (type(error).__name__, error))
        finally:
            LOG.info("%s %s (%.1f ms)", self.command, self.path, (time.monotonic() - started) * 1000)

    # -- routes -----------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urlparse(self.path)
        path = url.path
        if path == "/":
            path = "/static/index.html"
        if path.startswith("/static/"):
            self._static(path[len("/static/"):])
        elif path == "/api/state":
            query = parse_qs(url.query)

            def state() -> None:
                body = {"user": query.get("user", [DEFAULT_USER])[0], "zoom": self._zoom(query)}
                self._state(self._int(query.get("page", ["0"])[0]), body)

            self._handle(state)
        elif path.startswith("/api/page/") and path.endswith(".png"):
            query = parse_qs(url.query)
            self._handle(lambda: self._image(self._int(path[len("/api/page/"):-len(".png")]), self._zoom(query)))
        elif path == "/healthz":
            self._json(HTTPStatus.OK, {"ok": True})
        else:
            self._error(HTTPStatus.NOT_FOUND, "not_found", "no such page: %s" % url.path)

    do_HEAD = do_GET

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        review = self.review
        path = urlparse(self.path).path

        def act() -> None:
            body = self._body()
            reviewer = review.reviewer(body)
            zoom = review._check_zoom(body.get("zoom"))
            page = body.get("page", 0)
            if path == "/api/event":
                page = review.pointer(body, reviewer, zoom)
            elif path == "/api/tool":
                review.set_tool(body, reviewer)
            elif path == "/api/style":
                review.set_style(body, reviewer)
            elif path == "/api/select":
                page = review.select(body, reviewer)
            elif path == "/api/contents":
                review.set_contents(body, reviewer)
            elif path == "/api/reply":
                review.reply(body, reviewer)
            elif path == "/api/review-state":
                review.set_review_state(body, reviewer)
            elif path == "/api/field":
                review.set_field_value(body, reviewer)
            elif path == "/api/delete":
                reviewer.tools.delete_selection()
            elif path == "/api/undo":
                review.undo(reviewer)
            elif path == "/api/redo":
                review.redo(reviewer)
            elif path == "/api/save":
                review.save()
            else:
                raise RequestError(HTTPStatus.NOT_FOUND, "not_found", "no such action: %s" % path)
            self._state(page, body)

        self._handle(act)

    @staticmethod
    def _int(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_page", "%r is not a page index" % text)

    @staticmethod
    def _zoom(query: Dict[str, List[str]]) -> Optional[float]:
        if "zoom" not in query:
            return None
        try:
            return float(query["zoom"][0])
        except ValueError:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_zoom", "%r is not a zoom" % query["zoom"][0])

    def _state(self, page: Any, body: Dict[str, Any]) -> None:
        review = self.review
        answer = review.state(review._check_page(page), review.reviewer(body), review._check_zoom(body.get("zoom")))
        self._json(HTTPStatus.OK, answer)

    def _image(self, page: int, zoom: Optional[float]) -> None:
        png, _, _ = self.review.image(self.review._check_page(page), self.review._check_zoom(zoom))
        self._send(HTTPStatus.OK, png, "image/png")

    def _static(self, name: str) -> None:
        target = (STATIC / name).resolve()
        if STATIC not in target.parents or not target.is_file():
            self._error(HTTPStatus.NOT_FOUND, "not_found", "no such file: %s" % name)
            return
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind.endswith("javascript"):
            kind += "; charset=utf-8"
        self._send(HTTPStatus.OK, target.read_bytes(), kind)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Review a PDF in the browser with Quire's tool manager.")
    parser.add_argument("pdf", type=Path, help="the document to review (never written)")
    parser.add_argument("--output", type=Path, help="where Save writes (default: NAME-reviewed.pdf beside the input)")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="the port; 0 picks a free one (default 8000)")
    parser.add_argument("--scale", type=float, default=1.5, help="pixels per point of the page images (default 1.5)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request line of http.server too")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    if not 0 < args.scale <= MAX_SCALE:
        parser.error("--scale must be above 0 and at most %g" % MAX_SCALE)
    output = args.output or args.pdf.with_name(args.pdf.stem + "-reviewed.pdf")
    if output.resolve() == args.pdf.resolve():
        parser.error("--output must not be the input file")
    try:
        review = Review(args.pdf, output, args.scale)
    except quire.QuireError as error:
        print("quire-review: cannot open %s: %s" % (args.pdf, error), file=sys.stderr)
        return 1
    Handler.review = review
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    host, port = str(server.server_address[0]), int(server.server_address[1])
    # The test reads this line to learn the port.
    print("quire-review: serving %s on http://%s:%d/" % (args.pdf, host, port), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        review.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
