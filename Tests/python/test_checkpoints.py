"""Checkpoints from Python: strategies, recovery, locks, stale checkpoints, and the crash
test (a child killed with SIGKILL at random moments, 200 times)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import quire
from pdfpeers import PeerMissing, qpdf_check

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


@pytest.fixture
def pdf(tmp_path: Path, sample_pdf: Path) -> Path:
    target = tmp_path / "doc.pdf"
    shutil.copyfile(sample_pdf, target)
    return target


def add_note(doc: quire.Document, text: str) -> None:
    note = quire.Annotation.new("Text", 0, (10, 10, 30, 30))
    note.contents = text
    doc.add_annotation(note)


def notes(doc: quire.Document):
    return sorted(a.contents for a in doc.pages[0].annotations if (a.contents or "").startswith("note "))


def test_immediate_recovery_then_save(pdf: Path, tmp_path: Path):
    cp = tmp_path / "cp"
    doc = quire.Document(pdf)
    assert doc.start_checkpoints("immediate", directory=cp) is False
    add_note(doc, "note 1")
    doc.bookmarks.add(quire.Bookmark.for_page(1, name="kept"))
    path = doc.checkpoint_path
    assert path and Path(path).parent == cp and Path(path).stat().st_size > 0
    doc.close()  # unsaved: the checkpoint stays
    with quire.Document(pdf) as reopened:
        assert notes(reopened) == []
        assert reopened.start_checkpoints(directory=cp, load=True) is True
        assert reopened.has_unsaved_changes
        assert notes(reopened) == ["note 1"]
        assert [b.name for b in reopened.bookmarks] == ["kept"]
        reopened.save(pdf)
        assert not reopened.has_unsaved_changes
    with quire.Document(pdf) as saved:
        assert saved.start_checkpoints(directory=cp, load=True) is False
        assert notes(saved) == ["note 1"]
    try:
        status, output = qpdf_check(pdf)
        assert status == 0, output
    except PeerMissing:
        pass


def test_busy_stale_and_memory_documents(pdf: Path, tmp_path: Path):
    cp = tmp_path / "cp"
    first = quire.Document(pdf)
    first.start_checkpoints("immediate", directory=cp)
    add_note(first, "note old")
    with quire.Document(pdf) as second:
        with pytest.raises(quire.BusyError):
            second.start_checkpoints(directory=cp)
    first.close()
    # Another program changes the file: the checkpoint no longer fits it.
    with quire.Document(pdf) as other:
        add_note(other, "note other")
        other.save(pdf)
    with quire.Document(pdf) as doc:
        with pytest.raises(quire.StaleError):
            doc.start_checkpoints(directory=cp, load=True)
        assert notes(doc) == ["note other"]
        with pytest.raises(quire.StaleError):
            doc.start_checkpoints(directory=cp)  # loading by default: still stale, still kept
        with pytest.raises(quire.StaleError):
            doc.start_checkpoints(directory=cp, existing="refuse")
        assert doc.inspect_checkpoint(directory=cp).state == "stale"
        doc.start_checkpoints(directory=cp, existing="discard")  # only this throws it away
    data = pdf.read_bytes()
    with quire.Document(data) as memory:
        with pytest.raises(quire.InvalidArgumentError):
            memory.start_checkpoints(directory=cp)
        memory.start_checkpoints("immediate", directory=cp, uid="from-memory")
        add_note(memory, "note memory")
    with quire.Document(data) as again:
        assert again.start_checkpoints(directory=cp, uid="from-memory", load=True)
        assert notes(again) == ["note memory", "note other"]
    with pytest.raises(quire.InvalidArgumentError):
        quire.Document(data).start_checkpoints("sometimes", directory=cp, uid="x")


def test_manual_timed_and_async(pdf: Path, tmp_path: Path):
    cp = tmp_path / "cp"
    with quire.Document(pdf) as doc:
        with pytest.raises(quire.StateError):
            doc.checkpoint()
        assert doc.checkpoint_path is None
        doc.start_checkpoints("manual", directory=cp)
        path = Path(doc.checkpoint_path)
        empty = path.stat().st_size
        add_note(doc, "note manual")
        assert path.stat().st_size == empty
        doc.checkpoint()
        grown = path.stat().st_size
        assert grown > empty
        add_note(doc, "note async")
        done = threading.Event()
        statuses = []
        doc.checkpoint(wait=False, done=lambda status: (statuses.append(status), done.set()))
        assert done.wait(30)
        assert statuses == [0] and path.stat().st_size > grown
        doc.stop_checkpoints(remove=True)
        assert not path.exists()
    with quire.Document(pdf) as doc:
        doc.start_checkpoints("timed", interval=0.05, directory=cp)
        path = Path(doc.checkpoint_path)
        empty = path.stat().st_size
        add_note(doc, "note timed")
        deadline = time.monotonic() + 10
        while path.stat().st_size == empty and time.monotonic() < deadline:
            time.sleep(0.02)
        assert path.stat().st_size > empty


def test_example_recovers_after_a_crash(pdf: Path, tmp_path: Path):
    script = REPO / "examples" / "python" / "checkpoints.py"
    env = dict(os.environ)
    env.pop("QUIRE_LIBRARY", None)
    env["PYTHONPATH"] = str(Path(quire.__file__).resolve().parent.parent)

    def run(*flags: str) -> str:
        result = subprocess.run([sys.executable, str(script), str(pdf), "--directory", str(tmp_path / "cp"), *flags],
                                env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert "recovered unsaved changes: no" in run("--crash")
    second = run("--crash")
    assert "recovered unsaved changes: yes" in second and "notes on page 1: 1" in second
    third = run("--save")
    assert "notes on page 1: 2" in third and "saved" in third
    fourth = run()
    assert "recovered unsaved changes: no" in fourth and "notes on page 1: 3" in fourth


def test_crash_test_200_trials(tmp_path: Path, sample_pdf: Path):
    """SIGKILL at random moments, including during saves: every acknowledged edit is in
    the reopened document exactly once, and qpdf --check passes, after each trial."""
    sys.path.insert(0, str(HERE))
    import checkpoint_crash

    seed = int(os.environ.get("QUIRE_CRASH_SEED", "20261121"))
    result = checkpoint_crash.run(200, seed, sample_pdf, tmp_path, max_delay=0.15)
    assert result.failures == [], "seed %d: %s" % (seed, result.failures)
    assert result.trials == 200
    assert result.acknowledged > 200
    assert result.killed_during_save > 0  # the kills did land inside saves
