"""Lazy reading (issue 17): large files and read callbacks are read as they are used.

A file of 1 MiB or more, and any document opened with ``Document.from_reader``, is read
through a lazy buffer (``Sources/QuireSyntax/ByteBuffer.swift``): opening reads the header,
the end and the cross-reference; later calls read the objects they need, in 64 KB blocks.
These tests check that

- lazy reading gives exactly what reading the whole file gives, on every corpus file
  (``QUIRE_LAZY_MIN_BYTES=0`` makes every file lazy);
- memory grows with what is read, not with the file (process RSS, measured in a child);
- another process truncating or replacing the file never takes the host down;
- saves of a lazily read document (atomic, in place, to bytes, through a callback) write
  the same bytes as before, and an atomic save does not read the original into memory;
- ``Document.from_reader`` reads through a file object or a function, asks for each byte
  at most once, and reports a failing reader as an error, never a crash.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

import quire

from conftest import CORPUS, MANIFEST
from quire_testing.peers import module_peer
from quire_testing.library import child_env

pikepdf = module_peer("pikepdf")

PAGES = 300
BLOB = 48 << 20  # bytes of incompressible stream data in the big file


def _make_big(path: Path) -> None:
    """PAGES pages, each with a square annotation whose /Contents names its page, and a
    48 MB image on page 1 (random bytes, stored uncompressed)."""
    pdf = pikepdf.new()
    for k in range(PAGES):
        pdf.add_blank_page(page_size=(200, 200))
        annot = pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Square,
            Rect=[10, 10, 50 + k % 100, 60], Contents=pikepdf.String("page %d" % k),
            NM=pikepdf.String("a%d" % k)))
        pdf.pages[k].Annots = pdf.make_indirect(pikepdf.Array([annot]))
    side = 4096
    image = pikepdf.Stream(pdf, os.urandom(side * (BLOB // side)))
    image.Type = pikepdf.Name.XObject
    image.Subtype = pikepdf.Name.Image
    image.Width = side
    image.Height = BLOB // side
    image.ColorSpace = pikepdf.Name.DeviceGray
    image.BitsPerComponent = 8
    pdf.pages[0].Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=image))
    pdf.save(path, compress_streams=False, object_stream_mode=pikepdf.ObjectStreamMode.generate)


@pytest.fixture(scope="module")
def big(tmp_path_factory: Any) -> Path:
    path = Path(tmp_path_factory.mktemp("lazy")) / "big.pdf"
    _make_big(path)
    assert path.stat().st_size > BLOB
    return path


def _child(code: str, env: Dict[str, str] | None = None) -> Dict[str, Any]:
    """Runs `code` in a fresh Python (quire importable), which prints one JSON line last."""
    full = child_env({"WARM": str(CORPUS / "pdfium/testing/resources/annots.pdf")})
    full.update(env or {})
    prelude = (
        "import json, os, sys\n"
        "import quire\n"
        "def rss():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmRSS:'): return int(line.split()[1]) * 1024\n"
    )
    done = subprocess.run([sys.executable, "-c", prelude + code], env=full, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, "child failed (%d): %s" % (done.returncode, done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the same answers as reading the whole file ---------------------------------------------

_SWEEP = r"""
paths = json.loads(os.environ['SWEEP_PATHS'])
out = {}
for rel in paths:
    try:
        with quire.Document(os.path.join(os.environ['SWEEP_CORPUS'], rel)) as doc:
            row = [len(doc.pages), doc.is_repaired]
            for k, page in enumerate(doc.pages):
                if k >= 50: break
                row.append([(a.subtype, list(a.rect), a.contents) for a in page.annotations])
            if os.environ.get('SWEEP_OBJECTS') and len(doc.pages) < 50:
                row.append([repr(doc.get_object(n)) for n in range(1, min(doc.object_count, 400))])
            out[rel] = row
    except quire.QuireError as e:
        out[rel] = ['error', type(e).__name__]
