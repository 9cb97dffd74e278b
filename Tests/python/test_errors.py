"""Errors: every non-OK status raises the QuireError subclass for it, with the code and the
library's message; hostile input gives an exception, never a crash."""

from __future__ import annotations

import errno
import pickle
import re
import threading
from pathlib import Path
from typing import Dict, List

import pytest

import quire
from quire import _errors, _raw

from conftest import ENCRYPTED


EXPECTED_CLASSES = {
    _raw.QUIRE_EINVAL: (quire.InvalidArgumentError, ValueError),
    _raw.QUIRE_ENOMEM: (quire.OutOfMemoryError, MemoryError),
    _raw.QUIRE_EIO: (quire.QuireIOError, OSError),
    _raw.QUIRE_ENOTFOUND: (quire.NotFoundError, KeyError),
    _raw.QUIRE_EFORMAT: (quire.FormatError, quire.QuireError),
    _raw.QUIRE_EPASSWORD: (quire.PasswordError, quire.QuireError),
    _raw.QUIRE_EUNSUPPORTED: (quire.UnsupportedError, quire.QuireError),
    _raw.QUIRE_ELIMIT: (quire.LimitError, quire.QuireError),
    _raw.QUIRE_ERANGE: (quire.IndexOutOfRangeError, IndexError),
    _raw.QUIRE_EBUFS: (quire.BufferTooSmallError, quire.QuireError),
    _raw.QUIRE_EUSER: (quire.UserAbortError, quire.QuireError),
    _raw.QUIRE_ESTATE: (quire.StateError, ValueError),
    _raw.QUIRE_EINTERNAL: (quire.InternalError, quire.QuireError),
    _raw.QUIRE_EDISABLED: (quire.DisabledError, quire.QuireError),
    _raw.QUIRE_EBUSY: (quire.BusyError, quire.QuireError),
    _raw.QUIRE_ESTALE: (quire.StaleError, quire.QuireError),
    _raw.QUIRE_EEXIST: (quire.ExistsError, quire.QuireError),
    _raw.QUIRE_EVERSION: (quire.VersionError, quire.QuireError),
    _raw.QUIRE_EAUTH: (quire.AuthenticationError, quire.QuireError),
    _raw.QUIRE_ENETWORK: (quire.NetworkError, ConnectionError),
}


def test_every_status_of_the_header_has_a_class():
    codes = {value for name, value in vars(_raw).items() if re.fullmatch(r"QUIRE_E[A-Z]+", name)}
    assert codes == set(EXPECTED_CLASSES)


@pytest.mark.parametrize("code", sorted(EXPECTED_CLASSES))
def test_each_status_has_its_class(code: int):
    cls, builtin = EXPECTED_CLASSES[code]
    assert _errors.error_class(code) is cls
    assert issubclass(cls, quire.QuireError) and issubclass(cls, builtin)
    error = _errors.make_error(code, "")
    assert type(error) is cls and error.code == code
    # An empty message falls back to the library's status string.
    assert error.message == quire.status_string(code) != ""
    assert str(error) == error.message
    # Exceptions survive pickling (multiprocessing sends them between processes).
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is cls and copy.code == code and copy.message == error.message


def test_unknown_status_is_the_base_class():
    error = _errors.make_error(-999, "")
    assert type(error) is quire.QuireError and error.code == -999
    assert error.message == quire.status_string(-999) == "unknown status"


def test_status_strings():
    assert quire.status_string(_raw.QUIRE_OK) != ""
    assert quire.status_string(_raw.QUIRE_EINVAL) == "invalid argument"
    messages = {quire.status_string(code) for code in EXPECTED_CLASSES}
    assert len(messages) == len(EXPECTED_CLASSES), "each status has its own description"


def test_nonexistent_path_raises_not_found(tmp_path: Path):
    missing = tmp_path / "no-such-file.pdf"
    with pytest.raises(quire.NotFoundError) as info:
        quire.Document(missing)
    error = info.value
    assert type(error) is quire.MissingFileError
    assert isinstance(error, FileNotFoundError) and isinstance(error, quire.QuireError)
    assert error.errno == errno.ENOENT and error.filename == str(missing)
    assert error.code == _raw.QUIRE_ENOTFOUND
    assert error.message and str(error) == error.message
    # The error came from the library on this thread.
    assert _raw.quire_last_error_code() == _raw.QUIRE_ENOTFOUND
    assert _raw.quire_last_error_message().decode("utf-8", "replace") == error.message
    # Also through the other spellings of "open a path".
    with pytest.raises(FileNotFoundError):
        quire.Document.open(str(missing))


def test_a_missing_annotation_is_a_key_error_not_a_missing_file(annots_pdf: Path):
    """What names nothing is a KeyError (pygit2's rule), and never an OSError: an `except
    OSError` around file handling must not swallow a wrong object number."""
    with quire.Document(annots_pdf) as doc:
        with pytest.raises(KeyError) as info:
            doc.annotation(doc.object_count + 10)
        assert type(info.value) is quire.NotFoundError
        assert not isinstance(info.value, OSError)
        assert str(info.value) == info.value.message  # not KeyError's quoted repr
        with pytest.raises(LookupError):
            doc.delete_annotation(doc.object_count + 10)
        with pytest.raises(KeyError):
            doc.bookmarks.remove("no such bookmark")
    assert not issubclass(quire.NotFoundError, OSError)
    assert issubclass(quire.MissingFileError, quire.NotFoundError)


def test_garbage_bytes_raise_format_error():
    with pytest.raises(quire.FormatError) as info:
        quire.Document(b"this is not a PDF, just some text\n" * 20)
    assert info.value.code == _raw.QUIRE_EFORMAT and info.value.message


