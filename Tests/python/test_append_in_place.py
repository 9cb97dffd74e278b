"""Incremental saves appended in place (``Document.save(path, in_place=True)``, issue 17):
what they write, what they refuse, and processes killed at random moments while they
append, after which the file must open in Quire (with every acknowledged save in it) and in
every peer (qpdf through pikepdf, PDFium, MuPDF, pypdf).

QUIRE_APPEND_TRIALS sets the number of killed processes (30 by default; 500 for a long run).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional, Tuple

import pytest

import quire
from quire_testing.peers import peer
from pdfpeers import PeerMissing, add_text_annotation, pdfium_counts, pikepdf_counts, quire_counts

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "examples" / "sample.pdf"

# Files to append to: the sample, and corpus files of each cross-reference form, one
# encrypted (opened with its user password).
CORPUS_FILES: List[Tuple[str, Optional[str]]] = [
    ("pdfium/testing/resources/annots.pdf", None),
    ("qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf", "view"),
    ("qpdf/qpdf/qtest/qpdf/reuse-xref-stream.pdf", None),
]


@pytest.fixture(scope="module")
def peers() -> None:
    peer("pikepdf")
    peer("pypdfium2")


def _source(corpus: Callable[[str], Path], relative: str) -> Path:
    try:
        return corpus(relative)
    except Exception as error:  # a corpus file that is not there
        pytest.skip(str(error))


def test_an_append_in_place_writes_the_update_alone(peers, tmp_path: Path) -> None:
    file = tmp_path / "sample.pdf"
    shutil.copyfile(SAMPLE, file)
    inode = file.stat().st_ino
    with quire.Document(file) as document:
        pages, annotations = quire_counts(document)
        for k in range(1, 6):
            before = file.read_bytes()
            add_text_annotation(document, "appended %d" % k)
            document.save(file, in_place=True)
            after = file.read_bytes()
            assert after[: len(before)] == before, "an append keeps every earlier byte"
            assert 0 < len(after) - len(before) < 8192, "only the update is written"
            assert file.stat().st_ino == inode, "the same file, not a renamed copy"
            assert not document.has_unsaved_changes
            assert quire_counts(document) == (pages, annotations + k)
            assert pikepdf_counts(after) == (pages, annotations + k)
            assert pdfium_counts(after) == (pages, annotations + k)
    assert os.listdir(tmp_path) == ["sample.pdf"], "no temporary file beside it"


@pytest.mark.parametrize(("relative", "password"), CORPUS_FILES, ids=[f[0].rsplit("/", 1)[-1] for f in CORPUS_FILES])
def test_appends_in_place_to_corpus_files(corpus, peers, tmp_path: Path, relative: str, password: Optional[str]) -> None:
    file = tmp_path / "in.pdf"
    shutil.copyfile(_source(corpus, relative), file)
    original = file.read_bytes()
    with quire.Document(file, password) as document:
        pages, annotations = quire_counts(document)
        add_text_annotation(document, "One more, in place")
        document.save(file, in_place=True)
    saved = file.read_bytes()
    assert saved[: len(original)] == original
    assert pikepdf_counts(saved, password) == (pages, annotations + 1)
    assert pdfium_counts(saved, password) == (pages, annotations + 1)
    with quire.Document(file, password) as reopened:
        assert quire_counts(reopened) == (pages, annotations + 1)


def test_what_an_append_in_place_refuses(tmp_path: Path) -> None:
    file = tmp_path / "sample.pdf"
    shutil.copyfile(SAMPLE, file)
    with quire.Document(file) as document:
        add_text_annotation(document, "refused")
        with pytest.raises(quire.InvalidArgumentError):
            document.save(tmp_path / "other.pdf", in_place=True)
        assert not (tmp_path / "other.pdf").exists()
        with pytest.raises(quire.InvalidArgumentError):
            document.save(file, in_place=True, full=True)
        with pytest.raises(quire.InvalidArgumentError):
            document.save(open(os.devnull, "wb"), in_place=True)  # noqa: SIM115
        # Another program changed the file since it was read: nothing written.
        with open(file, "ab") as f:
            f.write(b"\n% appended by another program\n")
        changed = file.read_bytes()
        with pytest.raises(quire.StaleError):
            document.save(file, in_place=True)
        assert file.read_bytes() == changed
        assert document.has_unsaved_changes
        # An atomic save still works, and the next append goes to what it wrote.
        document.save(file)
        add_text_annotation(document, "after the atomic save")
        document.save(file, in_place=True)
    with quire.Document(SAMPLE.read_bytes()) as memory:
        add_text_annotation(memory, "from memory")
        with pytest.raises((quire.StaleError, quire.InvalidArgumentError)):
            memory.save(file, in_place=True)


# ---- processes killed while they append ------------------------------------------------------

CHILD = r"""
import os, random, sys
sys.path.insert(0, sys.argv[3])
import quire
path, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed)
doc = quire.Document(path)
k = 0
while True:
    k += 1
    # Contents from a few bytes to 400 KB, so that some updates take many writes.
    size = rng.choice([10, 1000, 50_000, 400_000])
    annotation = quire.Annotation.new("Text", 0, (10 + k % 50, 10, 40 + k % 50, 40))
    annotation.contents = "k%d " % k + "x" * size
    doc.add_annotation(annotation)
    doc.save(path, in_place=True)
    os.write(1, b"saved %d\n" % k)
