"""JWT attacks, each refused with 401 or 403 and nothing changed (docs/sync-protocol.md, JWT).

Every attack tries to push a mutation (and to read); afterwards the layer's seq and records
are what they were, read back with a valid token.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Dict, List, Tuple

import pytest

from sync_support import (
    Client, Keys, ServerProcess, assert_error, b64url, bearer, claims, hs256_token, layer_state, mint,
    note, put, request, unique, unsigned_token, upload,
)


@pytest.fixture(scope="module")
def target(server: ServerProcess, keys: Keys, document: str) -> Tuple[str, str]:
    """A layer with one record of its own, the target of every attack."""
    layer = unique("victim")
    c = Client(server.port, document, layer, mint(keys.rsa, claims(document, layer)))
    assert c.push([put(1, note("original", "before the attacks"))]).json["results"][0]["status"] == "accepted"
    return document, layer


def tamper(token: str, **changes: Any) -> str:
    """The token with its payload changed and the signature kept."""
    header, payload, sig = token.split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    body.update(changes)
    return ".".join([header, b64url(json.dumps(body, separators=(",", ":")).encode()), sig])


def attacks(keys: Keys, doc: str, layer: str) -> Dict[str, Tuple[Dict[str, str], int]]:
    """name -> (request headers, the status it must get)."""
    good = claims(doc, layer)
    valid_other_layer = mint(keys.rsa, claims(doc, "another-layer"))
    return {
        "no token": ({}, 401),
        "alg none": (bearer(unsigned_token({"alg": "none", "typ": "JWT"}, good)), 401),
        "alg none, signature kept": (bearer(unsigned_token({"alg": "none"}, good, b"x" * 32)), 401),
        "alg None spelled otherwise": (bearer(unsigned_token({"alg": "NONE"}, good)), 401),
        "HS256 with the RSA public key PEM as secret": (bearer(hs256_token(keys.rsa_public_pem, good)), 401),
        "HS256 with the PEM without its newline": (bearer(hs256_token(keys.rsa_public_pem.strip(), good)), 401),
        "tampered payload (layer)": (bearer(tamper(valid_other_layer, layer=layer)), 401),
        "tampered payload (permissions)": (
            bearer(tamper(mint(keys.rsa, claims(doc, layer, ["read"])), permissions=["read", "write"])), 401),
        "tampered header (alg RS512 on an RS256 signature)": (
            bearer(".".join([b64url(b'{"alg":"RS512","typ":"JWT"}')] + mint(keys.rsa, good).split(".")[1:])), 401),
        "expired": (bearer(mint(keys.rsa, claims(doc, layer, exp_in=-3600))), 401),
        "expired past the leeway": (bearer(mint(keys.rsa, claims(doc, layer, exp_in=-120))), 401),
        "no exp": (bearer(mint(keys.rsa, {k: v for k, v in good.items() if k != "exp"})), 401),
        "nbf in the future": (bearer(mint(keys.rsa, claims(doc, layer, nbf_in=3600))), 401),
        "wrong document_id": (bearer(mint(keys.rsa, claims(unique("other-doc"), layer))), 403),
        "wrong layer": (bearer(valid_other_layer), 403),
        "read only, trying to write": (bearer(mint(keys.rsa, claims(doc, layer, ["read", "download"]))), 403),
        "no permissions": (bearer(mint(keys.rsa, claims(doc, layer, []))), 403),
        "a key the server does not know": (bearer(mint(keys.other, good)), 401),
        "an EC key the server does not know, as ES256": (
            bearer(mint(keys.jwks_ec, good, "ES256", headers={"kid": "not-in-jwks"})), 401),
        "RS256 header, signed by the EC key": (bearer(
            unsigned_token({"alg": "RS256"}, good, base64.urlsafe_b64decode(mint(keys.ec, good, "ES256").split(".")[2] + "==")))
            , 401),
        "a 100 KB token": (bearer(mint(keys.rsa, claims(doc, layer, padding="p" * 75_000))), 401),
        "garbage": (bearer("garbage"), 401),
        "garbage with dots": (bearer("a.b.c"), 401),
        "binary garbage": ({"Authorization": "Bearer \xff\xfe\x80\xa0"}, 401),
        "empty bearer": ({"Authorization": "Bearer "}, 401),
        "admin token as bearer": (bearer(keys.admin_token), 401),
        "JWT as admin token": ({"Authorization": "Token " + mint(keys.rsa, good)}, 401),
    }


def _names() -> List[str]:
    """The attacks' names, for the test ids (the table itself needs the session's keys)."""
    return [
        "no token", "alg none", "alg none, signature kept", "alg None spelled otherwise",
        "HS256 with the RSA public key PEM as secret", "HS256 with the PEM without its newline",
        "tampered payload (layer)", "tampered payload (permissions)",
        "tampered header (alg RS512 on an RS256 signature)", "expired", "expired past the leeway", "no exp",
        "nbf in the future", "wrong document_id", "wrong layer", "read only, trying to write", "no permissions",
        "a key the server does not know", "an EC key the server does not know, as ES256",
        "RS256 header, signed by the EC key", "a 100 KB token", "garbage", "garbage with dots", "binary garbage",
        "empty bearer", "admin token as bearer", "JWT as admin token",
    ]


@pytest.mark.parametrize("attack", _names())
def test_attack_is_refused_and_changes_nothing(server: ServerProcess, keys: Keys, target: Tuple[str, str],
                                               attack: str, expect_failure_unless) -> None:
    if attack == "a 100 KB token":
        expect_failure_unless("large_headers", "refuses a 100 KB header line itself (431, not JSON)")
    doc, layer = target
    table = attacks(keys, doc, layer)
    assert set(table) == set(_names())
    headers, status = table[attack]
    before = layer_state(server.port, keys, doc, layer)
    body = json.dumps({"client_id": "attacker", "mutations": [
        put(1, note(unique("evil"), "should not be here")),
        {"client_seq": 2, "op": "delete", "id": "original", "base_revision": 1},
    ]}).encode()
    r = request(server.port, "POST", f"/documents/{doc}/layers/{layer}/mutations", body=body,
                headers={**headers, "Content-Type": "application/json"})
    if attack == "a 100 KB token":
        assert 95_000 < len(headers["Authorization"]) < 110_000
    assert_error(r, status, "unauthenticated" if status == 401 else "forbidden")
    assert layer_state(server.port, keys, doc, layer) == before, attack
    # Reading is refused the same way, except for a read-only token, which may read.
    if attack != "read only, trying to write":
        r = request(server.port, "GET", f"/documents/{doc}/layers/{layer}/changes?since=0", headers=headers)
        assert r.status in (401, 403), (attack, r)
        assert r.status != 200


def test_valid_tokens_of_each_algorithm_work(server: ServerProcess, keys: Keys, document: str) -> None:
    layer = unique("algs")
    for key, alg in [(keys.rsa, "RS256"), (keys.rsa, "RS512"), (keys.ec, "ES256"), (keys.ec521, "ES512")]:
        c = Client(server.port, document, layer, mint(key, claims(document, layer), alg))
        r = c.push([put(1, note(unique(alg), alg))])
        assert r.status == 200, (alg, r)
        assert r.json["results"][0]["status"] == "accepted"
    # Within the 60 s leeway: still valid.
    c = Client(server.port, document, layer, mint(keys.rsa, claims(document, layer, exp_in=-20, nbf_in=20)))
    assert c.fetch().status == 200


def test_jwks_keys(host: str, start_server, keys: Keys) -> None:
    s = start_server(host, jwks=keys.jwks_file)
    doc = unique("jwks")
    assert upload(s.port, keys, doc).status == 201
    layer = unique("l")
    ok = mint(keys.jwks_ec, claims(doc, layer), "ES256", headers={"kid": "jwks-key-1"})
    assert Client(s.port, doc, layer, ok).fetch().status == 200
    # The PEM keys still work beside the JWKS.
    assert Client(s.port, doc, layer, mint(keys.rsa, claims(doc, layer))).fetch().status == 200
    # A key named by a kid the JWKS lacks, or no key at all: 401.
    bad = mint(keys.other, claims(doc, layer), "RS256", headers={"kid": "jwks-key-1"})
    assert_error(Client(s.port, doc, layer, bad).fetch(), 401, "unauthenticated")
