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

import datetime
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import CORPUS, REPO

CLI = Path(os.environ.get("QUIRE_CLI", REPO / "build" / "bin" / "quire"))
pytestmark = pytest.mark.skipif(not CLI.exists(), reason="build/bin/quire is missing: run make")

pyhanko = pytest.importorskip("pyhanko")
from asn1crypto import x509 as asn1_x509  # noqa: E402  (pyHanko's dependency)
from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402
from pyhanko.pdf_utils.reader import PdfFileReader  # noqa: E402
from pyhanko.sign.validation import validate_pdf_signature  # noqa: E402
from pyhanko_certvalidator import ValidationContext  # noqa: E402


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Quire tests"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


class PKI:
    """A root CA and signers issued by it, written as PEM files into `directory`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        self.root = (x509.CertificateBuilder()
                     .subject_name(_name("Quire Test Root CA")).issuer_name(_name("Quire Test Root CA"))
                     .public_key(self.root_key.public_key()).serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(days=1))
                     .not_valid_after(now + datetime.timedelta(days=3650))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                     .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
                     .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.root_key.public_key()), critical=False)
                     .sign(self.root_key, hashes.SHA256()))
        self.root_pem = directory / "root.pem"
        self.root_pem.write_bytes(self.root.public_bytes(serialization.Encoding.PEM))

    def signer(self, cn: str, kind: str = "rsa", days: int = 365) -> tuple[Path, Path]:
        key = rsa.generate_private_key(65537, 2048) if kind == "rsa" else ec.generate_private_key(
            ec.SECP256R1() if kind == "p256" else ec.SECP384R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder()
                .subject_name(_name(cn)).issuer_name(self.root.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=days))
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(True, True, False, False, False, False, False, False, False), critical=True)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.root_key.public_key()), critical=False)
                .sign(self.root_key, hashes.SHA256()))
        key_path = self.directory / f"{cn.replace(' ', '_')}.key"
        cert_path = self.directory / f"{cn.replace(' ', '_')}.pem"
        key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM) + self.root_pem.read_bytes())
        (self.directory / f"{cn.replace(' ', '_')}.only.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        return key_path, cert_path

    def context(self) -> ValidationContext:
        root = asn1_x509.Certificate.load(self.root.public_bytes(serialization.Encoding.DER))
        return ValidationContext(trust_roots=[root], allow_fetching=False, revocation_mode="soft-fail")


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
    try:
        with quire_module.open(signed) as doc:
            doc.pages[0].add_annotation("Text", (100, 100, 120, 120), contents="Reviewed")
            doc.save(annotated)
    except (AttributeError, TypeError) as e:
        pytest.skip(f"the binding's annotation API differs here: {e}")
    assert annotated.read_bytes().startswith(signed.read_bytes())
    (status,) = pyhanko_statuses(annotated, pki)
    assert status.intact and status.valid and status.trusted
    assert status.coverage.name == "ENTIRE_REVISION"
    assert status.modification_level.name == "ANNOTATIONS"
    assert status.bottom_line, status.pretty_print_details()
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


# Known disagreement, not yet understood (issue 37, open): Quire reads siwa.pdf's excluded
# bytes as not exactly its /Contents; pyHanko calls the signature intact.
KNOWN_DISAGREEMENTS = {"siwa.pdf"}


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
