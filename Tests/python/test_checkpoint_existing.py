"""Issue 24: a checkpoint left by a crash is never thrown away unless the caller asks.

A child process makes unsaved changes with immediate checkpoints and is killed with
SIGKILL; then every combination of start options (strategy, `existing`, the older `load`
flag, a UID or a path-derived name) is tried, and a later start with loading must still
find the changes, unless discarding was asked for."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

import pytest

import quire
from quire_testing.library import child_env

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

CHILD = r"""
import os, sys, time
import quire
pdf, cp, uid = sys.argv[1], sys.argv[2], sys.argv[3] or None
doc = quire.Document(pdf)
doc.start_checkpoints("immediate", directory=cp, uid=uid)
note = quire.Annotation.new("Text", 0, (10, 10, 30, 30))
note.contents = "unsaved"
doc.add_annotation(note)
gone = quire.Annotation.new("Square", 0, (40, 40, 80, 80))
gone.contents = "deleted"
doc.delete_annotation(doc.add_annotation(gone))
print("ready", flush=True)
time.sleep(60)
"""


def crash(pdf: Path, cp: Path, uid: Optional[str]) -> None:
    env = child_env()
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(pdf), str(cp), uid or ""],
                             stdout=subprocess.PIPE, env=env)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == b"ready"
    child.send_signal(signal.SIGKILL)
    child.wait(30)


def contents(doc: quire.Document) -> list:
    return sorted(a.contents for a in doc.pages[0].annotations if a.contents in ("unsaved", "deleted"))


STRATEGIES = ["manual", "timed", "immediate"]
CHOICES: Dict[str, dict] = {
    "default": {},
    "load": {"existing": "load"},
    "refuse": {"existing": "refuse"},
    "discard": {"existing": "discard"},
    "load=True": {"load": True},
    "load=False": {"load": False},
}


@pytest.mark.parametrize("uid", [None, "the-uid"])
def test_no_combination_but_discard_loses_the_checkpoint(tmp_path: Path, sample_pdf: Path, uid: Optional[str]):
    for number, (strategy, choice) in enumerate(itertools.product(STRATEGIES, CHOICES)):
        work = tmp_path / ("%d" % number)
        work.mkdir()
        pdf, cp = work / "doc.pdf", work / "cp"
        shutil.copyfile(sample_pdf, pdf)
        crash(pdf, cp, uid)
        with quire.Document(pdf) as doc:
            before = doc.inspect_checkpoint(directory=cp, uid=uid)
            assert before.state == "changes" and before.changed_objects > 0 and not before.in_use
            refuses = choice in ("refuse", "load=False")
            if refuses:
                with pytest.raises(quire.ExistsError):
                    doc.start_checkpoints(strategy, directory=cp, uid=uid, interval=0.05, **CHOICES[choice])
                assert not doc.has_unsaved_changes
            else:
                loaded = doc.start_checkpoints(strategy, directory=cp, uid=uid, interval=0.05, **CHOICES[choice])
                assert loaded == (choice != "discard"), (strategy, choice)
                assert contents(doc) == ([] if choice == "discard" else ["unsaved"])
                doc.stop_checkpoints()
        with quire.Document(pdf) as later:
            info = later.inspect_checkpoint(directory=cp, uid=uid)
            recovered = later.start_checkpoints(directory=cp, uid=uid)
            assert recovered == (choice != "discard"), (strategy, choice, info)
            assert contents(later) == ([] if choice == "discard" else ["unsaved"]), (strategy, choice)


def test_a_failed_journal_restart_after_a_save_acknowledges_nothing_later(tmp_path: Path, sample_pdf: Path):
    """If the checkpoint cannot start afresh after a save (disk full, I/O error), the old
    journal ends with that save's marker: a change appended to it would be taken as saved
    on recovery and lost. Later changes must fail instead of being acknowledged."""
    pdf, cp = tmp_path / "doc.pdf", tmp_path / "cp"
    shutil.copyfile(sample_pdf, pdf)
    doc = quire.Document(pdf)
    doc.start_checkpoints("immediate", directory=cp)
    path = doc.checkpoint_path
    assert path
    os.mkdir(path + ".tmp")  # the journal's restart cannot create its file
    note = quire.Annotation.new("Text", 0, (10, 10, 30, 30))
    note.contents = "saved"
    doc.add_annotation(note)
    with pytest.raises(quire.QuireIOError):
        doc.save(pdf)  # the PDF is written; the checkpoint could not restart
    os.rmdir(path + ".tmp")
    late = quire.Annotation.new("Text", 0, (40, 40, 60, 60))
    late.contents = "after the save"
    with pytest.raises(quire.QuireError):
        doc.add_annotation(late)  # not acknowledged: the checkpoint cannot hold it
    doc.close()
    with quire.Document(pdf) as reopened:
        reopened.start_checkpoints(directory=cp)
        texts = [a.contents for a in reopened.pages[0].annotations]
        assert "saved" in texts