print(json.dumps(out))
"""


def _corpus_pdfs() -> List[str]:
    if not MANIFEST.exists():
        pytest.skip("the shared corpus is missing")
    paths = []
    for line in MANIFEST.read_text().splitlines():
        row = json.loads(line)
        rel = row.get("path")
        if rel and (CORPUS / rel).is_file() and not row.get("consensus", {}).get("is_encrypted"):
            paths.append(rel)
    return sorted(set(paths))


@pytest.mark.parametrize("part", range(4))
def test_every_corpus_file_reads_the_same_lazily(part: int) -> None:
    paths = _corpus_pdfs()[part::4]
    env = {"SWEEP_PATHS": json.dumps(paths), "SWEEP_CORPUS": str(CORPUS), "SWEEP_OBJECTS": "1"}
    eager = _child(_SWEEP, dict(env, QUIRE_LAZY_MIN_BYTES=str(1 << 40)))
    lazy = _child(_SWEEP, dict(env, QUIRE_LAZY_MIN_BYTES="0"))
    assert len(eager) == len(paths)
    differ = [p for p in paths if eager[p] != lazy[p]]
    assert not differ, "read differently when lazy: %s" % differ[:10]


# -- memory grows with what is read -----------------------------------------------------------

# The library's code pages count in RSS once run: a small document read first runs the same
# code, so that what the big one adds is its data.
_WARM = r"""
with quire.Document(os.environ['WARM']) as warm:
    [a.contents for p in warm.pages for a in p.annotations]
"""

_LAST_PAGE = _WARM + r"""
before = rss()
doc = quire.Document(os.environ['BIG'])
last = doc.pages[len(doc.pages) - 1]
contents = [a.contents for a in last.annotations]
after = rss()
print(json.dumps({'grew': after - before, 'contents': contents, 'pages': len(doc.pages)}))
"""


def test_reading_one_page_of_a_large_file_reads_little(big: Path) -> None:
    lazy = _child(_LAST_PAGE, {"BIG": str(big)})
    assert lazy["pages"] == PAGES and lazy["contents"] == ["page %d" % (PAGES - 1)]
    eager = _child(_LAST_PAGE, {"BIG": str(big), "QUIRE_LAZY_MIN_BYTES": str(1 << 40)})
    assert eager["contents"] == lazy["contents"]
    # The file is 48 MB and more; read whole, memory grows by about that much.
    assert eager["grew"] > BLOB * 0.9, eager
    assert lazy["grew"] < 8 << 20, lazy


def test_an_atomic_save_does_not_read_the_original_into_memory(big: Path, tmp_path: Path) -> None:
    code = _WARM + r"""
doc = quire.Document(os.environ['BIG'])
added = quire.Annotation.new('Square', len(doc.pages) - 1, (20, 20, 80, 80))
added.contents = 'added'
doc.add_annotation(added)
before = rss()
doc.save(os.environ['OUT'])
after = rss()
print(json.dumps({'grew': after - before}))
"""
    out = tmp_path / "saved.pdf"
    grew = _child(code, {"BIG": str(big), "OUT": str(out)})["grew"]
    assert grew < 8 << 20
    assert out.stat().st_size > big.stat().st_size
    assert out.read_bytes()[: big.stat().st_size] == big.read_bytes()
    with pikepdf.open(out) as pdf:
        assert [str(a.Contents) for a in pdf.pages[-1].Annots] == ["page %d" % (PAGES - 1), "added"]
    done = subprocess.run(["qpdf", "--check", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("how", ["path", "in_place", "bytes", "callback"])
def test_saves_of_a_lazy_document_write_the_same_bytes(big: Path, tmp_path: Path, how: str) -> None:
    copy = tmp_path / "big.pdf"
    copy.write_bytes(big.read_bytes())

    def edit(doc: quire.Document) -> None:
        added = quire.Annotation.new("Circle", PAGES - 1, (5, 5, 40, 40))
        added.contents = "x"
        doc.add_annotation(added)
        first = doc.pages[PAGES - 1].annotations[0]
        first.contents = "changed"
        doc.update_annotation(first)

    with quire.Document.from_bytes(copy.read_bytes()) as eager:
        edit(eager)
        expected = eager.save_to_bytes()
    with quire.Document(copy) as doc:
        edit(doc)
        if how == "path":
            target = tmp_path / "out.pdf"
            doc.save(target)
            written = target.read_bytes()
        elif how == "in_place":
            doc.save(copy, in_place=True)
            written = copy.read_bytes()
        elif how == "bytes":
            written = doc.save_to_bytes()
        else:
            sink = io.BytesIO()
            doc.save(sink)
            written = sink.getvalue()
        # The document continues from what it saved, still lazily: read it again.
        assert doc.pages[PAGES - 1].annotations[0].contents == "changed"
        assert doc.pages[0].annotations[0].contents == "page 0"
    assert len(written) == len(expected)
    # The same update but for the dates each save stamps: compare the structure instead.
    with pikepdf.open(io.BytesIO(written)) as pdf:
        assert [str(a.Contents) for a in pdf.pages[-1].Annots] == ["changed", "x"]
        assert len(pdf.pages) == PAGES


def test_a_refused_reservation_reads_the_file_whole(big: Path) -> None:
    # With too little address space for the lazy reservation (twice the file), the file is
    # read whole instead, through the same descriptor (which the refused source must not
    # have closed).
    code = r"""
