"""Issue 24: `quire annots` shows names, and `quire thread` takes a name or an object
number, and warns when a name is not unique on the page."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import quire
from quire_testing.paths import QUIRE_CLI

REPO = Path(__file__).resolve().parents[2]
CLI = QUIRE_CLI  # make's build/bin/quire, or $QUIRE_CLI

pytestmark = pytest.mark.skipif(not CLI.exists(), reason="build/bin/quire is missing: run make")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=60)


@pytest.fixture
def threads(tmp_path: Path, sample_pdf: Path) -> Path:
    """A copy of sample.pdf with a note without /NM and a reply, and two squares that share
    the name "twin"."""
    pdf = tmp_path / "threads.pdf"
    shutil.copyfile(sample_pdf, pdf)
    with quire.Document(pdf) as doc:
        note = quire.Annotation.new("Text", 0, (10, 10, 30, 30))
        note.contents = "the root"
        note = doc.add_annotation(note)
        doc.add_reply(note, "Ann", "a reply")
        note.name = None
        doc.update_annotation(note)
        for text in ("first twin", "second twin"):
            square = quire.Annotation.new("Square", 0, (100, 100, 150, 150))
            square.contents = text
            square = doc.add_annotation(square)
            # A name two annotations share, as damaged files have (the model keeps names
            # unique, so the object is edited directly).
            doc.set_dict_value(square.id, "NM", quire.String.from_text("twin"))
        doc.save(pdf)
    return pdf


def test_annots_prints_the_names(threads: Path) -> None:
    out = run("annots", str(threads)).stdout
    assert out.count('NM "twin"') == 2


def test_thread_by_object_number_and_by_name(threads: Path) -> None:
    with quire.Document(threads) as doc:
        root = next(a for a in doc.pages[0].annotations if a.contents == "the root")
        assert root.name is None
        number = root.id
    result = run("thread", str(threads), "1", str(number))
    assert result.returncode == 0, result.stderr
    assert "the root" in result.stdout and "a reply" in result.stdout
    twin = run("thread", str(threads), "1", "twin")
    assert twin.returncode == 0
    assert "first twin" in twin.stdout
    assert "2 annotations of page 1 are named twin" in twin.stderr
    missing = run("thread", str(threads), "1", "nothing-here")
    assert missing.returncode == 1 and "no annotation named nothing-here" in missing.stderr
