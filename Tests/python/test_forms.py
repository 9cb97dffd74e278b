"""Forms (issue 22): the Python API, the CLI, and the corpus cross-check of forms_sweep.py
(every field of every AcroForm file filled, saved incrementally and in full, read back by
PDFium's form API and pypdf, rendered by pdftoppm), flattening and XFDF.

The two corpus tests run on a fixed sample in ``make test``: every fourth file of their
lists, from an offset drawn with a fixed seed, so the same files each run (about 20 s on
two cores, against 4 to 5.5 minutes for the whole corpus). ``make test-forms-corpus`` (``QUIRE_FORMS_CORPUS=all``) runs them
over the whole corpus. The lists of known differences name files of the whole corpus; a
sampled run expects those of its files.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

import quire
from quire_testing.peers import peer
from quire_testing.paths import QUIRE_CLI

TEXT_FORM = "pdfium/testing/resources/text_form_multiple.pdf"  # 4 text fields, one read-only, one /MaxLen 10
LISTBOX = "pdfium/testing/resources/listbox_form.pdf"  # list boxes, single and multi-select
RADIO = "pdfium-in/testing/resources/pixel/checkbox_radiobutton.pdf"  # check boxes and radio buttons
CLI = QUIRE_CLI  # make's build/bin/quire, or $QUIRE_CLI

# The whole corpus (make test-forms-corpus), or every SAMPLE_EVERY-th file from an offset
# drawn with SAMPLE_SEED (make test).
WHOLE_CORPUS = os.environ.get("QUIRE_FORMS_CORPUS") == "all"
SAMPLE_EVERY = 4
SAMPLE_SEED = 22


def sampled(files: List[str]) -> List[str]:
    """`files` in path order, all of them or the fixed sample (see the module's docstring)."""
    files = sorted(files)
    if WHOLE_CORPUS:
        return files
    offset = random.Random(SAMPLE_SEED).randrange(SAMPLE_EVERY)
    return files[offset::SAMPLE_EVERY]


def test_fields_values_and_rules(corpus: Callable[[str], Path], tmp_path: Path):
    with quire.Document(str(corpus(TEXT_FORM))) as doc:
        assert doc.form_kind is quire.FormKind.ACROFORM
        names = [f.name for f in doc.fields]
        assert names == ["Text Box", "ReadOnly", "CharLimit", "Password"]
        field = doc.field("Text Box")
        assert field.type is quire.FieldType.TEXT and field.value is None
        field.value = "Hello Quire"
        assert doc.field("Text Box").value == "Hello Quire"
        assert doc.field("CharLimit").max_length == 10
        with pytest.raises(quire.IndexOutOfRangeError):
            doc.field("CharLimit").value = "far more than ten"
        with pytest.raises(quire.StateError):
            doc.field("ReadOnly").value = "x"
        assert doc.field("ReadOnly").is_read_only
        with pytest.raises(quire.NotFoundError):
            doc.field("nope")
        out = tmp_path / "filled.pdf"
        doc.save(str(out))
    import pypdf

    assert pypdf.PdfReader(str(out)).get_fields()["Text Box"]["/V"] == "Hello Quire"


def test_list_boxes_and_buttons(corpus: Callable[[str], Path]):
    with quire.Document(str(corpus(LISTBOX))) as doc:
        multi = doc.field("Listbox_MultiSelect")
        assert quire.FieldFlags.MULTI_SELECT in multi.flags
        multi.value = ["Apple", "Cherry"]
        assert doc.field("Listbox_MultiSelect").value == ["Apple", "Cherry"]
        single = doc.field("Listbox_SingleSelect")
        with pytest.raises(quire.InvalidArgumentError):
            single.value = ["foo", "bar"]  # not multi-select
        single.value = "Bar"  # a display text: stored as the export value
        assert doc.field("Listbox_SingleSelect").value == ["bar"]
        with pytest.raises(quire.InvalidArgumentError):
            single.value = "not an option"
    with quire.Document(str(corpus(RADIO))) as doc:
        box = doc.field("checkbox")
        assert box.type is quire.FieldType.CHECK_BOX and box.value == "Off"
        assert [o.export_value for o in box.options] == ["Yes"]
        box.value = "Yes"
        assert doc.field("checkbox").value == "Yes"
        box.reset()
        assert doc.field("checkbox").value == "Off"
        radio = doc.field("radioButton")
        radio.value = "value1"
        assert doc.field("radioButton").value == "value1"
        with pytest.raises(quire.InvalidArgumentError):
            radio.value = "value9"


def test_fields_read_again_after_every_kind_of_edit(corpus: Callable[[str], Path], tmp_path: Path):
    """The field list is cached between changes (reading every field walks the tree once):
    each way of editing is seen by the next read through the binding."""
    with quire.Document(str(corpus(TEXT_FORM))) as doc:
        assert [f.value for f in doc.fields] == [None, None, "Elephant", None]
        # XFDF import of a value.
        doc.import_xfdf('<xfdf xmlns="http://ns.adobe.com/xfdf/"><fields><field name="Text Box">'
                        '<value>from XFDF</value></field></fields></xfdf>')
        assert doc.field("Text Box").value == "from XFDF"
        # Object editing: the field's /V set directly.
        password = doc.field("Password").widgets[0]
        [number] = [a.id for a in doc.pages[0].annotations if a.subtype == "Widget" and a.rect == password.rect]
        doc.set_dict_value(number, "V", quire.String(b"direct"))
        assert doc.field("Password").value == "direct"
        # The annotation API: deleting the widget takes the field (merged with it) away.
        doc.delete_annotation(number)
        assert [f.name for f in doc.fields] == ["Text Box", "ReadOnly", "CharLimit"]
        with pytest.raises(quire.NotFoundError):
            doc.field("Password")
        # A full save renumbers the objects: a value set after it lands, and is saved.
        doc.save(str(tmp_path / "renumbered.pdf"), full=True)
        doc.field("Text Box").value = "after the save"
        doc.save(str(tmp_path / "again.pdf"))
    with quire.Document(str(tmp_path / "again.pdf")) as doc:
        assert doc.field("Text Box").value == "after the save"
        assert [f.name for f in doc.fields] == ["Text Box", "ReadOnly", "CharLimit"]


def test_cli_fields_and_fill(corpus: Callable[[str], Path], tmp_path: Path):
    if not CLI.exists():
        pytest.skip("build/bin/quire is not built (make)")
    src = corpus(TEXT_FORM)
    listing = subprocess.run([str(CLI), "fields", str(src)], capture_output=True, text=True, check=True).stdout
    assert "Form: acroForm, 4 fields" in listing and "ReadOnly  text" in listing
    out = tmp_path / "cli.pdf"
    subprocess.run([str(CLI), "fill", str(src), "Text Box=From the CLI", "-o", str(out)], check=True)
    with quire.Document(str(out)) as doc:
        assert doc.field("Text Box").value == "From the CLI"
    refused = subprocess.run([str(CLI), "fill", str(src), "ReadOnly=x", "-o", str(tmp_path / "no.pdf")],
                             capture_output=True, text=True)
    assert refused.returncode == 1 and "QUIRE_ESTATE" in refused.stderr
    assert not (tmp_path / "no.pdf").exists()


# What the corpus sweep finds that is not Quire's value being lost, by (file, field): the
# reason was looked at for each. A new difference, or one of these going away, fails the
# test (then look, and update the list).
KNOWN_DIFFERENCES: Dict[Tuple[str, str], str] = {
    # PDFium names these widgets' fields differently (their parent has no /FT: PDFium
    # lists the widgets without the parent's name)
    **{(f, "MyField.Sub_" + s): "PDFium lists the kids of a field without /FT under other names"
       for f in ("pdfium/testing/resources/annotiter.pdf", "pdfium-in/testing/resources/annotiter.pdf")
       for s in ("LeftBottom", "LeftTop", "RightBottom", "RightTop")},
    **{(f, "Sub_" + s): "pypdf does not list fields whose parent has no /FT"
       for f in ("pdfium/testing/resources/links_highlights_annots.pdf",
                 "pdfium-in/testing/resources/links_highlights_annots.pdf")
       for s in ("LeftBottom", "LeftTop", "RightBottom", "RightTop")},
    ("pdfium/testing/resources/document_aactions.pdf", "*"): "PDFium fails to load its page (original too)",
    ("pdfium-in/testing/resources/document_aactions.pdf", "*"): "PDFium fails to load its page (original too)",
    ("pdfium-in/testing/resources/javascript/bug_679642.pdf", "MyField"): "pypdf reads another value (field under a JavaScript-only form)",
    ("pypdf/resources/FormTestFromOo.pdf", "RdoS1"): "a radio on-state named by an empty name",
    ("pypdf/resources/FormTestFromOo.pdf", "RdoS2"): "a radio on-state named by an empty name",
    **{(f, "checkbox1"): "PDFium does not list a check box whose on-state is not /Yes and has no /Opt (qpdf test file)"
       for f in ("qpdf/qpdf/qtest/qpdf/button-set.pdf", "qpdf/qpdf/qtest/qpdf/button-set-out.pdf",
                 "qpdf/qpdf/qtest/qpdf/button-set-broken.pdf", "qpdf/qpdf/qtest/qpdf/button-set-broken-out.pdf")},
    **{(f, "Text Box 1"): "PDFium does not list this widget (its field lacks /DA and the form /DR)"
       for f in ("qpdf/qpdf/qtest/qpdf/form-document-defaults.pdf", "qpdf/qpdf/qtest/qpdf/form-mod1.pdf")},
    **{(f, "r1.choice1"): "a radio kid with its own /T: Quire and PDFium make it a field, pypdf does not"
       for f in ("qpdf/qpdf/qtest/qpdf/form-document-defaults.pdf", "qpdf/qpdf/qtest/qpdf/form-mod1.pdf")},
}

# Widgets whose pixels do not change in pdftoppm's rendering (poppler 22.12), by (file,
# field), with the reason found for each. "Shown with /NeedAppearances removed" means: the
# filled file rendered again without /NeedAppearances (so that poppler draws the /AP that
# Quire wrote instead of its own drawing) changes the widget's pixels.
NEEDS_APPEARANCES = ("/NeedAppearances true: poppler draws the field itself from its value and draws nothing new"
                     " in it; Quire's /AP shows the value (shown with /NeedAppearances removed)")
ONE_POINT = ("a widget of 1 x 1 pt at (0, 0): Quire's text is clipped to it and does not change the"
             " one pixel at 50 dpi")
KNOWN_UNCHANGED_PIXELS: Dict[Tuple[str, str], str] = {
    # The /AP /N of every button widget of this file is an indirect dictionary of states:
    # poppler 22.12 (AnnotAppearance::getAppearanceStream looks the state up with
    # dictLookupNF in an unresolved reference) draws no state at all, before and after;
    # PDFium draws the new /AS. Checked by making /N direct: poppler then draws it.
    **{("pdfbox/pdfbox/src/test/resources/org/apache/pdfbox/multipdf/PDFBoxLegacyMerge-SameMerged.pdf", n):
       "poppler draws no state of a button whose /AP /N is an indirect dictionary"
       for n in ("Customer.Gender", "Customer.GenderFemale", "Customer.GenderMale", "Gender", "GenderFemale",
                 "GenderMale", "dummyFieldName1", "dummyFieldName3", "dummyFieldName4", "dummyFieldName5.Gender",
                 "dummyFieldName5.GenderFemale", "dummyFieldName5.GenderMale")},
    ("pdfium/testing/resources/bug_765384.pdf", "MyField2"): ONE_POINT,
    ("pdfium-in/testing/resources/bug_765384.pdf", "MyField2"): ONE_POINT,
    ("qpdf/qpdf/qtest/qpdf/dr-with-indirect-item-out.pdf", ""): ONE_POINT,
    ("qpdf/qpdf/qtest/qpdf/dr-with-indirect-item.pdf", ""): ONE_POINT,
    ("pdfium-in/testing/resources/pixel/combobox_form.pdf", "Combo"):
        "its three options are empty strings: the value chosen draws nothing",
    ("pypdf/resources/FormTestFromOo.pdf", "DropList1"): NEEDS_APPEARANCES,
    ("pypdf/resources/FormTestFromOo.pdf", "DropList2"): NEEDS_APPEARANCES,
    ("pypdf/resources/libreoffice-form.pdf", "Nationality"): NEEDS_APPEARANCES,
    ("pypdf/resources/libreoffice-form.pdf", "female"): NEEDS_APPEARANCES,
    ("pypdf/resources/libreoffice-form.pdf", "gdpr"): NEEDS_APPEARANCES,
    ("pypdf/resources/libreoffice-form.pdf", "other"): NEEDS_APPEARANCES,
    ("qpdf/qpdf/qtest/qpdf/button-set-broken-out.pdf", "checkbox2"): NEEDS_APPEARANCES,
    ("qpdf/qpdf/qtest/qpdf/button-set-broken.pdf", "checkbox2"): NEEDS_APPEARANCES,
    ("qpdf/qpdf/qtest/qpdf/need-appearances-more3.pdf", "text2"): NEEDS_APPEARANCES,
    # Combo boxes under /NeedAppearances whose /DA font (DejaVuSans) is not embedded:
    # poppler redraws them itself.
    **{(f, "drop1"): NEEDS_APPEARANCES
       for f in ("qpdf/qpdf/qtest/qpdf/button-set-broken-out.pdf", "qpdf/qpdf/qtest/qpdf/button-set-broken.pdf",
                 "qpdf/qpdf/qtest/qpdf/button-set-out.pdf", "qpdf/qpdf/qtest/qpdf/button-set.pdf",
                 "qpdf/qpdf/qtest/qpdf/field-types.pdf", "qpdf/qpdf/qtest/qpdf/need-appearances-more3.pdf",
                 "qpdf/qpdf/qtest/storage/field-types.pdf")},
    ("qpdf/qpdf/qtest/qpdf/manual-appearances.pdf", "Text Box 19"): "a hidden widget (/F 36: NoView): not drawn",
    ("qpdf/qpdf/qtest/qpdf/manual-appearances.pdf", "Text Box 21"): "a hidden widget (/F 2: Hidden): not drawn",
    ("qpdf/qpdf/qtest/qpdf/test80b2.pdf", "r1"):
        "the radio widget turned on lies left of the page (x < 0); the one partly on it stays off",
}


def test_corpus_forms_fill_and_read_back(corpus: Callable[[str], Path]):
    corpus("manifest.jsonl")  # skips without the corpus
    peer("pypdfium2")
    peer("pypdf")
    import forms_sweep

    files = sampled(forms_sweep.form_files())
    chosen = set(files)
    reports = forms_sweep.sweep(render=True, files=files)
    assert [r["file"] for r in reports if r.get("error")] == []
    filled = sum(r["filled"] for r in reports)
    assert filled >= (2000 if WHOLE_CORPUS else 400), filled
    differences = {(r["file"], name) for r in reports for name, _ in r["differ"]}
    known = {k for k in KNOWN_DIFFERENCES if k[0] in chosen}
    assert differences == known, (
        "new: %s; gone: %s" % (sorted(differences - known), sorted(known - differences)))
    unchanged = {(r["file"], name) for r in reports for name, _ in r["pixels_unchanged"]}
    known = {k for k in KNOWN_UNCHANGED_PIXELS if k[0] in chosen}
    assert unchanged == known, (
        "new: %s; gone: %s" % (sorted(unchanged - known), sorted(known - unchanged)))


def _annotated_files(limit: int) -> list:
    """Corpus files with annotations on which PDFium, MuPDF and pikepdf agree (not
    encrypted, not damaged), a page or two, the first `limit` in path order."""
    import json

    from conftest import MANIFEST

    out = []
    for line in MANIFEST.read_text().splitlines():
        r = json.loads(line)
        c = r["consensus"]
        if r.get("duplicate_of") or c.get("is_encrypted") or c.get("damaged_any"):
            continue
        if (c.get("annots_total_majority") or 0) > 0 and (c.get("page_count_majority") or 0) <= 2:
            out.append(r["path"])
    return sorted(out)[:limit]


def _gray(path: Path, tmp: Path, tag: str) -> list:
    from conftest import pinned_fonts

    pinned_fonts()  # the fonts poppler substitutes: the same on every machine (conftest.py)
    subprocess.run(["pdftoppm", "-gray", "-r", "40", str(path), str(tmp / tag)], capture_output=True, timeout=120)
    pages = []
    for pgm in sorted(tmp.glob(tag + "-*.pgm")):
        parts = pgm.read_bytes().split(maxsplit=4)
        pages.append((int(parts[1]), int(parts[2]), parts[4]))
    return pages


# Files whose flattened rendering differs by more than the tolerance, with the reason.
KNOWN_FLATTEN_DIFFERENCES: Dict[str, str] = {
    "openpdf/openpdf-core/src/test/resources/pdf-2-0/PDF 2.0 UTF-8 string and annotation.pdf":
        "poppler ignores the Highlight's /AP (a yellow box) and draws its own from /QuadPoints;"
        " the flattened page shows the /AP",
    "pdfium-in/testing/resources/pixel/bug_394767650.pdf":
        "the widget's /AP ends in a stray ET: PDFium and poppler do not draw it; burned into"
        " the page content, poppler draws it (a green page)",
    **{f: "widgets without /AP: poppler draws them from the value its own way; flattening draws"
          " Quire's appearance (other font size and selection colour)"
       for f in ("pdfium/testing/resources/listbox_form.pdf", "pdfium-in/testing/resources/listbox_form.pdf")},
    # Annotations or widgets without /AP: poppler draws them its own way, flattening draws
    # the appearance Quire generates (other fonts, sizes, colours).
    **{f: "no /AP: poppler's own drawing against Quire's generated appearance" for f in (
        "pdfium-in/testing/resources/annotation_markup_multiline_no_ap.pdf",
        "pdfium-in/testing/resources/javascript/bug_421304870.pdf",
        "pdfium-in/testing/resources/pixel/bug_1372651.pdf",
        "pdfium-in/testing/resources/pixel/freetext_annotation_with_da.pdf",
        "pdfium/testing/resources/bug_707673.pdf",
        "pdfium/testing/resources/freetext_annotation_without_da.pdf",
    )},
    # /NeedAppearances true: poppler redraws the widget from its value; flattening burns the
    # /AP the file has.
    **{f: "/NeedAppearances: poppler redraws the widget, flattening burns the file's /AP" for f in (
        "pdfium-in/testing/resources/bug_861842.pdf",
        "pdfium/testing/resources/bug_861842.pdf",
    )},
    # Small pages (300 x 200 to 300 x 600 pt: 0.5 % is 90 to 190 pixels at 40 dpi) whose
    # fields have no /AP: poppler draws the value itself, Quire's appearance draws the same
    # text a pixel or two away.
    # Fields without /AP whose value has characters the /DA font has no code for: poppler
    # draws "?" in their place, Quire draws the characters (issue 39: never a "?" substitute).
    "pdfium-in/testing/resources/pixel/text_form_custom_font.pdf":
        "the value is six spaces and the /DA font's /ToUnicode maps its only code, 32, to U+B0A9:"
        " the font has no space; poppler draws six '?' (code 63, the font's square glyph), Quire"
        " six spaces (nothing)",
    "pdfium-in/testing/resources/pixel/bug_725389.pdf":
        "the value is Hebrew and '...' in /Times-Roman, which has no Hebrew: poppler draws '???...',"
        " Quire the Hebrew letters with a Unicode font (DejaVu Sans)",
    "pdfium-in/testing/resources/javascript/public_methods.pdf":
        "text fields without /AP: poppler's own drawing of the values, Quire's a pixel or two away",
    "pdfium-in/testing/resources/pixel/scrollable_widgets1.pdf":
        "a list box without /AP: poppler highlights the selection in black, Quire in blue, and Quire"
        " draws the top of the third option",
    "pdfium-in/testing/resources/pixel/bug_40643646.pdf":
        "a note and a text field without /AP (and without /DA): poppler draws its own note icon and"
        " nothing for the field (\"Missing 'Tf' operator\"); the flattened page shows Quire's note icon"
        " and the field's value",
    "pdfium-in/testing/resources/pixel/bug_733528.pdf":
        "two terminal fields named SharedField without /AP, /V 'Hello, world' and '': Quire, like"
        " PDFium (whose rendering shows both), makes them one field and draws the value in both"
        " widgets; poppler draws each with its own /V, the second empty",
}


def test_flatten_renders_the_same_and_leaves_only_links(corpus: Callable[[str], Path], tmp_path: Path):
    corpus("manifest.jsonl")
    import pikepdf

    files = sampled(_annotated_files(400))
    assert len(files) >= (300 if WHOLE_CORPUS else 75), len(files)
    failures = {}
    drawn_total = 0
    for rel in files:
        src = corpus(rel)
        out = tmp_path / "flat.pdf"
        with quire.Document(str(src)) as doc:
            try:
                drawn_total += doc.flatten()
            except quire.StateError as e:
                # A certified file (DocMDP) refuses a flattening by default (issue 37,
                # docs/signatures.md); allowed, it flattens like any other.
                assert "DocMDP" in str(e), (rel, e)
                doc.set_signature_guard("allow")
                drawn_total += doc.flatten()
            doc.save(str(out), full=True)
        with pikepdf.open(str(out)) as pdf:
            left = [str(a.get("/Subtype")) for page in pdf.pages for a in page.get("/Annots", [])]
            assert all(s == "/Link" for s in left), (rel, left)
            assert "/AcroForm" not in pdf.Root, rel
        before, after = _gray(src, tmp_path, "b"), _gray(out, tmp_path, "a")
        for f in tmp_path.glob("*.pgm"):
            f.unlink()
        assert len(before) == len(after), rel
        for (w, h, a), (w2, h2, b) in zip(before, after):
            assert (w, h) == (w2, h2), rel
            differing = sum(1 for x, y in zip(a, b) if abs(x - y) > 48)
            if differing > 0.005 * len(a):  # 0.5 % of the page's pixels
                failures[rel] = round(100 * differing / len(a), 2)
    assert drawn_total > 0
    known = {f for f in KNOWN_FLATTEN_DIFFERENCES if f in set(files)}
    assert set(failures) == known, (failures, sorted(known - set(failures)))


# -- XFDF -------------------------------------------------------------------------------

SAMPLE_FORM = "pdfium/testing/resources/text_form_multiple.pdf"


def _json_without_ids(doc: quire.Document) -> list:
    """The annotation JSON of page 0, without what differs between two documents made the
    same way: object numbers, and the modification date, which adding an annotation sets to
    the time of the change (/M), so that a run crossing a second boundary differs there."""
    import json

    data = json.loads(doc.export_annotations_json(0))
    items = data.get("annotations", data) if isinstance(data, dict) else data
    for item in items:
        for key in ("pdfObjectId", "id", "updatedAt"):
            item.pop(key, None)
    return sorted(items, key=lambda a: a.get("name", ""))


def test_xfdf_round_trip_gives_the_same_annotation_json(corpus: Callable[[str], Path]):
    src = str(corpus(SAMPLE_FORM))
    with quire.Document(src) as doc:
        square = quire.Annotation.new("Square", 0, (100, 100, 200, 150))
        square.name = "sq-1"
        square.author = "Ann"
        square.contents = "Look here\nand here"
        square.color = (1, 0, 0)
        square.opacity = 0.5
        square = doc.add_annotation(square)
        ink = quire.Annotation.new("Ink", 0, (300, 300, 400, 400))
        ink.name = "ink-1"
        ink.ink = [[310, 310, 350, 390], [320, 320, 330, 330, 340, 320]]
        doc.add_annotation(ink)
        hl = quire.Annotation.new("Highlight", 0, (100, 500, 300, 520))
        hl.name = "hl-1"
        hl.color = (1, 1, 0)
        doc.add_annotation(hl)
        reply = doc.add_reply(square, "Bob", "I agree & <so> does \"Bob\"")
        doc.add_state_reply(square, "Bob", "Review", "Accepted")
        doc.field("Text Box").value = "From XFDF"
        xfdf = doc.export_xfdf()
        expected = _json_without_ids(doc)
    assert 'inreplyto="sq-1"' in xfdf and 'state="Accepted"' in xfdf and "<gesture>" in xfdf
    assert '<field name="Text Box"><value>From XFDF</value></field>' in xfdf
    with quire.Document(src) as fresh:
        # 5 annotations, and 2 field values: Text Box, and CharLimit's "Elephant" of the file
        assert fresh.import_xfdf(xfdf) == 7
        assert _json_without_ids(fresh) == expected
        assert fresh.field("Text Box").value == "From XFDF"
        # Importing again updates by name: nothing is added twice.
        fresh.import_xfdf(xfdf)
        assert _json_without_ids(fresh) == expected
    del reply


# Written by hand from ISO 19444-1's examples, as Acrobat writes a comment export.
ACROBAT_XFDF = """<?xml version="1.0" encoding="UTF-8" ?>
<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve">
  <annots>
    <text color="#FFFF00" creationdate="D:20240102030405+01'00'" flags="print,nozoom,norotate"
          date="D:20240102030405+01'00'" name="f0a1" icon="Comment" page="0"
          rect="72.0,700.0,92.0,720.0" subject="Note" title="Reviewer">
      <contents>Please check the figures.</contents>
    </text>
    <text color="#FFFF00" flags="print,nozoom,norotate" date="D:20240102040000Z" name="f0a2"
          inreplyto="f0a1" replyType="reply" page="0" rect="72.0,700.0,92.0,720.0" title="Author">
      <contents>Done.</contents>
    </text>
    <text flags="hidden,print,nozoom,norotate" name="f0a3" inreplyto="f0a1" page="0"
          rect="72.0,700.0,92.0,720.0" state="Completed" statemodel="Review" title="Reviewer"/>
    <line color="#0000FF" page="0" rect="100,100,200,200" start="110,110" end="190,190"
          head="None" tail="OpenArrow" width="2" name="l1" title="Reviewer"/>
  </annots>
  <fields>
    <field name="CharLimit"><value>Hi</value></field>
  </fields>
  <ids original="0123" modified="4567"/>
</xfdf>
"""


def test_xfdf_written_by_another_producer_imports(corpus: Callable[[str], Path]):
    with quire.Document(str(corpus(SAMPLE_FORM))) as doc:
        assert doc.import_xfdf(ACROBAT_XFDF) == 5
        notes = {a.name: a for a in doc.pages[0].annotations}
        assert notes["f0a1"].contents == "Please check the figures." and notes["f0a1"].author == "Reviewer"
        assert notes["f0a2"].is_reply and notes["f0a3"].state == "Completed"
        assert doc.field("CharLimit").value == "Hi"
        assert notes["l1"].subtype == "Line"


@pytest.mark.parametrize("hostile, error", [
    ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
     '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><xfdf><annots><text page="0" rect="0,0,1,1">'
     '<contents>&c;</contents></text></annots></xfdf>', quire.FormatError),
    ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><xfdf><annots>'
     '<text page="0" rect="0,0,1,1"><contents>&e;</contents></text></annots></xfdf>', quire.FormatError),
    ("<xfdf>" + "<a>" * 100 + "</a>" * 100 + "</xfdf>", quire.LimitError),
    ("<xfdf><annots><text page='0' rect='0,0,1,1'>", quire.FormatError),
    ("<xfdf><annots><square page='x' rect='0,0,1,1'/></annots></xfdf>", quire.FormatError),
    ("<xfdf><annots><text page='0' rect='0,0,1,1' inreplyto='nobody'/></annots></xfdf>", quire.FormatError),
])
def test_hostile_xfdf_gets_a_clear_error(corpus: Callable[[str], Path], hostile: str, error: type):
    with quire.Document(str(corpus(SAMPLE_FORM))) as doc:
        with pytest.raises(error):
            doc.import_xfdf(hostile)
