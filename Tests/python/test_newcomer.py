"""What a new user tripped over in 0.5 (issue 40), each as a test that failed before its fix:
filling a field whose name has '=', export and import from the command line, `quire
doctor` and `quire.build_info()`, a widget's author, thread depths, the checkpoint state
as an enum, `quire --help`'s --json, and progress and cancellation of the long operations
from Python (`progress=`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Callable, List, Tuple

import pytest

import quire

from conftest import REPO
from quire_testing.paths import QUIRE_CLI

CLI = QUIRE_CLI  # make's build/bin/quire, or $QUIRE_CLI
SAMPLE = REPO / "examples" / "sample.pdf"
TEXT_FORM = "pdfium/testing/resources/text_form_multiple.pdf"

needs_cli = pytest.mark.skipif(not CLI.exists(), reason="build/bin/quire is missing: run make")


def cli(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(CLI), *args], capture_output=True, input=input, timeout=120)


def form_with_a_name_that_has_equals(corpus: Callable[[str], Path], tmp_path: Path) -> Path:
    """text_form_multiple.pdf with its field "Text Box" renamed "Calculated5 Val=num*2": a
    name with a space and an '=', as a field of iText's held-out file has ("Calculated.5
    Val=num*2"; the dot, a separator of qualified names, is left out)."""
    import pikepdf

    out = tmp_path / "equals.pdf"
    with pikepdf.open(str(corpus(TEXT_FORM))) as pdf:
        for field in pdf.Root.AcroForm.Fields:
            if str(field.get("/T")) == "Text Box":
                field.T = pikepdf.String("Calculated5 Val=num*2")
        pdf.save(str(out))
    return out


# -- quire fill: a field whose name has '=' (defect 6) ---------------------------------------

@needs_cli
def test_fill_names_a_field_with_an_equals_sign(corpus: Callable[[str], Path], tmp_path: Path) -> None:
    src = form_with_a_name_that_has_equals(corpus, tmp_path)
    with quire.Document(str(src)) as doc:
        assert "Calculated5 Val=num*2" in [f.name for f in doc.fields]
    # NAME=VALUE splits at the first '=': it names a field "Calculated5 Val", which is not there.
    out = tmp_path / "positional.pdf"
    r = cli("fill", str(src), "Calculated5 Val=num*2=10", "-o", str(out))
    assert r.returncode == 1 and not out.exists()
    assert b"--field NAME --value V" in r.stderr, r.stderr  # and says how to name it
    # --field NAME --value V names it whole.
    out = tmp_path / "field.pdf"
    r = cli("fill", str(src), "--field", "Calculated5 Val=num*2", "--value", "10", "-o", str(out))
    assert r.returncode == 0, r.stderr
    with quire.Document(str(out)) as doc:
        assert doc.field("Calculated5 Val=num*2").value == "10"
    # --values FILE.json (and - for standard input): names to values.
    values = tmp_path / "values.json"
    values.write_text(json.dumps({"Calculated5 Val=num*2": "from JSON", "CharLimit": "abc"}))
    out = tmp_path / "json.pdf"
    r = cli("fill", str(src), "--values", str(values), "-o", str(out))
    assert r.returncode == 0, r.stderr
    with quire.Document(str(out)) as doc:
        assert doc.field("Calculated5 Val=num*2").value == "from JSON"
        assert doc.field("CharLimit").value == "abc"
    out = tmp_path / "stdin.pdf"
    r = cli("fill", str(src), "--values", "-", "-o", str(out), input=b'{"Calculated5 Val=num*2": 12}')
    assert r.returncode == 0, r.stderr
    with quire.Document(str(out)) as doc:
        assert doc.field("Calculated5 Val=num*2").value == "12"


@needs_cli
@pytest.mark.parametrize("args,message", [
    (["--field", "A"], "has no --value"),
    (["--value", "1"], "comes after no --field"),
    (["--values", "/nonexistent.json"], "/nonexistent.json"),
])
def test_fill_usage_errors(corpus: Callable[[str], Path], tmp_path: Path, args: List[str], message: str) -> None:
    r = cli("fill", str(corpus(TEXT_FORM)), *args, "-o", str(tmp_path / "o.pdf"))
    assert r.returncode in (1, 2)
    assert message in r.stderr.decode()


