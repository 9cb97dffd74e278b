"""What :meth:`quire.Document.inspect_checkpoint` reports."""

from __future__ import annotations

from typing import NamedTuple


class CheckpointInfo(NamedTuple):
    """What :meth:`Document.inspect_checkpoint` found."""

    #: ``"none"`` (no checkpoint), ``"empty"`` (nothing to recover), ``"changes"`` (unsaved
    #: changes that loading applies), ``"stale"`` (taken against another version of the
    #: file) or ``"damaged"``.
    state: str
    #: The checkpoint file's size in bytes.
    size: int
    #: When it was last written, in seconds since 1970 (``time.time()``'s clock).
    modified: float
    #: How many objects its unsaved changes create, change or delete.
    changed_objects: int
    #: Whether an open document (this one too) holds it.
    in_use: bool
