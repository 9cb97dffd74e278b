"""Document structure: the cross-reference form, the object count, linearization and
encryption, against pikepdf (and qpdf's own test files, whose names say what they are);
and the max_pages open option."""

from __future__ import annotations

from typing import Any

import pytest

import quire

from conftest import ANNOTS, DAMAGED, ENCRYPTED, OUTLINE
from pdfpeers import pikepdf_module

PAGELABELS = "pdfminer/samples/contrib/pagelabels.pdf"
HYBRID = "pypdf/resources/git.pdf"  # a table with /XRefStm
LINEARIZED = "qpdf/qpdf/qtest/qpdf/lin1.pdf"  # first object: << /Linearized 1 ... >>

# (path, password, method, revision, owner password given)
ENCRYPTED_FILES = [
    ("qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf", "view", "RC4-40", 2, False),
    ("qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf", "master", "RC4-40", 2, True),
    (ENCRYPTED, "view", "RC4-128", 3, False),
    ("qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf", "view", "AES-256", 6, False),
    ("qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf", "master", "AES-256", 6, True),
]


@pytest.fixture(scope="module")
def pikepdf() -> Any:
    return pikepdf_module()


@pytest.mark.parametrize(
    ("path", "form"),
    [(ANNOTS, "table"), (OUTLINE, "table"), (PAGELABELS, "stream"), (HYBRID, "hybrid"), (DAMAGED, "rebuilt")],
)
def test_xref_form(corpus, manifest, path: str, form: str):
    with quire.Document(corpus(path)) as document:
        assert document.xref_form == form
        assert document.is_repaired == (form == "rebuilt")
    # The manifest's peers agree on which files have a cross-reference stream.
    if form in ("table", "stream"):
        assert manifest[path]["consensus"]["xref_stream"] == (form == "stream")


@pytest.mark.parametrize("path", [ANNOTS, OUTLINE, PAGELABELS, HYBRID])
def test_object_count_is_the_trailer_size(corpus, pikepdf, path: str):
    with quire.Document(corpus(path)) as document, pikepdf.open(corpus(path)) as pdf:
        assert document.object_count == int(pdf.trailer.Size)
        document.add_object(1)
        assert document.object_count == int(pdf.trailer.Size) + 1


@pytest.mark.parametrize("path", [ANNOTS, PAGELABELS])
def test_not_linearized(corpus, pikepdf, path: str):
    with quire.Document(corpus(path)) as document, pikepdf.open(corpus(path)) as pdf:
        assert document.is_linearized is False
        assert pdf.is_linearized is False


def test_linearized(corpus, pikepdf):
    # (quire_document_is_linearized was 0 for every file before 895322b.)
    with pikepdf.open(corpus(LINEARIZED)) as pdf:
        assert pdf.is_linearized
    with quire.Document(corpus(LINEARIZED)) as document:
        assert document.is_linearized is True


def test_not_encrypted(annots_pdf):
    with quire.Document(annots_pdf) as document:
        assert document.encryption is None
        assert not document.is_encrypted


@pytest.mark.parametrize(
    ("path", "password", "method", "revision", "is_owner"),
    ENCRYPTED_FILES,
    ids=["%s-%s" % (f[0].rsplit("/", 1)[1], f[1]) for f in ENCRYPTED_FILES],
)
def test_encryption_is_what_pikepdf_reads(
    corpus, pikepdf, path: str, password: str, method: str, revision: int, is_owner: bool
):
    with quire.Document(corpus(path), password) as document:
        encryption = document.encryption
        assert document.is_encrypted
    assert encryption == quire.Encryption(method, revision, encryption.permissions, is_owner)
    assert isinstance(encryption.is_owner, bool)
    with pikepdf.open(corpus(path), password=password) as pdf:
        assert pdf.is_encrypted
        assert encryption.revision == pdf.encryption.R
        assert encryption.permissions == pdf.encryption.P & 0xFFFFFFFF
        assert encryption.is_owner == pdf.owner_password_matched
        stream_method = str(pdf.encryption.stream_method).rsplit(".", 1)[-1]
        bits = pdf.encryption.bits
        if pdf.encryption.V in (1, 2):
            stream_method = "rc4"  # no crypt filters: RC4 of /Length bits (qpdf says "none")
    expected = {("rc4", 40): "RC4-40", ("rc4", 128): "RC4-128", ("aes", 128): "AES-128", ("aesv3", 256): "AES-256"}
    assert expected[(stream_method, bits)] == method


