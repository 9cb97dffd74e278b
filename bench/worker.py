#!/usr/bin/env python3
"""One measurement, in its own process: ``worker.py PEER WORKLOAD ARGS...`` imports one
library, runs one workload once, and prints one JSON line: the seconds the workload took
(the import and the interpreter's start are not counted), the process's peak resident
memory (VmHWM, like ``ru_maxrss`` but without what the parent had: the interpreter and
the library included, which is why every measurement runs in a fresh process), and what it read, so that the harness can check
that every peer did the same work.

Workloads:
    read FILE...      open, count pages, read every annotation's subtype, rect, contents
                      and /IRT on every page, close; over all FILEs (a file list may be
                      given as @LIST)
    incremental SRC OUT
                      open SRC, add one square annotation to page 1, save incrementally
                      (OUT is a scratch copy of SRC made by the harness: the peers that
                      only append in place, MuPDF, save into it)
    incremental-in-place SRC OUT
                      the same, appended in place to SRC (Quire's in_place=True)
    rewrite SRC OUT   open SRC, save a full rewrite to OUT
    rewrite-object-streams SRC OUT
                      Quire only: the same, objects packed into object streams (as qpdf
                      keeps them)
    open FILE         open FILE and close it (lazy parsing: nothing else is asked for)
    fill-forms SRC OUT
                      give each of the 100 text fields of SRC a new value, save to OUT
    flatten SRC OUT   burn the form's fields into their pages, save in full to OUT
    json-export SRC OUT, json-import SRC JSON
                      Quire only: SRC's annotations as Instant JSON; JSON imported into SRC
    checkpoint-save SRC DIR
                      Quire only: immediate checkpoints on SRC, two annotations each saved
                      in place
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# -- Quire --------------------------------------------------------------------------------

def quire_read(paths):
    import quire
    pages = annots = irt = chars = errors = 0
    for path in paths:
        try:
            with quire.Document(path) as doc:
                for page in doc.pages:
                    pages += 1
                    try:
                        annotations = page.annotations
                    except quire.NotFoundError:
                        # Counted by the root's /Count but not in the tree: PDFium's
                        # FPDF_LoadPage fails on such a page too, and its reader goes on.
                        continue
                    for a in annotations:
                        annots += 1
                        subtype = a.subtype
                        _rect = a.rect
                        contents = a.contents
                        target = a.in_reply_to
                        chars += len(subtype) + len(contents or "")
                        if target is not None:
                            irt += 1
        except Exception:  # noqa: BLE001 - counted: every peer reads the same files
            errors += 1
    return {"pages": pages, "annots": annots, "irt": irt, "chars": chars, "errors": errors}


def quire_incremental(src, out):
    import quire
    with quire.Document(src) as doc:
        note = quire.Annotation.new("Square", 0, (100, 100, 200, 200))
        note.contents = "benchmark"
        doc.add_annotation(note)
        doc.save(out)
    return {}


def quire_incremental_stream(src, out):
    """The same save through a Python file object: no fsync, no rename."""
    import quire
    with quire.Document(src) as doc:
        note = quire.Annotation.new("Square", 0, (100, 100, 200, 200))
        note.contents = "benchmark"
        doc.add_annotation(note)
        with open(out, "wb") as f:
            doc.save(f)
    return {}


def quire_incremental_in_place(src, out):
    """The same change appended in place to SRC itself (in_place=True): the update alone is
    written, after the unchanged-file check, with two flushes."""
    import quire
    with quire.Document(src) as doc:
        note = quire.Annotation.new("Square", 0, (100, 100, 200, 200))
        note.contents = "benchmark"
        doc.add_annotation(note)
        doc.save(src, in_place=True)
    return {}


def quire_rewrite(src, out):
    import quire
    with quire.Document(src) as doc:
        doc.save(out, full=True)
    return {}


def quire_rewrite_object_streams(src, out):
    import quire
    with quire.Document(src) as doc:
        doc.save(out, full=True, object_streams=True)
    return {}


def quire_open(path):
    import quire
    with quire.Document(path):
        pass
    return {}


def quire_last_page(path):
    import quire
    with quire.Document(path) as doc:
        a = doc.pages[len(doc.pages) - 1].annotations[0]
        return {"subtype": a.subtype, "contents": a.contents}


# -- PDFium (pypdfium2) -------------------------------------------------------------------

def pdfium_read(paths):
    import ctypes
    import pypdfium2 as pdfium
    import pypdfium2.raw as r
    pages = annots = irt = chars = errors = 0
    rect = r.FS_RECTF()
    buf = ctypes.create_string_buffer(4096)
    for path in paths:
        try:
            pdf = pdfium.PdfDocument(path)
            try:
                n = r.FPDF_GetPageCount(pdf.raw)
                for i in range(n):
                    page = r.FPDF_LoadPage(pdf.raw, i)
                    pages += 1
                    if not page:
                        continue
                    for k in range(r.FPDFPage_GetAnnotCount(page)):
                        annot = r.FPDFPage_GetAnnot(page, k)
                        if not annot:
                            continue
                        annots += 1
                        _subtype = r.FPDFAnnot_GetSubtype(annot)
                        r.FPDFAnnot_GetRect(annot, rect)
                        size = r.FPDFAnnot_GetStringValue(annot, b"Contents", None, 0)
                        if size > len(buf):
                            buf = ctypes.create_string_buffer(size)
                        r.FPDFAnnot_GetStringValue(annot, b"Contents", ctypes.cast(buf, ctypes.POINTER(r.FPDF_WCHAR)), size)
                        contents = buf.raw[: max(size - 2, 0)].decode("utf-16-le", errors="replace")
                        chars += len(contents) + 1  # subtypes are numbers here: count them as one
                        linked = r.FPDFAnnot_GetLinkedAnnot(annot, b"IRT")
                        if linked:
                            irt += 1
                            r.FPDFPage_CloseAnnot(linked)
                        r.FPDFPage_CloseAnnot(annot)
                    r.FPDF_ClosePage(page)
            finally:
                pdf.close()
        except Exception:  # noqa: BLE001 - counted: every peer reads the same files
            errors += 1
    return {"pages": pages, "annots": annots, "irt": irt, "chars": chars, "errors": errors}


def pdfium_incremental(src, out):
    import pypdfium2 as pdfium
    import pypdfium2.raw as r
    pdf = pdfium.PdfDocument(src)
    page = r.FPDF_LoadPage(pdf.raw, 0)
    annot = r.FPDFPage_CreateAnnot(page, r.FPDF_ANNOT_SQUARE)
    rect = r.FS_RECTF(100, 200, 200, 100)
    r.FPDFAnnot_SetRect(annot, rect)
    text = "benchmark".encode("utf-16-le") + b"\0\0"
    r.FPDFAnnot_SetStringValue(annot, b"Contents", ctypes_wide(text))
    r.FPDFPage_CloseAnnot(annot)
    r.FPDF_ClosePage(page)
    with open(out, "wb") as f:
        pdf.save(f, flags=r.FPDF_INCREMENTAL)
    pdf.close()
    return {}


def ctypes_wide(data):
    import ctypes
    import pypdfium2.raw as r
    return ctypes.cast(ctypes.create_string_buffer(data, len(data)), ctypes.POINTER(r.FPDF_WCHAR))


def pdfium_rewrite(src, out):
    import pypdfium2 as pdfium
    import pypdfium2.raw as r
    pdf = pdfium.PdfDocument(src)
    with open(out, "wb") as f:
        pdf.save(f, flags=r.FPDF_NO_INCREMENTAL)
    pdf.close()
    return {}


def pdfium_open(path):
    import pypdfium2 as pdfium
    pdf = pdfium.PdfDocument(path)
    pdf.close()
    return {}


def pdfium_last_page(path):
    import ctypes
    import pypdfium2 as pdfium
    import pypdfium2.raw as r
    pdf = pdfium.PdfDocument(path)
    page = r.FPDF_LoadPage(pdf.raw, r.FPDF_GetPageCount(pdf.raw) - 1)
    annot = r.FPDFPage_GetAnnot(page, 0)
    subtype = r.FPDFAnnot_GetSubtype(annot)
    size = r.FPDFAnnot_GetStringValue(annot, b"Contents", None, 0)
    buf = ctypes.create_string_buffer(size)
    r.FPDFAnnot_GetStringValue(annot, b"Contents", ctypes.cast(buf, ctypes.POINTER(r.FPDF_WCHAR)), size)
    r.FPDFPage_CloseAnnot(annot)
    r.FPDF_ClosePage(page)
    pdf.close()
    return {"subtype": subtype, "contents": buf.raw[: max(size - 2, 0)].decode("utf-16-le")}


# -- MuPDF (pymupdf) ----------------------------------------------------------------------

def _fitz():
    import pymupdf
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    return pymupdf


def mupdf_read(paths):
    pymupdf = _fitz()
    pages = annots = irt = chars = errors = 0
    for path in paths:
        try:
            doc = pymupdf.open(path)
            try:
                for page in doc:
                    pages += 1
                    for a in page.annots():  # MuPDF's list leaves out /Popup annotations
                        annots += 1
                        subtype = a.type[1]
                        _rect = a.rect
                        contents = a.info["content"]
                        chars += len(subtype) + len(contents)
                        if a.irt_xref:
                            irt += 1
            finally:
                doc.close()
        except Exception:  # noqa: BLE001 - counted: every peer reads the same files
            errors += 1
    return {"pages": pages, "annots": annots, "irt": irt, "chars": chars, "errors": errors}


def mupdf_incremental(src, out):
    pymupdf = _fitz()
    doc = pymupdf.open(out)  # MuPDF appends in place: `out` is a fresh copy of `src`
    annot = doc[0].add_rect_annot(pymupdf.Rect(100, 100, 200, 200))
    annot.set_info(content="benchmark")
    annot.update()
    doc.saveIncr()
    doc.close()
    return {}


def mupdf_rewrite(src, out):
    pymupdf = _fitz()
    doc = pymupdf.open(src)
    doc.save(out)
    doc.close()
    return {}


def mupdf_open(path):
    pymupdf = _fitz()
    doc = pymupdf.open(path)
    doc.close()
    return {}


def mupdf_last_page(path):
    pymupdf = _fitz()
    doc = pymupdf.open(path)
    page = doc[doc.page_count - 1]  # kept: an annotation of a page object that is gone fails
    annot = page.first_annot  # MuPDF's list leaves out /Popup annotations
    result = {"subtype": annot.type[1], "contents": annot.info["content"]}
    doc.close()
    return result


# -- qpdf (pikepdf) -----------------------------------------------------------------------

def qpdf_read(paths):
    import pikepdf
    pages = annots = irt = chars = errors = 0
    for path in paths:
        try:
            with pikepdf.open(path) as pdf:
                for page in pdf.pages:
                    pages += 1
                    obj = page.obj
                    arr = obj.get("/Annots")
                    if not isinstance(arr, pikepdf.Array):
                        continue
                    for a in arr:
                        if not isinstance(a, pikepdf.Dictionary):
                            continue
                        annots += 1
                        subtype = str(a.get("/Subtype", ""))
                        r = a.get("/Rect")
                        _rect = [float(x) for x in r] if isinstance(r, pikepdf.Array) else None
                        c = a.get("/Contents")
                        contents = str(c) if isinstance(c, pikepdf.String) else ""
                        chars += len(subtype) - 1 + len(contents)
                        t = a.get("/IRT")
                        if isinstance(t, pikepdf.Dictionary):
                            irt += 1
        except Exception:  # noqa: BLE001 - counted: every peer reads the same files
            errors += 1
    return {"pages": pages, "annots": annots, "irt": irt, "chars": chars, "errors": errors}


def qpdf_incremental(src, out):
    """qpdf has no incremental save: this is a full rewrite (said so in the table)."""
    import pikepdf
    with pikepdf.open(src) as pdf:
        page = pdf.pages[0]
        annot = pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Square, Rect=[100, 100, 200, 200],
            Contents=pikepdf.String("benchmark"), P=page.obj))
        if "/Annots" in page.obj:
            page.obj.Annots.append(annot)
        else:
            page.obj.Annots = pikepdf.Array([annot])
        pdf.save(out)
    return {}


def qpdf_rewrite(src, out):
    import pikepdf
    with pikepdf.open(src) as pdf:
        pdf.save(out)
    return {}


def qpdf_open(path):
    import pikepdf
    pikepdf.open(path).close()
    return {}


def qpdf_last_page(path):
    import pikepdf
    with pikepdf.open(path) as pdf:
        a = pdf.pages[len(pdf.pages) - 1].Annots[0]
        return {"subtype": str(a.Subtype), "contents": str(a.get("/Contents", ""))}


# -- pypdf --------------------------------------------------------------------------------

def pypdf_read(paths):
    import logging
    import pypdf
    from pypdf.generic import ArrayObject, DictionaryObject
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    pages = annots = irt = chars = errors = 0
    for path in paths:
        try:
            reader = pypdf.PdfReader(path)
            for page in reader.pages:
                pages += 1
                arr = page.get("/Annots")
                arr = arr.get_object() if arr is not None else None
                if not isinstance(arr, ArrayObject):
                    continue
                for item in arr:
                    a = item.get_object()
                    if not isinstance(a, DictionaryObject):
                        continue
                    annots += 1
                    subtype = str(a.get("/Subtype", ""))
                    r = a.get("/Rect")
                    r = r.get_object() if r is not None else None
                    _rect = [float(x.get_object()) for x in r] if isinstance(r, ArrayObject) else None
                    c = a.get("/Contents")
                    contents = str(c.get_object()) if c is not None else ""
                    chars += len(subtype) - 1 + len(contents)
                    t = a.get("/IRT")
                    if t is not None and isinstance(t.get_object(), DictionaryObject):
                        irt += 1
            reader.stream.close() if hasattr(reader, "stream") else None
        except Exception:  # noqa: BLE001 - counted: every peer reads the same files
            errors += 1
    return {"pages": pages, "annots": annots, "irt": irt, "chars": chars, "errors": errors}


def pypdf_incremental(src, out):
    import logging
    import pypdf
    from pypdf.annotations import Rectangle
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    writer = pypdf.PdfWriter(src, incremental=True)
    annot = Rectangle(rect=(100, 100, 200, 200))
    annot[pypdf.generic.NameObject("/Contents")] = pypdf.generic.TextStringObject("benchmark")
    writer.add_annotation(page_number=0, annotation=annot)
    with open(out, "wb") as f:
        writer.write(f)
    return {}


def pypdf_rewrite(src, out):
    import logging
    import pypdf
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    writer = pypdf.PdfWriter(clone_from=src)
    with open(out, "wb") as f:
        writer.write(f)
    return {}


def pypdf_open(path):
    import pypdf
    reader = pypdf.PdfReader(path)
    reader.stream.close()
    return {}


def pypdf_last_page(path):
    import pypdf
    reader = pypdf.PdfReader(path)
    a = reader.pages[len(reader.pages) - 1]["/Annots"][0].get_object()
    result = {"subtype": str(a["/Subtype"]), "contents": str(a.get("/Contents", ""))}
    reader.stream.close()
    return result


# -----------------------------------------------------------------------------------------

# -- Text (issue 18): the plain text of every page -----------------------------------------

def quire_text(paths):
    import quire
    pages = chars = errors = 0
    for path in paths:
        try:
            with quire.Document(path) as doc:
                for page in doc.pages:
                    pages += 1
                    chars += len(page.text)
        except Exception:  # noqa: BLE001 - counted: every peer reads the same files
            errors += 1
    return {"pages": pages, "chars": chars, "errors": errors}


def pdfium_text(paths):
    import pypdfium2 as pdfium
    pages = chars = errors = 0
    for path in paths:
        try:
            pdf = pdfium.PdfDocument(path)
            try:
                for i in range(len(pdf)):
                    page = pdf[i]
                    pages += 1
                    textpage = page.get_textpage()
                    chars += len(textpage.get_text_range())
                    textpage.close()
                    page.close()
            finally:
                pdf.close()
        except Exception:  # noqa: BLE001
            errors += 1
    return {"pages": pages, "chars": chars, "errors": errors}


def mupdf_text(paths):
    fitz = _fitz()
    pages = chars = errors = 0
    for path in paths:
        try:
            doc = fitz.open(path)
            try:
                for page in doc:
                    pages += 1
                    chars += len(page.get_text())
            finally:
                doc.close()
        except Exception:  # noqa: BLE001
            errors += 1
    return {"pages": pages, "chars": chars, "errors": errors}


# -- Text with character positions (issue 41): every character's text and box ----------------
#
# What a Python program that lays text out reads: each character's text and box, page by page
# (Quire: Page.chars(), one library call per page; PDFium: FPDFText_GetUnicode and
# FPDFText_GetCharBox per character, as pypdfium2's get_charbox does; MuPDF: rawdict's
# characters).

def quire_chars(path):
    import quire
    chars = 0
    width = 0.0
    with quire.Document(path) as doc:
        for page in doc.pages:
            for c in page.chars():
                chars += len(c.text)
                width += c.box.right - c.box.left
    return {"chars": chars, "width": round(width, 1)}


def pdfium_chars(path):
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw
    chars = 0
    width = 0.0
    pdf = pdfium.PdfDocument(path)
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            for k in range(textpage.count_chars()):
                chars += len(chr(raw.FPDFText_GetUnicode(textpage, k)))
                left, bottom, right, top = textpage.get_charbox(k)
                width += right - left
            textpage.close()
            page.close()
    finally:
        pdf.close()
    return {"chars": chars, "width": round(width, 1)}


def mupdf_chars(path):
    fitz = _fitz()
    chars = 0
    width = 0.0
    doc = fitz.open(path)
    try:
        for page in doc:
            for block in page.get_text("rawdict")["blocks"]:
                for line in block.get("lines", ()):
                    for span in line["spans"]:
                        for c in span["chars"]:
                            chars += len(c["c"])
                            box = c["bbox"]
                            width += box[2] - box[0]
    finally:
        doc.close()
    return {"chars": chars, "width": round(width, 1)}


# -- Search a phrase (issue 41): every match of a phrase in a 1,000-page document ------------

def quire_search(path, phrase):
    import quire
    with quire.Document(path) as doc:
        return {"matches": len(doc.search(phrase))}


def pdfium_search(path, phrase):
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw
    query = (phrase + "\0").encode("utf-16-le")
    buffer = ctypes.create_string_buffer(query)
    wide = ctypes.cast(buffer, ctypes.POINTER(raw.FPDF_WCHAR))
    matches = 0
    pdf = pdfium.PdfDocument(path)
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            handle = raw.FPDFText_FindStart(textpage, wide, 0, 0)
            while raw.FPDFText_FindNext(handle):
                matches += 1
            raw.FPDFText_FindClose(handle)
            textpage.close()
            page.close()
    finally:
        pdf.close()
    return {"matches": matches}


def mupdf_search(path, phrase):
    fitz = _fitz()
    matches = 0
    doc = fitz.open(path)
    try:
        for page in doc:
            matches += len(page.search_for(phrase, quads=True))
    finally:
        doc.close()
    return {"matches": matches}


# -- page operations (issue 36): merge, split, delete -----------------------------------------
#
# merge: large.pdf twice into one file (qpdf --pages, PyMuPDF insert_pdf, PDFium
# FPDF_ImportPages); split: every page of large.pdf into a file of its own; delete-half:
# every second page of large.pdf deleted, the rest saved in full.


def quire_merge(src, out):
    import quire
    with quire.Document(src) as doc, quire.Document(src) as other:
        doc.merge(other)
        doc.save(out, full=True)
    return {}


def pdfium_merge(src, out):
    import pypdfium2 as pdfium
    import pypdfium2.raw as r
    pdf = pdfium.PdfDocument(src)
    other = pdfium.PdfDocument(src)
    pdf.import_pages(other)
    with open(out, "wb") as f:
        pdf.save(f, flags=r.FPDF_NO_INCREMENTAL)
    other.close()
    pdf.close()
    return {}


def mupdf_merge(src, out):
    pymupdf = _fitz()
    doc = pymupdf.open(src)
    other = pymupdf.open(src)
    doc.insert_pdf(other)
    doc.save(out)
    other.close()
    doc.close()
    return {}


def qpdf_merge(src, out):
    import pikepdf
    with pikepdf.open(src) as pdf, pikepdf.open(src) as other:
        pdf.pages.extend(other.pages)
        pdf.save(out)
    return {}


def _part(directory, i):
    return os.path.join(directory, "page-%05d.pdf" % i)


def quire_split(src, directory):
    import quire
    with quire.Document(src) as doc:
        for i in range(doc.page_count):
            # To a file object, as the peers write: no fsync and rename per file (a path
            # would get Quire's atomic, durable save: 3000 fsyncs).
            with doc.extract([i]) as part, open(_part(directory, i), "wb") as f:
                part.save(f, full=True)
    return {}


def pdfium_split(src, directory):
    import pypdfium2 as pdfium
    import pypdfium2.raw as r
    pdf = pdfium.PdfDocument(src)
    for i in range(len(pdf)):
        part = pdfium.PdfDocument.new()
        part.import_pages(pdf, [i])
        with open(_part(directory, i), "wb") as f:
            part.save(f, flags=r.FPDF_NO_INCREMENTAL)
        part.close()
    pdf.close()
    return {}


def mupdf_split(src, directory):
    pymupdf = _fitz()
    doc = pymupdf.open(src)
    for i in range(doc.page_count):
        part = pymupdf.open()
        part.insert_pdf(doc, from_page=i, to_page=i)
        part.save(_part(directory, i))
        part.close()
    doc.close()
    return {}


def qpdf_split(src, directory):
    import pikepdf
    with pikepdf.open(src) as pdf:
        for i, page in enumerate(pdf.pages):
            with pikepdf.new() as part:
                part.pages.append(page)
                part.save(_part(directory, i))
    return {}


def quire_delete_half(src, out):
    import quire
    with quire.Document(src) as doc:
        doc.pages.delete(range(1, doc.page_count, 2))
        doc.save(out, full=True)
    return {}


def pdfium_delete_half(src, out):
    import pypdfium2 as pdfium
    import pypdfium2.raw as r
    pdf = pdfium.PdfDocument(src)
    for i in reversed(range(1, len(pdf), 2)):
        pdf.del_page(i)
    with open(out, "wb") as f:
        pdf.save(f, flags=r.FPDF_NO_INCREMENTAL)
    pdf.close()
    return {}


def mupdf_delete_half(src, out):
    pymupdf = _fitz()
    doc = pymupdf.open(src)
    doc.delete_pages(list(range(1, doc.page_count, 2)))
    doc.save(out)
    doc.close()
    return {}


def qpdf_delete_half(src, out):
    import pikepdf
    with pikepdf.open(src) as pdf:
        for i in reversed(range(1, len(pdf.pages), 2)):
            del pdf.pages[i]
        pdf.save(out)
    return {}


# -- forms, Instant JSON and checkpoints (issue 41) ----------------------------------------
# forms-100.pdf: 100 text fields on 4 pages, each with a value and its appearance (made by
# bench/run.py with PyMuPDF's widgets). fill-forms: every field given a new value (its
# appearance made again), the document saved to a new file; flatten: every field's
# appearance burnt into its page and the form removed, saved in full.


def quire_fill_forms(src, out):
    import quire
    with quire.Document(src) as doc:
        fields = doc.fields
        for i, field in enumerate(fields):
            field.value = "filled %d" % i
        doc.save(out)
    return {"fields": len(fields)}


def mupdf_fill_forms(src, out):
    fitz = _fitz()
    doc = fitz.open(src)
    n = 0
    for page in doc:
        for widget in page.widgets():
            widget.field_value = "filled %d" % n
            widget.update()
            n += 1
    doc.save(out)
    doc.close()
    return {"fields": n}


def pypdf_fill_forms(src, out):
    import pypdf
    writer = pypdf.PdfWriter(clone_from=src)
    names = list(writer.get_form_text_fields())
    writer.update_page_form_field_values(None, {name: "filled %d" % i for i, name in enumerate(names)})
    writer.write(out)
    return {"fields": len(names)}


def quire_flatten(src, out):
    import quire
    with quire.Document(src) as doc:
        drawn = doc.flatten(["Widget"])
        doc.save(out, full=True)
    return {"fields": drawn}


def mupdf_flatten(src, out):
    fitz = _fitz()
    doc = fitz.open(src)
    n = sum(1 for page in doc for _ in page.widgets())
    doc.bake(annots=False, widgets=True)
    doc.save(out, garbage=1)
    doc.close()
    return {"fields": n}


def pypdf_flatten(src, out):
    import pypdf
    writer = pypdf.PdfWriter(clone_from=src)
    values = {name: value or "" for name, value in writer.get_form_text_fields().items()}
    writer.update_page_form_field_values(None, values, flatten=True)
    writer.remove_annotations(subtypes="/Widget")
    if "/AcroForm" in writer.root_object:
        del writer.root_object["/AcroForm"]
    writer.write(out)
    return {"fields": len(values)}


def quire_json_export(src, out):
    """large.pdf's 36,000 annotations as Instant JSON, written to OUT."""
    import quire
    with quire.Document(src) as doc:
        data = doc.export_annotations_json().encode()
    with open(out, "wb") as f:
        f.write(data)
    return {"output_bytes": len(data)}