"""


def _opens_everywhere(path: Path) -> List[str]:
    """The peers that cannot open `path`, with why (empty: every one opens it)."""
    failures = []
    data = path.read_bytes()
    for name, count in [("pikepdf", lambda: pikepdf_counts(data)[0]), ("pdfium", lambda: pdfium_counts(data)[0])]:
        try:
            if count() < 1:
                failures.append("%s: no pages" % name)
        except PeerMissing:
            pass
        except Exception as error:  # noqa: BLE001 (any failure to open is the finding)
            failures.append("%s: %r" % (name, error))
    try:
        import pymupdf

        with pymupdf.open(stream=data, filetype="pdf") as document:
            if document.page_count < 1:
                failures.append("pymupdf: no pages")
    except ImportError:
        pass
    except Exception as error:  # noqa: BLE001
        failures.append("pymupdf: %r" % (error,))
    try:
        import io

        import pypdf

        if len(pypdf.PdfReader(io.BytesIO(data), strict=False).pages) < 1:
            failures.append("pypdf: no pages")
    except ImportError:
        pass
    except Exception as error:  # noqa: BLE001
        failures.append("pypdf: %r" % (error,))
    return failures


def test_appends_killed_at_random_moments(peers, tmp_path: Path) -> None:
    trials = int(os.environ.get("QUIRE_APPEND_TRIALS", "30"))
    seed = int(os.environ.get("QUIRE_APPEND_SEED", str(random.randrange(1 << 30))))
    rng = random.Random(seed)
    bindings = str(REPO / "bindings" / "python")
    with quire.Document(SAMPLE) as sample:
        base = quire_counts(sample)[1]
    torn = whole = 0
    for trial in range(trials):
        file = tmp_path / ("t%d.pdf" % trial)
        shutil.copyfile(SAMPLE, file)
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(file), str(rng.randrange(1 << 30)), bindings],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.25, 1.0))
        child.send_signal(signal.SIGKILL)
        out, err = child.communicate()
        assert child.returncode == -signal.SIGKILL, "seed %d: the child ended by itself: %s" % (seed, err.decode()[-2000:])
        acknowledged = out.decode().count("saved ")
        data = file.read_bytes()
        if data.rstrip().endswith(b"%%EOF"):
            whole += 1
        else:
            torn += 1  # killed between the update and its tail: dead bytes after the old end
        with quire.Document(file) as reopened:
            found = quire_counts(reopened)[1] - base
        # Every acknowledged save is there; the one in flight may be too.
        assert found in (acknowledged, acknowledged + 1), \
            "seed %d, trial %d: %d saves acknowledged, %d annotations found" % (seed, trial, acknowledged, found)
        failures = _opens_everywhere(file)
        assert not failures, "seed %d, trial %d: %s" % (seed, trial, "; ".join(failures))
        file.unlink()
    print("append in place: %d kills (seed %d): %d during an append (dead bytes left), %d between appends"
          % (trials, seed, torn, whole))
