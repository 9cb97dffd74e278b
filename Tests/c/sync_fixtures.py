#!/usr/bin/env python3
"""Writes the keys, tokens and files that test_sync.c needs into a directory.

Usage: sync_fixtures.py DIR      (the Makefile writes out/sync before each run of test_api)

The sync service verifies JWTs with public keys only (docs/sync-protocol.md), so a test of
its client API needs a key pair and tokens signed with the private key. They are made here,
at each run (the tokens expire), by the tests' one token helper (PyJWT and cryptography:
Tests/support/quire_testing/tokens.py); the private key is never written. DIR receives:

  ec.pub.pem          an EC P-256 public key (PEM), the key the tests' service trusts
  token               ES256: document doc1, layer main, read + write + download, user_id
                      "c-tests", valid for a day
  token-read          the same, with the read permission only
  token-other-layer   the same permissions, for layer "other" of doc1
  token-expired       doc1/main, expired an hour ago (past the 60 s leeway)
  token-unknown-key   doc1/main, signed by another P-256 key, which the service never sees
  foreign.db          a SQLite database of another program (one table of its own, no
                      Quire schema): the header's "a store file that is not Quire's"

Each file is written whole under a temporary name and renamed, so a test never reads half
of one.
"""

import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from quire_testing.tokens import claims, ec_key, mint, public_pem  # noqa: E402

DOCUMENT = "doc1"
LAYER = "main"
USER = "c-tests"


def write(directory, name, data):
    path = os.path.join(directory, name)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("ascii"))
    os.replace(tmp, path)


def token(key, layer=LAYER, permissions=("read", "write", "download"), exp_in=86400):
    return mint(key, claims(DOCUMENT, layer, permissions, user_id=USER, exp_in=exp_in), algorithm="ES256")


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: sync_fixtures.py DIR")
    directory = argv[1]
    os.makedirs(directory, exist_ok=True)
    key = ec_key()
    other = ec_key()
    write(directory, "ec.pub.pem", public_pem(key))
    write(directory, "token", token(key))
    write(directory, "token-read", token(key, permissions=("read",)))
    write(directory, "token-other-layer", token(key, layer="other"))
    write(directory, "token-expired", token(key, exp_in=-3600))
    write(directory, "token-unknown-key", token(other))

    path = os.path.join(directory, "foreign.db")
    tmp = path + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    db = sqlite3.connect(tmp)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    db.execute("INSERT INTO notes (text) VALUES ('not a Quire store')")
    db.commit()
    db.close()
    os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