def quire_json_import(src, data_path):
    """The JSON of json-export imported into large.pdf without its annotations (the
    harness strips them with pikepdf): 36,000 annotations made, nothing saved."""
    import quire
    with open(data_path, "rb") as f:
        data = f.read()
    with quire.Document(src) as doc:
        n = doc.import_annotations_json(data)
    return {"annots": n}


def quire_checkpoint_save(src, directory):
    """Starts immediate checkpoints on SRC (a scratch copy), adds one annotation and saves
    incrementally in place, twice: what checkpoints cost on a file of that size."""
    import quire
    with quire.Document(src) as doc:
        doc.start_checkpoints("immediate", directory=directory)
        for k in range(2):
            note = quire.Annotation.new("Square", 0, (20 + 10 * k, 20, 60, 60))
            doc.add_annotation(note)
            doc.save(src, in_place=True)
        doc.stop_checkpoints(remove=True)
    return {}


def peak_rss_kb():
    """This process's peak resident memory. VmHWM is that of this program's memory since
    exec; ru_maxrss would also count the parent's, which a child inherits across
    fork and exec on Linux (the harness, with every peer imported, would dominate)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


IMPORTS = {
    "quire": "quire",
    "pdfium": "pypdfium2",
    "mupdf": "pymupdf",
    "qpdf": "pikepdf",
    "pypdf": "pypdf",
}


def main(argv):
    peer, workload, *args = argv
    function = globals()["%s_%s" % (peer, workload.replace("-", "_"))]
    if workload in ("read", "text"):
        paths = []
        for a in args:
            if a.startswith("@"):
                with open(a[1:]) as f:
                    paths += [line.rstrip("\n") for line in f if line.strip()]
            else:
                paths.append(a)
        args = [paths]
    __import__(IMPORTS[peer])  # the import is not part of the measurement
    if peer == "mupdf":
        _fitz()
    start = time.perf_counter()
    result = function(*args)
    seconds = time.perf_counter() - start
    result["seconds"] = seconds
    result["maxrss_kb"] = peak_rss_kb()
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    # QUIRE_BENCH_BINDING: another copy of the quire package (with its library), to
    # compare builds (bench/compare.py).
    sys.path.insert(0, os.environ.get("QUIRE_BENCH_BINDING") or os.path.join(ROOT, "bindings", "python"))
    sys.exit(main(sys.argv[1:]))
