"""The forms cross-check of issue 22: fill every field of every AcroForm file of the corpus
with Quire, save incrementally and in full, and read the values back with PDFium
(pypdfium2's form API) and pypdf; render the filled pages with pdftoppm and check that the
pixels inside each changed widget differ from the original's.

Run it alone for the whole report (``python3 Tests/python/forms_sweep.py [--render]``);
Tests/python/test_forms.py runs it and asserts on it.

A field that cannot be filled (read-only, push button, signature, a text field with
/MaxLen 0, a field without widgets on a page) is listed with the reason; it is not a
failure. A value that a peer reads back differently is a failure, as is a widget whose
pixels do not change (unless it is outside the page or has no area): test_forms.py lists
the ones whose reason was found (hidden widgets, poppler's own drawing under
/NeedAppearances, ...).
"""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
sys.path.insert(0, str(REPO / "bindings" / "python"))

import quire  # noqa: E402


def form_files() -> List[str]:
    """Corpus files that PDFium reports a form for (form_type 1: AcroForm, 2: XFA, 3: XFA
    foreground), once each (no duplicates), that the peers open and are not encrypted."""
    out = []
    for line in (CORPUS / "manifest.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r.get("duplicate_of") or not (r.get("pdfium") or {}).get("form_type"):
            continue
        if r["consensus"].get("is_encrypted"):
            continue
        out.append(r["path"])
    return sorted(out)


def choose_value(field: quire.FormField) -> Tuple[Optional[Any], str]:
    """A value of the field's type that differs from its current one, or None and why not."""
    t = field.type
    if t in (quire.FieldType.PUSH_BUTTON, quire.FieldType.SIGNATURE, quire.FieldType.UNKNOWN):
        return None, t.name.lower()
    if field.is_read_only:
        return None, "read-only"
    if not any(w.page_index is not None for w in field.widgets):
        return None, "no widget on a page"
    current = field.value
    if t is quire.FieldType.TEXT:
        flags = field.flags
        name = "Quire %d" % field.index
        maxlen = _maxlen(field)
        if maxlen is not None:
            if maxlen <= 0:
                return None, "text field with /MaxLen %d" % maxlen
            name = ("Q%d" % field.index + "XYZW" * 8)[:maxlen]
        if quire.FieldFlags.MULTILINE in flags:
            name = name if maxlen is not None else name + "\nsecond line"
        return name, ""
    options = [o.export_value for o in field.options]
    if t in (quire.FieldType.CHECK_BOX, quire.FieldType.RADIO_BUTTON):
        if not options:
            return ("Yes" if t is quire.FieldType.CHECK_BOX else None), ("" if t is quire.FieldType.CHECK_BOX else "radio group without on-states")
        pick = [o for o in options if o != current]
        return (pick[0] if pick else "Off"), ""
    if t is quire.FieldType.COMBO_BOX:
        pick = [o for o in options if o != current]
        if pick:
            return pick[0], ""
        if quire.FieldFlags.EDIT in field.flags:
            return "Quire", ""
        return None, "combo box without another option"
    if t is quire.FieldType.LIST_BOX:
        if not options:
            return None, "list box without options"
        if quire.FieldFlags.MULTI_SELECT in field.flags and len(options) >= 2:
            pick = options[-2:]
            return (pick if pick != current else options[:2]), ""
        pick = [o for o in options if [o] != current]
        return ([pick[0]] if pick else None), ("" if pick else "list box without another option")
    return None, "unknown"


def _maxlen(field: quire.FormField) -> Optional[int]:
    return field.max_length


def _pdfium_values(path: Path) -> Dict[str, Tuple[str, Optional[bool]]]:
    """Field name -> (value, checked) of every widget, through PDFium's form API."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    pdf = pdfium.PdfDocument(str(path))
    out: Dict[str, Tuple[str, Optional[bool]]] = {}
    try:
        pdf.init_forms()
        form = pdf.formenv.raw
        for page in pdf:
            n = raw.FPDFPage_GetAnnotCount(page.raw)
            for i in range(n):
                annot = raw.FPDFPage_GetAnnot(page.raw, i)
                try:
                    if raw.FPDFAnnot_GetSubtype(annot) != raw.FPDF_ANNOT_WIDGET:
                        continue
                    name = _utf16(raw.FPDFAnnot_GetFormFieldName, form, annot)
                    value = _utf16(raw.FPDFAnnot_GetFormFieldValue, form, annot)
                    kind = raw.FPDFAnnot_GetFormFieldType(form, annot)
                    checked = None
                    if kind in (raw.FPDF_FORMFIELD_CHECKBOX, raw.FPDF_FORMFIELD_RADIOBUTTON):
                        checked = bool(raw.FPDFAnnot_IsChecked(form, annot))
                        if name in out and out[name][1]:
                            continue  # a radio group: the checked widget speaks for it
                    out[name] = (value, checked)
                finally:
                    raw.FPDFPage_CloseAnnot(annot)
    finally:
        pdf.close()
    return out


def _utf16(function: Any, form: Any, annot: Any) -> str:
    size = function(form, annot, None, 0)
    if size <= 2:
        return ""
    buf = (ctypes.c_ubyte * size)()
    function(form, annot, ctypes.cast(buf, ctypes.POINTER(ctypes.c_ushort)), size)
    return bytes(buf).decode("utf-16-le", errors="replace").rstrip("\0")


def _pypdf_values(path: Path) -> Dict[str, Any]:
    import pypdf

    fields = pypdf.PdfReader(str(path)).get_fields() or {}
    out = {}
    for name, f in fields.items():
        v = f.get("/V")
        if isinstance(v, list):
            out[name] = [str(x) for x in v]
        elif v is None:
            out[name] = None
        else:
            s = str(v)
            out[name] = s[1:] if s.startswith("/") else s
    return out


def _render(path: Path, page: int, dpi: int, out: Path) -> Optional[bytes]:
    """Page `page` (0-based) as PGM bytes (header stripped), or None when pdftoppm fails."""
    r = subprocess.run(["pdftoppm", "-gray", "-r", str(dpi), "-f", str(page + 1), "-l", str(page + 1),
                        "-singlefile", str(path), str(out)], capture_output=True, timeout=120)
    pgm = Path(str(out) + ".pgm")
    if r.returncode != 0 or not pgm.exists():
        return None
    return pgm.read_bytes()


def _pgm(data: bytes) -> Tuple[int, int, bytes]:
    parts = data.split(maxsplit=4)
    return int(parts[1]), int(parts[2]), parts[4]


def check_file(rel: str, render: bool, work: Path) -> Dict[str, Any]:
    """Fills every field of one file; returns its report."""
    src = CORPUS / rel
    report: Dict[str, Any] = {"file": rel, "skipped": [], "differ": [], "filled": 0, "pixels_unchanged": []}
    try:
        doc = quire.Document(str(src))
    except quire.QuireError as e:
        report["error"] = "open: %s" % e
        return report
    with doc:
        kind = doc.form_kind
        report["kind"] = kind.name
        if kind in (quire.FormKind.NONE, quire.FormKind.XFA_ONLY):
            return report
        expected: Dict[str, Any] = {}
        widgets: List[Tuple[str, int, quire.Rect]] = []
        buttons: set = set()
        for field in doc.fields:
            value, why = choose_value(field)
            if value is None:
                report["skipped"].append((field.name, why))
                continue
            try:
                field.value = value
            except quire.QuireError as e:
                report["skipped"].append((field.name, "refused: %s" % e))
                continue
            got = field.value
            expected[field.name] = got
            report["filled"] += 1
            for w in field.widgets:
                if w.page_index is not None and field.type is not quire.FieldType.LIST_BOX:
                    widgets.append((field.name, w.page_index, w.rect))
            if field.type in (quire.FieldType.CHECK_BOX, quire.FieldType.RADIO_BUTTON):
                buttons.add(field.name)
        incremental = work / "incremental.pdf"
        full = work / "full.pdf"
        doc.save(str(full), full=True)
    # The full save above continued the document from it; reopen the original for the
    # incremental one.
    with quire.Document(str(src)) as doc2:
        for name, value in expected.items():
            try:
                doc2.field(name).value = value
            except quire.QuireError as e:
                report["differ"].append((name, "incremental refill: %s" % e))
        doc2.save(str(incremental))
    try:
        _pypdf_values(src)
        pypdf_reads_original = True
    except Exception as e:  # noqa: BLE001 - pypdf cannot read the original: not Quire's doing
        pypdf_reads_original = False
        report["peer_limits"] = ["pypdf cannot read the original's fields: %s" % str(e)[:120]]
    for label, path in (("incremental", incremental), ("full", full)):
        try:
            pdfium_values = _pdfium_values(path)
        except Exception as e:  # noqa: BLE001 - a peer that cannot read the file is a finding
            report["differ"].append(("*", "%s: pdfium: %s" % (label, e)))
            pdfium_values = {}
        try:
            pypdf_values = _pypdf_values(path) if pypdf_reads_original else None
        except Exception as e:  # noqa: BLE001
            report["differ"].append(("*", "%s: pypdf: %s" % (label, e)))
            pypdf_values = None
        for name, value in expected.items():
            if not name:
                continue  # a field without a name: the peers key fields by name
            want = value
            p = pypdf_values.get(name, "<missing>") if pypdf_values is not None else want
            if p != want and not (isinstance(want, list) and len(want) == 1 and p == want[0]):
                report["differ"].append((name, "%s: pypdf reads %r, Quire wrote %r" % (label, p, want)))
            if name in pdfium_values:
                pv, checked = pdfium_values[name]
                if checked is not None:
                    if checked != (want != "Off"):
                        report["differ"].append((name, "%s: pdfium checked=%r, Quire wrote %r" % (label, checked, want)))
                elif isinstance(want, list):
                    if pv not in want:
                        report["differ"].append((name, "%s: pdfium reads %r, Quire wrote %r" % (label, pv, want)))
                elif pv != want:
                    report["differ"].append((name, "%s: pdfium reads %r, Quire wrote %r" % (label, pv, want)))
            elif pdfium_values:
                report["differ"].append((name, "%s: pdfium lists no widget of the field" % label))
    if render and widgets:
        _check_pixels(src, incremental, widgets, work, report)
        # A radio group's widgets that stay off do not change, nor does a check box's
        # widget whose state is not the one chosen: a button needs one changed widget.
        changed = report.pop("pixels_changed", set())
        report["pixels_unchanged"] = [(n, p) for n, p in report["pixels_unchanged"]
                                      if not (n in buttons and n in changed)]
    return report


def _check_pixels(src: Path, filled: Path, widgets: List[Tuple[str, int, quire.Rect]], work: Path,
                  report: Dict[str, Any]) -> None:
    dpi = 50
    with quire.Document(str(src)) as doc:
        boxes = {}
        for _, page, _ in widgets:
            if page not in boxes:
                boxes[page] = (doc.pages[page].box(quire.Box.CROP), doc.pages[page].rotation)
    for page in sorted(boxes):
        before = _render(src, page, dpi, work / ("b%d" % page))
        after = _render(filled, page, dpi, work / ("a%d" % page))
        if before is None or after is None:
            report["differ"].append(("*", "pdftoppm failed on page %d" % page))
            continue
        w, h, a = _pgm(before)
        w2, h2, b = _pgm(after)
        crop, rotation = boxes[page]
        for name, p, rect in widgets:
            if p != page:
                continue
            if rotation != 0:
                continue  # widget boxes in page space; pixels of rotated pages not mapped here
            s = dpi / 72.0
            x0 = int((rect.left - crop.left) * s)
            x1 = int((rect.right - crop.left) * s + 0.999)
            y0 = int((crop.top - rect.top) * s)
            y1 = int((crop.top - rect.bottom) * s + 0.999)
            x0, x1 = max(x0, 0), min(x1, w)
            y0, y1 = max(y0, 0), min(y1, h)
            if x1 <= x0 or y1 <= y0 or (w, h) != (w2, h2):
                continue  # outside the page, no area
            changed = any(a[y * w + x] != b[y * w + x] for y in range(y0, y1) for x in range(x0, x1))
            if changed:
                report.setdefault("pixels_changed", set()).add(name)
            else:
                report["pixels_unchanged"].append((name, page))


def sweep(render: bool = False, files: Optional[List[str]] = None) -> List[Dict[str, Any]]:
    reports = []
    for rel in files if files is not None else form_files():
        with tempfile.TemporaryDirectory() as tmp:
            try:
                reports.append(check_file(rel, render, Path(tmp)))
            except quire.QuireError as e:
                reports.append({"file": rel, "error": str(e), "skipped": [], "differ": [], "filled": 0, "pixels_unchanged": []})
    return reports


if __name__ == "__main__":
    results = sweep(render="--render" in sys.argv)
    for r in results:
        if r.get("error") or r["differ"] or r["pixels_unchanged"]:
            print(json.dumps(r))
    print("files %d, filled %d, skipped %d, differ %d, pixels unchanged %d, errors %d" % (
        len(results), sum(r["filled"] for r in results), sum(len(r["skipped"]) for r in results),
        sum(len(r["differ"]) for r in results), sum(len(r["pixels_unchanged"]) for r in results),
        sum(1 for r in results if r.get("error"))))