@needs_cli
def test_fill_values_that_are_not_an_object(corpus: Callable[[str], Path], tmp_path: Path) -> None:
    r = cli("fill", str(corpus(TEXT_FORM)), "--values", "-", "-o", str(tmp_path / "o.pdf"), input=b"[1, 2]")
    assert r.returncode == 1 and b"not a JSON object" in r.stderr


# -- quire export and quire import (expected and missing) -------------------------------------

@needs_cli
def test_export_pipes_json_into_a_parser_and_imports_back(tmp_path: Path) -> None:
    r = cli("export", str(SAMPLE))
    assert r.returncode == 0, r.stderr
    exported = json.loads(r.stdout)
    with quire.Document(str(SAMPLE)) as doc:
        assert exported == json.loads(doc.export_annotations_json())
        count = len(list(doc.annotations()))
    assert len(exported["annotations"]) == count
    # One page, and -o OUT.
    out = tmp_path / "page.json"
    assert cli("export", "--page", "1", "-o", str(out), str(SAMPLE)).returncode == 0
    assert json.loads(out.read_text())["quire"]["pageIndex"] == 0
    # Into a copy, from standard input, with a JSON report.
    target = tmp_path / "imported.pdf"
    r = cli("import", "--json", str(SAMPLE), "-", "-o", str(target), input=r.stdout)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["format"] == "json" and report["output"] == str(target) and report["imported"] == count
    with quire.Document(str(target)) as doc:
        assert len(list(doc.annotations())) == count


@needs_cli
def test_export_and_import_xfdf(tmp_path: Path) -> None:
    xfdf = tmp_path / "notes.xfdf"
    assert cli("export", "--format", "xfdf", "-o", str(xfdf), str(SAMPLE)).returncode == 0
    assert xfdf.read_text().startswith("<?xml")
    with quire.Document(str(SAMPLE)) as doc:
        assert xfdf.read_text() == doc.export_xfdf()
    target = tmp_path / "x.pdf"
    r = cli("import", "--json", str(SAMPLE), str(xfdf), "-o", str(target))   # the format from the bytes
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["format"] == "xfdf"
    # The import's warnings are in the report (the save that followed cleared them).
    refused = tmp_path / "refused.xfdf"
    refused.write_text('<?xml version="1.0"?><xfdf xmlns="http://ns.adobe.com/xfdf/"><fields>'
                       '<field name="NoSuchField"><value>x</value></field></fields></xfdf>')
    r = cli("import", "--json", str(SAMPLE), str(refused), "-o", str(tmp_path / "y.pdf"))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["warnings"] == ['XFDF: field "NoSuchField" not set: no field is named "NoSuchField"']


@needs_cli
def test_export_and_import_errors(tmp_path: Path) -> None:
    assert cli("export", "--format", "yaml", str(SAMPLE)).returncode == 2
    assert cli("export", "--format", "xfdf", "--page", "1", str(SAMPLE)).returncode == 2
    r = cli("export", "--page", "9", str(SAMPLE))
    assert r.returncode == 1 and b"QUIRE_ERANGE" in r.stderr
    assert cli("import", str(SAMPLE), "-").returncode == 2                    # no -o
    bad = tmp_path / "bad.json"
    bad.write_text('{"annotations": [{"type": "pspdfkit/nonsense"}]}')
    out = tmp_path / "never.pdf"
    r = cli("import", str(SAMPLE), str(bad), "-o", str(out))
    assert r.returncode == 1 and b"QUIRE_EFORMAT" in r.stderr and not out.exists()


# -- quire doctor and quire.build_info (expected and missing) --------------------------------

