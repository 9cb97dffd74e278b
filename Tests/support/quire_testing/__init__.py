"""What the Python test suites share (Tests/python, Tests/server, Tests/web, and the C tests'
fixture script): where things are, the package and library under test, the one rule for a
missing peer, JWTs, and servers on loopback.

- :mod:`quire_testing.paths`: the repository, the shared corpus and its manifest, the sample
  PDF, the built programs (``QUIRE_CLI``, ``QUIRE_SERVER`` override them);
- :mod:`quire_testing.library`: the ``quire`` package under test (the repository's, an
  installed wheel's, or the repository's with ``QUIRE_LIBRARY``) and the environment that
  gives a child process the same one;
- :mod:`quire_testing.peers`: a peer library or program that is not installed is
  :class:`~quire_testing.peers.PeerMissing`, which skips the test that needed it with the
  command that installs it (a failure instead with ``QUIRE_REQUIRE_PEERS=1``);
- :mod:`quire_testing.tokens`: keys, claims and JWTs for the sync service;
- :mod:`quire_testing.server`: free loopback ports, HTTP requests, and server processes that
  are ready when their health check answers.

Each suite's conftest.py puts ``Tests/support`` on ``sys.path`` (:func:`install`), and
imports the pytest hooks of :mod:`quire_testing.plugin`. Nothing here imports ``quire``
at import time, so a script may use the paths and tokens without the library.
"""

from __future__ import annotations

import sys
from pathlib import Path

SUPPORT_DIR = Path(__file__).resolve().parent.parent


def install() -> None:
    """Puts Tests/support on sys.path (for scripts that are run directly)."""
    if str(SUPPORT_DIR) not in sys.path:
        sys.path.insert(0, str(SUPPORT_DIR))