def test_permissions_of_a_restricted_file(corpus):
    # enc-R2 with U=view: P = -64, everything but the reserved bits refused.
    with quire.Document(corpus(ENCRYPTED_FILES[0][0]), "view") as document:
        permissions = document.encryption.permissions
    assert permissions == (-64) & 0xFFFFFFFF
    assert not permissions & (1 << 2)  # bit 3: print


def test_permissions_are_named_flags(corpus):
    with quire.Document(corpus(ENCRYPTED_FILES[0][0]), "view") as document:
        permissions = document.encryption.permissions
    assert isinstance(permissions, quire.Permissions) and isinstance(permissions, int)
    assert int(permissions) == permissions.value == 0xFFFFFFC0  # the raw number, as written
    for refused in (quire.Permissions.PRINT, quire.Permissions.MODIFY, quire.Permissions.COPY, quire.Permissions.ANNOTATE):
        assert refused not in permissions
    assert quire.Permissions.ASSEMBLE in permissions  # R2 has no such bit: it is set
    assert [(flag.name, flag.value) for flag in quire.Permissions] == [
        ("PRINT", 4), ("MODIFY", 8), ("COPY", 16), ("ANNOTATE", 32), ("FILL_FORMS", 256),
        ("EXTRACT_ACCESSIBILITY", 512), ("ASSEMBLE", 1024), ("PRINT_HIGH_QUALITY", 2048),
    ]


@pytest.mark.parametrize(
    ("path", "password"), [(f[0], f[1]) for f in ENCRYPTED_FILES if f[3] >= 3 and not f[4]]
)
def test_permission_flags_are_what_pikepdf_allows(corpus, pikepdf, path: str, password: str):
    """For revisions 3 and later (where every flag has its own bit) and the user password,
    each named flag is what qpdf, through pikepdf, says is allowed."""
    with quire.Document(corpus(path), password) as document:
        permissions = document.encryption.permissions
    with pikepdf.open(corpus(path), password=password) as pdf:
        allow = pdf.allow
    P = quire.Permissions
    assert (P.PRINT in permissions) == allow.print_lowres
    assert (P.PRINT_HIGH_QUALITY in permissions) == allow.print_highres
    assert (P.MODIFY in permissions) == allow.modify_other
    assert (P.COPY in permissions) == allow.extract
    assert (P.ANNOTATE in permissions) == allow.modify_annotation
    assert (P.FILL_FORMS in permissions) == allow.modify_form
    assert (P.EXTRACT_ACCESSIBILITY in permissions) == allow.accessibility
    assert (P.ASSEMBLE in permissions) == allow.modify_assembly


def test_max_pages(corpus):
    path = corpus(ENCRYPTED)  # 30 pages
    with quire.Document(path, "view", max_pages=30) as document:
        assert document.page_count == 30
    with pytest.raises(quire.LimitError, match="max_pages"):
        with quire.Document(path, "view", max_pages=29) as document:
            document.page_count
    with pytest.raises(quire.InvalidArgumentError):
        quire.Document(path, "view", max_pages=-1)
    with pytest.raises(quire.InvalidArgumentError):
        quire.Document(path, "view", max_pages=1 << 32)


def test_has_unsaved_changes(annots_pdf):
    with quire.Document(annots_pdf) as document:
        assert document.has_unsaved_changes is False
        document.set_dict_value(3, "Rotate", 90)
        assert document.has_unsaved_changes is True
        document.save_to_bytes()
        assert document.has_unsaved_changes is False
