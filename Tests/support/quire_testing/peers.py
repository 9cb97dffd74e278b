"""The one rule for a peer that is not installed.

The tests compare Quire with peers: Python libraries (pikepdf, pypdfium2, pypdf, PyMuPDF,
Pillow, selenium, mypy) and programs (qpdf, pdftoppm). `scripts/install-deps.sh test`
installs all of them, and `make test` runs it first. When one is missing anyway, the test
that needs it is skipped, saying what to install: :func:`peer` and :func:`peer_program` raise
:class:`PeerMissing`, and the pytest hooks of :mod:`quire_testing.plugin` turn it into a
skip wherever it is raised (in a test, a fixture or a helper such as Tests/python's
pdfpeers). With ``QUIRE_REQUIRE_PEERS=1`` it is a failure instead, for a run that must
compare with every peer. Outside pytest (the corpus sweeps) it is an ImportError.
"""

from __future__ import annotations

import importlib
import os
import shutil
from typing import Any, NoReturn, Optional

#: Where each Python peer comes from, for the message.
PIP_HINT = "pip install -r Tests/python/requirements.txt, or scripts/install-deps.sh test"
#: The Debian package of each program.
DEBIAN = {"qpdf": "qpdf", "pdftoppm": "poppler-utils", "nm": "binutils", "readelf": "binutils"}


class PeerMissing(ImportError):
    """A peer library or program is not installed."""


def peer(module: str, why: Optional[str] = None) -> Any:
    """The peer module ``module`` (``"pikepdf"``, ``"pypdfium2.raw"``, ``"PIL.Image"``), or
    :class:`PeerMissing` saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise PeerMissing(
            "%s is not installed (%s)%s: %s" % (module.split(".")[0], PIP_HINT, "; " + why if why else "", error)
        ) from None


def peer_program(name: str) -> str:
    """The path of the peer program ``name`` (``"qpdf"``, ``"pdftoppm"``), or
    :class:`PeerMissing` saying which Debian package has it."""
    found = shutil.which(name)
    if not found:
        package = DEBIAN.get(name, name)
        raise PeerMissing(
            "the %s program is not installed (apt-get install %s, or scripts/install-deps.sh test)" % (name, package)
        )
    return found


def required() -> bool:
    """Whether a missing peer fails the test (QUIRE_REQUIRE_PEERS=1) rather than skipping it."""
    return os.environ.get("QUIRE_REQUIRE_PEERS") == "1"


def missing(error: PeerMissing, module_level: bool = False) -> NoReturn:
    """Skips (or, with QUIRE_REQUIRE_PEERS=1, fails) the running test for ``error``."""
    import pytest

    if required():
        pytest.fail("%s (QUIRE_REQUIRE_PEERS=1)" % error, pytrace=False)
    pytest.skip(str(error), allow_module_level=module_level)


def module_peer(module: str, why: Optional[str] = None) -> Any:
    """:func:`peer` for a test module's top level: a missing peer skips the whole module."""
    try:
        return peer(module, why)
    except PeerMissing as error:
        missing(error, module_level=True)
