"""Checkpoints: the strategies of :meth:`quire.Document.start_checkpoints`, and what
:meth:`quire.Document.inspect_checkpoint` reports."""

from __future__ import annotations

import operator
from enum import Enum
from typing import NamedTuple, Union

from . import _raw
from ._enums import IntEnum
from ._errors import InvalidArgumentError


class CheckpointStrategy(IntEnum):
    """When checkpoints are written (``QUIRE_CHECKPOINT_*``), for
    :meth:`quire.Document.start_checkpoints`:

    - ``MANUAL``: only :meth:`quire.Document.checkpoint` writes one;
    - ``TIMED``: every ``interval`` seconds, on a background thread;
    - ``IMMEDIATE``: every change is on disk before its call returns.

    The names in lower case (``"manual"``, ...) are accepted too, as they were before the
    enum."""

    MANUAL = _raw.QUIRE_CHECKPOINT_MANUAL
    TIMED = _raw.QUIRE_CHECKPOINT_TIMED
    IMMEDIATE = _raw.QUIRE_CHECKPOINT_IMMEDIATE

    @classmethod
    def _of(cls, strategy: Union[CheckpointStrategy, str, int]) -> CheckpointStrategy:
        """``strategy`` as a member: a member, its value, or its name (any case).

        Raises:
            InvalidArgumentError: no such strategy.
            TypeError: neither a str nor an int.
        """
        if isinstance(strategy, str):
            member = cls.__members__.get(strategy.upper())
            if member is not None:
                return member
        elif isinstance(strategy, bool) or not isinstance(strategy, int):
            raise TypeError("strategy is a quire.CheckpointStrategy, not %s" % type(strategy).__name__)
        elif operator.index(strategy) in cls._value2member_map_:
            return cls(strategy)
        raise InvalidArgumentError(
            _raw.QUIRE_EINVAL,
            "strategy is quire.CheckpointStrategy.MANUAL, TIMED or IMMEDIATE (or 'manual', 'timed', "
            "'immediate'), not %r" % (strategy,),
        )


class CheckpointState(str, Enum):
    """What :meth:`quire.Document.inspect_checkpoint` finds (``QUIRE_CHECKPOINT_NONE``, ...).
    A ``str`` too, equal to its value, so ``info.state == "changes"`` keeps working:

    - ``NONE`` (``"none"``): no checkpoint;
    - ``EMPTY`` (``"empty"``): a checkpoint with nothing to recover;
    - ``CHANGES`` (``"changes"``): unsaved changes that loading applies;
    - ``STALE`` (``"stale"``): taken against another version of the file;
    - ``DAMAGED`` (``"damaged"``): it cannot be read."""

    NONE = "none"
    EMPTY = "empty"
    CHANGES = "changes"
    STALE = "stale"
    DAMAGED = "damaged"

    def __str__(self) -> str:
        return str(self.value)


class CheckpointExisting(str, Enum):
    """What :meth:`quire.Document.start_checkpoints` does with a checkpoint that is already
    there (``QUIRE_CHECKPOINT_EXISTING_*``); a ``str`` too, so ``"load"``, ``"refuse"`` and
    ``"discard"`` work as they did:

    - ``LOAD``: apply it as unsaved changes (the default);
    - ``REFUSE``: leave it, and raise :class:`quire.ExistsError` if it holds changes;
    - ``DISCARD``: throw it away (the one choice that loses recovery data)."""

    LOAD = "load"
    REFUSE = "refuse"
    DISCARD = "discard"

    def __str__(self) -> str:
        return str(self.value)


class CheckpointInfo(NamedTuple):
    """What :meth:`Document.inspect_checkpoint` found."""

    #: A :class:`CheckpointState` (equal to its string: ``"none"``, ``"empty"``,
    #: ``"changes"``, ``"stale"`` or ``"damaged"``).
    state: CheckpointState
    #: The checkpoint file's size in bytes.
    size: int
    #: When it was last written, in seconds since 1970 (``time.time()``'s clock).
    modified: float
    #: How many objects its unsaved changes create, change or delete.
    changed_objects: int
    #: Whether an open document (this one too) holds it.
    in_use: bool