def test_empty_bytes_raise_format_error():
    for empty in (b"", bytearray(), memoryview(b"")):
        with pytest.raises(quire.FormatError):
            quire.Document.from_bytes(empty)


def test_garbage_file_raises_format_error(tmp_path: Path):
    path = tmp_path / "garbage.pdf"
    path.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(quire.FormatError):
        quire.Document(path)


def test_header_only_raises_format_error():
    with pytest.raises(quire.FormatError):
        quire.Document(b"%PDF-1.7\n%%EOF\n")


def test_directory_is_an_error_not_a_crash(tmp_path: Path):
    with pytest.raises(quire.QuireError) as info:
        quire.Document(tmp_path)
    assert info.value.code < 0 and info.value.message


def test_truncated_pdf_opens_repaired_or_fails_cleanly(annots_pdf: Path):
    data = annots_pdf.read_bytes()
    for size in (9, 100, len(data) // 3, len(data) // 2, len(data) - 200, len(data) - 10):
        try:
            with quire.Document(data[:size]) as document:
                for page in document.pages:
                    page.media_box, page.rotation, page.annotation_count
                document.metadata, document.warnings
        except quire.QuireError as error:
            assert error.code < 0 and error.message


def test_wrong_password_raises_password_error(corpus):
    path = corpus(ENCRYPTED)
    with pytest.raises(quire.PasswordError) as info:
        quire.Document(path)
    assert info.value.code == _raw.QUIRE_EPASSWORD and info.value.message
    with pytest.raises(quire.PasswordError):
        quire.Document(path, password="not the password")


def test_limit_exceeded_raises_limit_error(annots_pdf: Path):
    # annots.pdf's cross-reference section has objects up to 26.
    with pytest.raises(quire.LimitError) as info:
        with quire.Document(annots_pdf, max_objects=1) as document:
            for page in document.pages:
                page.media_box, page.annotation_count
    assert info.value.code == _raw.QUIRE_ELIMIT and info.value.message


def test_python_side_argument_errors(annots_pdf: Path):
    with pytest.raises(TypeError):
        quire.Document(12345)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        quire.Document.open(annots_pdf.read_bytes())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        quire.Document.from_bytes(str(annots_pdf))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        quire.Document(annots_pdf, no_such_limit=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        quire.Document(annots_pdf, password=1234)  # type: ignore[arg-type]
    with pytest.raises(quire.InvalidArgumentError):
        quire.Document(annots_pdf, max_objects=-1)
    with pytest.raises(ValueError):
        quire.Document(annots_pdf, max_nesting_depth=2**32)
    with pytest.raises(quire.InvalidArgumentError):
        quire.Document(str(annots_pdf) + "\0.pdf")
    with pytest.raises(quire.InvalidArgumentError):
        quire.Document(annots_pdf, password="a\0b")


def test_last_error_is_per_thread(tmp_path: Path):
    """Two threads fail in different ways at the same time; each gets its own message."""
    errors: Dict[str, List[BaseException]] = {"missing": [], "garbage": []}
    barrier = threading.Barrier(2)

    def fail_missing() -> None:
        barrier.wait()
        for _ in range(200):
            try:
                quire.Document(tmp_path / "missing.pdf")
            except BaseException as error:  # noqa: B902
                errors["missing"].append(error)

    def fail_garbage() -> None:
        barrier.wait()
        for _ in range(200):
            try:
                quire.Document(b"garbage" * 10)
            except BaseException as error:  # noqa: B902
                errors["garbage"].append(error)

    threads = [threading.Thread(target=fail_missing), threading.Thread(target=fail_garbage)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(errors["missing"]) == 200 and len(errors["garbage"]) == 200
    assert all(type(e) is quire.MissingFileError for e in errors["missing"])
    assert all(type(e) is quire.FormatError for e in errors["garbage"])
    assert len({e.message for e in errors["missing"]}) == 1  # type: ignore[attr-defined]
    assert len({e.message for e in errors["garbage"]}) == 1  # type: ignore[attr-defined]


def _pdf_with_stream(stream_dict: bytes, data: bytes) -> bytes:
    """A one-page PDF whose object 4 is a stream with ``stream_dict`` and ``data``."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 4 0 R >>",
        b"<< " + stream_dict + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream",
    ]
    out = b"%PDF-1.7\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    start = len(out)
    out += b"xref\n0 5\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % start
    return out


def test_flate_bomb_raises_limit_error_naming_the_limit():
    """64 MiB of zeros in 64 KB: decoding it is past max_decompression_ratio (1000); the
    error names the limit, and the rest of the document keeps working."""
    import zlib

    bomb = zlib.compress(bytes(64 << 20), 9)
    with quire.Document(_pdf_with_stream(b"/Filter /FlateDecode", bomb)) as document:
        stream = document.get_object(4)
        with pytest.raises(quire.LimitError) as info:
            stream.read()
        assert info.value.code == _raw.QUIRE_ELIMIT
        assert "max_decompression_ratio" in info.value.message
        assert stream.read(decoded=False) == bomb
        assert document.pages[0].media_box == (0, 0, 200, 300)
    # With the ratio lifted, the per-stream limit stops it, named too.
    with quire.Document(_pdf_with_stream(b"/Filter /FlateDecode", bomb), max_decompression_ratio=1 << 30,
                        max_stream_bytes=1 << 20) as document:
        with pytest.raises(quire.LimitError, match="max_stream_bytes"):
            document.get_object(4).read()