import resource
quire.Document(os.environ['WARM']).close()
vm = 0
for line in open('/proc/self/status'):
    if line.startswith('VmSize:'): vm = int(line.split()[1]) * 1024
size = os.path.getsize(os.environ['BIG'])
resource.setrlimit(resource.RLIMIT_AS, (vm + size + (40 << 20), resource.RLIM_INFINITY))
with quire.Document(os.environ['BIG']) as doc:
    last = doc.pages[len(doc.pages) - 1]
    print(json.dumps({'contents': [a.contents for a in last.annotations]}))
"""
    assert _child(code, {"BIG": str(big)})["contents"] == ["page %d" % (PAGES - 1)]


# -- another process changes the file ---------------------------------------------------------

_READ_ALL = r"""
doc = quire.Document(os.environ['BIG'])
n = len(doc.pages)
os.truncate(os.environ['BIG'], int(os.environ['CUT']))
seen, errors = 0, 0
for k in range(n):
    try:
        seen += len(doc.pages[k].annotations)
    except quire.QuireError:
        errors += 1
for number in range(1, doc.object_count):
    try:
        doc.get_object(number)
    except quire.QuireError:
        errors += 1
saved = True
try:
    doc.save_to_bytes()
except quire.QuireIOError:
    saved = False
print(json.dumps({'seen': seen, 'errors': errors, 'warnings': len(doc.warnings), 'saved': saved}))
"""


@pytest.mark.parametrize("cut", [0, 1000, 10 << 20, 49 << 20])
def test_a_file_truncated_while_open_never_crashes(big: Path, tmp_path: Path, cut: int) -> None:
    copy = tmp_path / "big.pdf"
    copy.write_bytes(big.read_bytes())
    result = _child(_READ_ALL, {"BIG": str(copy), "CUT": str(cut)})
    # Whatever was lost reads as damage; the process lives (no SIGBUS: no mapping).
    assert result["seen"] <= PAGES
    # A save needs every byte of the original: it fails rather than write zeros for them.
    assert result["saved"] is False


def test_a_file_changed_in_place_while_open_is_an_error_not_a_mix(big: Path, tmp_path: Path) -> None:
    copy = tmp_path / "big.pdf"
    copy.write_bytes(big.read_bytes())
    with pikepdf.open(copy) as pdf:
        image_number = pdf.pages[0].Resources.XObject.Im0.objgen[0]
    with quire.Document(copy) as doc:
        assert doc.pages[0].annotations[0].contents == "page 0"
        image = doc.get_object(image_number)  # its dictionary: the data is not read yet
        # Another program rewrites the file in place (same size, other bytes).
        data = bytearray(copy.read_bytes())
        data[len(data) // 2: len(data) // 2 + 4] = b"XXXX"
        with open(copy, "r+b") as f:
            f.write(bytes(data))
        # The image's data was never read: now it cannot be, rather than be the new bytes.
        with pytest.raises(quire.QuireIOError, match="changed since it was opened"):
            doc.stream_data(image, decoded=False)  # type: ignore[arg-type]
        with pytest.raises(quire.QuireIOError):
            doc.save(tmp_path / "out.pdf")
    assert not (tmp_path / "out.pdf").exists()


def test_a_file_replaced_while_open_keeps_reading_the_one_opened(big: Path, tmp_path: Path) -> None:
    copy = tmp_path / "big.pdf"
    copy.write_bytes(big.read_bytes())
    with quire.Document(copy) as doc:
        other = tmp_path / "other.pdf"
        with pikepdf.new() as pdf:
            pdf.add_blank_page()
            pdf.save(other)
        os.replace(other, copy)
        assert len(doc.pages) == PAGES
        assert [a.contents for a in doc.pages[PAGES - 1].annotations] == ["page %d" % (PAGES - 1)]
        target = tmp_path / "saved.pdf"
        doc.add_annotation(quire.Annotation.new("Square", 3, (1, 1, 9, 9)))
        doc.save(target)  # the original's bytes come from the file opened, not the path
    with pikepdf.open(target) as pdf:
        assert len(pdf.pages) == PAGES and len(pdf.pages[3].Annots) == 2


# -- Document.from_reader ----------------------------------------------------------------------


class CountingFile(io.FileIO):
    """A file that counts the bytes read from it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "r")
        self.asked: List[tuple] = []

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        at = self.tell()
        data = super().read(size)
        self.asked.append((at, len(data)))
        return data


