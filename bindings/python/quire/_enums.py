"""The binding's integer enumerations and flags, printed by name.

Python 3.11 made ``str()`` and ``format()`` of an ``IntEnum`` or ``IntFlag`` the number
(``print(descriptor.state)`` printed ``9217``). These keep the value an ``int`` in every
computation, comparison and call into the library, and print ``SyncState.CLEAN``, as
Python 3.10 did.
"""

from __future__ import annotations

import enum


class IntEnum(enum.IntEnum):
    """An :class:`enum.IntEnum` whose ``str()`` and ``format()`` give its name."""

    __str__ = enum.Enum.__str__
    __format__ = enum.Enum.__format__


class IntFlag(enum.IntFlag):
    """An :class:`enum.IntFlag` whose ``str()`` and ``format()`` give its names."""

    __str__ = enum.Enum.__str__
    __format__ = enum.Enum.__format__
