"""Saving: incremental saves after an edit through the low-level API, full saves with and
without object streams, encrypted documents, atomic saves to a path, and writers that
raise. Every saved file is reopened by pikepdf and PDFium (pypdfium2), and full saves are
checked with `qpdf --check`."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable, List, Optional

import pytest

import quire

from conftest import ANNOTS, DAMAGED, ENCRYPTED, OUTLINE
from quire_testing.library import child_env
from pdfpeers import (
    add_text_annotation,
    pdfium_counts,
    pdfium_module,
    pikepdf_counts,
    pikepdf_module,
    qpdf_check,
    qpdf_program,
    quire_counts,
)

PAGELABELS = "pdfminer/samples/contrib/pagelabels.pdf"  # cross-reference stream, object streams
HYBRID = "pypdf/resources/git.pdf"  # a table with /XRefStm
ENC_R2 = "qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf"
ENC_R6 = "qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf"

#: The most an incremental save that adds one annotation may append.
MAX_APPENDED = 16 * 1024

# (path, password)
FILES = [
    (ANNOTS, None),
    (OUTLINE, None),
    (PAGELABELS, None),
    (HYBRID, None),
    (ENC_R2, "view"),
    (ENCRYPTED, "view"),
    (ENC_R6, "view"),
    (ENC_R6, "master"),
]
IDS = ["%s%s" % (f[0].rsplit("/", 1)[1], "-" + f[1] if f[1] else "") for f in FILES]



@pytest.fixture(scope="module")
def peers() -> None:
    """Skips unless pikepdf and pypdfium2 are installed."""
    pikepdf_module()
    pdfium_module()


@pytest.fixture(scope="module")
def qpdf() -> str:
    return qpdf_program()


def _copy(corpus: Callable[[str], Path], relative: str, directory: Path) -> Path:
    target = directory / Path(relative).name
    shutil.copyfile(corpus(relative), target)
    return target


# ----------------------------------------------------------------------------------------
# Incremental saves
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "password"), FILES, ids=IDS)
def test_incremental_save_of_one_new_annotation(corpus, peers, tmp_path: Path, path: str, password: Optional[str]):
    file = _copy(corpus, path, tmp_path)
    original = file.read_bytes()
    with quire.Document(file, password) as document:
        pages, annotations = quire_counts(document)
        assert (pages, annotations) == pikepdf_counts(original, password) == pdfium_counts(original, password)
        add_text_annotation(document, "One more")
        assert document.has_unsaved_changes
        assert quire_counts(document) == (pages, annotations + 1)
        document.save(file)
        assert not document.has_unsaved_changes
        assert quire_counts(document) == (pages, annotations + 1)
    saved = file.read_bytes()
    assert saved[: len(original)] == original, "an incremental save keeps every earlier byte"
    assert 0 < len(saved) - len(original) < MAX_APPENDED
    assert os.listdir(tmp_path) == [file.name], "no temporary file is left beside the file"
    assert pikepdf_counts(saved, password) == (pages, annotations + 1)
    assert pdfium_counts(saved, password) == (pages, annotations + 1)
    with quire.Document(file, password) as reopened:
        assert quire_counts(reopened) == (pages, annotations + 1)
        assert reopened.has_unsaved_changes is False


@pytest.mark.parametrize(("path", "password"), FILES[:5], ids=IDS[:5])
def test_incremental_save_passes_qpdf_check(corpus, qpdf, path: str, password: Optional[str]):
    with quire.Document(corpus(path), password) as document:
        add_text_annotation(document)
        saved = document.save_to_bytes()
    status, output = qpdf_check(saved, password)
    assert status != 2 and "ERROR" not in output, output


def test_the_new_annotation_is_what_was_written(corpus, peers, tmp_path: Path):
    pikepdf = pikepdf_module()
    with quire.Document(corpus(ANNOTS)) as document:
        page = add_text_annotation(document, "Grüße")
        saved = document.save_to_bytes()
    with pikepdf.open(io.BytesIO(saved)) as pdf:
        assert pdf.pages[0].obj.objgen == tuple(page)
        note = pdf.pages[0].obj.Annots[-1]
        assert note.Subtype == "/Text" and str(note.Contents) == "Grüße"
        assert note.P.objgen == tuple(page)
        assert [float(v) for v in note.Rect] == [36, 36, 60, 60]


def test_incremental_saves_accumulate(corpus, peers, tmp_path: Path):
    file = _copy(corpus, ANNOTS, tmp_path)
    original = file.read_bytes()
    with quire.Document(file) as document:
        add_text_annotation(document, "first")
        document.save(file)
        first = file.read_bytes()
        add_text_annotation(document, "second")
        document.save(file)
    second = file.read_bytes()
    assert first.startswith(original) and second.startswith(first)
    assert second.count(b"%%EOF") == original.count(b"%%EOF") + 2
    assert pikepdf_counts(second) == pdfium_counts(second) == (2, 14)


def test_an_incremental_save_without_changes_is_the_file(corpus):
    original = corpus(ANNOTS).read_bytes()
    with quire.Document(corpus(ANNOTS)) as document:
        assert document.save_to_bytes() == original


def test_save_to_a_file_object(corpus, peers):
    with quire.Document(corpus(ANNOTS)) as document:
        add_text_annotation(document)
        expected = quire.Document(corpus(ANNOTS))
        add_text_annotation(expected)
        buffer = io.BytesIO()
        document.save(buffer)
        assert buffer.getvalue() == expected.save_to_bytes()
        expected.close()
    assert pikepdf_counts(buffer.getvalue()) == (2, 13)


# ----------------------------------------------------------------------------------------
# Full saves
# ----------------------------------------------------------------------------------------


def _full_save_cases() -> List[Any]:
    cases = []
    for (path, password), name in zip(FILES, IDS):
        for object_streams in (False, True):
            cases.append(
                pytest.param(path, password, object_streams, id="%s-%s" % (name, "objstm" if object_streams else "table"))
            )
    return cases


@pytest.mark.parametrize(("path", "password", "object_streams"), _full_save_cases())
def test_full_save(corpus, peers, qpdf, path: str, password: Optional[str], object_streams: bool):
    original = corpus(path).read_bytes()
    with quire.Document(corpus(path), password) as document:
        counts = quire_counts(document)
        encrypted = document.is_encrypted
        saved = document.save_to_bytes(full=True, object_streams=object_streams)
        assert not document.has_unsaved_changes
        assert quire_counts(document) == counts  # it continues from the saved file
    assert saved != original and saved.startswith(b"%PDF-")
    assert pikepdf_counts(saved, password) == counts
    assert pdfium_counts(saved, password) == counts
    status, output = qpdf_check(saved, password)
    assert status == 0, output
    with quire.Document.from_bytes(saved, password) as reopened:
        assert quire_counts(reopened) == counts
        assert reopened.is_encrypted == encrypted
        assert reopened.xref_form == ("stream" if object_streams else "table")
        assert not reopened.is_repaired, reopened.warnings


def test_full_save_with_an_edit(corpus, peers, qpdf):
    with quire.Document(corpus(ANNOTS)) as document:
        add_text_annotation(document)
        saved = document.save_to_bytes(full=True, object_streams=True)
    assert pikepdf_counts(saved) == pdfium_counts(saved) == (2, 13)
    assert qpdf_check(saved)[0] == 0


def test_full_save_drops_unreachable_objects(corpus):
    with quire.Document(corpus(ANNOTS)) as document:
        count = document.object_count
        document.add_object({"Unreachable": True})
        assert document.object_count == count + 1
        document.save_to_bytes(full=True)
        assert document.object_count <= count


def test_object_streams_need_a_full_save(corpus):
    with quire.Document(corpus(ANNOTS)) as document:
        with pytest.raises(quire.InvalidArgumentError, match="full=True"):
            document.save_to_bytes(object_streams=True)


# ----------------------------------------------------------------------------------------
# Encrypted documents
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "full"),
    [
        (ENC_R2, False),
        (ENC_R2, True),
        (ENC_R6, False),
        pytest.param(ENC_R6, True),
    ],
    ids=["R2-incremental", "R2-full", "R6-incremental", "R6-full"],
)
def test_encrypted_documents_stay_encrypted(corpus, peers, path: str, full: bool):
    pikepdf = pikepdf_module()
    with quire.Document(corpus(path), "view") as document:
        before = document.encryption
        add_text_annotation(document)
        saved = document.save_to_bytes(full=full)
        counts = quire_counts(document)
    # Neither Quire nor pikepdf opens it without the password...
    with pytest.raises(quire.PasswordError):
        quire.Document.from_bytes(saved)
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(saved))
    # ... and both open it with either password, which still work as before.
    for password, is_owner in (("view", False), ("master", True)):
        with quire.Document.from_bytes(saved, password) as reopened:
            assert reopened.encryption == before._replace(is_owner=is_owner)
            assert quire_counts(reopened) == counts
        with pikepdf.open(io.BytesIO(saved), password=password) as pdf:
            assert pdf.is_encrypted and pdf.encryption.R == before.revision
            assert pdf.owner_password_matched == is_owner
            for page in pdf.pages:  # every content stream decrypts and decodes
                for contents in page.obj.get("/Contents", pikepdf.Array()).wrap_in_array():
                    contents.read_bytes()
        assert pikepdf_counts(saved, password) == counts
        assert pdfium_counts(saved, password) == counts
    # The strings were encrypted, not written in clear.
    assert b"Added by Quire" not in saved


# ----------------------------------------------------------------------------------------
# Saving to a path: atomic
# ----------------------------------------------------------------------------------------


def test_save_to_a_new_path(corpus, peers, tmp_path: Path):
    target = tmp_path / "out" / "saved.pdf"
    target.parent.mkdir()
    with quire.Document(corpus(ANNOTS)) as document:
        add_text_annotation(document)
        document.save(str(target))  # a str works as well as a Path
    assert os.listdir(target.parent) == ["saved.pdf"]
    assert pikepdf_counts(target) == (2, 13)


def test_a_failing_save_leaves_the_old_file(corpus, tmp_path: Path):
    file = _copy(corpus, ANNOTS, tmp_path)
    original = file.read_bytes()
    with quire.Document(file) as document:
        add_text_annotation(document)
        # A directory where the file should go: the rename cannot replace it.
        (tmp_path / "taken").mkdir()
        with pytest.raises(quire.QuireIOError) as raised:
            document.save(tmp_path / "taken")
        assert raised.value.code == quire._raw.QUIRE_EIO and isinstance(raised.value, OSError)
        # A directory that does not exist.
        with pytest.raises(quire.QuireIOError):
            document.save(tmp_path / "missing" / "file.pdf")
        with pytest.raises(quire.InvalidArgumentError, match="NUL"):
            document.save(str(tmp_path / "nul\0.pdf"))
        assert document.has_unsaved_changes, "a failed save keeps the changes"
    assert file.read_bytes() == original
    assert sorted(os.listdir(tmp_path)) == sorted([file.name, "taken"])
    assert os.listdir(tmp_path / "taken") == []


def test_a_write_that_fails_midway_leaves_the_old_file(corpus, tmp_path: Path):
    # In a child process whose file size limit is smaller than the saved file, with
    # SIGXFSZ ignored, so that write() fails with EFBIG as on a full disk.
    file = _copy(corpus, OUTLINE, tmp_path)
    original = file.read_bytes()
    code = textwrap.dedent(
        """
        import resource, signal, sys
        import quire
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        document = quire.Document(sys.argv[1])
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            document.save(sys.argv[1], full=True)
        except quire.QuireIOError as error:
            print("QuireIOError", error.code)
            print(document.has_unsaved_changes)
        """
    )
    env = child_env()
    result = subprocess.run([sys.executable, "-c", code, str(file)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ["QuireIOError", str(quire._raw.QUIRE_EIO)]
    assert file.read_bytes() == original
    assert os.listdir(tmp_path) == [file.name], "the temporary file is removed"


def test_an_incremental_save_of_a_rebuilt_file_is_refused(corpus, tmp_path: Path):
    file = _copy(corpus, DAMAGED, tmp_path)
    original = file.read_bytes()
    with quire.Document(file) as document:
        assert document.xref_form == "rebuilt"
        document.save(file)  # nothing to append: the file as it is
        assert file.read_bytes() == original
        add_text_annotation(document)
        with pytest.raises(quire.UnsupportedError, match="in full"):
            document.save(file)
        assert file.read_bytes() == original
        document.save(file, full=True)
    with quire.Document(file) as reopened:
        assert reopened.xref_form == "table" and not reopened.is_repaired
        assert quire_counts(reopened) == (1, 1)


# ----------------------------------------------------------------------------------------
# Writers that raise
# ----------------------------------------------------------------------------------------


class _FailingWriter:
    """A binary file object whose write raises ``error`` at call number ``when``."""

    def __init__(self, error: BaseException, when: int = 1) -> None:
        self.error = error
        self.when = when
        self.calls = 0
        self.data = b""

    def write(self, data: bytes) -> int:
        self.calls += 1
        if self.calls >= self.when:
            raise self.error
        self.data += data
        return len(data)


def test_a_writer_that_raises_aborts_the_save(corpus):
    with quire.Document(corpus(ANNOTS)) as document:
        add_text_annotation(document)
        failure = OSError(28, "No space left on device")
        writer = _FailingWriter(failure)
        with pytest.raises(quire.UserAbortError) as raised:
            document.save(writer)
        error = raised.value
        assert isinstance(error, quire.QuireError) and error.code == quire._raw.QUIRE_EUSER
        assert error.__cause__ is failure
        assert "callback" in error.message
        assert writer.calls == 1
        # Nothing was lost: the document still has its change, and saves.
        assert document.has_unsaved_changes
        saved = document.save_to_bytes()
        assert not document.has_unsaved_changes
    with quire.Document.from_bytes(saved) as reopened:
        assert quire_counts(reopened) == (2, 13)


def test_a_writer_that_raises_on_a_later_piece(corpus):
    # The library writes pieces of at most 1 MiB: a larger file takes several calls.
    big = corpus("pypdf/resources/fontsampler.pdf")
    assert big.stat().st_size > 2 << 20
    with quire.Document(big) as document:
        writer = _FailingWriter(ValueError("stop at the second piece"), when=2)
        with pytest.raises(quire.UserAbortError) as raised:
            document.save(writer, full=True)
        assert isinstance(raised.value.__cause__, ValueError)
        assert writer.calls == 2 and len(writer.data) == 1 << 20


def test_keyboard_interrupt_in_a_writer_is_raised_as_it_is(corpus):
    with quire.Document(corpus(ANNOTS)) as document:
        add_text_annotation(document)
        with pytest.raises(KeyboardInterrupt):
            document.save(_FailingWriter(KeyboardInterrupt()))
        assert document.has_unsaved_changes
        document.save_to_bytes()  # the document is still usable


def test_save_refuses_what_is_neither_a_path_nor_a_file(corpus):
    with quire.Document(corpus(ANNOTS)) as document:
        with pytest.raises(TypeError):
            document.save(42)  # type: ignore[arg-type]
