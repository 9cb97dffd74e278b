#!/usr/bin/env python3
"""Writes the certificates and keys that test_signatures.c needs into a directory.

Usage: signature_fixtures.py DIR   (the Makefile writes out/signatures before each run of
                                    test_api)

No private key is checked in: a test CA and its signers are made here, at each run, with
`cryptography` (as Tests/python/test_signatures.py makes its own). DIR receives:

  root.pem          the test root CA (EC P-256), the trust root of the tests
  other-root.pem    another root CA, which issued nothing the tests sign with
  signer.key        the signer's RSA 2048 key, PKCS#8 PEM, unencrypted
  signer.pem        the signer's certificate ("Quire C Signer"), then the root
  signer-enc.key    the same key, encrypted PKCS#8 (PBES2, AES-256-CBC), password "secret"
  signer.p12        a PKCS#12 file (PBES2, AES-256) of a P-256 key and its certificate
                    ("Quire P12 Signer") with the root, password "p12 pass"
  expired.key/.pem  a signer whose certificate ended an hour ago ("Quire Expired Signer")
  weak.key/.pem     an RSA 1024 signer (Quire refuses to sign with it)

Each file is written whole under a temporary name and renamed.
"""

import datetime
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID


def write(directory, name, data):
    path = os.path.join(directory, name)
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Quire tests"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def root(cn):
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name(cn)).issuer_name(name(cn))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=30))
            .not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return key, cert


def signer(ca_key, ca_cert, cn, key, not_before, not_after):
    return (x509.CertificateBuilder().subject_name(name(cn)).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(not_before).not_valid_after(not_after)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(True, True, False, False, False, False, False, False, False), critical=True)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))


def pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM)


def pkcs8(key, password=None):
    algorithm = (serialization.BestAvailableEncryption(password) if password
                 else serialization.NoEncryption())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, algorithm)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: signature_fixtures.py DIR")
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    day = datetime.timedelta(days=1)
    ca_key, ca = root("Quire C Test Root")
    _, other = root("Quire C Other Root")
    write(directory, "root.pem", pem(ca))
    write(directory, "other-root.pem", pem(other))

    key = rsa.generate_private_key(65537, 2048)
    cert = signer(ca_key, ca, "Quire C Signer", key, now - day, now + 365 * day)
    write(directory, "signer.key", pkcs8(key))
    write(directory, "signer-enc.key", pkcs8(key, b"secret"))
    write(directory, "signer.pem", pem(cert) + pem(ca))

    p12_key = ec.generate_private_key(ec.SECP256R1())
    p12_cert = signer(ca_key, ca, "Quire P12 Signer", p12_key, now - day, now + 365 * day)
    encryption = (serialization.PrivateFormat.PKCS12.encryption_builder()
                  .kdf_rounds(2048).key_cert_algorithm(pkcs12.PBES.PBESv2SHA256AndAES256CBC)
                  .hmac_hash(hashes.SHA256()).build(b"p12 pass"))
    write(directory, "signer.p12", pkcs12.serialize_key_and_certificates(
        b"signer", p12_key, p12_cert, [ca], encryption))

    expired_key = ec.generate_private_key(ec.SECP256R1())
    expired = signer(ca_key, ca, "Quire Expired Signer", expired_key, now - 30 * day,
                     now - datetime.timedelta(hours=1))
    write(directory, "expired.key", pkcs8(expired_key))
    write(directory, "expired.pem", pem(expired) + pem(ca))

    weak_key = rsa.generate_private_key(65537, 1024)
    weak = signer(ca_key, ca, "Quire Weak Signer", weak_key, now - day, now + 365 * day)
    write(directory, "weak.key", pkcs8(weak_key))
    write(directory, "weak.pem", pem(weak) + pem(ca))


if __name__ == "__main__":
    main()
