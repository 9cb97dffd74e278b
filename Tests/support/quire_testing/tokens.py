"""Keys and JWTs for the sync service (docs/sync-protocol.md), made by the tests: the one
place the Python tests mint tokens (PyJWT and cryptography; the C tests' fixture script,
Tests/c/sync_fixtures.py, uses it too).

    keys = make_keys(directory)                       # RSA, EC P-256 and P-521, an admin token
    token = mint(keys.rsa, claims("doc", "main"))     # RS256; algorithm="ES256" with keys.ec
    headers = bearer(token)

:func:`unsigned_token` and :func:`hs256_token` assemble what PyJWT rightly refuses to make,
for the attacks the server must reject.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import jwt  # PyJWT
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

#: The permissions of a full token.
ALL_PERMISSIONS = ("read", "write", "download")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def public_pem(key: Any) -> bytes:
    """The public half of a private key, as PEM (what the server is given)."""
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def ec_key() -> ec.EllipticCurvePrivateKey:
    """A fresh P-256 key (ES256: quick to make)."""
    return ec.generate_private_key(ec.SECP256R1())


@dataclass
class Keys:
    """The keys of a test run: the server trusts `rsa` and `ec` (PEM files) and `jwks_ec`
    (through a JWKS file); `other` is a key it has never seen."""

    dir: Path
    rsa: rsa.RSAPrivateKey
    ec: ec.EllipticCurvePrivateKey
    ec521: ec.EllipticCurvePrivateKey
    other: rsa.RSAPrivateKey
    jwks_ec: ec.EllipticCurvePrivateKey
    admin_token: str

    @property
    def public_key_files(self) -> List[Path]:
        return [self.dir / "rsa.pub.pem", self.dir / "ec.pub.pem", self.dir / "ec521.pub.pem"]

    @property
    def rsa_public_pem(self) -> bytes:
        return (self.dir / "rsa.pub.pem").read_bytes()

    @property
    def admin_token_file(self) -> Path:
        return self.dir / "admin-token"

    @property
    def jwks_file(self) -> Path:
        return self.dir / "jwks.json"

    @property
    def admin(self) -> Dict[str, str]:
        return {"Authorization": f"Token {self.admin_token}"}


def make_keys(directory: Path) -> Keys:
    """Fresh keys, with their public halves, the admin token and a JWKS file in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    keys = Keys(
        dir=directory,
        rsa=rsa.generate_private_key(public_exponent=65537, key_size=2048),
        ec=ec_key(),
        ec521=ec.generate_private_key(ec.SECP521R1()),
        other=rsa.generate_private_key(public_exponent=65537, key_size=2048),
        jwks_ec=ec_key(),
        admin_token="admin-" + uuid.uuid4().hex,
    )
    (directory / "rsa.pub.pem").write_bytes(public_pem(keys.rsa))
    (directory / "ec.pub.pem").write_bytes(public_pem(keys.ec))
    (directory / "ec521.pub.pem").write_bytes(public_pem(keys.ec521))
    # A trailing newline, as an editor leaves it: the server ignores surrounding space.
    keys.admin_token_file.write_text(keys.admin_token + "\n")
    numbers = keys.jwks_ec.public_key().public_numbers()
    keys.jwks_file.write_text(
        json.dumps(
            {
                "keys": [
                    {
                        "kty": "EC",
                        "crv": "P-256",
                        "kid": "jwks-key-1",
                        "alg": "ES256",
                        "use": "sig",
                        "x": b64url(numbers.x.to_bytes(32, "big")),
                        "y": b64url(numbers.y.to_bytes(32, "big")),
                    }
                ]
            }
        )
    )
    return keys


def claims(
    document: str,
    layer: str,
    permissions: Sequence[str] = ALL_PERMISSIONS,
    user_id: Optional[str] = None,
    exp_in: float = 3600,
    nbf_in: Optional[float] = None,
    **extra: Any,
) -> Dict[str, Any]:
    """The claims the server checks: `document_id`, `layer`, `permissions`, `exp` (`exp_in`
    seconds from now), and `user_id` and `nbf` when given; `extra` adds or replaces any."""
    now = int(time.time())
    c: Dict[str, Any] = {
        "document_id": document,
        "layer": layer,
        "permissions": list(permissions),
        "exp": now + int(exp_in),
    }
    if user_id is not None:
        c["user_id"] = user_id
    if nbf_in is not None:
        c["nbf"] = now + int(nbf_in)
    c.update(extra)
    return c


def mint(key: Any, payload: Dict[str, Any], algorithm: str = "RS256", headers: Optional[Dict[str, Any]] = None) -> str:
    """A JWT of `payload` signed with `key` (RS256, RS512, ES256, ES512, ...)."""
    return jwt.encode(payload, key, algorithm=algorithm, headers=headers)


def unsigned_token(header: Dict[str, Any], payload: Dict[str, Any], signature: bytes = b"") -> str:
    """A token assembled by hand (for the attacks PyJWT rightly refuses to make)."""
    h = b64url(json.dumps(header, separators=(",", ":")).encode())
    p = b64url(json.dumps(payload, separators=(",", ":")).encode())
    return f"{h}.{p}.{b64url(signature)}"


def hs256_token(secret: bytes, payload: Dict[str, Any]) -> str:
    """An HS256 token (the algorithm-confusion attack: the server accepts none)."""
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64url(json.dumps(payload, separators=(",", ":")).encode())
    sig = hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
    return f"{header}.{body}.{b64url(sig)}"


def bearer(token: str) -> Dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
