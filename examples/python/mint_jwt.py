#!/usr/bin/env python3
"""Mint a JWT for Quire's sync server, as a host application's backend does (PyJWT).

The backend keeps the private key; quire-server gets only the public one (--public-key).

    python3 mint_jwt.py --new-key backend.pem        # writes backend.pem and backend.pub.pem
    python3 mint_jwt.py backend.pem --document sample --layer review --user alice
    python3 mint_jwt.py backend.pem --document sample --layer review --permissions read
    python3 mint_jwt.py backend.pem --document sample --layer review --user bob \
        --collaboration annotations:view:all,comments:view:all,annotations:edit:self,comments:reply:all

The token is printed on standard output; send it as ``Authorization: Bearer <token>``.
Claims (docs/sync-protocol.md): document_id, layer, permissions (read, write, download),
user_id (optional: the author of the records it creates), exp, and nbf with --not-before;
with --collaboration, per-user rights (collaboration_permissions: the server then checks
each record against them).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import List, Optional

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa


def new_key(path: Path, kind: str) -> None:
    """A new private key in `path` and its public key beside it (`.pub.pem`)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048) if kind == "rsa" \
        else ec.generate_private_key(ec.SECP256R1())
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    path.chmod(0o600)
    public = path.with_name(path.name.removesuffix(".pem") + ".pub.pem")
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    print(f"wrote {path} (private, for the backend) and {public} (public, for quire-server)", file=sys.stderr)


def mint(key_path: Path, document: str, layer: str, permissions: List[str], user: Optional[str],
         ttl: int, not_before: Optional[int], collaboration: Optional[List[str]] = None) -> str:
    key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    algorithm = "RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256"
    now = int(time.time())
    claims = {"document_id": document, "layer": layer, "permissions": permissions, "exp": now + ttl}
    if user:
        claims["user_id"] = user
    if not_before is not None:
        claims["nbf"] = now + not_before
    if collaboration is not None:
        claims["collaboration_permissions"] = collaboration
    return jwt.encode(claims, key, algorithm=algorithm)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Mint a JWT for Quire's sync server.")
    parser.add_argument("key", type=Path, nargs="?", help="the private key (PEM, RSA or EC P-256)")
    parser.add_argument("--new-key", type=Path, metavar="PEM", help="make a new key pair and stop")
    parser.add_argument("--kind", choices=["rsa", "ec"], default="rsa", help="the new key's kind (rsa)")
    parser.add_argument("--document", help="the document_id claim")
    parser.add_argument("--layer", help="the layer claim")
    parser.add_argument("--permissions", default="read,write,download",
                        help="comma-separated: read, write, download (all three)")
    parser.add_argument("--user", help="the user_id claim")
    parser.add_argument("--collaboration", metavar="RIGHTS",
                        help="comma-separated collaboration_permissions (content:action:scope, "
                             "e.g. annotations:edit:self); none by default: the permissions apply to every record")
    parser.add_argument("--ttl", type=int, default=3600, help="seconds until it expires (3600)")
    parser.add_argument("--not-before", type=int, metavar="SECONDS", help="nbf: valid from now + SECONDS")
    args = parser.parse_args(argv)
    if args.new_key:
        new_key(args.new_key, args.kind)
        return 0
    if not (args.key and args.document and args.layer):
        parser.error("a key, --document and --layer are needed (or --new-key)")
    permissions = [p for p in args.permissions.split(",") if p]
    collaboration = [c for c in args.collaboration.split(",") if c] if args.collaboration is not None else None
    print(mint(args.key, args.document, args.layer, permissions, args.user, args.ttl, args.not_before, collaboration))
    return 0


if __name__ == "__main__":
    sys.exit(main())
