"""Text: a page's characters with their boxes and quads, words, lines, selection, search,
and text markup made from text (issue 18). The rules (fonts, reading order, what a word
is, how search folds case and hyphenation) live in the library; docs/text.md describes
them.

Quads are tuples of 8 numbers in PDF user space, in the order /QuadPoints keeps them and
viewers read them: upper-left, upper-right, lower-left, lower-right (x then y).
"""

from __future__ import annotations

import gc
import struct
import threading
import weakref
from itertools import repeat
from ctypes import byref, c_int32, c_size_t, sizeof
from typing import TYPE_CHECKING, Any, List, NamedTuple, Optional, Sequence, Tuple, cast

from . import _raw
from ._errors import InternalError, check
from ._ffi import OwnedHandle, query_bytes, query_doubles, text
from ._geometry import Rect

if TYPE_CHECKING:  # pragma: no cover
    from ._document import Document

#: A quadrilateral: upper-left, upper-right, lower-left, lower-right, x then y.
Quad = Tuple[float, float, float, float, float, float, float, float]

__all__ = ["Quad", "TextChar", "TextMatch", "TextPage", "TextSpan"]


#: The layout of ``quire_text_char_info`` version 1 (no padding: 8 four-byte fields, then 17
#: doubles), for :meth:`TextPage.chars`' bulk unpacking; checked against the raw struct.
_CHAR_INFO = struct.Struct("=IIIIiiIId4d4d8d")
if _CHAR_INFO.size != sizeof(_raw.quire_text_char_info):  # pragma: no cover - a layout the binding does not know
    raise ImportError("quire_text_char_info is %d bytes, not the %d this binding reads" % (
        sizeof(_raw.quire_text_char_info), _CHAR_INFO.size))


def _quads(numbers: Sequence[float]) -> List[Quad]:
    return [tuple(numbers[i : i + 8]) for i in range(0, len(numbers) - 7, 8)]  # type: ignore[misc]


class TextChar(NamedTuple):
    """One character of a page's text."""

    text: str
    """Its Unicode text: one code point, or several for a ligature or an /ActualText span."""
    box: Rect
    """The box around its quad (user space): from the font's descent to its ascent, as
    wide as the glyph's advance."""
    quad: Optional[Quad]
    """Its quad (rotated with the text); ``None`` for a generated line break."""
    font_size: float
    """The font size in user space units."""
    font: str
    """The font's /BaseFont."""
    generated: bool
    """Whether Quire inserted it: a space between words, or ``"\\n"`` between lines."""
    line: int
    """The line it is on (0-based)."""
    glyph_box: Rect
    """The box of the glyph itself (user space): the bounding box of its outline in the
    embedded font program, or the AFM box of a non-embedded standard 14 font; what
    PDFium's ``FPDFText_GetCharBox`` reports. Equal to :attr:`box` when neither is known
    (see :attr:`has_glyph_box`); :attr:`box` stays the box for highlights and selection."""
    has_glyph_box: bool
    """Whether :attr:`glyph_box` comes from the glyph's outline or metrics (else it is
    :attr:`box`: Type 3 fonts, other non-embedded fonts, generated characters)."""


class TextSpan(NamedTuple):
    """A run of characters of one page: a word, a line, a selection."""

    page_index: int
    first: int
    """The index of its first character."""
    length: int
    """How many characters it has."""
    text: str
    quads: List[Quad]
    """One quad per line it spans: what a highlight of it needs."""


class TextMatch(NamedTuple):
    """A match of :meth:`Document.search`: a :class:`TextSpan` by its fields."""

    page_index: int
    first: int
    length: int
    text: str
    """The matched text as the page has it (its case, its line breaks)."""
    quads: List[Quad]


