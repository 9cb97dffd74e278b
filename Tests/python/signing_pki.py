"""A test PKI for the signature tests (Tests/python/test_signatures*.py): a root CA made
per run with `cryptography` (no private key is checked in), signers issued by it, and a
time-stamping authority for PAdES B-T (pyHanko's DummyTimeStamper, an RFC 3161 TSA in
process: the tests never use the network). Needs cryptography and pyHanko.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Callable

from asn1crypto import keys as asn1_keys
from asn1crypto import tsp as asn1_tsp
from asn1crypto import x509 as asn1_x509  # pyHanko's dependency
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pyhanko_certvalidator import ValidationContext


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

    def tsa(self) -> Callable[[bytes], bytes]:
        """A time-stamping callable for ``Document.sign(timestamp=...)``: an RFC 3161 TSA
        (pyHanko's DummyTimeStamper) whose certificate ("Quire Test TSA", timeStamping
        usage) the root issued. It counts its requests in ``self.tsa_requests``."""
        from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper

        key = rsa.generate_private_key(65537, 2048)  # DummyTimeStamper signs with RSA only
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder()
                .subject_name(_name("Quire Test TSA")).issuer_name(self.root.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=365))
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.root_key.public_key()), critical=False)
                .sign(self.root_key, hashes.SHA256()))
        stamper = DummyTimeStamper(
            tsa_cert=asn1_x509.Certificate.load(cert.public_bytes(serialization.Encoding.DER)),
            tsa_key=asn1_keys.PrivateKeyInfo.load(key.private_bytes(
                serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())))
        self.tsa_requests = 0

        def stamp(request: bytes) -> bytes:
            self.tsa_requests += 1
            return stamper.request_tsa_response(asn1_tsp.TimeStampReq.load(request)).dump()

        return stamp
