"""Typing: the package ships py.typed, so mypy --strict must pass on it, and what users read
from its objects must have precise types (not Any) for mypy and editors.

Both tests run mypy in a subprocess, with a cache in a temporary directory (nothing is
written into the tree). They skip only when mypy cannot be imported; it is in
Tests/python/requirements.txt.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List


import quire
from quire._fields import Attribute

from conftest import BINDING_DIR, REPO
from quire_testing.peers import peer

# Attributes whose type holds Any on purpose: a PDF value (quire.Value) has lists and
# dictionaries of any values.
PDF_VALUES = {"Document.trailer"}


def mypy(arguments: List[str], cache: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    peer("mypy")
    env = dict(os.environ, MYPYPATH=str(BINDING_DIR))
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *arguments]
    return subprocess.run(command, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=600)


def test_mypy_strict_passes_on_the_package(tmp_path: Path):
    result = mypy([str(BINDING_DIR / "quire")], tmp_path / "cache", REPO)
    assert result.returncode == 0, "mypy --strict bindings/python/quire:\n" + result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_attributes_have_precise_types(tmp_path: Path):
    """Every property and field of the classes users read (the annotation fields built by
    factories included) reveals a type without Any."""
    classes = {"Annotation": quire.Annotation, "Page": quire.Page, "PageList": quire.PageList, "Document": quire.Document}
    names: List[str] = []
    lines = ["import quire", "", "", "def f(%s) -> None:" % ", ".join("v%s: quire.%s" % (n, n) for n in classes)]
    for class_name, cls in classes.items():
        for name in sorted(dir(cls)):
            if name.startswith("_"):
                continue
            if isinstance(inspect.getattr_static(cls, name), (property, Attribute)):
                names.append("%s.%s" % (class_name, name))
                lines.append("    reveal_type(v%s.%s)" % (class_name, name))
    assert {"Annotation.contents", "Annotation.color", "Annotation.quad_points", "Page.media_box"} <= set(names)
    snippet = tmp_path / "snippet.py"
    snippet.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = mypy([str(snippet)], tmp_path / "cache", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    revealed = re.findall(r'Revealed type is "(.*)"', result.stdout)
    assert len(revealed) == len(names), result.stdout
    imprecise = [(name, kind) for name, kind in zip(names, revealed) if "Any" in kind and name not in PDF_VALUES]
    assert not imprecise
    typed = dict(zip(names, revealed))
    assert "str" in typed["Annotation.contents"] and "None" in typed["Annotation.contents"]
    assert "float" in typed["Annotation.color"] and "Rect" in typed["Page.media_box"]
