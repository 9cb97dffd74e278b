"""Issue 23: Instant JSON's form data and document fields through the Python binding:
`formFieldValues` (`pspdfkit/form-field-value`, the shape of Nutrient's guides
json/schema/form-field-values and forms/fill-form-fields), `formFields` (read, matched by
name), `pdfId` and `skippedPdfObjectIds` (guides json/how-it-works).

Values are set from JSON into real AcroForm files of the corpus and read back by PDFium
(pypdfium2's form API) and pypdf from the saved file; a document's own export imports as a
no-op; bad values change nothing, annotations of the same JSON included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

import quire
from forms_sweep import _pdfium_values, _pypdf_values
from test_annotations import blank_pdf, pdftoppm_render
from test_json_instant import changed_pixels

FORMAT = "https://pspdfkit.com/instant-json/v1"
TEXT_FORM = "pdfium/testing/resources/text_form_multiple.pdf"  # Text Box, ReadOnly, CharLimit (/MaxLen 10), Password
LISTBOX = "pdfium/testing/resources/listbox_form.pdf"  # list boxes, single and multi-select
RADIO = "pdfium-in/testing/resources/pixel/checkbox_radiobutton.pdf"  # checkbox (Yes), radioButton (value1, ...)

# A rectangle record: imported with the bad values below, it must not appear.
RECTANGLE = {"v": 1, "type": "pspdfkit/shape/rectangle", "id": "rect-1", "pageIndex": 0,
             "bbox": [50, 50, 100, 60], "strokeColor": "#FF0000", "strokeWidth": 2}


def value(name: str, v: Any = None, **extra: Any) -> Dict[str, Any]:
    record: Dict[str, Any] = {"v": 1, "type": "pspdfkit/form-field-value", "name": name}
    if v is not None:
        record["value"] = v
    record.update(extra)
    return record


def form_values(doc: quire.Document) -> Dict[str, Any]:
    return {f.name: f.value for f in doc.fields}


# (file, the values PSPDFKit would send, what Quire's fields read afterwards)
CASES = [
    (TEXT_FORM, [value("Text Box", "Hallo Welt"), value("CharLimit", "0123456789")],
     {"Text Box": "Hallo Welt", "CharLimit": "0123456789"}),
    (LISTBOX, [value("Listbox_MultiSelect", ["Apple", "Cherry"]), value("Listbox_SingleSelect", ["Bar"])],
     {"Listbox_MultiSelect": ["Apple", "Cherry"], "Listbox_SingleSelect": ["bar"]}),
    (RADIO, [value("checkbox", ["Yes"]), value("radioButton", "value1")],
     {"checkbox": "Yes", "radioButton": "value1"}),
]


@pytest.mark.parametrize("rel,values,expected", CASES, ids=["text", "listbox", "buttons"])
def test_form_values_import_read_back_by_peers_and_round_trip(
        corpus: Callable[[str], Path], tmp_path: Path, rel: str, values: List[Dict[str, Any]],
        expected: Dict[str, Any]) -> None:
    src = corpus(rel)
    # PSPDFKit's form-filling JSON has no annotations key at all.
    with quire.Document(str(src)) as doc:
        before = form_values(doc)
        doc.import_annotations_json(json.dumps({"format": FORMAT, "formFieldValues": values}))
        after = form_values(doc)
        for name, v in expected.items():
            assert after[name] == v and before[name] != v
        assert {k: v for k, v in after.items() if k not in expected} == {k: v for k, v in before.items() if k not in expected}
        exported = doc.export_annotations_json()
        filled = tmp_path / "filled.pdf"
        doc.save(str(filled))
    records = {r["name"]: r for r in json.loads(exported)["formFieldValues"]}
    assert set(records) == set(after)
    # The widgets show the new values: poppler draws their regenerated appearances, and
    # the pixels inside each changed widget (on page 1) differ from the original's.
    before_image, after_image = pdftoppm_render(src.read_bytes()), pdftoppm_render(filled.read_bytes())
    with quire.Document(str(filled)) as doc:
        crop = doc.pages[0].box(quire.Box.CROP)
        for name in expected:
            for w in doc.field(name).widgets:
                if w.page_index == 0:
                    box = [w.rect.left - crop.left, crop.top - w.rect.top, w.rect.right - w.rect.left, w.rect.top - w.rect.bottom]
                    assert changed_pixels(before_image, after_image, box) > 0, (name, box)
    # Read back by the peers from the saved file.
    pdfium = _pdfium_values(filled)
    pypdf = _pypdf_values(filled)
    for name, v in expected.items():
        if isinstance(v, list):
            assert pypdf[name] == (v if len(v) > 1 else v[0])
            assert pdfium[name][0] == v[0]  # PDFium's value of a list box is its first selection
        else:
            assert pypdf[name] == v
            if pdfium[name][1] is None:
                assert pdfium[name][0] == v
            else:
                assert pdfium[name][1] is True  # the button is on
    # Export, then import into a fresh copy: the same values; the export of the copy is
    # the same JSON; importing Quire's own export again changes nothing.
    with quire.Document(str(src)) as copy:
        copy.import_annotations_json(exported)
        assert form_values(copy) == after
        assert copy.export_annotations_json() == exported
    with quire.Document(str(filled)) as again:
        again.import_annotations_json(exported)
        assert not again.has_unsaved_changes
        assert form_values(again) == after


@pytest.mark.parametrize("rel", [TEXT_FORM, LISTBOX, RADIO])
def test_own_export_imports_as_a_no_op(corpus: Callable[[str], Path], rel: str) -> None:
    with quire.Document(str(corpus(rel))) as doc:
        exported = doc.export_annotations_json()
        data = json.loads(exported)
        assert data["formFieldValues"] and all(r["type"] == "pspdfkit/form-field-value" for r in data["formFieldValues"])
        doc.import_annotations_json(exported)
        assert not doc.has_unsaved_changes
        assert doc.export_annotations_json() == exported


def test_clearing_and_option_indexes(corpus: Callable[[str], Path]) -> None:
    with quire.Document(str(corpus(RADIO))) as doc:
        doc.import_annotations_json(json.dumps({"formFieldValues": [value("checkbox", ["Yes"])]}))
        assert doc.field("checkbox").value == "Yes"
        # No value: the box is turned off (PSPDFKit writes a field without a value so).
        # optionIndexes: the widget at that index of the field is turned on.
        doc.import_annotations_json(json.dumps({"formFieldValues": [value("checkbox"), value("radioButton", optionIndexes=[0])]}))
        assert doc.field("checkbox").value == "Off"
        assert doc.field("radioButton").value == "value1"
        # optionIndexes [] turns the group off, which this one's NoToggleToOff forbids.
        with pytest.raises(quire.StateError) as raised:
            doc.import_annotations_json(json.dumps({"formFieldValues": [value("radioButton", "x", optionIndexes=[])]}))
        assert "NoToggleToOff" in str(raised.value) and doc.field("radioButton").value == "value1"
    with quire.Document(str(corpus(TEXT_FORM))) as doc:
        doc.field("Text Box").value = "something"
        doc.import_annotations_json(json.dumps({"formFieldValues": [value("Text Box")]}))
        assert doc.field("Text Box").value in (None, "")


def test_form_fields_are_matched_by_name(corpus: Callable[[str], Path]) -> None:
    with quire.Document(str(corpus(TEXT_FORM))) as doc:
        # A definition of an existing field of the same type: accepted, nothing changes.
        doc.import_annotations_json(json.dumps({"formFields": [
            {"v": 1, "type": "pspdfkit/form-field/text", "name": "Text Box", "annotationIds": ["9"], "label": "x"}]}))
        assert not doc.has_unsaved_changes
        # One the document does not have: skipped with a warning (Quire creates no fields).
        doc.import_annotations_json(json.dumps({"formFields": [
            {"v": 1, "type": "pspdfkit/form-field/text", "name": "Elsewhere"}]}))
        assert not doc.has_unsaved_changes
        assert any("Elsewhere" in w for w in doc.warnings)
        # A field of another type: the JSON describes another form.
        with pytest.raises(quire.FormatError) as error:
            doc.import_annotations_json(json.dumps({"formFields": [
                {"v": 1, "type": "pspdfkit/form-field/checkbox", "name": "Text Box"}]}))
        assert "formFields[0].type" in str(error.value)


BAD = [
    ([value("No Such Field", "x")], quire.FormatError, "formFieldValues[0].name: the document has no field"),
    ([value("Text Box", 42)], quire.FormatError, "formFieldValues[0].value: expected a string or an array of strings"),
    ([value("Text Box", ["a", "b"])], quire.FormatError, "takes one string, not 2"),
    ([value("ReadOnly", "changed")], quire.StateError, "formFieldValues[0].value: field \"ReadOnly\" is read-only"),
    ([value("CharLimit", "far more than ten")], quire.IndexOutOfRangeError, "at most 10 characters"),
    ([value("Text Box", "x" * (10 << 20))], quire.LimitError, "max_text_length"),
    ([value("Text Box", "a"), value("Text Box", "b")], quire.FormatError, "formFieldValues[1].name: \"Text Box\" is the name of an earlier value too"),
    ([value("Text Box", "ok"), value("Nope", "x")], quire.FormatError, "formFieldValues[1].name"),
    ([value("Text Box", optionIndexes=[0])], quire.FormatError, "optionIndexes are for check boxes and radio buttons"),
    ([{"v": 1, "type": "pspdfkit/form-field-value"}], quire.FormatError, "missing field \"name\""),
    ([{"v": 2, "type": "pspdfkit/form-field-value", "name": "Text Box"}], quire.FormatError, "version 2 is not supported"),
    ([{"v": 1, "type": "pspdfkit/ink", "name": "Text Box"}], quire.FormatError, "is not a form field value"),
]


@pytest.mark.parametrize("values,error,message", BAD)
def test_bad_text_values_change_nothing(corpus: Callable[[str], Path], values: List[Dict[str, Any]],
                                        error: type, message: str) -> None:
    with quire.Document(str(corpus(TEXT_FORM))) as doc:
        before_json = doc.export_annotations_json()
        before = form_values(doc)
        with pytest.raises(error) as raised:
            doc.import_annotations_json(json.dumps({"format": FORMAT, "annotations": [RECTANGLE], "formFieldValues": values}))
        assert message in str(raised.value)
        assert not doc.has_unsaved_changes
        assert form_values(doc) == before
        assert doc.export_annotations_json() == before_json


@pytest.mark.parametrize("rel,values,message", [
    (LISTBOX, [value("Listbox_SingleSelect", ["Foo", "Bar"])], "is not multi-select"),
    (LISTBOX, [value("Listbox_MultiSelect", ["Apple", "Durian"])], "value[1]: \"Durian\" is not an option"),
    (RADIO, [value("radioButton", "value9")], "\"value9\" is not a state of field \"radioButton\""),
    (RADIO, [value("checkbox", ["Yes", "Off"])], "one state at a time"),
    (RADIO, [value("radioButton", optionIndexes=[7])], "optionIndexes[0]"),
    (RADIO, [value("checkbox", ["Yes"]), value("readOnlyCheckbox", ["Yes"])], "is read-only"),
])
def test_bad_choice_and_button_values_change_nothing(corpus: Callable[[str], Path], rel: str,
                                                     values: List[Dict[str, Any]], message: str) -> None:
    with quire.Document(str(corpus(rel))) as doc:
        before = form_values(doc)
        with pytest.raises(quire.QuireError) as raised:
            doc.import_annotations_json(json.dumps({"annotations": [RECTANGLE], "formFieldValues": values}))
        assert message in str(raised.value)
        assert not doc.has_unsaved_changes and form_values(doc) == before


def test_a_form_value_is_not_an_annotation_record() -> None:
    with quire.Document(blank_pdf()) as doc:
        with pytest.raises(quire.FormatError) as raised:
            doc.import_annotations_json(json.dumps({"annotations": [value("x", "y")]}))
        assert "annotations[0].type" in str(raised.value) and "formFieldValues" in str(raised.value)


def test_skipped_pdf_object_ids_delete_what_no_record_replaces() -> None:
    with quire.Document(blank_pdf()) as doc:
        doc.import_annotations_json(json.dumps({"annotations": [
            RECTANGLE, dict(RECTANGLE, id="rect-2", bbox=[200, 200, 50, 50]),
            {"v": 1, "type": "pspdfkit/note", "id": "note-1", "pageIndex": 0, "bbox": [10, 10, 20, 20], "text": "hi",
             "quire": {"inReplyTo": "rect-2"}}]}))
        exported = json.loads(doc.export_annotations_json())
        objects = {r["id"]: r["pdfObjectId"] for r in exported["annotations"]}
        # The export is every annotation, not an overlay: it skips nothing, so a part of it
        # imported back (one edited record) deletes nothing.
        assert "skippedPdfObjectIds" not in exported
        doc.import_annotations_json(json.dumps(dict(exported, annotations=exported["annotations"][:1])))
        assert len(json.loads(doc.export_annotations_json())["annotations"]) == 3
        # A skipped object without a record: deleted. One with a record: updated.
        moved = dict(next(r for r in exported["annotations"] if r["id"] == "rect-1"), strokeColor="#0000FF")
        doc.import_annotations_json(json.dumps({"skippedPdfObjectIds": [objects["rect-1"], objects["note-1"]],
                                                "annotations": [moved]}))
        left = {r["id"]: r for r in json.loads(doc.export_annotations_json())["annotations"]}
        assert set(left) == {"rect-1", "rect-2"} and left["rect-1"]["strokeColor"] == "#0000FF"
        # Deleting an annotation that a record replies to: refused, nothing changes.
        reply = {"v": 1, "type": "pspdfkit/note", "id": "note-2", "pageIndex": 0, "bbox": [10, 10, 20, 20],
                 "text": "again", "quire": {"inReplyTo": "rect-2"}}
        before = doc.export_annotations_json()
        with pytest.raises(quire.FormatError) as raised:
            doc.import_annotations_json(json.dumps({"skippedPdfObjectIds": [objects["rect-2"]], "annotations": [reply]}))
        assert "skippedPdfObjectIds[0]" in str(raised.value) and "annotations[0].quire.inReplyTo" in str(raised.value)
        assert doc.export_annotations_json() == before
        # An object that is not an annotation: a warning, nothing deleted.
        doc.import_annotations_json(json.dumps({"skippedPdfObjectIds": [1]}))
        assert doc.export_annotations_json() == before
        assert any("skippedPdfObjectIds[0]: object 1 is not an annotation" in w for w in doc.warnings)


def test_pdf_id_is_the_trailer_id_and_another_files_object_numbers_are_ignored(tmp_path: Path) -> None:
    import pikepdf

    # A file with /ID (qpdf writes one) and a square without /NM, which only its object
    # number names.
    src = tmp_path / "with-id.pdf"
    with pikepdf.open(__import__("io").BytesIO(blank_pdf())) as pdf:
        square = pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Square, Rect=[50, 600, 150, 700], C=[1, 0, 0]))
        pdf.pages[0].Annots = pikepdf.Array([square])
        pdf.save(str(src), static_id=False)
    with pikepdf.open(str(src)) as pdf:
        trailer_id = [bytes(x).hex() for x in pdf.trailer.ID]
    with quire.Document(str(src)) as doc:
        exported = json.loads(doc.export_annotations_json())
        assert exported["pdfId"] == {"permanent": trailer_id[0], "changing": trailer_id[1]}
        record = exported["annotations"][0]
        assert "name" not in record and record["id"] == str(record["pdfObjectId"])
        assert "skippedPdfObjectIds" not in exported
        # The same file: pdfObjectId names the square, which the record updates.
        doc.import_annotations_json(json.dumps(dict(exported, annotations=[dict(record, strokeColor="#00FF00")])))
        records = json.loads(doc.export_annotations_json())["annotations"]
        assert len(records) == 1 and records[0]["strokeColor"] == "#00FF00"
        # Another file's JSON (another permanent id): its object numbers name other
        # objects, so they are not used: the record is a new annotation, the skipped id
        # deletes nothing, and a warning says so.
        other = {"pdfId": {"permanent": "00" * 16, "changing": "11" * 16},
                 "skippedPdfObjectIds": [record["pdfObjectId"]], "annotations": [dict(record, strokeColor="#0000FF")]}
        doc.import_annotations_json(json.dumps(other))
        records = json.loads(doc.export_annotations_json())["annotations"]
        assert sorted(r["strokeColor"] for r in records) == ["#0000FF", "#00FF00"]
        assert any("pdfId names another PDF" in w for w in doc.warnings)


def _candidates(field: quire.FormField) -> List[Any]:
    """Values to try on a field: its states or options (export values and display texts),
    and values its rules refuse."""
    t = field.type
    options = field.options[:4]
    if t is quire.FieldType.TEXT:
        out: List[Any] = ["Quire", ["a", "b"]]
        if field.max_length is not None and 0 <= field.max_length < 50:
            out.append("x" * (field.max_length + 1))
        return out
    if t in (quire.FieldType.CHECK_BOX, quire.FieldType.RADIO_BUTTON):
        return ["Off", "not-a-state"] + [o.export_value for o in options] + [o.display_text for o in options]
    if t in (quire.FieldType.COMBO_BOX, quire.FieldType.LIST_BOX):
        out = ["not-an-option"] + [[o.export_value] for o in options] + [[o.display_text] for o in options[:1]]
        if len(options) >= 2:
            out.append([options[0].export_value, options[1].export_value])
        return out
    return ["anything"]


def _same_values(t: quire.FieldType, a: List[str], b: List[str]) -> bool:
    if t is quire.FieldType.TEXT:
        return (a or [""]) == (b or [""])
    return a == b


def test_import_checks_values_as_the_forms_model_sets_them() -> None:
    """The cross-check that makes all-or-nothing safe: import checks form values itself
    (the forms model checks and writes in one step), so on every field of the corpus's
    form files, for values the rules take and values they refuse, importing a value must
    succeed exactly when setting it through the forms model does, with the same result,
    and change nothing when it fails. (A value equal to the field's own is a no-op for
    import, whatever the rules say of it.)"""
    from forms_sweep import CORPUS, form_files

    checked = refused = 0
    mismatches: List[str] = []
    for rel in form_files():
        path = str(CORPUS / rel)
        try:
            with quire.Document(path) as doc:
                fields = [(f.index, f.name, f.type, f.values, _candidates(f)) for f in doc.fields]
        except quire.QuireError:
            continue
        names = [f[1] for f in fields]
        for index, name, kind, original, candidates in fields:
            if not name or names.count(name) != 1:
                continue
            for candidate in candidates:
                with quire.Document(path) as by_model:
                    try:
                        by_model.fields[index].value = candidate
                        model: Any = by_model.fields[index].values
                    except quire.QuireError as e:
                        model = e
                with quire.Document(path) as by_json:
                    record = {"v": 1, "type": "pspdfkit/form-field-value", "name": name, "value": candidate}
                    try:
                        by_json.import_annotations_json(json.dumps({"formFieldValues": [record]}))
                        imported: Any = by_json.fields[index].values
                        noop = not by_json.has_unsaved_changes
                    except quire.QuireError as e:
                        imported, noop = e, not by_json.has_unsaved_changes
                        if not noop:
                            mismatches.append("%s %r %r: refused (%s) but changed the document" % (rel, name, candidate, e))
                checked += 1
                where = "%s %r = %r" % (rel, name, candidate)
                if isinstance(imported, Exception):
                    refused += 1
                    if not isinstance(model, Exception):
                        mismatches.append("%s: import refused (%s), the forms model set %r" % (where, imported, model))
                elif noop and _same_values(kind, imported, original):
                    if not isinstance(model, Exception) and not _same_values(kind, model, original):
                        mismatches.append("%s: import left %r, the forms model set %r" % (where, imported, model))
                elif isinstance(model, Exception):
                    mismatches.append("%s: import set %r, the forms model refused (%s)" % (where, imported, model))
                elif not _same_values(kind, imported, model):
                    mismatches.append("%s: import set %r, the forms model %r" % (where, imported, model))
    assert not mismatches, "\n".join(mismatches[:40])
    assert checked > 500 and refused > 100, (checked, refused)
