"""What ``import quire`` and the library cost a process in memory (issue 17: peak memory
within 20% of the best peer's on every workload; bench/PROFILE.md, "Memory").

Nothing here is timed. The tests check the causes that were measured and removed, so that
they do not come back unnoticed:

- ``import quire`` imports neither what only some features need (bookmarks, the sync
  client and service, the tools: dataclasses, inspect, ast, dis, tokenize), nor
  ctypes.util (subprocess, selectors, signal) or decimal; checked in a fresh interpreter
  without site (``-S``: this machine's site imports certifi, zipfile and tempfile), by
  the modules the import adds;
- the names imported when first used are the same objects as before, and ``dir(quire)``
  and ``from quire import *`` still list and give every one of them;
- the library's hot code is packed at the start of its .text (the link order of
  quire.order, scripts/symbol_order.py): the functions most workloads run lie in its
  first fifth.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import quire
from conftest import REPO

#: Modules ``import quire`` must not import (each was measured: bench/PROFILE.md).
NOT_AT_IMPORT = [
    "subprocess", "selectors", "ctypes.util",      # ctypes.util: 0.6 MB
    "dataclasses", "inspect", "ast", "dis", "tokenize",  # dataclasses: 0.95 MB
    "decimal", "_decimal",                          # 0.3 MB
    "quire._bookmarks", "quire._client", "quire._sync", "quire._tools", "quire._signatures",
]

#: The names that stay out of the import until first used, and their modules.
LAZY = {
    "BUILTIN_PROVIDER": "quire._bookmarks", "Bookmark": "quire._bookmarks", "BookmarkKind": "quire._bookmarks",
    "BookmarkManager": "quire._bookmarks", "BookmarkProvider": "quire._bookmarks",
    "BookmarkSortOrder": "quire._bookmarks", "SyncService": "quire._sync", "Client": "quire._client",
    "Descriptor": "quire._client", "SyncEvent": "quire._client", "SyncEventType": "quire._client",
    "SyncState": "quire._client", "CustomTool": "quire._tools", "HitKind": "quire._tools",
    "PointerEvent": "quire._tools", "PointerKind": "quire._tools", "Tool": "quire._tools",
    "ToolEvent": "quire._tools", "ToolEventKind": "quire._tools", "ToolManager": "quire._tools",
    "device_to_page": "quire._tools", "hit_test": "quire._tools", "hit_test_text": "quire._tools",
    "page_to_device": "quire._tools", "ToolStyle": "quire._tools", "ToolPreview": "quire._tools",
    "PreviewKind": "quire._tools", "SelectionMode": "quire._tools",
}


def child(code: str) -> str:
    """Runs ``code`` in a fresh interpreter without site, with the package under test on
    its path; returns what it printed."""
    package_dir = str(Path(quire.__file__).resolve().parent.parent)
    prelude = "import sys; sys.path.insert(0, %r); " % package_dir
    done = subprocess.run([sys.executable, "-S", "-c", prelude + code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_leaves_out_what_only_some_features_need():
    out = child("before = set(sys.modules); import quire, json; "
                "print(json.dumps(sorted(set(sys.modules) - before)))")
    added = set(json.loads(out.splitlines()[-1]))
    assert "quire._document" in added and "quire._raw" in added  # the check sees the import
    assert sorted(set(NOT_AT_IMPORT) & added) == []


def test_lazy_names_load_on_first_use_and_are_the_same_objects():
    out = child("import quire, json; "
                "loaded = {m: m in sys.modules for m in %r}; "
                "import importlib; "
                "same = {n: getattr(quire, n) is getattr(importlib.import_module(m), n) for n, m in %r.items()}; "
                "print(json.dumps([loaded, same]))" % (sorted(set(LAZY.values())), LAZY))
    loaded, same = json.loads(out.splitlines()[-1])
    assert not any(loaded.values()), loaded
    assert all(same.values()), same


def test_dir_and_star_import_list_every_name():
    names = set(dir(quire))
    assert set(quire.__all__) <= names
    assert set(LAZY) <= names
    assert {"_bookmarks", "_client", "_sync", "_tools", "_raw", "_document"} <= names
    assert not {"_typing", "_LAZY", "_LAZY_NAMES", "TYPE_CHECKING", "Any", "List"} & names
    out = child("from quire import *; import quire as q; print(all(globals()[n] is getattr(q, n) for n in q.__all__))")
    assert out.strip().splitlines()[-1] == "True"
    with pytest.raises(AttributeError):
        quire.NoSuchName  # noqa: B018 - the module's __getattr__ still says so


def test_bookmarks_work_without_importing_the_module_first():
    sample = REPO / "examples" / "sample.pdf"
    if not sample.exists():
        pytest.skip("examples/sample.pdf is missing")
    out = child("import quire; doc = quire.Document(%r); manager = doc.bookmarks; "
                "manager.add(quire.Bookmark.for_page(0, 'first')); "
                "print(type(manager).__module__, [b.name for b in manager])" % str(sample))
    assert out.strip().splitlines()[-1] == "quire._bookmarks ['first']"


def test_reals_are_written_as_before_the_lazy_decimal():
    # Decimal is imported only for numbers whose repr has an exponent.
    assert quire.unparse(1e20) == b"100000000000000000000.0"
    assert quire.unparse(1e-7) == b"0.0000001"
    assert quire.unparse(1.5e-300).startswith(b"0.000")
    assert quire.unparse(0.1) == b"0.1"
    assert quire.unparse(123456.75) == b"123456.75"
    assert quire.unparse(2.0) == b"2.0"


def test_hot_code_is_packed_at_the_start_of_text():
    """The link order of quire.order is applied: the 200 functions that most workloads run
    (the load and the open lead the file) lie in the first fifth of .text, and the C entry
    point of an open in the first quarter. Without the order they were spread up to 17 MB
    into its 22 MB."""
    library = Path(quire.library_path())
    order = REPO / "quire.order"
    if shutil.which("nm") is None or shutil.which("readelf") is None:
        pytest.skip("nm and readelf (binutils) are needed")
    if not order.exists():
        pytest.skip("quire.order is missing")
    sections = subprocess.run(["readelf", "-SW", str(library)], capture_output=True, text=True, check=True).stdout
    fields = next(line for line in sections.splitlines() if re.search(r"\]\s+\.text\s", line)).split("]", 1)[1].split()
    start, size = int(fields[2], 16), int(fields[4], 16)
    symbols = subprocess.run(["nm", "--defined-only", str(library)], capture_output=True, text=True, check=True).stdout
    where = {}
    for line in symbols.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            where.setdefault(parts[2], int(parts[0], 16) - start)
    hot = [s for s in order.read_text().splitlines() if s and not s.startswith("#")][:200]
    placed = {s: where[s] for s in hot if s in where}
    assert len(placed) > 150, "quire.order names functions this library does not have: run scripts/symbol_order.py"
    far = {s: "%.1f MB" % (offset / 2**20) for s, offset in placed.items() if offset >= size // 5}
    assert far == {}, "hot functions past the first fifth of .text (%.1f MB): is quire.order applied? %s" % (size / 2**20, far)
    assert where["quire_document_open"] < size // 4


def test_relocation_table_is_not_resident_after_load():
    """The loader reads the 2 MB table of relative relocations once; the library's
    constructor (Sources/CQuireLoad/quire_load.c) gives its pages back. Read in a fresh
    process from /proc/self/pagemap: which pages of the table's mapping are present."""
    library = Path(quire.library_path()).resolve()
    if shutil.which("readelf") is None:
        pytest.skip("readelf (binutils) is needed")
    sections = subprocess.run(["readelf", "-SW", str(library)], capture_output=True, text=True, check=True).stdout
    line = next((ln for ln in sections.splitlines() if re.search(r"\]\s+\.rela\.dyn\s", ln)), None)
    if line is None:
        pytest.skip("the library has no .rela.dyn")
    fields = line.split("]", 1)[1].split()
    offset, size = int(fields[3], 16), int(fields[4], 16)
    assert size > 1 << 20  # what the constructor is for: else this test says nothing
    code = (
        "import quire, struct\n"
        "path = quire.library_path()\n"
        "import os; path = os.path.realpath(path)\n"
        "offset, size = %d, %d\n"
        "present = total = 0\n"
        "for line in open('/proc/self/maps'):\n"
        "    p = line.split()\n"
        "    if len(p) < 6 or os.path.realpath(p[5]) != path: continue\n"
        "    a, b = (int(x, 16) for x in p[0].split('-')); off = int(p[2], 16)\n"
        "    lo, hi = max(a, a + offset - off), min(b, a + offset + size - off)\n"
        "    lo = (lo + 4095) & ~4095; hi &= ~4095\n"
        "    if hi <= lo: continue\n"
        "    with open('/proc/self/pagemap', 'rb') as f:\n"
        "        f.seek((lo >> 12) * 8); data = f.read(((hi - lo) >> 12) * 8)\n"
        "    for (v,) in struct.iter_unpack('<Q', data):\n"
        "        total += 1; present += v >> 63\n"
        "print(present, total)\n" % (offset, size)
    )
    present, total = (int(x) for x in child(code).split()[-2:])
    assert total >= (size >> 12) - 2
    assert present <= total // 20, "%d of the %d pages of .rela.dyn are resident after import" % (present, total)


def test_save_to_an_io_file_writes_the_same_bytes_without_copies(tmp_path: Path):
    """A file that open() returned is given the library's bytes in place (a memoryview,
    no copy of each piece); any other writer gets bytes it may keep. Both give the same
    file, full and incremental."""
    sample = REPO / "examples" / "sample.pdf"
    if not sample.exists():
        pytest.skip("examples/sample.pdf is missing")
    kept = []

    class Keeper:
        def write(self, piece):
            kept.append(piece)  # keeps every piece: they must be its own
            return len(piece)

    for full in (False, True):
        with quire.Document(str(sample)) as doc:
            doc.add_annotation(quire.Annotation.new("Square", 0, (10, 10, 50, 50)))
            out = tmp_path / ("out-%s.pdf" % full)
            with open(out, "wb") as f:
                doc.save(f, full=full)
            with open(out, "r+b") as f:  # BufferedRandom
                doc.save(f, full=full)
            kept.clear()
            doc.save(Keeper(), full=full)
            assert all(type(piece) is bytes for piece in kept)
            assert out.read_bytes() == b"".join(kept)
            with quire.Document(str(out)) as again:
                assert again.page_count == doc.page_count
