"""The sync service through the C request handler (quire.SyncService), in process: what
the conformance suite (Tests/server) checks over HTTP, here through the library call
that Python, Go or Node hosts make, with real JWTs (PyJWT) and a real SQLite file."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import quire
from quire_testing.tokens import claims as token_claims
from quire_testing.tokens import ec_key, mint, public_pem

ADMIN = [("Authorization", "Token admin-secret")]


@pytest.fixture
def keys() -> Tuple[Any, str]:
    private = ec_key()
    return private, public_pem(private).decode()


@pytest.fixture
def service(tmp_path: Path, keys: Tuple[Any, str], sample_pdf: Path):
    s = quire.SyncService("sqlite://%s" % (tmp_path / "sync.db"), public_keys=[keys[1]], admin_token="admin-secret")
    status, _, body = s.handle("POST", "/admin/documents?id=doc1", ADMIN + [("Content-Type", "application/pdf")],
                               sample_pdf.read_bytes())
    assert status == 201, body
    yield s
    s.close()


def token(keys: Tuple[Any, str], permissions: List[str], **overrides: Any) -> str:
    payload = token_claims("doc1", "main", permissions, exp_in=600)
    payload.update(overrides)
    return mint(keys[0], payload, algorithm="ES256")


def call(service: quire.SyncService, method: str, target: str, tok: str, body: Any = None) -> Tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else b""
    status, headers, payload = service.handle(method, target, [("Authorization", "Bearer " + tok)], data)
    assert any(name.lower() == "x-request-id" for name, _ in headers)
    return status, json.loads(payload) if payload else None


def note(record_id: str, text: str) -> Dict[str, Any]:
    return {"v": 1, "type": "pspdfkit/note", "id": record_id, "pageIndex": 0, "bbox": [100, 100, 20, 20], "text": text}


def test_two_clients_converge_and_conflicts_are_answered(service: quire.SyncService, keys: Tuple[Any, str]):
    writer = token(keys, ["read", "write"], user_id="alice")
    status, layer = call(service, "GET", "/documents/doc1/layers/main", writer)
    assert status == 200 and len(layer["records"]) == 12  # sample.pdf's own annotations
    seq = layer["seq"]
    push = {"client_id": "a", "mutations": [{"client_seq": 1, "op": "put", "id": "n1", "base_revision": None,
                                             "record": note("n1", "from a")}]}
    status, answer = call(service, "POST", "/documents/doc1/layers/main/mutations", writer, push)
    assert status == 200 and answer["results"][0]["status"] == "accepted"
    revision = answer["results"][0]["revision"]
    # The same push again (a retry after a lost answer): the same answer, nothing twice.
    status, again = call(service, "POST", "/documents/doc1/layers/main/mutations", writer, push)
    assert again["results"] == answer["results"]
    # Another client, based on a stale revision: rejected with the current record.
    stale = {"client_id": "b", "mutations": [{"client_seq": 1, "op": "put", "id": "n1", "base_revision": None,
                                              "record": note("n1", "from b")}]}
    status, rejected = call(service, "POST", "/documents/doc1/layers/main/mutations", writer, stale)
    result = rejected["results"][0]
    assert result["status"] == "rejected" and result["reason"] == "conflict"
    assert result["current"]["text"] == "from a" and result["current"]["creatorName"] == "alice"
    # The feed has the one change; a reader sees it.
    reader = token(keys, ["read"])
    status, changes = call(service, "GET", "/documents/doc1/layers/main/changes?since=%d" % seq, reader)
    assert [c["id"] for c in changes["changes"]] == ["n1"] and changes["seq"] == revision
    # A reader cannot write.
    status, error = call(service, "POST", "/documents/doc1/layers/main/mutations", reader, stale)
    assert status == 403 and error["error"]["code"] == "forbidden"


def test_a_long_poll_wakes_on_a_push_and_on_shutdown(service: quire.SyncService, keys: Tuple[Any, str]):
    tok = token(keys, ["read", "write"])
    _, layer = call(service, "GET", "/documents/doc1/layers/main", tok)
    results: List[Tuple[int, Any, float]] = []

    def wait() -> None:
        started = time.monotonic()
        status, body = call(service, "GET", "/documents/doc1/layers/main/changes?since=%d&wait=60" % layer["seq"], tok)
        results.append((status, body, time.monotonic() - started))

    listener = threading.Thread(target=wait)
    listener.start()
    time.sleep(0.5)  # the listener waits (ctypes released the GIL)
    push = {"client_id": "c", "mutations": [{"client_seq": 1, "op": "put", "id": "n2", "base_revision": None,
                                             "record": note("n2", "wake up")}]}
    status, _ = call(service, "POST", "/documents/doc1/layers/main/mutations", tok, push)
    assert status == 200
    listener.join(50)
    assert not listener.is_alive()
    status, body, took = results[0]
    assert status == 200 and [c["id"] for c in body["changes"]] == ["n2"] and took < 45
    # A second listener, then shutdown: it answers at once, later requests get 503.
    results.clear()
    _, layer = call(service, "GET", "/documents/doc1/layers/main", tok)
    listener = threading.Thread(target=wait)
    listener.start()
    time.sleep(0.5)
    service.shutdown()
    listener.join(50)
    assert not listener.is_alive() and results[0][2] < 45
    assert service.handle("GET", "/healthz")[0] == 503


def test_bad_calls(service: quire.SyncService, keys: Tuple[Any, str]):
    assert service.handle("GET", "/documents/doc1/layers/main")[0] == 401
    assert service.handle("GET", "/admin/documents", [("Authorization", "Token wrong")])[0] == 401
    expired = token(keys, ["read"], exp=int(time.time()) - 3600)
    assert call(service, "GET", "/documents/doc1/layers/main", expired)[0] == 401
    other_layer = token(keys, ["read"], layer="other")
    assert call(service, "GET", "/documents/doc1/layers/main", other_layer)[0] == 403
    status, body = call(service, "POST", "/documents/doc1/layers/main/mutations", token(keys, ["write"]),
                        {"client_id": "x", "mutations": [], "surprise": 1})
    assert status == 400 and body["error"]["code"] == "unknown_field"
    with pytest.raises(quire.InvalidArgumentError):
        quire.SyncService("nosuchscheme://x")
    with pytest.raises(quire.InvalidArgumentError):
        quire.SyncService("sqlite::memory:", public_keys=["not a PEM key"])


def test_a_postgres_store_names_the_librarys_postgres_flavour():
    # The default libquire has the SQLite store only; a PostgreSQL store is the flavour's
    # (libquire-postgres: Tests/server/test_server_postgres.py runs it).
    if "libquire-postgres" in str(getattr(quire._raw.lib, "_name", "")):
        pytest.skip("the tests run on the PostgreSQL flavour, which takes postgres:// stores")
    for url in ["postgres://quire@127.0.0.1:1/quire", "postgresql://quire@127.0.0.1:1/quire"]:
        with pytest.raises(quire.UnsupportedError, match="PostgreSQL needs libquire-postgres") as raised:
            quire.SyncService(url)
        assert "make lib-postgres" in str(raised.value) and "QUIRE_LIBRARY" in str(raised.value)


def test_a_nul_in_the_target_is_the_librarys_400(service: quire.SyncService):
    # A raw NUL (which no C string carries) and its escape %00 get the same JSON answer,
    # with a request id, wherever they are in the target: never an exception.
    for target in ["/healthz\0", "/admin/documents/doc\0one", "/admin/documents/doc%00one",
                   "/documents/doc1/layers/main/changes?since=0\0", "/documents/doc1/layers/main/changes?since=%00"]:
        status, headers, body = service.handle("GET", target, ADMIN)
        assert status == 400, (target, body)
        assert json.loads(body)["error"] == {"code": "bad_request", "message": "the target contains a NUL character"}
        assert any(n.lower() == "x-request-id" for n, _ in headers)


def test_the_store_is_required_and_relative_paths_are_from_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_pdf: Path):
    with pytest.raises(TypeError):
        quire.SyncService()  # type: ignore[call-arg]  # no default store: nothing lost by omission
    monkeypatch.chdir(tmp_path)
    for url, path in [("sqlite://relative.db", tmp_path / "relative.db"),
                      ("sqlite://./sub/dotted.db", tmp_path / "sub" / "dotted.db")]:
        path.parent.mkdir(exist_ok=True)
        with quire.SyncService(url, admin_token="admin-secret") as s:
            status, _, body = s.handle("POST", "/admin/documents?id=d", ADMIN, sample_pdf.read_bytes())
            assert status == 201, body
        assert path.exists()
        # Reopened from the same directory: the same store.
        with quire.SyncService(url, admin_token="admin-secret") as s:
            assert s.handle("GET", "/admin/documents/d", ADMIN)[0] == 200


def test_handle_async_answers_on_the_loop_and_cancels(service: quire.SyncService, keys: Tuple[Any, str]):
    import asyncio

    tok = token(keys, ["read", "write"])
    auth = [("Authorization", "Bearer " + tok)]

    async def scenario() -> None:
        status, headers, body = await service.handle_async("GET", "/documents/doc1/layers/main", auth)
        assert status == 200 and any(n.lower() == "x-request-id" for n, _ in headers)
        seq = json.loads(body)["seq"]
        poll = "/documents/doc1/layers/main/changes?since=%d&wait=60" % seq
        # Many long polls wait at once without a thread each; a push wakes them all.
        waiting = [asyncio.ensure_future(service.handle_async("GET", poll, auth)) for _ in range(50)]
        await asyncio.sleep(0.5)
        assert not any(w.done() for w in waiting)
        push = {"client_id": "async", "mutations": [{"client_seq": 1, "op": "put", "id": "n3", "base_revision": None,
                                                     "record": note("n3", "hello")}]}
        status, _, _ = await service.handle_async("POST", "/documents/doc1/layers/main/mutations", auth,
                                                  json.dumps(push).encode())
        assert status == 200
        answers = await asyncio.wait_for(asyncio.gather(*waiting), 30)
        assert all(s == 200 and [c["id"] for c in json.loads(b)["changes"]] == ["n3"] for s, _, b in answers)
        # A cancelled long poll (its client went away) stops at once and frees its call.
        seq = json.loads(answers[0][2])["seq"]
        poll = "/documents/doc1/layers/main/changes?since=%d&wait=60" % seq
        task = asyncio.ensure_future(service.handle_async("GET", poll, auth))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        started = time.monotonic()
        while service._calls and time.monotonic() - started < 10:
            await asyncio.sleep(0.05)
        assert not service._calls, "the cancelled call's completion did not run"
        # A NUL in the target, asynchronously too.
        assert (await service.handle_async("GET", "/healthz\0"))[0] == 400

    asyncio.run(scenario())


def test_attachment_and_listener_limits(tmp_path: Path, keys: Tuple[Any, str], sample_pdf: Path):
    """`max_attachment_bytes` and `max_listeners` (quire_sync_config version 2): an
    attachment past the limit is a 413 and nothing is kept; a long poll past the listeners
    is told 503 busy at once; out-of-range limits are refused when the service opens."""
    import hashlib

    with quire.SyncService("sqlite::memory:", public_keys=[keys[1]], admin_token="admin-secret",
                           max_attachment_bytes=64, max_listeners=1) as s:
        status, _, body = s.handle("POST", "/admin/documents?id=doc1", ADMIN + [("Content-Type", "application/pdf")],
                                   sample_pdf.read_bytes())
        assert status == 201, body
        tok = token(keys, ["read", "write"])
        auth = [("Authorization", "Bearer " + tok), ("Content-Type", "text/plain")]
        for data, expected in ((b"x" * 65, 413), (b"x" * 64, 201)):
            status, _, body = s.handle("PUT", "/documents/doc1/attachments/" + hashlib.sha256(data).hexdigest(), auth, data)
            assert status == expected, body
            if expected == 413:
                assert b"max_attachment_bytes" in body
        status, _, _ = s.handle("GET", "/documents/doc1/attachments/" + hashlib.sha256(b"x" * 65).hexdigest(), auth)
        assert status == 404
        answers: List[int] = []
        waiting = threading.Thread(target=lambda: answers.append(call(s, "GET", "/documents/doc1/layers/main/changes?since=0&wait=20", tok)[0]))
        waiting.start()
        time.sleep(1.0)
        started = time.monotonic()
        status, body = call(s, "GET", "/documents/doc1/layers/main/changes?since=0&wait=20", tok)
        assert status == 503 and body["error"]["code"] == "busy" and time.monotonic() - started < 10, body
        s.shutdown()
        waiting.join(30)
        assert answers == [200]
    with pytest.raises(quire.InvalidArgumentError, match="max_attachment_bytes"):
        quire.SyncService("sqlite::memory:", max_attachment_bytes=(64 << 20) + 1)
    with pytest.raises(quire.InvalidArgumentError, match="max_listeners"):
        quire.SyncService("sqlite::memory:", max_listeners=1 << 31)


def test_attachment_grace_period(tmp_path: Path, keys: Tuple[Any, str], sample_pdf: Path):
    """`attachment_grace_seconds` (quire_sync_config version 3): with 0 an attachment that
    no record names is collected at once (the admin API's collection), so a push naming it
    is refused whole (409 missing_attachment, nothing applied) until it is uploaded again;
    with the default hour it stays. Negative or past INT32_MAX is refused at open."""
    import hashlib

    data = b"a file no record names yet"
    sha = hashlib.sha256(data).hexdigest()
    record = {"v": 1, "type": "pspdfkit/file", "id": "f1", "pageIndex": 0, "bbox": [100, 100, 20, 20],
              "fileAttachmentId": sha, "fileName": "a.txt", "contentType": "text/plain"}
    push = {"client_id": "a", "mutations": [
        {"client_seq": 1, "op": "put", "id": "n1", "base_revision": None, "record": note("n1", "beside")},
        {"client_seq": 2, "op": "put", "id": "f1", "base_revision": None, "record": record}]}
    for grace, collected in ((0, [sha]), (None, [])):
        with quire.SyncService("sqlite::memory:", public_keys=[keys[1]], admin_token="admin-secret",
                               attachment_grace_seconds=grace) as s:
            status, _, body = s.handle("POST", "/admin/documents?id=doc1", ADMIN + [("Content-Type", "application/pdf")],
                                       sample_pdf.read_bytes())
            assert status == 201, body
            tok = token(keys, ["read", "write"])
            status, _, body = s.handle("PUT", "/documents/doc1/attachments/" + sha,
                                       [("Authorization", "Bearer " + tok), ("Content-Type", "text/plain")], data)
            assert status == 201, body
            status, _, body = s.handle("POST", "/admin/documents/doc1/attachments/collect", ADMIN)
            assert status == 200 and json.loads(body)["collected"] == collected, body
            status, answer = call(s, "POST", "/documents/doc1/layers/main/mutations", tok, push)
            if grace == 0:
                assert status == 409 and answer["error"]["code"] == "missing_attachment", answer
                assert answer["error"]["mutations"][0]["client_seq"] == 2
                assert answer["error"]["mutations"][0]["attachment"] == sha
                assert call(s, "GET", "/documents/doc1/layers/main/changes?since=0", tok)[1]["seq"] == 0
            else:
                assert status == 200 and [r["status"] for r in answer["results"]] == ["accepted"] * 2, answer
    for bad in (-1, 1 << 31):
        with pytest.raises(quire.InvalidArgumentError, match="attachment_grace_seconds"):
            quire.SyncService("sqlite::memory:", attachment_grace_seconds=bad)
