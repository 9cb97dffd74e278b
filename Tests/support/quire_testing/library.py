"""The ``quire`` package and library under test, and how a child process gets the same.

The package is the first ``import quire`` finds: PYTHONPATH's (``make test-python`` puts
bindings/python there), else an installed one (a wheel), else the repository's
bindings/python. The library is the binding's own choice: ``$QUIRE_LIBRARY`` when set,
else the one next to the package, else the system loader's (bindings/python/quire/_raw.py).
So the tests run against a library outside the repository with either of

    QUIRE_LIBRARY=/opt/quire/lib/libquire.so.0.5 PYTHONPATH=bindings/python python3 -m pytest Tests/python
    pip install build/dist/quire-*.whl && python3 -m pytest Tests/python      # no PYTHONPATH

and pytest's header says which package and library it tested (:func:`describe`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Dict, Optional

from .paths import BINDING_DIR


def import_quire() -> Any:
    """Imports the package under test (a missing library fails here, once, with the
    loader's message) and returns it."""
    try:
        import quire
    except ModuleNotFoundError:
        if str(BINDING_DIR) not in sys.path:
            sys.path.append(str(BINDING_DIR))
        import quire
    return quire


def package_root() -> Path:
    """The directory that holds the package under test (what a child's PYTHONPATH needs);
    the repository's bindings/python when the package does not import here (the child then
    reports why)."""
    try:
        return Path(import_quire().__file__).resolve().parent.parent
    except ImportError:
        return BINDING_DIR


def child_env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The environment for a child Python process (an example, a crash test's victim) that
    must import the same package and load the same library as the tests: the package's
    directory first on PYTHONPATH, and QUIRE_LIBRARY as the tests have it."""
    env = dict(os.environ)
    rest = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(package_root()) + (os.pathsep + rest if rest else "")
    env.update(extra or {})
    return env


def describe() -> str:
    """One line for pytest's header: the package and the library under test."""
    quire = import_quire()
    how = "$QUIRE_LIBRARY" if os.environ.get("QUIRE_LIBRARY") else "the binding's lookup"
    return "quire %s from %s; libquire %s (%s)" % (
        quire.version(),
        Path(quire.__file__).resolve().parent,
        quire.library_path(),
        how,
    )
