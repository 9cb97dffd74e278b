"""Sound, Screen and RichMedia annotations (issue 39): read and kept, not created.

Quire reads them as generic annotations and keeps every entry it does not model: the
sound samples, a Screen's rendition action with its embedded movie, rich media's assets.
These tests make such a page with pikepdf, then edit around the annotations, save, carry
the page to another document, and round-trip the annotation JSON and XFDF, checking with
pikepdf, qpdf and PDFium that the media is still there, byte for byte.
"""

from __future__ import annotations

import io
import json
import subprocess
from typing import Any, Dict, List

import pytest

import quire
from test_annotation_styles import blank_pdf

pikepdf = pytest.importorskip("pikepdf")

SOUND = bytes((i * 37) % 256 for i in range(4000))
MOVIE = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8
FLASH = b"FWS\x0a" + bytes(range(200))
MEDIA = ("Sound", "Screen", "RichMedia")


def embedded_file(name: str, stream: Any) -> Any:
    """A file specification of `name` whose embedded file is `stream`."""
    from pikepdf import Dictionary, Name, String

    return Dictionary(Type=Name.Filespec, F=String(name), UF=String(name), EF=Dictionary(F=stream))


def media_pdf() -> bytes:
    """One page with a Sound (its samples in /Sound), a Screen (a rendition action playing
    an embedded MP4, and an appearance), a RichMedia annotation (an embedded asset), a
    Square and a Link whose action (ResetForm) the annotation JSON cannot carry."""
    from pikepdf import Array, Dictionary, Name, Stream, String

    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(612, 792))
    page = pdf.pages[0]
    sound = pdf.make_indirect(
        Dictionary(
            Type=Name.Annot,
            Subtype=Name.Sound,
            Rect=[50, 700, 70, 720],
            Sound=Stream(pdf, SOUND, Type=Name.Sound, R=8000, C=1, B=8, E=Name.Raw),
            Name=Name.Speaker,
            Contents=String("a sound"),
            NM=String("sound-1"),
        )
    )
    movie = Stream(pdf, MOVIE, Type=Name.EmbeddedFile, Subtype=Name("/video#2fmp4"))
    clip = Dictionary(
        Type=Name.MediaClip,
        S=Name.MCD,
        CT=String("video/mp4"),
        N=String("clip"),
        D=embedded_file("clip.mp4", movie),
    )
    appearance = Stream(pdf, b"0 0 1 rg 0 0 200 100 re f", Type=Name.XObject, Subtype=Name.Form, BBox=[0, 0, 200, 100])
    screen = pdf.make_indirect(
        Dictionary(
            Type=Name.Annot,
            Subtype=Name.Screen,
            Rect=[100, 500, 300, 600],
            T=String("a screen"),
            NM=String("screen-1"),
            AP=Dictionary(N=appearance),
        )
    )
    screen.A = Dictionary(
        Type=Name.Action,
        S=Name.Rendition,
        OP=0,
        R=Dictionary(Type=Name.Rendition, S=Name.MR, C=clip, N=String("rendition")),
        AN=screen,
    )
    asset = embedded_file("movie.swf", Stream(pdf, FLASH, Type=Name.EmbeddedFile))
    rich = pdf.make_indirect(
        Dictionary(
            Type=Name.Annot,
            Subtype=Name.RichMedia,
            Rect=[100, 300, 300, 400],
            NM=String("rich-1"),
            RichMediaContent=Dictionary(
                Type=Name.RichMediaContent,
                Assets=Dictionary(Names=Array([String("movie.swf"), asset])),
                Configurations=Array(
                    [
                        Dictionary(
                            Type=Name.RichMediaConfiguration,
                            Subtype=Name.Flash,
                            Instances=Array([Dictionary(Type=Name.RichMediaInstance, Subtype=Name.Flash, Asset=asset)]),
                        )
                    ]
                ),
            ),
            RichMediaSettings=Dictionary(Type=Name.RichMediaSettings, Activation=Dictionary(Condition=Name.XA)),
        )
    )
    square = pdf.make_indirect(
        Dictionary(
            Type=Name.Annot,
            Subtype=Name.Square,
            Rect=[400, 100, 500, 200],
            C=[1, 0, 0],
            NM=String("square-1"),
            Contents=String("a square"),
        )
    )
    link = pdf.make_indirect(
        Dictionary(
            Type=Name.Annot,
            Subtype=Name.Link,
            Rect=[400, 600, 500, 620],
            NM=String("link-1"),
            A=Dictionary(S=Name.ResetForm),
        )
    )
    page.obj.Annots = pdf.make_indirect(Array([sound, screen, rich, square, link]))
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def media_of(data: bytes, page: int = 0) -> Dict[str, Any]:
    """What the media annotations of `page` hold, read by pikepdf: each one's subtype and
    its media bytes, and the entries of each media annotation (but /P, which an import
    writes) as a comparable value."""
    found: Dict[str, Any] = {}
    with pikepdf.open(io.BytesIO(data)) as pdf:
        for a in pdf.pages[page].obj.get("/Annots", []):
            subtype = str(a.get("/Subtype"))[1:]
            if subtype == "Sound":
                found["Sound"] = a.Sound.read_bytes()
            elif subtype == "Screen":
                found["Screen"] = a.A.R.C.D.EF.F.read_bytes()
                found["Screen action"] = (str(a.A.S), str(a.A.R.C.CT))
                found["Screen AN is itself"] = a.A.AN.objgen == a.objgen
            elif subtype == "RichMedia":
                found["RichMedia"] = a.RichMediaContent.Assets.Names[1].EF.F.read_bytes()
            elif subtype == "Link":
                found["Link action"] = str(a.A.S)
            if subtype in MEDIA + ("Link",):
                found[subtype + " entries"] = {
                    str(k): repr(v) for k, v in a.items() if k not in ("/P", "/A", "/Sound", "/RichMediaContent", "/AP")
                }
    return found