class TextPage(OwnedHandle):
    """The text of one page (``quire_text_page``), from :meth:`quire.Page.text_page`: a
    snapshot that stays valid when the document changes or closes. Characters are in
    content-stream order, with generated spaces and line breaks. Close it (or use it as a
    context manager) to release it at once; otherwise garbage collection does.
    """

    __slots__ = ("_handle", "_finalizer", "_lock", "_chars", "_page_index", "__weakref__")
    _closed_message = "the text page is closed"

    def __init__(self, handle: Any) -> None:
        if not handle:
            raise InternalError(_raw.QUIRE_EINTERNAL, "the library returned QUIRE_OK and a NULL text page")
        self._handle = handle
        self._finalizer = weakref.finalize(self, _raw.lib.quire_text_page_free, handle)
        self._lock = threading.RLock()
        self._chars: Optional[List[TextChar]] = None
        out = c_int32()
        check(_raw.lib.quire_text_page_index(byref(out), handle))
        self._page_index = out.value

    @classmethod
    def _load(cls, document: "Document", page_index: int) -> "TextPage":
        out = _raw.quire_text_page_p()
        with document._lock:
            check(_raw.lib.quire_page_text_load(byref(out), document._read_handle(), page_index))
        return cls(out)

    def _int(self, function: Any, *args: Any) -> int:
        out = c_int32()
        with self._lock:
            check(function(byref(out), self._live(), *args))
        return out.value

    def _pair(self, function: Any, *args: Any) -> Tuple[int, int]:
        a, b = c_int32(), c_int32()
        with self._lock:
            check(function(byref(a), byref(b), self._live(), *args))
        return a.value, b.value

    @property
    def page_index(self) -> int:
        """The index of the page the text belongs to."""
        return self._page_index

    @property
    def text(self) -> str:
        """The page's plain text."""
        with self._lock:
            return text(query_bytes(_raw.lib.quire_text_page_text, self._live()))

    def __len__(self) -> int:
        """The number of characters (generated ones included)."""
        return self._int(_raw.lib.quire_text_page_char_count)

    @property
    def chars(self) -> List[TextChar]:
        """Every character, in order (read once, then kept): one call to the library for
        the whole page (``quire_text_page_char_infos``), unpacked in bulk."""
        with self._lock:
            if self._chars is None:
                # The cyclic collector paused while the page's tuples are made: they hold
                # only numbers and strings, so they make no cycle to collect, yet their
                # count set off collections that walked every live object, several times
                # a page (4/5 of the time on a 15-page file, issue 41).
                paused = gc.isenabled()
                if paused:
                    gc.disable()
                try:
                    self._chars = self._read_chars()
                finally:
                    if paused:
                        gc.enable()
            return list(self._chars)

    def _read_chars(self) -> List[TextChar]:
        handle = self._live()
        version = _raw.QUIRE_TEXT_CHAR_INFO_VERSION
        length, count = c_size_t(), c_int32()
        check(_raw.lib.quire_text_page_char_infos(None, 0, byref(length), byref(count), handle, version))
        n = count.value
        if n == 0:
            return []
        block = (_raw.quire_text_char_info * n)()
        check(_raw.lib.quire_text_page_char_infos(block, sizeof(block), byref(length), byref(count), handle, version))
        if count.value != n or block[0].size != _CHAR_INFO.size or length.value != n * _CHAR_INFO.size:
            raise InternalError(_raw.QUIRE_EINTERNAL, "quire_text_page_char_infos wrote a block of another layout")
        fonts = [text(query_bytes(_raw.lib.quire_text_page_font_name, handle, i))
                 for i in range(self._int(_raw.lib.quire_text_page_font_count))]
        # Column by column, each a strided view of the block made into a list, and the
        # tuples zipped and made by map: loops in C, not a Python statement per field of
        # each of a page's thousands of characters.
        raw = memoryview(block).cast("B")
        words, signed, doubles = raw.cast("I"), raw.cast("i"), raw.cast("d")
        w, d = _CHAR_INFO.size // 4, _CHAR_INFO.size // 8
        code_points, flags = words[2::w].tolist(), words[3::w].tolist()
        font_indexes, lines = signed[4::w].tolist(), signed[5::w].tolist()
        new = tuple.__new__

        def column(k: int) -> List[float]:
            return cast(List[float], doubles[k::d].tolist())

        def rects(k: int) -> List[Rect]:
            return list(map(new, repeat(Rect, n), zip(column(k), column(k + 1), column(k + 2), column(k + 3))))

        utf8 = query_bytes(_raw.lib.quire_text_page_text, handle)
        page_text = text(utf8)
        if len(page_text) == n and 0 not in code_points:
            texts: List[str] = list(page_text)  # one scalar each: the page's text, split
        else:  # a ligature or an /ActualText span has several, an empty text none
            offsets, lengths = words[6::w].tolist(), words[7::w].tolist()
            texts = [text(utf8[o : o + k]) for o, k in zip(offsets, lengths)]
        quad_flag = _raw.QUIRE_TEXT_CHAR_HAS_QUAD
        quads = [q if f & quad_flag else None
                 for q, f in zip(zip(*(column(k) for k in range(13, 21))), flags)]
        return list(map(new, repeat(TextChar, n), zip(
            texts, rects(5), quads, column(4), map(fonts.__getitem__, font_indexes),
            map(bool, map(_raw.QUIRE_TEXT_CHAR_GENERATED.__and__, flags)), lines, rects(9),
            map(bool, map(_raw.QUIRE_TEXT_CHAR_HAS_GLYPH_BOX.__and__, flags)))))

    def span(self, first: int, count: int) -> TextSpan:
        """The ``count`` characters from ``first``: their text and quads.

        Raises:
            IndexOutOfRangeError: the range goes past the characters.
            InvalidArgumentError: a negative count.
        """
        with self._lock:
            handle = self._live()
            words = text(query_bytes(_raw.lib.quire_text_page_range_text, handle, first, count))
            quads = _quads(query_doubles(_raw.lib.quire_text_page_range_quads, handle, first, count))
        return TextSpan(self._page_index, first, count, words, quads)

    @property
    def words(self) -> List[TextSpan]:
        """The words: runs of characters between white space."""
        n = self._int(_raw.lib.quire_text_page_word_count)
        return [self.span(*self._pair(_raw.lib.quire_text_page_word, i)) for i in range(n)]

    @property
    def lines(self) -> List[TextSpan]:
        """The lines, without their line breaks."""
        n = self._int(_raw.lib.quire_text_page_line_count)
        return [self.span(*self._pair(_raw.lib.quire_text_page_line, i)) for i in range(n)]

    def char_at(self, x: float, y: float) -> Optional[int]:
        """The index of the character at (``x``, ``y``) in user space (the one whose quad
        holds the point, else the nearest); ``None`` on a page without text."""
        try:
            return self._int(_raw.lib.quire_text_page_char_at, float(x), float(y))
        except Exception as error:  # NotFoundError: no text
            if getattr(error, "code", None) == _raw.QUIRE_ENOTFOUND:
                return None
            raise

    def select(self, start: Tuple[float, float], end: Tuple[float, float]) -> Optional[TextSpan]:
        """The text a drag from point ``start`` to point ``end`` (user space) selects: from
        the character at one to the character at the other, both included; ``None`` on a
        page without text."""
        try:
            first, count = self._pair(_raw.lib.quire_text_page_select, float(start[0]), float(start[1]),
                                      float(end[0]), float(end[1]))
        except Exception as error:
            if getattr(error, "code", None) == _raw.QUIRE_ENOTFOUND:
                return None
            raise
        return self.span(first, count)

    @property
    def warnings(self) -> List[str]:
        """What extracting the text skipped or repaired."""
        n = self._int(_raw.lib.quire_text_page_warning_count)
        with self._lock:
            return [text(query_bytes(_raw.lib.quire_text_page_warning, self._live(), i)) for i in range(n)]

    def __repr__(self) -> str:
        if self._handle is None:
            return "<quire.TextPage closed>"
        return "<quire.TextPage page %d, %d characters>" % (self._page_index, len(self))


