"""Digital signatures (issue 37) checked by the peers: every signature Quire makes is
validated by pyHanko (integrity, coverage, signer with the test CA as trust root, PAdES
attributes), read by PDFium (FPDFSignatureObj_*) and reported valid by poppler's pdfsig,
also after Quire appends an annotation; Quire's `quire verify` agrees with pyHanko on files
pyHanko signs and on the corpus's signed files.

The test CA and keys are made here, per run, with `cryptography` (no private key is
checked in). Signing goes through the command-line tool (`quire sign`): QUIRE_CLI names
another build of it (a debug one, say).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import CORPUS, REPO
from signing_pki import PKI

CLI = Path(os.environ.get("QUIRE_CLI", REPO / "build" / "bin" / "quire"))
pytestmark = pytest.mark.skipif(not CLI.exists(), reason="build/bin/quire is missing: run make")

pyhanko = pytest.importorskip("pyhanko")
from pyhanko.pdf_utils.reader import PdfFileReader  # noqa: E402
from pyhanko.sign.validation import validate_pdf_signature  # noqa: E402


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> PKI:
    return PKI(tmp_path_factory.mktemp("pki"))


def one_page_pdf(path: Path) -> Path:
    import pikepdf
    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(612, 792))
    pdf.save(path)
    return path


def quire(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=120)


def pyhanko_statuses(path: Path, pki: PKI) -> list:
    with open(path, "rb") as f:
        reader = PdfFileReader(f)
        return [validate_pdf_signature(sig, pki.context()) for sig in reader.embedded_signatures]


SIGNING_CASES = [
    ("rsa", "sha256", []), ("p256", "sha384", ["--pkcs7"]), ("p384", "sha512", []),
    ("rsa", "sha512", ["--rect", "72,72,300,140", "--reason", "Approved", "--location", "Zürich"]),
    ("p256", "sha256", ["--certify", "2", "--rect", "72,600,300,660"]),
]


@pytest.mark.parametrize("kind,digest,extra", SIGNING_CASES)
def test_pyhanko_pdfium_and_pdfsig_accept_quire_signatures(tmp_path: Path, pki: PKI, kind: str, digest: str, extra: list[str]) -> None:
    key, cert = pki.signer(f"Signer {kind} {digest}", kind)
    src = one_page_pdf(tmp_path / "in.pdf")
    out = tmp_path / "signed.pdf"
    r = quire("sign", "--key", str(key), "--cert", str(cert), "--digest", digest, *extra, str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes().startswith(src.read_bytes()), "the earlier revision is byte-identical"
    # pyHanko: intact, valid, trusted, whole file.
    (status,) = pyhanko_statuses(out, pki)
    assert status.intact and status.valid and status.trusted, status.pretty_print_details()
    assert status.coverage.name == "ENTIRE_FILE"
    assert status.bottom_line, status.pretty_print_details()
    with open(out, "rb") as f:
        sig = PdfFileReader(f).embedded_signatures[0]
        subfilter = sig.sig_object["/SubFilter"]
        attrs = {a["type"].native for a in sig.signer_info["signed_attrs"]}
        docmdp = sig.docmdp_level
    if "--pkcs7" in extra:
        assert subfilter == "/adbe.pkcs7.detached"
        assert "signing_time" in attrs
    else:
        # PAdES B-B: signing-certificate-v2, no signing-time.
        assert subfilter == "/ETSI.CAdES.detached"
        assert "signing_certificate_v2" in attrs and "signing_time" not in attrs
    if "--certify" in extra:
        assert docmdp is not None and docmdp.value == 2
    # PDFium reads the signature object.
    import ctypes

    import pypdfium2.raw as pdfium
    doc = pdfium.FPDF_LoadDocument(str(out).encode(), None)
    try:
        assert pdfium.FPDF_GetSignatureCount(doc) == 1
        obj = pdfium.FPDF_GetSignatureObject(doc, 0)
        n = pdfium.FPDFSignatureObj_GetByteRange(obj, None, 0)
        ranges = (ctypes.c_int * n)()
        pdfium.FPDFSignatureObj_GetByteRange(obj, ranges, n)
        assert n == 4 and ranges[0] == 0 and ranges[2] + ranges[3] == out.stat().st_size
        size = pdfium.FPDFSignatureObj_GetContents(obj, None, 0)
        assert size > 1000
        sf_len = pdfium.FPDFSignatureObj_GetSubFilter(obj, None, 0)
        buf = ctypes.create_string_buffer(sf_len)
        pdfium.FPDFSignatureObj_GetSubFilter(obj, buf, sf_len)
        assert buf.value.decode() == subfilter[1:]
    finally:
        pdfium.FPDF_CloseDocument(doc)
    # poppler: the signature itself is valid (-nocert: its certificate store knows no test CA).
    p = subprocess.run(["pdfsig", "-nocert", str(out)], capture_output=True, text=True, timeout=60)
    assert "Signature is Valid" in p.stdout, p.stdout + p.stderr
    # Quire agrees.
    v = quire("verify", "--json", "--trust", str(pki.root_pem), str(out))
    assert v.returncode == 0, v.stdout + v.stderr
    (mine,) = json.loads(v.stdout)
    assert mine["valid"] and mine["coverage"] == "entireFile"


def test_annotation_saved_by_quire_keeps_the_signature_valid(tmp_path: Path, pki: PKI) -> None:
    quire_module = pytest.importorskip("quire")
    key, cert = pki.signer("Annotated Signer", "p256")
    src = one_page_pdf(tmp_path / "in.pdf")
    signed = tmp_path / "signed.pdf"
    assert quire("sign", "--key", str(key), "--cert", str(cert), str(src), "-o", str(signed)).returncode == 0
    annotated = tmp_path / "annotated.pdf"
    with quire_module.Document(signed) as doc:
        note = quire_module.Annotation.new("Text", 0, (100, 100, 120, 120))
        note.contents = "Reviewed"
        doc.add_annotation(note)
        doc.save(annotated)
    assert annotated.read_bytes().startswith(signed.read_bytes())
    (status,) = pyhanko_statuses(annotated, pki)
    assert status.intact and status.valid and status.trusted
    assert status.coverage.name == "ENTIRE_REVISION"
    # pyHanko 0.38's diff policy explains no annotation change: any annotation after a
    # signature is OTHER to it (test_signatures_api.py, docs/signatures.md).
    assert status.modification_level.name == "OTHER"
    (mine,) = json.loads(quire("verify", "--json", "--trust", str(pki.root_pem), str(annotated)).stdout)
    assert mine["valid"] and mine["coverage"] == "entireRevision" and mine["modification"] == "annotations"


def test_quire_agrees_with_pyhanko_on_files_pyhanko_signs(tmp_path: Path, pki: PKI) -> None:
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import signers
    key, cert = pki.signer("PyHanko Signer", "rsa")
    src = one_page_pdf(tmp_path / "in.pdf")
    signer = signers.SimpleSigner.load(str(key), str(cert).replace(".pem", ".only.pem"), ca_chain_files=(str(pki.root_pem),))
    for subfilter, name in [(None, "pades.pdf"), ("adbe", "pkcs7.pdf")]:
        out = tmp_path / name
        with open(src, "rb") as f:
            w = IncrementalPdfFileWriter(f)
            meta = signers.PdfSignatureMetadata(field_name="Sig1")
            if subfilter:
                from pyhanko.sign.fields import SigSeedSubFilter
                meta = signers.PdfSignatureMetadata(field_name="Sig1", subfilter=SigSeedSubFilter.ADOBE_PKCS7_DETACHED)
            with open(out, "wb") as o:
                signers.sign_pdf(w, meta, signer=signer, output=o)
        (status,) = pyhanko_statuses(out, pki)
        (mine,) = json.loads(quire("verify", "--json", "--trust", str(pki.root_pem), str(out)).stdout)
        assert mine["valid"] == status.bottom_line, (mine, status.pretty_print_details())
        assert mine["intact"] == status.intact and mine["trusted"] == status.trusted
        # Tampered: a byte inside the signed range.
        data = bytearray(out.read_bytes())
        data[20] ^= 0x01
        bad = tmp_path / ("bad-" + name)
        bad.write_bytes(bytes(data))
        (mine,) = json.loads(quire("verify", "--json", "--trust", str(pki.root_pem), str(bad)).stdout)
        assert not mine["valid"] and not mine["intact"]


def corpus_signed_files() -> list[Path]:
    if CORPUS is None or not Path(CORPUS).exists():
        return []
    found = []
    for p in sorted(Path(CORPUS).rglob("*.pdf")):
        try:
            head = p.read_bytes()
        except OSError:
            continue
        if b"/ByteRange" in head and b"/Encrypt" not in head:
            found.append(p)
    return found


# Files where Quire and pyHanko disagree, each with its reason. None now: siwa.pdf (a
# signature wrapping attack from the PDF Insecurity research: its /ByteRange leaves out
# more than the /Contents string, with "MANIPULATED now Page!" in the hole) is intact for
# both, and its coverage partial for both (pyHanko: UNCLEAR).
KNOWN_DISAGREEMENTS: set[str] = set()


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason="known disagreement"))
                                  if p.name in KNOWN_DISAGREEMENTS else p for p in corpus_signed_files()],
                         ids=lambda p: p.name)
def test_quire_agrees_with_pyhanko_on_the_corpus(path: Path, pki: PKI) -> None:
    try:
        with open(path, "rb") as f:
            reader = PdfFileReader(f, strict=False)
            theirs = []
            for sig in reader.embedded_signatures:
                try:
                    st = validate_pdf_signature(sig, pki.context())
                    theirs.append((sig.field_name, st.intact, st.coverage.name))
                except Exception as e:  # pyHanko refuses what it cannot read: Quire must not call it valid
                    theirs.append((sig.field_name, None, type(e).__name__))
    except Exception as e:
        pytest.skip(f"pyHanko cannot read it: {e}")
    r = quire("verify", "--json", str(path))
    assert r.returncode in (0, 3), r.stderr
    mine = {m["field"]: m for m in json.loads(r.stdout)}
    for field, intact, coverage in theirs:
        if field not in mine:
            continue
        m = mine[field]
        assert not m["valid"], "no corpus signer chains to the test CA"
        if intact is None:
            continue
        assert m["intact"] == intact, (field, m, intact)
        if intact:
            assert m["coverage"] == {"ENTIRE_FILE": "entireFile", "ENTIRE_REVISION": "entireRevision"}.get(coverage, "partial"), (field, m, coverage)
