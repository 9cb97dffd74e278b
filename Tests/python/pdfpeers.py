"""What the peers (pikepdf over qpdf, pypdfium2 over PDFium, pypdf, the qpdf program) see in
a PDF, and the one edit the save tests make through Quire's low-level API.

No pytest here: the corpus save sweep (Tests/corpus/save_sweep.py) imports this module
too. A peer that is not installed raises :class:`PeerMissing` (an ``ImportError``), which
the tests' one rule turns into a skip with the reason (Tests/support/quire_testing/peers.py).
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, List, Optional, Tuple, Union

import quire
from quire import Name, Reference, String

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from quire_testing.peers import PeerMissing, peer, peer_program  # noqa: E402,F401  (PeerMissing: for the importers)

Source = Union[bytes, str, Path]


def pikepdf_module() -> Any:
    return peer("pikepdf")


def pdfium_module() -> Any:
    module = peer("pypdfium2")
    peer("pypdfium2.raw")
    return module


def pypdf_module() -> Any:
    return peer("pypdf")


def qpdf_program() -> str:
    return peer_program("qpdf")


# ----------------------------------------------------------------------------------------
# Counts
# ----------------------------------------------------------------------------------------


def pikepdf_counts(source: Source, password: Optional[str] = None) -> Tuple[int, int]:
    """(pages, annotations) as pikepdf sees them: the entries of each page's /Annots that
    are dictionaries, the same rule as ``quire_page_annotation_count``."""
    pikepdf = pikepdf_module()
    opened = pikepdf.open(io.BytesIO(source) if isinstance(source, bytes) else source, password=password or "")
    with opened as pdf:
        total = 0
        for page in pdf.pages:
            annots = page.obj.get("/Annots")
            if isinstance(annots, pikepdf.Array):
                total += sum(1 for entry in annots if isinstance(entry, pikepdf.Dictionary))
        return len(pdf.pages), total


def pdfium_counts(source: Source, password: Optional[str] = None) -> Tuple[int, int]:
    """(pages, annotations) as PDFium sees them: the annotations ``FPDFPage_GetAnnot`` gives
    (it gives none for an /Annots entry that is not a dictionary)."""
    pdfium = pdfium_module()
    raw = pdfium.raw
    data: Any = source if isinstance(source, bytes) else str(source)
    document = pdfium.PdfDocument(data, password=password)
    try:
        total = 0
        for index in range(len(document)):
            page = document[index]
            try:
                for i in range(raw.FPDFPage_GetAnnotCount(page.raw)):
                    annot = raw.FPDFPage_GetAnnot(page.raw, i)
                    if annot:
                        total += 1
                        raw.FPDFPage_CloseAnnot(annot)
            finally:
                page.close()
        return len(document), total
    finally:
        document.close()


def quire_counts(document: quire.Document) -> Tuple[int, int]:
    """(pages, annotations) as Quire reads them. The page count follows the page tree's
    /Count as PDFium's does; a page that /Count counts but the tree does not hold cannot be
    loaded (NotFoundError) and has no annotations."""
    total = 0
    for page in document.pages:
        try:
            total += page.annotation_count
        except quire.NotFoundError:
            pass
    return document.page_count, total


def qpdf_check(source: Source, password: Optional[str] = None, timeout: float = 120) -> Tuple[int, str]:
    """Runs ``qpdf --check``: (exit status, output). qpdf exits with 0 for a clean file,
    3 for warnings only (such as a cross-reference it had to reconstruct) and 2 for
    errors."""
    program = qpdf_program()
    with tempfile.TemporaryDirectory() as directory:
        if isinstance(source, bytes):
            path = Path(directory) / "check.pdf"
            path.write_bytes(source)
        else:
            path = Path(source)
        command = [program, "--check"]
        if password:
            command.append("--password=%s" % password)
        command.append(str(path))
        result = subprocess.run(command, capture_output=True, timeout=timeout)
    output = (result.stdout + result.stderr).decode("utf-8", errors="replace")
    return result.returncode, output.strip()


# ----------------------------------------------------------------------------------------
# The edit: one annotation, through the low-level API
# ----------------------------------------------------------------------------------------


def first_page_reference(document: quire.Document) -> Reference:
    """The reference of the first page object: the first leaf of the page tree, depth
    first, found by walking /Root /Pages /Kids with :meth:`quire.Document.resolve`.
    Nodes that are not indirect dictionaries, and cycles, are passed over. Raises
    :class:`LookupError` when there is no such page."""
    root = document.resolve(document.trailer.get("Root"))
    if not isinstance(root, dict):
        raise LookupError("the trailer has no /Root dictionary")
    seen = set()
    # A stack of node references still to visit, first kid on top.
    stack: List[Any] = [root.get("Pages")]
    while stack:
        node_ref = stack.pop()
        if not isinstance(node_ref, Reference) or node_ref in seen or len(seen) > 100000:
            continue
        seen.add(node_ref)
        node = document.resolve(node_ref)
        if not isinstance(node, dict):
            continue
        kids = document.resolve(node.get("Kids"))
        if node.get("Type") == "Page" or (node.get("Type") != "Pages" and not isinstance(kids, list)):
            return node_ref
        if isinstance(kids, list):
            stack.extend(reversed(kids))
    raise LookupError("no page object is reachable through /Root /Pages /Kids as indirect dictionaries")


def add_text_annotation(document: quire.Document, contents: str = "Added by Quire") -> Reference:
    """Adds a Text annotation (a note) to the first page, through the low-level API: a new
    /Annot dictionary, appended to the page's /Annots (a new array when it has none; the
    array object itself when /Annots is a reference). Returns the page's reference."""
    page_ref = first_page_reference(document)
    annotation = document.add_object(
        {
            "Type": Name("Annot"),
            "Subtype": Name("Text"),
            "Rect": [36, 36, 60, 60],
            "Contents": String.from_text(contents),
            "F": 4,
            "P": page_ref,
        }
    )
    page = document.resolve(page_ref)
    annots = page.get("Annots") if isinstance(page, (dict, quire.Stream)) else None
    if isinstance(annots, Reference):
        existing = document.resolve(annots)
        if isinstance(existing, list):
            document.set_object(annots, existing + [annotation])
            return page_ref
    elif isinstance(annots, list):
        document.set_dict_value(page_ref, "Annots", annots + [annotation])
        return page_ref
    document.set_dict_value(page_ref, "Annots", [annotation])
    return page_ref