EXPECTED = {
    "Sound": SOUND,
    "Screen": MOVIE,
    "Screen action": ("/Rendition", "video/mp4"),
    "Screen AN is itself": True,
    "RichMedia": FLASH,
    "Link action": "/ResetForm",
}


def assert_media_kept(data: bytes, page: int = 0) -> Dict[str, Any]:
    found = media_of(data, page)
    for key, value in EXPECTED.items():
        assert found.get(key) == value, key
    return found


def qpdf_check(data: bytes, tmp_path) -> None:
    path = tmp_path / "checked.pdf"
    path.write_bytes(data)
    result = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def pdfium_subtypes(data: bytes, page: int = 0) -> List[str]:
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    document = pdfium.PdfDocument(data)
    try:
        pdf_page = document[page]  # kept alive while its raw handle is used
        handle = pdf_page.raw
        names = {
            raw.FPDF_ANNOT_SOUND: "Sound",
            raw.FPDF_ANNOT_SCREEN: "Screen",
            raw.FPDF_ANNOT_RICHMEDIA: "RichMedia",
            raw.FPDF_ANNOT_SQUARE: "Square",
            raw.FPDF_ANNOT_LINK: "Link",
            raw.FPDF_ANNOT_HIGHLIGHT: "Highlight",
        }
        out = []
        for i in range(raw.FPDFPage_GetAnnotCount(handle)):
            annot = raw.FPDFPage_GetAnnot(handle, i)
            out.append(names.get(raw.FPDFAnnot_GetSubtype(annot), "other"))
            raw.FPDFPage_CloseAnnot(annot)
        return out
    finally:
        document.close()


@pytest.fixture()
def source() -> bytes:
    data = media_pdf()
    assert_media_kept(data)  # the control: what the checks read is there to begin with
    return data


def test_read_as_generic_annotations(source: bytes):
    with quire.Document.from_bytes(source) as doc:
        read = {a.subtype: a for a in doc.annotations()}
        assert set(MEDIA) <= set(read)
        assert read["Sound"].contents == "a sound" and tuple(read["Sound"].rect) == (50, 700, 70, 720)
        assert read["Screen"].name == "screen-1" and tuple(read["Screen"].rect) == (100, 500, 300, 600)
        assert read["RichMedia"].name == "rich-1"
        records = {r["id"]: r for r in json.loads(doc.export_annotations_json())["annotations"]}
        for name, subtype in (("sound-1", "Sound"), ("screen-1", "Screen"), ("rich-1", "RichMedia")):
            assert records[name]["type"] == "quire/generic" and records[name]["quire"]["subtype"] == subtype


def test_not_created_by_a_program():
    for subtype in MEDIA:
        with pytest.raises(quire.UnsupportedError):
            quire.Annotation.new(subtype, 0, (0, 0, 10, 10))