def test_from_reader_reads_only_what_is_used(big: Path) -> None:
    reader = CountingFile(big)
    with quire.Document.from_reader(reader) as doc:
        assert len(doc.pages) == PAGES
        assert [a.contents for a in doc.pages[PAGES - 1].annotations] == ["page %d" % (PAGES - 1)]
    total = sum(n for _, n in reader.asked)
    assert total < 4 << 20, "read %d bytes of %d" % (total, big.stat().st_size)
    # Never the same block twice.
    assert len(set(reader.asked)) == len(reader.asked)
    reader.close()


def test_from_reader_with_a_function_and_the_corpus_file(tmp_path: Path) -> None:
    data = (CORPUS / "pdfium/testing/resources/annots.pdf").read_bytes()
    calls: List[tuple] = []

    def fetch(offset: int, length: int) -> bytes:
        calls.append((offset, length))
        return data[offset: offset + length]

    with quire.Document.from_reader(fetch, size=len(data)) as doc, quire.Document.from_bytes(data) as whole:
        assert [len(p.annotations) for p in doc.pages] == [len(p.annotations) for p in whole.pages]
        assert [a.contents for a in doc.pages[0].annotations] == [a.contents for a in whole.pages[0].annotations]
        # Saving to a path writes every byte, read through the function.
        target = tmp_path / "copy.pdf"
        doc.add_annotation(quire.Annotation.new("Square", 0, (1, 1, 9, 9)))
        doc.save(target)
    assert target.read_bytes()[: len(data)] == data
    with pytest.raises(TypeError):
        quire.Document.from_reader(fetch)  # a function needs size=
    with pytest.raises(TypeError):
        quire.Document.from_reader(42, size=3)  # type: ignore[arg-type]


def test_a_failing_reader_is_an_error_not_a_crash(big: Path) -> None:
    class Broken(Exception):
        pass

    def fail(offset: int, length: int) -> bytes:
        raise Broken("storage unavailable")

    with pytest.raises(quire.QuireIOError) as caught:
        quire.Document.from_reader(fail, size=1 << 20)
    assert isinstance(caught.value.__cause__, Broken)
    with pytest.raises(quire.QuireIOError):
        quire.Document.from_reader(lambda offset, length: b"short", size=1 << 20)

    # A reader that fails after the open: the objects it cannot give read as damage.
    data = big.read_bytes()
    state = {"fail": False}

    def flaky(offset: int, length: int) -> bytes:
        if state["fail"]:
            raise OSError("gone")
        return data[offset: offset + length]

    with quire.Document.from_reader(flaky, size=len(data)) as doc:
        state["fail"] = True
        try:
            for k in range(len(doc.pages)):
                doc.pages[k].annotations
        except quire.QuireError:
            pass
        # What could not be read is said, and read again once the reader recovers: an
        # object that failed is not remembered as null.
        assert any("read callback" in w for w in doc.warnings), doc.warnings
        state["fail"] = False
        with quire.Document(big) as whole:
            for number in range(1, 40):
                assert repr(doc.get_object(number)) == repr(whole.get_object(number))