def outline_pypdf(source: Source, password: Optional[str] = None) -> List[Tuple[int, str, Optional[int]]]:
    """[(depth, title, page index or None)] of the outline as pypdf reads it, depth first."""
    pypdf = pypdf_module()
    reader = pypdf.PdfReader(io.BytesIO(source) if isinstance(source, bytes) else str(source))
    if password:
        reader.decrypt(password)
    items: List[Tuple[int, str, Optional[int]]] = []

    def walk(entries: List[Any], depth: int) -> None:
        for entry in entries:
            if isinstance(entry, list):
                walk(entry, depth + 1)
            else:
                page = reader.get_destination_page_number(entry)
                items.append((depth, str(entry.title or ""), page if page is not None and page >= 0 else None))

    walk(reader.outline, 0)
    return items


# ----------------------------------------------------------------------------------------
# Pages as each peer sees them (the page operations' checks, issue 36)
# ----------------------------------------------------------------------------------------


def pymupdf_module() -> Any:
    return peer("pymupdf")


def render_poppler_gray(data: bytes, page: int, dpi: int) -> Any:
    """Page ``page`` (0-based) of the PDF ``data`` as poppler's pdftoppm draws it at ``dpi``,
    a grayscale PIL image (the peers' rule for a missing pdftoppm or Pillow)."""
    return _render_poppler(data, page, dpi, gray=True)


def render_poppler_rgb(data: bytes, page: int, dpi: int) -> Any:
    """As :func:`render_poppler_gray`, in colour: an RGB PIL image."""
    return _render_poppler(data, page, dpi, gray=False)


def _render_poppler(data: bytes, page: int, dpi: int, gray: bool) -> Any:
    program = peer_program("pdftoppm")
    image_module = peer("PIL.Image")
    with tempfile.TemporaryDirectory() as directory:
        source = Path(directory) / "in.pdf"
        source.write_bytes(data)
        subprocess.run(
            [program, "-r", str(dpi)] + (["-gray"] if gray else []) + ["-png", "-f", str(page + 1), "-l",
             str(page + 1), "-singlefile", str(source), str(Path(directory) / "out")],
            check=True,
            capture_output=True,
            timeout=60,
        )
        with image_module.open(Path(directory) / "out.png") as image:
            return image.convert("L" if gray else "RGB").copy()


def normalized_text(value: str) -> str:
    """A page's text with its whitespace collapsed (PDFium ends lines with \\r\\n)."""
    return " ".join(value.split())


class PeerPages:
    """What PDFium, MuPDF and qpdf (pikepdf) see of a PDF's pages: count, each page's text
    (PDFium's), rotation (MuPDF's), the dictionaries of each page's /Annots (qpdf's), form field names and values
    (MuPDF's), outline targets (MuPDF's table of contents, as 0-based page indices), page
    labels (MuPDF's)."""

    def __init__(self, source: Source, password: Optional[str] = None) -> None:
        data = source if isinstance(source, bytes) else Path(source).read_bytes()
        pdfium = pdfium_module()
        pdf = pdfium.PdfDocument(data, password=password)
        try:
            self.pdfium_count = len(pdf)
            self.texts = [normalized_text(pdf[i].get_textpage().get_text_range()) for i in range(len(pdf))]
            self.pdfium_rotations = [pdf[i].get_rotation() for i in range(len(pdf))]
        finally:
            pdf.close()
        pymupdf = pymupdf_module()
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            if doc.needs_pass and not doc.authenticate(password or ""):
                raise AssertionError("MuPDF refused the password")
            self.mupdf_count = doc.page_count
            self.rotations = [page.rotation for page in doc]
            self.fields = sorted((w.field_name, str(w.field_value)) for page in doc for w in page.widgets())
            self.outline = [(title, page - 1) for _, title, page in doc.get_toc()]
            self.labels = [page.get_label() for page in doc]
            self.goto_links = [[link.get("page") for link in page.get_links() if link.get("kind") == pymupdf.LINK_GOTO] for page in doc]
        pikepdf = pikepdf_module()
        with pikepdf.open(io.BytesIO(data), password=password or "") as pdf:
            self.qpdf_count = len(pdf.pages)
            self.annotation_counts = [
                sum(1 for entry in page.obj.get("/Annots", []) if isinstance(entry, pikepdf.Dictionary)) for page in pdf.pages
            ]
        self.qpdf_status, self.qpdf_output = qpdf_check(data, password)

    @property
    def count(self) -> int:
        """The page count, asserting that the three peers agree on it."""
        assert self.pdfium_count == self.mupdf_count == self.qpdf_count, (self.pdfium_count, self.mupdf_count, self.qpdf_count)
        return self.pdfium_count

    def check_clean(self) -> None:
        """qpdf --check found nothing to say."""
        assert self.qpdf_status == 0, self.qpdf_output