@needs_cli
def test_doctor_says_what_the_build_is() -> None:
    r = cli("doctor", "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["version"] == quire.version()
    assert info["soname"] == "libquire.so.%d.%d" % (quire.version_number() // 1000000, quire.version_number() // 1000 % 1000)
    assert set(info["features"]) == {"sync_service", "sync_client", "tls", "postgresql"}
    assert info["checkpoint_directory"].endswith("quire/checkpoints")
    text = cli("doctor").stdout.decode()
    assert "Checkpoint directory:" in text and "Features:" in text


def test_build_info_from_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    info = quire.build_info()
    assert info["version"] == quire.version()
    assert info["features"]["sync_service"] is True
    assert isinstance(info["features"]["sync_client"], bool)
    # The PostgreSQL store is the library's PostgreSQL flavour's (libquire-postgres), which
    # says so under its own soname.
    flavour = "libquire-postgres" in str(quire.library_path())
    assert info["features"]["postgresql"] is flavour
    assert info["soname"].startswith("libquire-postgres.so." if flavour else "libquire.so."), info["soname"]
    assert info["checkpoint_directory"] == str(tmp_path / "quire" / "checkpoints")
    assert info["environment"]["XDG_STATE_HOME"] == str(tmp_path)
    assert info["limits"]["max_pages"] == 1048575
    assert info["library_path"] == quire.library_path()


@needs_cli
def test_help_lists_every_command_that_takes_json() -> None:
    # Defect 7: quire --help said --json was for info and annots only.
    text = cli("--help").stdout.decode()
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("--json"))
    for command in ("fields", "text", "search", "import", "doctor"):
        usage = cli("help", command).stdout.decode().splitlines()[0]
        assert "--json" in usage, command
        assert command in text[text.index(line):text.index(line) + 400], command


# -- the API (defect 7) -----------------------------------------------------------------------

def test_a_widget_has_no_author(corpus: Callable[[str], Path]) -> None:
    # PDFium's text_form_multiple.pdf: widgets whose /T is the field's name ("Text Box").
    with quire.Document(str(corpus(TEXT_FORM))) as doc:
        widgets = [a for a in doc.annotations() if a.subtype == "Widget"]
        assert widgets and all(w.author is None for w in widgets)
        # Giving one an author would rename its field: refused.
        w = widgets[0]
        w.author = "Ada"
        with pytest.raises(quire.InvalidArgumentError, match="widget"):
            doc.update_annotation(w)
        assert [f.name for f in doc.fields][0] == "Text Box"


def test_threads_give_each_reply_its_depth(tmp_path: Path) -> None:
    with quire.Document(str(SAMPLE)) as doc:
        note = doc.add_annotation(quire.Annotation.new("Text", 0, (72, 700, 92, 720)))
        first = doc.add_reply(note, "Bob", "a reply")
        doc.add_reply(first, "Ada", "a reply to the reply")
        doc.add_reply(note, "Cy", "another reply")
        thread = next(t for t in doc.threads() if t.root.id == note.id)
        root, replies = thread                                   # still a (root, replies) pair
        assert root.id == note.id and len(replies) == 3
        assert [(r.contents, d) for r, d in thread.with_depth()] == [
            ("a reply", 1), ("a reply to the reply", 2), ("another reply", 1)]


def test_checkpoint_state_is_an_enum(tmp_path: Path) -> None:
    with quire.Document(str(SAMPLE)) as doc:
        info = doc.inspect_checkpoint(directory=str(tmp_path))
        assert info.state is quire.CheckpointState.NONE
        assert info.state == "none"                               # and still the string
        assert doc.start_checkpoints(directory=str(tmp_path), existing=quire.CheckpointExisting.LOAD) is False
        doc.add_annotation(quire.Annotation.new("Text", 0, (72, 700, 92, 720)))
        doc.checkpoint()
        doc.stop_checkpoints()
    with quire.Document(str(SAMPLE)) as doc:
        info = doc.inspect_checkpoint(directory=str(tmp_path))
        assert info.state is quire.CheckpointState.CHANGES
        with pytest.raises(quire.ExistsError):
            doc.start_checkpoints(directory=str(tmp_path), existing=quire.CheckpointExisting.REFUSE)
        assert doc.start_checkpoints(directory=str(tmp_path), existing="discard") is False
        with pytest.raises(quire.InvalidArgumentError):
            doc.start_checkpoints(directory=str(tmp_path), existing="bogus")


# -- progress= on every long operation (expected and missing) --------------------------------

class Recorder:
    """A progress callback that records (done, total) and cancels at call `cancel_at`."""

    def __init__(self, cancel_at: int = 0) -> None:
        self.calls: List[Tuple[int, int]] = []
        self.cancel_at = cancel_at

    def __call__(self, done: int, total: int) -> bool:
        self.calls.append((done, total))
        return 0 < self.cancel_at <= len(self.calls)

    def check_complete(self) -> None:
        assert self.calls, "never called"
        totals = {t for _, t in self.calls}
        assert len(totals) == 1, totals
        dones = [d for d, _ in self.calls]
        assert dones == sorted(dones) and dones[-1] == self.calls[-1][1]


def test_progress_and_cancel_of_flatten() -> None:
    with quire.Document(str(SAMPLE)) as doc:
        before = [p.annotation_count for p in doc.pages]
        with pytest.raises(quire.UserAbortError):
            doc.flatten(progress=Recorder(cancel_at=2))
        assert [p.annotation_count for p in doc.pages] == before and not doc.has_unsaved_changes
        recorder = Recorder()
        assert doc.flatten(progress=recorder) > 0
        recorder.check_complete()
        assert recorder.calls[-1] == (2, 2)


def test_progress_and_cancel_of_json_and_xfdf() -> None:
    with quire.Document(str(SAMPLE)) as doc:
        recorder = Recorder()
        text = doc.export_annotations_json(progress=recorder)
        recorder.check_complete()
        assert json.loads(text) == json.loads(doc.export_annotations_json())
        with pytest.raises(quire.UserAbortError):
            doc.export_xfdf(progress=Recorder(cancel_at=1))
        recorder = Recorder()
        xfdf = doc.export_xfdf(progress=recorder)
        recorder.check_complete()
    with quire.Document(str(SAMPLE)) as fresh:
        note = quire.Annotation.new("Text", 0, (72, 700, 92, 720))
        note.name = "newcomer-note"
        fresh.add_annotation(note)
        exported = fresh.export_annotations_json()
    with quire.Document(str(SAMPLE)) as doc:
        count = len(list(doc.annotations()))
        with pytest.raises(quire.UserAbortError):
            doc.import_annotations_json(exported, progress=Recorder(cancel_at=3))
        assert len(list(doc.annotations())) == count and not doc.has_unsaved_changes
        recorder = Recorder()
        doc.import_annotations_json(exported, progress=recorder)
        recorder.check_complete()
        assert len(list(doc.annotations())) == count + 1
        recorder = Recorder()
        doc.import_xfdf(xfdf, progress=recorder)
        recorder.check_complete()


def test_an_exception_in_progress_cancels_and_is_chained() -> None:
    def boom(done: int, total: int) -> None:
        raise RuntimeError("stop here")

    with quire.Document(str(SAMPLE)) as doc:
        with pytest.raises(quire.UserAbortError) as caught:
            doc.search("e", progress=boom)
        assert isinstance(caught.value.__cause__, RuntimeError)


def test_progress_of_search_and_text() -> None:
    with quire.Document(str(SAMPLE)) as doc:
        recorder = Recorder()
        matches = doc.search("e", progress=recorder)
        recorder.check_complete()
        assert recorder.calls[-1] == (2, 2)
        assert [m.text for m in matches] == [m.text for m in doc.search("e")]
        recorder = Recorder()
        text = doc.text(progress=recorder)
        recorder.check_complete()
        pages = text.split("\f")
        assert pages[-1] == "" and pages[:-1] == [p.text for p in doc.pages]
        with pytest.raises(quire.UserAbortError):
            doc.text(progress=Recorder(cancel_at=1))


def test_whole_document_search_and_text_skip_missing_pages(corpus: Callable[[str], Path]) -> None:
    # The root's /Count says 3 over a tree of one page: the whole document's search covers
    # the page that exists (it failed with NotFoundError on page 2), and the text has three
    # pages, the missing two empty.
    with quire.Document(str(corpus("pdfium/testing/resources/unsupported_feature.pdf"))) as doc:
        assert doc.page_count == 3
        assert doc.search("a") == []
        assert doc.text().split("\f") == [doc.pages[0].text, "", "", ""]


def test_enumerations_print_by_name() -> None:
    # Python 3.11 made str() of an IntEnum its number: print(d.state) printed 9217.
    assert str(quire.SyncState.CLEAN) == "SyncState.CLEAN" and f"{quire.SyncState.CLEAN}" == "SyncState.CLEAN"
    assert quire.SyncState.CLEAN == int(quire.SyncState.CLEAN) and "%d" % quire.SyncState.CLEAN == str(int(quire.SyncState.CLEAN))
    assert str(quire.Tool.SQUARE) == "Tool.SQUARE"
    flags = quire.Permissions.PRINT | quire.Permissions.MODIFY
    assert "PRINT" in str(flags) and "MODIFY" in str(flags) and int(flags) == int(quire.Permissions.PRINT) | int(quire.Permissions.MODIFY)
