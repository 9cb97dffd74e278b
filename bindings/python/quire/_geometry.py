"""Geometry: :class:`Rect`, and its conversions to and from ``quire_rect``.

Its own module, below :mod:`quire._annotations` and :mod:`quire._document`, which both
use it (before, each imported the other for it).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence, Union

from . import _raw
from ._errors import InvalidArgumentError

__all__ = ["Rect", "RectLike", "c_rect", "rect_from_c"]


class Rect(NamedTuple):
    """A rectangle in PDF user space units (1/72 inch), with ``left <= right`` and
    ``bottom <= top``."""

    left: float
    bottom: float
    right: float
    top: float

    @property
    def width(self) -> float:
        """``right - left``."""
        return self.right - self.left

    @property
    def height(self) -> float:
        """``top - bottom``."""
        return self.top - self.bottom


#: A rectangle as :class:`quire.Rect` or any ``(left, bottom, right, top)`` sequence.
RectLike = Union[Rect, Sequence[float]]


def c_rect(rect: RectLike) -> _raw.quire_rect:
    """``rect`` as a ``quire_rect``.

    Raises:
        InvalidArgumentError: not 4 numbers.
    """
    values = [float(v) for v in rect]
    if len(values) != 4:
        raise InvalidArgumentError(_raw.QUIRE_EINVAL, "a rectangle has 4 numbers (left, bottom, right, top)")
    out = _raw.quire_rect()
    out.left, out.bottom, out.right, out.top = values
    return out


def rect_from_c(rect: _raw.quire_rect) -> Rect:
    """A ``quire_rect`` as a :class:`Rect`."""
    return Rect(rect.left, rect.bottom, rect.right, rect.top)
