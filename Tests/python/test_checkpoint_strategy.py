"""The checkpoint strategy is an enum, quire.CheckpointStrategy, like every other choice of
the binding (issue 21); the strategy names as strings still work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import quire
from quire import _raw


def test_the_members_are_the_header_constants():
    assert [(m.name, int(m)) for m in quire.CheckpointStrategy] == [
        ("MANUAL", _raw.QUIRE_CHECKPOINT_MANUAL),
        ("TIMED", _raw.QUIRE_CHECKPOINT_TIMED),
        ("IMMEDIATE", _raw.QUIRE_CHECKPOINT_IMMEDIATE),
    ]


@pytest.mark.parametrize(
    "strategy",
    [
        quire.CheckpointStrategy.MANUAL,
        quire.CheckpointStrategy.TIMED,
        quire.CheckpointStrategy.IMMEDIATE,
        "manual",
        "timed",
        "immediate",
        "Immediate",
        _raw.QUIRE_CHECKPOINT_IMMEDIATE,
    ],
)
def test_each_strategy_starts_checkpoints(sample_pdf: Path, tmp_path: Path, strategy: Any):
    with quire.Document(sample_pdf.read_bytes()) as doc:
        assert doc.start_checkpoints(strategy, directory=tmp_path, uid="strategy", interval=0.05) is False
        assert doc.checkpoint_path is not None
        doc.stop_checkpoints(remove=True)


def test_the_default_is_manual(sample_pdf: Path, tmp_path: Path):
    with quire.Document(sample_pdf.read_bytes()) as doc:
        doc.start_checkpoints(directory=tmp_path, uid="default")
        note = quire.Annotation.new("Text", 0, (10, 10, 30, 30))
        doc.add_annotation(note)
        path = Path(doc.checkpoint_path or "")
        before = path.stat().st_size if path.exists() else 0
        doc.checkpoint()  # manual: only this writes the change
        assert path.stat().st_size > before
        doc.stop_checkpoints(remove=True)


@pytest.mark.parametrize("strategy", ["hourly", "", 7, -1])
def test_an_unknown_strategy_is_an_invalid_argument(sample_pdf: Path, tmp_path: Path, strategy: Any):
    with quire.Document(sample_pdf.read_bytes()) as doc:
        with pytest.raises(quire.InvalidArgumentError) as info:
            doc.start_checkpoints(strategy, directory=tmp_path, uid="unknown")
        assert "CheckpointStrategy" in info.value.message
        assert doc.checkpoint_path is None


@pytest.mark.parametrize("strategy", [None, 1.0, True, b"manual"])
def test_a_strategy_of_another_type_is_a_type_error(sample_pdf: Path, tmp_path: Path, strategy: Any):
    with quire.Document(sample_pdf.read_bytes()) as doc:
        with pytest.raises(TypeError):
            doc.start_checkpoints(strategy, directory=tmp_path, uid="type")