def search(document: "Document", query: str, page_index: int, match_case: bool, whole_word: bool,
           max_matches: int, progress: Any = None, on_status: Any = None) -> List[TextMatch]:
    """What :meth:`Document.search` does; ``progress`` is a C progress callback (or None),
    and ``on_status`` sees the call's status before it is checked."""
    from ._ffi import c_string

    options = _raw.text_search_options_init()
    options.match_case = 1 if match_case else 0
    options.whole_word = 1 if whole_word else 0
    options.max_matches = max_matches
    if progress is not None:
        options.progress = progress  # alive until the call returns
    out = _raw.quire_text_match_list_p()
    with document._lock:
        status = _raw.lib.quire_document_search_text(byref(out), document._read_handle(), c_string(query, "query"),
                                                     byref(options), page_index)
    if on_status is not None:
        on_status(status)
    check(status)
    try:
        count = c_int32()
        check(_raw.lib.quire_text_match_list_count(byref(count), out))
        matches = []
        for i in range(count.value):
            page, first, n = c_int32(), c_int32(), c_int32()
            check(_raw.lib.quire_text_match_list_get(byref(page), byref(first), byref(n), out, i))
            matches.append(TextMatch(
                page_index=page.value, first=first.value, length=n.value,
                text=text(query_bytes(_raw.lib.quire_text_match_list_text, out, i)),
                quads=_quads(query_doubles(_raw.lib.quire_text_match_list_quads, out, i)),
            ))
        return matches
    finally:
        _raw.lib.quire_text_match_list_free(out)


MARKUP_KINDS = {
    "Highlight": _raw.QUIRE_TEXT_MARKUP_HIGHLIGHT,
    "Underline": _raw.QUIRE_TEXT_MARKUP_UNDERLINE,
    "StrikeOut": _raw.QUIRE_TEXT_MARKUP_STRIKEOUT,
    "Squiggly": _raw.QUIRE_TEXT_MARKUP_SQUIGGLY,
}
