"""quire-server's WebSocket transport (docs/sync-protocol.md, "WebSocket"): the change feed
and pushes of a layer over one connection, with the long poll's ordering, idempotency and
reset rules, rights, heartbeats (a dead peer closed within 10 s), and the long poll kept.

The embedding hosts (Python, Go, Node) leave HTTP to their own servers and have no
WebSocket: these tests run on quire-server only (SQLite and PostgreSQL).
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import time
from typing import Any, Dict, List

import pytest

from sync_support import Client, Keys, ServerProcess, claims, mint, note, put, request, unique

websockets = pytest.importorskip("websockets.sync.client")


@pytest.fixture(autouse=True)
def _quire_server_only(host: str) -> None:
    if not host.startswith("quire-server"):
        pytest.skip(f"{host} has no WebSocket transport (quire-server only; the embedding hosts keep long polls)")


def token(keys: Keys, document: str, layer: str, **extra: Any) -> str:
    return mint(keys.rsa, claims(document, layer, **extra))


class Socket:
    """A WebSocket client of one layer (the `websockets` library), with a queue of what it
    received."""

    def __init__(self, server: ServerProcess, document: str, layer: str):
        self.ws = websockets.connect(
            f"ws://127.0.0.1:{server.port}/documents/{document}/layers/{layer}/socket",
            open_timeout=10,
            max_size=16 << 20,
        )

    def send(self, message: Dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def recv(self, timeout: float = 10) -> Dict[str, Any]:
        return json.loads(self.ws.recv(timeout))

    def hello(self, tok: str, since: int = 0, **extra: Any) -> Dict[str, Any]:
        """Says hello; returns the feed's first answer (the presence that comes first, as
        the connection joins the layer, is kept in `self.presence`)."""
        self.send({"type": "hello", "token": tok, "since": since, **extra})
        first = self.recv()
        assert first["type"] == "presence", first
        self.presence = first["body"]["presence"]
        first = self.recv()
        assert first["type"] == "changes", first
        return first["body"]

    def until(self, want, timeout: float = 10) -> List[Dict[str, Any]]:
        """Messages received until `want(messages)` holds."""
        got: List[Dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while not want(got):
            got.append(self.recv(max(0.01, deadline - time.monotonic())))
        return got

    def silent(self, seconds: float = 1.0) -> bool:
        try:
            m = self.recv(seconds)
        except TimeoutError:
            return True
        raise AssertionError(f"unexpected message {m}")

    def close(self) -> None:
        self.ws.close()


def without_presence(messages: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [m for m in messages if m["type"] != "presence"]


def change_seqs(messages: List[Dict[str, Any]]) -> List[int]:
    return [c["seq"] for m in messages if m["type"] == "changes" for c in m["body"].get("changes", [])]


def test_feed_and_pushes_over_one_connection(server, keys, document) -> None:
    layer = unique("ws")
    a, b = Socket(server, document, layer), Socket(server, document, layer)
    try:
        assert a.hello(token(keys, document, layer, user_id="ada"))["seq"] == 0
        assert b.hello(token(keys, document, layer))["seq"] == 0
        rid = unique("n")
        push = {"client_id": "ada-1", "mutations": [put(1, note(rid, "over the socket"))]}
        a.send({"type": "push", "id": 7, "body": push})
        got = a.until(lambda ms: any(m["type"] == "results" for m in ms) and change_seqs(ms) == [1])
        [results] = [m for m in got if m["type"] == "results"]
        assert results["id"] == 7 and results["status"] == 200
        assert results["body"] == {
            "seq": 1,
            "results": [{"client_seq": 1, "status": "accepted", "seq": 1, "revision": 1}],
        }
        [msg] = b.until(lambda ms: change_seqs(ms) == [1])
        [change] = msg["body"]["changes"]
        assert change["id"] == rid and change["op"] == "put" and change["user_id"] == "ada"
        assert change["record"]["text"] == "over the socket" and change["client_id"] == "ada-1"
        assert msg["body"]["more"] is False and len(msg["body"]["digest"]) == 32
        # A retry of the same (client_id, client_seq): the same answer, nothing applied twice.
        a.send({"type": "push", "id": 8, "body": push})
        [again] = a.until(lambda ms: len(ms) == 1)
        assert again["type"] == "results" and again["id"] == 8 and again["body"] == results["body"]
        assert b.silent(1.0)
        # A push over HTTP reaches both sockets; the long poll still works beside them.
        http = Client(server.port, document, layer, token(keys, document, layer))
        assert http.push([put(1, note(unique("n"), "over HTTP"))]).json["seq"] == 2
        for s in (a, b):
            assert change_seqs(s.until(lambda ms: 2 in change_seqs(ms))) == [2]
        assert [c["seq"] for c in http.changes(0, wait=1).json["changes"]] == [1, 2]
        # An answer the core refuses whole comes back with its status.
        a.send({"type": "push", "id": "bad", "body": {"client_id": "ada-1", "mutations": "no"}})
        [bad] = a.until(lambda ms: len(ms) == 1)
        assert bad["status"] == 400 and bad["body"]["error"]["code"] == "bad_request"
    finally:
        a.close()
        b.close()


def test_order_without_loss_or_duplicate(server, keys, document) -> None:
    layer = unique("ws")
    watcher, writer = Socket(server, document, layer), Socket(server, document, layer)
    try:
        watcher.hello(token(keys, document, layer))
        writer.hello(token(keys, document, layer))
        n = 0
        for batch in range(10):
            muts = [put(n + i + 1, note(unique("n"), f"{batch}/{i}")) for i in range(20)]
            n += len(muts)
            writer.send({"type": "push", "id": batch, "body": {"client_id": "w", "mutations": muts}})
        got = watcher.until(lambda ms: len(change_seqs(ms)) >= 200, timeout=30)
        assert change_seqs(got) == list(range(1, 201))
        assert watcher.silent(0.5)
    finally:
        watcher.close()
        writer.close()


def test_reset_then_subscribe(server, keys, document) -> None:
    layer = unique("ws")
    http = Client(server.port, document, layer, token(keys, document, layer))
    assert http.push([put(1, note(unique("n")))]).status == 200
    s = Socket(server, document, layer)
    try:
        # A seq past the layer's: reset, and the feed waits for the client's subscribe.
        assert s.hello(token(keys, document, layer), since=99) == {"reset": True, "seq": 1}
        assert s.silent(0.5)
        s.send({"type": "subscribe", "since": 1})
        assert s.recv()["body"]["seq"] == 1
        assert http.push([put(2, note(unique("n")))]).status == 200
        assert change_seqs(s.until(lambda ms: change_seqs(ms) == [2])) == [2]
    finally:
        s.close()


def error_then_closed(s: Socket, status: int, code: str) -> None:
    m = s.recv()
    assert m["type"] == "error" and m["status"] == status and m["body"]["error"]["code"] == code, m
    with pytest.raises(Exception):
        s.recv(5)


@pytest.mark.parametrize("case", ["garbage token", "another layer's token", "expired token"])
def test_a_refused_token_closes_the_connection(server, keys, document, case) -> None:
    layer = unique("ws")
    tok = {
        "garbage token": "garbage",
        "another layer's token": token(keys, document, "another"),
        "expired token": mint(keys.rsa, claims(document, layer, exp_in=-3600)),
    }[case]
    s = Socket(server, document, layer)
    s.send({"type": "hello", "token": tok, "since": 0})
    error_then_closed(
        s,
        403 if case == "another layer's token" else 401,
        "forbidden" if case == "another layer's token" else "unauthenticated",
    )


def test_a_push_before_hello_and_garbage_close_the_connection(server, keys, document) -> None:
    layer = unique("ws")
    s = Socket(server, document, layer)
    s.send({"type": "push", "body": {"client_id": "x", "mutations": []}})
    error_then_closed(s, 401, "unauthenticated")
    s = Socket(server, document, layer)
    s.ws.send("not json")
    error_then_closed(s, 400, "bad_request")


def test_rights_apply_over_the_socket(server, keys, document) -> None:
    layer = unique("ws")
    alice = Client(
        server.port,
        document,
        layer,
        mint(
            keys.rsa,
            claims(
                document,
                layer,
                user_id="alice",
                collaboration_permissions=["annotations:view:all", "annotations:edit:self"],
            ),
        ),
    )
    bob = Socket(server, document, layer)
    try:
        bob.hello(
            mint(
                keys.rsa,
                claims(
                    document,
                    layer,
                    user_id="bob",
                    collaboration_permissions=["annotations:view:self", "annotations:edit:self"],
                ),
            )
        )
        rid = unique("n")
        assert alice.push([put(1, note(rid, "Alice's"))]).json["results"][0]["status"] == "accepted"
        [m] = bob.until(lambda ms: len(ms) == 1)
        [c] = m["body"]["changes"]
        assert c["id"] == rid and c["op"] == "delete" and c.get("record") is None
        bob.send({"type": "push", "id": 1, "body": {"client_id": "bob", "mutations": [put(1, note(rid, "Bob's"), 1)]}})
        [r] = bob.until(lambda ms: any(x["type"] == "results" for x in ms))
        assert r["body"]["results"][0]["reason"] == "forbidden" and r["body"]["results"][0]["current"] is None
    finally:
        bob.close()


def test_no_hello_in_time_closes_the_connection(server, keys, document) -> None:
    s = Socket(server, document, unique("ws"))
    start = time.monotonic()
    m = s.recv(20)
    assert m["type"] == "error" and m["status"] == 408 and 9 <= time.monotonic() - start <= 15, m


def test_a_dead_peer_is_closed_within_ten_seconds(server, keys, document) -> None:
    """A client that upgrades, says hello and then never answers a ping (a raw socket that
    reads but never writes a pong) is closed by the server within 10 s."""
    layer = unique("ws")
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /documents/{document}/layers/{layer}/socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 101"), head
    payload = json.dumps({"type": "hello", "token": token(keys, document, layer), "since": 0}).encode()
    mask = os.urandom(4)
    assert len(payload) < 65536
    frame = (
        bytes([0x81, 0x80 | 126])
        + len(payload).to_bytes(2, "big")
        + mask
        + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    )
    sock.sendall(frame)
    start = time.monotonic()
    pings = 0
    data = head.split(b"\r\n\r\n", 1)[1]
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
        pings += chunk.count(b"\x89")
    elapsed = time.monotonic() - start
    sock.close()
    assert elapsed <= 10, f"the dead peer was closed after {elapsed:.1f} s"
    assert elapsed >= 3, f"closed after {elapsed:.1f} s: too soon for a ping timeout"
    assert pings >= 1


def test_presence_events_and_endpoints(server, keys, document) -> None:
    layer = unique("ws")
    a, b = Socket(server, document, layer), Socket(server, document, layer)
    admin_path = f"/admin/documents/{document}/layers/{layer}/presence"
    reader = Client(server.port, document, layer, token(keys, document, layer, permissions=["read"]))
    try:
        a.hello(token(keys, document, layer, user_id="ada"), client_id="ada-laptop")
        assert [(p["user_id"], p["client_id"]) for p in a.presence] == [("ada", "ada-laptop")]
        assert (
            re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", a.presence[0]["since"]) and a.presence[0]["cursor"] is None
        )
        b.hello(token(keys, document, layer, user_id="bob"))
        assert [p["user_id"] for p in b.presence] == ["ada", "bob"]
        [m] = a.until(lambda ms: len(ms) == 1)
        assert m["type"] == "presence" and [p["user_id"] for p in m["body"]["presence"]] == ["ada", "bob"]
        bob_client = m["body"]["presence"][1]["client_id"]
        assert re.fullmatch(r"[A-Za-z0-9._-]{1,128}", bob_client)
        # A cursor (any JSON of at most 4 KiB) reaches every member.
        b.send({"type": "presence", "cursor": {"page": 1, "selection": ["n-1"]}})
        [m] = a.until(lambda ms: len(ms) == 1)
        assert m["body"]["presence"][1]["cursor"] == {"page": 1, "selection": ["n-1"]}
        # The admin endpoint and the client endpoint (read) list the same.
        listed = request(server.port, "GET", admin_path, headers=keys.admin)
        assert listed.status == 200 and listed.json == m["body"]
        assert reader.get(f"/documents/{document}/layers/{layer}/presence").json == m["body"]
        assert request(server.port, "GET", admin_path).status == 401
        # Bob goes: Ada hears it.
        b.close()
        [m] = a.until(lambda ms: len(ms) == 1)
        assert [p["user_id"] for p in m["body"]["presence"]] == ["ada"]
        assert request(server.port, "GET", admin_path, headers=keys.admin).json == m["body"]
        # A cursor past 4 KiB closes the connection.
        a.send({"type": "presence", "cursor": "x" * 5000})
        error_then_closed(a, 413, "too_large")
        deadline = time.monotonic() + 5
        while (
            request(server.port, "GET", admin_path, headers=keys.admin).json["presence"] and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        assert request(server.port, "GET", admin_path, headers=keys.admin).json == {"presence": []}
    finally:
        a.close()
        b.close()
