"""Issue 24: progress and cancellation of saves (quire_save_options version 2)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import List, Tuple

import pytest

import quire


def edited(tmp_path: Path, sample_pdf: Path, notes: int = 200) -> Tuple[quire.Document, Path]:
    pdf = tmp_path / "doc.pdf"
    shutil.copyfile(sample_pdf, pdf)
    doc = quire.Document(pdf)
    for k in range(notes):
        note = quire.Annotation.new("Text", 0, (10 + k % 400, 10, 30 + k % 400, 30))
        note.contents = "note %d" % k
        doc.add_annotation(note)
    return doc, pdf


@pytest.mark.parametrize("full", [False, True])
def test_progress_reports_every_object_and_ends_at_the_total(tmp_path: Path, sample_pdf: Path, full: bool):
    doc, pdf = edited(tmp_path, sample_pdf)
    calls: List[Tuple[int, int]] = []
    doc.save(pdf, full=full, progress=lambda done, total: calls.append((done, total)) and None)
    assert calls, "no progress"
    total = calls[-1][1]
    assert calls[-1] == (total, total)
    assert total >= 200  # at least the notes (and, for a full save, every object)
    assert all(t == total for _, t in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert len(calls) >= total // 64
    with quire.Document(pdf) as saved:
        assert sum(1 for a in saved.pages[0].annotations if (a.contents or "").startswith("note ")) == 200


@pytest.mark.parametrize("full", [False, True])
def test_returning_true_cancels_before_anything_is_written(tmp_path: Path, sample_pdf: Path, full: bool):
    doc, pdf = edited(tmp_path, sample_pdf)
    before = pdf.read_bytes()
    with pytest.raises(quire.UserAbortError):
        doc.save(pdf, full=full, progress=lambda done, total: done >= 64)
    assert pdf.read_bytes() == before
    assert doc.has_unsaved_changes
    doc.save(pdf, full=full)  # and it still saves afterwards
    assert not doc.has_unsaved_changes


def test_an_exception_in_progress_cancels_and_is_chained(tmp_path: Path, sample_pdf: Path):
    doc, pdf = edited(tmp_path, sample_pdf)

    def progress(done: int, total: int) -> None:
        raise RuntimeError("stop at %d of %d" % (done, total))

    with pytest.raises(quire.UserAbortError) as caught:
        doc.save_to_bytes(full=True, progress=progress)
    assert isinstance(caught.value.__cause__, RuntimeError)
    out = io.BytesIO()
    with pytest.raises(quire.UserAbortError):
        doc.save(out, progress=progress)
    assert out.getvalue() == b""
    assert doc.has_unsaved_changes
    with pytest.raises(TypeError):
        doc.save(pdf, progress=42)  # type: ignore[arg-type]