def test_kept_through_edits_saves_and_page_moves(source: bytes, tmp_path):
    with quire.Document.from_bytes(source) as doc:
        annotations = {a.subtype: a for a in doc.annotations()}
        square = annotations["Square"]
        square.contents = "changed"
        doc.update_annotation(square)
        doc.add_annotation(quire.Annotation.new("Highlight", 0, (100, 100, 200, 120)))
        screen = annotations["Screen"]
        screen.contents = "a note on the screen"
        doc.update_annotation(screen)
        incremental = doc.save_to_bytes()
        full = doc.save_to_bytes(full=True, object_streams=True)
        part = doc.extract([0])
        extracted = part.save_to_bytes(full=True)
        part.close()
        with quire.Document.from_bytes(blank_pdf(1)) as target:
            target.merge(doc, [0])
            merged = target.save_to_bytes(full=True)
    for data, page in ((incremental, 0), (full, 0), (extracted, 0), (merged, 1)):
        assert_media_kept(data, page)
        qpdf_check(data, tmp_path)
        assert [s for s in pdfium_subtypes(data, page) if s in MEDIA] == list(MEDIA)
    with pikepdf.open(io.BytesIO(incremental)) as pdf:
        screen = next(a for a in pdf.pages[0].Annots if a.Subtype == "/Screen")
        assert str(screen.Contents) == "a note on the screen"


def test_own_json_and_xfdf_import_keep_them(source: bytes):
    before = media_of(source)
    with quire.Document.from_bytes(source) as doc:
        doc.import_annotations_json(doc.export_annotations_json())
        after_json = doc.save_to_bytes()
    with quire.Document.from_bytes(source) as doc:
        doc.import_xfdf(doc.export_xfdf())
        after_xfdf = doc.save_to_bytes()
    assert media_of(after_json) == before
    found = assert_media_kept(after_xfdf)
    # XFDF's import is an edit (it dates it); the entries other than /M stay.
    for key in ("Screen entries", "RichMedia entries", "Link entries"):
        assert found[key] == before[key]
    assert {k: v for k, v in found["Sound entries"].items() if k != "/M"} == before["Sound entries"]


def test_a_record_that_changes_a_note_keeps_the_action_json_cannot_carry(source: bytes):
    with quire.Document.from_bytes(source) as doc:
        exported = json.loads(doc.export_annotations_json())
        records = {r["id"]: r for r in exported["annotations"]}
        assert "action" not in records["screen-1"] and "action" not in records["link-1"]
        records["screen-1"]["note"] = "screen note"
        records["link-1"]["note"] = "link note"
        records["sound-1"]["note"] = "sound note"
        doc.import_annotations_json(json.dumps(exported))
        data = doc.save_to_bytes()
    assert_media_kept(data)
    with pikepdf.open(io.BytesIO(data)) as pdf:
        notes = {str(a.Subtype): str(a.get("/Contents", "")) for a in pdf.pages[0].Annots}
    assert notes["/Screen"] == "screen note" and notes["/Link"] == "link note" and notes["/Sound"] == "sound note"


def test_a_record_with_another_action_replaces_it(source: bytes):
    """The control of the rule above: when the record does name an action, it is the truth."""
    with quire.Document.from_bytes(source) as doc:
        exported = json.loads(doc.export_annotations_json())
        link = next(r for r in exported["annotations"] if r["id"] == "link-1")
        link["action"] = {"type": "uri", "uri": "https://example.com/"}
        doc.import_annotations_json(json.dumps(exported))
        data = doc.save_to_bytes()
    with pikepdf.open(io.BytesIO(data)) as pdf:
        link = next(a for a in pdf.pages[0].Annots if a.Subtype == "/Link")
        assert str(link.A.S) == "/URI" and str(link.A.URI) == "https://example.com/"


def test_records_of_media_the_document_lacks_are_skipped_with_a_warning(source: bytes):
    with quire.Document.from_bytes(source) as doc:
        exported = doc.export_annotations_json()
        xfdf = doc.export_xfdf()
    assert "<sound " in xfdf
    with quire.Document.from_bytes(blank_pdf(1)) as blank:
        blank.import_annotations_json(exported)
        subtypes = sorted(a.subtype for a in blank.annotations())
        warnings = "\n".join(blank.warnings)
    assert subtypes == ["Link", "Square"]
    for subtype in MEDIA:
        assert f"is a {subtype} annotation that the document does not have; skipped" in warnings
    with quire.Document.from_bytes(blank_pdf(1)) as blank:
        assert blank.import_xfdf(xfdf) == 1  # the square; the sound is skipped, not refused
        assert [a.subtype for a in blank.annotations()] == ["Square"]
        assert 'the Sound annotation "sound-1" on page 1 is not in the document; skipped' in "\n".join(blank.warnings)


def test_deleted_like_any_other(source: bytes):
    with quire.Document.from_bytes(source) as doc:
        for a in list(doc.annotations()):
            if a.subtype in MEDIA:
                doc.delete_annotation(a)
        data = doc.save_to_bytes(full=True)
    with pikepdf.open(io.BytesIO(data)) as pdf:
        assert sorted(str(a.Subtype) for a in pdf.pages[0].Annots) == ["/Link", "/Square"]
