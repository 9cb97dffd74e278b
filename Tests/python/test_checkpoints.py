"""Checkpoints from Python: strategies, recovery, locks, stale checkpoints, a checkpoint
with every kind of record, and the crash test (a child making every kind of change,
killed with SIGKILL at random moments, 200 times)."""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

import quire
from pdfpeers import PeerMissing, qpdf_check
from quire_testing.peers import peer
from quire_testing.library import child_env

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import checkpoint_crash  # noqa: E402  (the fingerprint and the random-kill test)


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
        assert reopened.start_checkpoints(directory=cp, existing="load") is True
        assert reopened.has_unsaved_changes
        assert notes(reopened) == ["note 1"]
        assert [b.name for b in reopened.bookmarks] == ["kept"]
        reopened.save(pdf)
        assert not reopened.has_unsaved_changes
    with quire.Document(pdf) as saved:
        assert saved.start_checkpoints(directory=cp, existing="load") is False
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
            doc.start_checkpoints(directory=cp, existing="load")
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
        assert again.start_checkpoints(directory=cp, uid="from-memory", existing="load")
        assert notes(again) == ["note memory", "note other"]
    with pytest.raises(quire.InvalidArgumentError):
        quire.Document(data).start_checkpoints("sometimes", directory=cp, uid="x")
    # The older load= still works, and says it is deprecated.
    with quire.Document(data) as old, pytest.warns(DeprecationWarning, match="existing="):
        assert old.start_checkpoints(directory=cp, uid="from-memory", load=True)


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
    # The package and library under test, wherever they came from (Tests/support).
    env = child_env()

    def run(*flags: str) -> str:
        result = subprocess.run([sys.executable, str(script), str(pdf), "--directory", str(tmp_path / "cp"), *flags],
                                env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout

    first = run("--crash")
    assert "recovered unsaved changes: no" in first and "checkpoint found: none" in first
    second = run("--crash")
    assert "recovered unsaved changes: yes" in second and "notes on page 1: 1" in second
    assert "checkpoint found: changes" in second
    # The example teaches the API the README does (issue 40: it used the old existing="load").
    source = script.read_text()
    assert "load=True" not in source and "existing=quire.CheckpointExisting.LOAD" in source
    third = run("--save")
    assert "notes on page 1: 2" in third and "saved" in third
    fourth = run()
    assert "recovered unsaved changes: no" in fourth and "notes on page 1: 3" in fourth


def journal_records(path: str) -> List[str]:
    """The kinds of the whole records of a checkpoint file (the first byte of each payload:
    H header, S set, D delete, G group commit, V save marker, E sealed)."""
    data = Path(path).read_bytes()
    assert data.startswith(b"QUIRECKP1\n")
    kinds = []
    offset = 10
    while offset + 8 <= len(data):
        length, crc = struct.unpack_from("<II", data, offset)
        payload = data[offset + 8:offset + 8 + length]
        if len(payload) < length or zlib.crc32(payload) != crc:
            break
        kinds.append(chr(payload[0]))
        offset += 8 + length
    return kinds


def make_source(tmp_path: Path, sample_pdf: Path, kind: str) -> Tuple[Path, Optional[str]]:
    """`sample_pdf` as a file of `kind` (plain, aes256, rc4, memory), and its password."""
    memory, encryption = checkpoint_crash.KINDS[kind]
    target = tmp_path / "doc.pdf"
    if encryption is None:
        shutil.copyfile(sample_pdf, target)
        return target, None
    if not shutil.which("qpdf"):
        peer("pikepdf", why="neither qpdf nor pikepdf to make an encrypted file with")
    checkpoint_crash.encrypt(sample_pdf, target, encryption)
    return target, checkpoint_crash.USER_PASSWORD


def named(doc: quire.Document, name: str) -> quire.Annotation:
    """The annotation whose /NM is `name` (object numbers differ in the encrypted copies)."""
    return next(a for page in doc.pages for a in page.annotations if a.name == name)


def every_kind_of_change(doc: quire.Document, tmp_path: Path) -> None:
    """Changes that write every kind of journal record: objects and streams set (S),
    objects deleted (D), one group per operation (G), and a save marker (V) from a save
    that failed after writing it (the target is a directory), with changes after it."""
    note = quire.Annotation.new("Square", 0, (100, 100, 180, 150))
    note.name, note.contents, note.author, note.color = "rt-square", "every record", "Ada", (1, 0, 0)
    doc.add_annotation(note)
    ink = quire.Annotation.new("Ink", 1, (50, 50, 150, 150))
    ink.name, ink.ink = "rt-ink", [[50, 50, 100, 150, 150, 50]]
    doc.add_annotation(ink)
    mark = quire.Annotation.new("Highlight", 0, (293, 530, 349, 542))
    mark.name, mark.quad_points = "rt-mark", [293, 542, 349, 542, 293, 530, 349, 530]
    doc.add_annotation(mark)
    doc.add_reply(note, "Bob", "a reply")
    doc.add_state_reply(note, "Bob", "Review", "Accepted")
    note.contents = "updated"
    doc.update_annotation(note)
    doc.import_annotations_json(json.dumps({"annotations": [
        {"v": 1, "type": "pspdfkit/note", "id": "rt-json", "pageIndex": 0, "bbox": [300, 100, 20, 20],
         "text": "from JSON", "createdAt": "2026-01-02T03:04:05Z"},
        {"v": 1, "type": "pspdfkit/shape/rectangle", "id": "rt-square", "pageIndex": 0, "bbox": [90, 600, 90, 40],
         "note": "updated by JSON", "strokeColor": "#00ff00", "createdAt": "2026-01-02T03:04:05Z"},
        {"v": 1, "type": "pspdfkit/note", "id": "rt-json-reply", "pageIndex": 0, "bbox": [320, 100, 20, 20],
         "text": "a JSON reply", "quire": {"inReplyTo": "rt-json"}}]}))
    first = quire.Bookmark.for_page(1, name="first")
    doc.bookmarks.add(first)
    doc.bookmarks.add(quire.Bookmark.for_uri("https://example.com", name="second"))
    doc.bookmarks.move(first, 1)
    doc.bookmarks.add(first.replace(name="first, renamed"))
    registry = doc.add_object({"Type": quire.Name("Registry")})
    doc.set_dict_value(doc.trailer["Root"], checkpoint_crash.REGISTRY_KEY, registry)
    small = doc.add_stream({"Filter": quire.Name("FlateDecode")}, zlib.compress(b"a small stream\n" * 50))
    big = doc.add_stream({"Type": quire.Name("Big")}, random.Random(1).randbytes(300_000))
    value = doc.add_object({"N": 1, "S": quire.String(b"text"), "A": [1, 2.5, quire.Name("X"), None]})
    gone = doc.add_object([quire.String(b"deleted later")])
    for key, ref in (("small", small), ("big", big), ("value", value), ("gone", gone)):
        doc.set_dict_value(registry, key, ref)
    doc.set_dict_value(value, "N", 2)
    doc.delete_object(gone)  # a new object deleted
    doc.delete_annotation(named(doc, "Highlight-With-Popup-1"))  # of the file, with its popup
    doc.delete_annotation(ink)  # a new annotation deleted
    (tmp_path / "a directory").mkdir(exist_ok=True)
    with pytest.raises(quire.QuireError):
        doc.save(tmp_path / "a directory")  # the save marker is written, the rename fails
    doc.set_object(value, {"N": 3})
    doc.delete_annotation(mark)
    doc.bookmarks.remove(first)
    late = quire.Annotation.new("FreeText", 0, (200, 200, 300, 240))
    late.name, late.contents = "rt-late", "after the failed save"
    doc.add_annotation(late)


@pytest.mark.parametrize("strategy", ["immediate", "manual", "timed"])
@pytest.mark.parametrize("kind", ["plain", "aes256", "rc4", "memory"])
def test_a_checkpoint_with_every_record_type_loads(tmp_path: Path, sample_pdf: Path, kind: str, strategy: str):
    """A checkpoint this version writes, holding every kind of record (set object, set
    stream, delete, group commit, save marker; sealed for encrypted files), is applied
    whole after the document is closed unsaved: the reopened document equals the one
    that was closed."""
    path, password = make_source(tmp_path, sample_pdf, kind)
    memory = checkpoint_crash.KINDS[kind][0]
    uid = "every-record" if memory else None
    cp = tmp_path / "cp"

    def open_doc() -> quire.Document:
        return quire.Document(path.read_bytes() if memory else path, password)

    doc = open_doc()
    doc.start_checkpoints(strategy, interval=0.05, directory=cp, uid=uid)
    every_kind_of_change(doc, tmp_path)
    if strategy == "manual":
        doc.checkpoint()
        extra = quire.Annotation.new("Text", 1, (10, 10, 30, 30))
        extra.name, extra.contents = "rt-async", "written by an asynchronous checkpoint"
        doc.add_annotation(extra)
        done = threading.Event()
        statuses: List[int] = []
        doc.checkpoint(wait=False, done=lambda status: (statuses.append(status), done.set()))
        assert done.wait(30) and statuses == [0]
    expected = checkpoint_crash.describe(doc)
    journal = doc.checkpoint_path
    doc.close()  # unsaved (the timed strategy writes what is pending on close)

    kinds = journal_records(journal)
    assert kinds[0] == "H"
    if password:
        assert set(kinds[1:]) == {"E"}, "every record but the header is sealed"
    else:
        assert {"S", "D", "G", "V"} <= set(kinds), kinds
    with open_doc() as reopened:
        assert reopened.start_checkpoints(directory=cp, uid=uid, existing="load") is True
        assert checkpoint_crash.describe(reopened) == expected
        saved = tmp_path / "saved.pdf"
        reopened.save(saved)
    with quire.Document(saved, password) as again:
        assert checkpoint_crash.describe(again) == expected
    try:
        status, output = qpdf_check(saved, password)
        assert status in (0, 3), output
    except PeerMissing:
        pass


@pytest.mark.parametrize("kind", ["plain", "aes256"])
def test_a_compacted_checkpoint_loads(tmp_path: Path, sample_pdf: Path, kind: str):
    """Big streams rewritten until the background compaction replaces the journal, then
    more changes (deletions among them): the compacted journal, and what was appended to
    it, load whole."""
    path, password = make_source(tmp_path, sample_pdf, kind)
    cp = tmp_path / "cp"
    doc = quire.Document(path, password)
    doc.start_checkpoints("immediate", directory=cp)
    journal = Path(doc.checkpoint_path)
    registry = doc.add_object({"Type": quire.Name("Registry")})
    doc.set_dict_value(doc.trailer["Root"], checkpoint_crash.REGISTRY_KEY, registry)
    rng = random.Random(2)
    previous = None
    compacted = False
    largest = 0
    for i in range(60):
        blob = doc.add_stream({"Seq": i}, rng.randbytes(150_000))
        doc.set_dict_value(registry, "big", blob)
        if previous is not None:
            doc.delete_object(previous)
        previous = blob
        note = quire.Annotation.new("Text", 0, (10 + i, 10, 30 + i, 30))
        note.name = "c-%d" % i
        doc.add_annotation(note)
        if i % 3 == 0:
            doc.delete_annotation(note)
        size = journal.stat().st_size
        if size < largest:
            compacted = True
            if i > 30:
                break
        largest = max(largest, size)
    assert compacted, "the journal never shrank: no compaction"
    doc.set_dict_value(registry, "after", quire.String(b"after the compaction"))
    doc.delete_annotation(named(doc, "Highlight-1"))
    expected = checkpoint_crash.describe(doc)
    doc.close()
    if not password:
        assert "D" in journal_records(str(journal))
    with quire.Document(path, password) as reopened:
        assert reopened.start_checkpoints(directory=cp, existing="load") is True
        assert checkpoint_crash.describe(reopened) == expected


def test_crash_test_200_trials(tmp_path: Path, sample_pdf: Path):
    """The random-kill test (checkpoint_crash.py): 200 trials over every strategy and file
    kind, with every kind of change that reaches the journal. After each SIGKILL the
    document and its checkpoint load, the state is the one after the last acknowledged
    (durable) operation or a later one up to the operation in flight, and qpdf --check
    passes."""
    seed = int(os.environ.get("QUIRE_CRASH_SEED", "20261121"))
    # With the expected states described, so that a failure says how the state differs.
    result = checkpoint_crash.run(200, seed, sample_pdf, tmp_path, stop_after=5, debug=True)
    report = "seed %d (QUIRE_CRASH_SEED=%d to repeat)\n%s\n%s" % (seed, seed, result.summary(), "\n".join(result.failures))
    print(report)
    assert result.failures == [], report
    assert result.trials == 200, report
    assert (result.lost, result.unloadable, result.wrong) == (0, 0, 0), report
    # The trials covered what they should: every strategy and file kind, kills inside
    # operations and saves, compactions, and every kind of change acknowledged.
    kinds = [k for k in checkpoint_crash.KINDS if shutil.which("qpdf") or not checkpoint_crash.KINDS[k][1]]
    for strategy in checkpoint_crash.STRATEGIES:
        for kind in kinds:
            assert result.trials_by[(strategy, kind)] > 0, (strategy, kind)
    assert result.killed_in_flight > 0 and result.killed_during_save > 0, report
    assert result.compactions > 0, report
    done = {op.split(":")[0] for (_, _, op) in result.ops}
    wanted = {"annot_add", "annot_update", "annot_delete", "reply", "state_reply", "json_import", "bm_add",
              "bm_rename", "bm_move", "bm_remove", "obj_add", "obj_register", "obj_set", "obj_setkey", "obj_delete",
              "blob_add", "blob_free", "save", "save_full", "save_as", "save_file"}
    assert wanted <= done, "never acknowledged: %s" % sorted(wanted - done)
