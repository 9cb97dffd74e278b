"""The sync client of libquire (quire.Client, quire.Descriptor; issue 16) against real server
processes on loopback: quire-server and the Python host of the C request handler (the
``host`` fixture runs each test on both). Tokens are minted with PyJWT.

    QUIRE_SERVER=$PWD/build/bin/quire-server PYTHONPATH=bindings/python \
        python3 -m pytest -q Tests/server/test_client.py
"""

from __future__ import annotations

import dataclasses
import json
import random
import threading
import time
from pathlib import Path
from typing import Dict, List

import pytest

import quire
from sync_support import Keys, ServerProcess, claims, mint, unique, upload

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


class Recorder:
    """Every event of a client, in order (called on the library's event threads)."""

    def __init__(self) -> None:
        self.events: List[quire.SyncEvent] = []
        self.lock = threading.Lock()

    def __call__(self, descriptor: quire.Descriptor, event: quire.SyncEvent) -> None:
        with self.lock:
            self.events.append(event)

    def types(self) -> List[quire.SyncEventType]:
        with self.lock:
            return [e.type for e in self.events]

    def of(self, kind: quire.SyncEventType) -> List[quire.SyncEvent]:
        with self.lock:
            return [e for e in self.events if e.type == kind]


def make_client(server: ServerProcess, directory: Path, **kw) -> "tuple[quire.Client, Recorder]":
    recorder = Recorder()
    client = quire.Client(f"http://127.0.0.1:{server.port}", directory, on_event=recorder, auto_sync_delay=0, **kw)
    return client, recorder


def fresh_document(server: ServerProcess, keys: Keys) -> str:
    doc = unique("doc")
    assert upload(server.port, keys, doc).status == 201
    return doc


def token(keys: Keys, doc: str, layer: str = "review", **kw) -> str:
    return mint(keys.rsa, claims(doc, layer, **kw))


def records(document: quire.Document) -> Dict[str, dict]:
    """The document's annotation records by id, without pdfObjectId (object numbers are
    each client's own)."""
    out = {}
    for r in json.loads(document.export_annotations_json())["annotations"]:
        r.pop("pdfObjectId", None)
        out[r["id"]] = r
    return out


def server_records(server: ServerProcess, keys: Keys, doc: str, layer: str = "review") -> Dict[str, dict]:
    from sync_support import bearer, request

    r = request(server.port, "GET", f"/documents/{doc}/layers/{layer}", headers=bearer(token(keys, doc, layer)))
    assert r.status == 200, r
    out = {}
    for item in r.json["records"]:
        rec = item["record"]
        rec.pop("pdfObjectId", None)
        out[rec["id"]] = rec
    return out


def feed_ids(server: ServerProcess, keys: Keys, doc: str, layer: str = "review") -> List[str]:
    from sync_support import bearer, request

    r = request(
        server.port, "GET", f"/documents/{doc}/layers/{layer}/changes?since=0", headers=bearer(token(keys, doc, layer))
    )
    assert r.status == 200, r
    return [c["id"] for c in r.json["changes"]]


def add_note(document: quire.Document, name: str, text: str, page: int = 0) -> quire.Annotation:
    note = quire.Annotation.new("Text", page, (72, 700, 96, 724))
    note.name = name
    note.contents = text
    note.author = "tester"
    return document.add_annotation(note)


def find(document: quire.Document, name: str) -> quire.Annotation:
    return next(n for n in document.annotations() if n.name == name)


def downloaded(client: quire.Client, jwt: str) -> quire.Descriptor:
    d = client.descriptor(jwt)
    d.download(jwt)
    d.wait_idle()
    assert d.state == quire.SyncState.CLEAN, d
    return d


def test_two_clients_converge_after_random_concurrent_edits(server, keys, tmp_path):
    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    a_client, a_events = make_client(server, tmp_path / "a")
    b_client, b_events = make_client(server, tmp_path / "b")
    with a_client, b_client:
        a, b = downloaded(a_client, jwt), downloaded(b_client, jwt)
        assert a is a_client.descriptor(jwt)
        da, db = a.document, b.document
        rng = random.Random(16)
        # Both start from common records, then edit at random: new notes, replies, review
        # states, changes (often of the same note by both) and deletions; syncs in between.
        add_note(da, "shared", "start")
        a.sync_now()
        b.sync_now()
        for step in range(40):
            desc, d, who = rng.choice([(a, da, "A"), (b, db, "B")])
            names = [n.name for n in d.annotations() if n.name and n.in_reply_to is None and n.subtype == "Text"]
            action = rng.random()
            if action < 0.3 or not names:
                add_note(d, f"{who}-{step}", f"note {step} by {who}", page=rng.randrange(2))
            elif action < 0.45:
                target = find(d, rng.choice(names))
                d.add_reply(target, who, f"reply {step}")
            elif action < 0.55:
                target = find(d, rng.choice(names))
                d.add_state_reply(target, who, "Review", rng.choice(["Accepted", "Rejected", "Completed"]))
            elif action < 0.9:
                name = "shared" if rng.random() < 0.5 and "shared" in names else rng.choice(names)
                target = find(d, name)
                target.contents = f"edit {step} by {who}"
                d.update_annotation(target)
            else:
                victim = rng.choice([n for n in names if n != "shared"] or names)
                if victim != "shared":
                    d.delete_annotation(find(d, victim))
            if rng.random() < 0.3:
                desc.sync_now()
        for _ in range(3):
            a.sync_now()
            b.sync_now()
        a.wait_idle()
        b.wait_idle()
        assert a.pending_changes == 0 and b.pending_changes == 0
        expected = server_records(server, keys, doc)
        assert records(da) == expected
        assert records(db) == expected
        # Concurrent edits of the same annotation: one wins, the other is told.
        shared_a = find(da, "shared")
        shared_b = find(db, "shared")
        shared_a.contents = "A wins"
        shared_b.contents = "B loses"
        da.update_annotation(shared_a)
        db.update_annotation(shared_b)
        a.sync_now()
        b.sync_now()
        b.wait_idle()
        dropped = b_events.of(quire.SyncEventType.CHANGE_DROPPED)
        assert any(e.record_id == "shared" and e.reason == "conflict" for e in dropped), b_events.types()
        a.sync_now()
        final = server_records(server, keys, doc)
        assert records(da) == final == records(db)
        assert "A wins" in json.dumps(final["shared"])
        assert b_events.of(quire.SyncEventType.DOCUMENT_CHANGED)
        # Each record a DOCUMENT_CHANGED event names is found in b's document by its record
        # id, which it gives back; one the server no longer has (deleted) is not found.
        named = {rid for e in b_events.of(quire.SyncEventType.DOCUMENT_CHANGED) for rid in e.record_ids}
        assert "shared" in named, named
        for rid in named:
            if rid in final:
                assert db.annotation_record_id(db.annotation_by_record_id(rid)) == rid
            else:
                with pytest.raises(quire.NotFoundError):
                    db.annotation_by_record_id(rid)


def test_offline_edits_sync_exactly_once(server, keys, tmp_path, start_server, host):
    # A server of its own, stopped and started again in the same directory.
    own = start_server(host)
    doc = fresh_document(own, keys)
    jwt = token(keys, doc)
    client, events = make_client(own, tmp_path / "c")
    with client:
        d = downloaded(client, jwt)
        doc_ = d.document
        assert own.stop() == 0
        for i in range(5):
            add_note(doc_, f"offline-{i}", f"written offline {i}")
        assert d.pending_changes == 5
        with pytest.raises(quire.NetworkError) as refused:
            d.sync_now()
        # What the system said, as a person reads it (not SwiftNIO's unbalanced
        # "connection reset (error set): Connection refused) (errno: 111)").
        message = str(refused.value)
        assert "Connection refused (errno 111)" in message and message.count("(") == message.count(")"), message
        assert d.state == quire.SyncState.DIRTY
        own.start()
        d.sync_now()
        assert d.pending_changes == 0
        ids = feed_ids(own, keys, doc)
        for i in range(5):
            assert ids.count(f"offline-{i}") == 1, ids
        assert records(doc_) == server_records(own, keys, doc)


def test_expired_token_reauthentication_and_provider(server, keys, tmp_path):
    doc = fresh_document(server, keys)
    expired = token(keys, doc, exp_in=-3600)
    good = token(keys, doc)
    client, events = make_client(server, tmp_path / "c")
    with client:
        d = client.descriptor(expired)
        d.download(expired)
        # A failed download is never silent (issue 40): waiting raises its reason, and so
        # does a download that waits.
        with pytest.raises(quire.AuthenticationError, match="expired|exp"):
            d.wait_idle()
        assert quire.SyncEventType.AUTHENTICATION_NEEDED in events.types()
        assert quire.SyncEventType.DOWNLOAD_FAILED in events.types()
        with pytest.raises(quire.AuthenticationError):
            d.download(expired, wait=True)
        with pytest.raises(quire.AuthenticationError):
            d.download(mint(keys.other, claims(doc, "review")), wait=True)  # a key the server does not know
        with pytest.raises(quire.StateError):
            d.document
        d.download(good, wait=True)
        assert d.state == quire.SyncState.CLEAN
        add_note(d.document, "n1", "one")
        d.reauthenticate(expired)
        d.wait_idle()
        failed = events.of(quire.SyncEventType.REAUTHENTICATION_FAILED)
        assert failed and failed[-1].status == quire.AuthenticationError.status
        d.reauthenticate(good)
        d.wait_idle()
        assert quire.SyncEventType.REAUTHENTICATION_FINISHED in events.types()
        assert d.pending_changes == 0  # reauthentication resumed the sync
        # A JWT for another layer is refused for this descriptor.
        with pytest.raises(quire.InvalidArgumentError):
            d.reauthenticate(token(keys, doc, layer="other"))
        with pytest.raises(quire.InvalidArgumentError):
            client.descriptor("not a token")

    # After a restart the token is gone: the first sync asks for authentication; a token
    # provider resumes without the caller.
    minted: List[str] = []

    def provider(descriptor: quire.Descriptor) -> str:
        minted.append(descriptor.layer)
        return token(keys, doc)

    client, events = make_client(server, tmp_path / "c")
    with client:
        d = client.descriptor(good)
        assert d.state == quire.SyncState.CLEAN
        add_note(d.document, "n2", "two")
        with pytest.raises(quire.AuthenticationError):
            d.sync_now()
        d.wait_idle()
        assert quire.SyncEventType.AUTHENTICATION_NEEDED in events.types()
    client, events = make_client(server, tmp_path / "c", token_provider=provider)
    with client:
        d = client.descriptor(good)
        d.sync_now()
        assert minted == ["review"]
        assert d.pending_changes == 0
        assert "n2" in server_records(server, keys, doc)


def test_removing_local_storage(server, keys, tmp_path):
    doc = fresh_document(server, keys)
    client, _ = make_client(server, tmp_path / "c")
    base = tmp_path / "c" / "documents" / doc
    with client:
        one = downloaded(client, token(keys, doc, "one"))
        two = downloaded(client, token(keys, doc, "two"))
        files = sorted(str(p.relative_to(base)) for p in base.rglob("*"))
        assert "document.pdf" in files and "layers/one.sqlite" in files and "layers/two.sqlite" in files
        one.remove_local_storage()
        left = sorted(str(p.relative_to(base)) for p in base.rglob("*"))
        assert not any(f.startswith("layers/one.sqlite") for f in left), left
        assert "layers/two.sqlite" in left and "document.pdf" in left
        assert one.state == quire.SyncState.UNKNOWN
        assert client.remove_unused_cache() == 0
        two.remove_local_storage()
        assert client.remove_unused_cache() == 1
        assert not base.exists()
        downloaded(client, token(keys, doc, "one"))
        client.remove_document_storage(doc)
        assert not base.exists()
        assert one.state == quire.SyncState.UNKNOWN


def test_edits_on_the_callers_thread_while_the_sync_applies_the_servers(server, keys, tmp_path):
    """A listens (its listener and worker apply B's notes as they come) while its own thread
    edits and reads the same document: every call holds the document's lock, so nothing
    interleaves; both converge."""
    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    a_client, _ = make_client(server, tmp_path / "a")
    b_client, _ = make_client(server, tmp_path / "b")
    with a_client, b_client:
        a, b = downloaded(a_client, jwt), downloaded(b_client, jwt)
        a.auto_sync_delay = 0.05
        a.listen()
        da, db = a.document, b.document
        errors: List[BaseException] = []

        def writer() -> None:
            try:
                for i in range(25):
                    add_note(db, f"b-{i}", f"from B {i}", page=i % 2)
                    b.sync_now()
            except BaseException as exc:  # reported below
                errors.append(exc)

        t = threading.Thread(target=writer)
        t.start()
        for i in range(25):
            add_note(da, f"a-{i}", f"from A {i}", page=i % 2)
            sum(1 for _ in da.annotations())  # reads while the sync may apply
        t.join(120)
        assert not errors, errors
        a.listen(False)
        for _ in range(3):
            a.sync_now()
            b.sync_now()
        expected = server_records(server, keys, doc)
        assert {f"a-{i}" for i in range(25)} | {f"b-{i}" for i in range(25)} <= set(expected)
        assert records(da) == expected == records(db)


def wait_until(condition, seconds: float = 60) -> bool:
    """Waits for `condition()` (events come on the library's threads); not a speed check."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_automatic_sync_and_listening(server, keys, tmp_path):
    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    a_client, a_events = make_client(server, tmp_path / "a")
    recorder = Recorder()
    b_client = quire.Client(
        f"http://127.0.0.1:{server.port}", tmp_path / "b", on_event=recorder, auto_sync_delay=0.2, listen_wait_seconds=5
    )
    with a_client, b_client:
        a = downloaded(a_client, jwt)
        b = downloaded(b_client, jwt)
        b.listen()
        # A's note reaches B without B asking: the listener's long poll wakes, a sync runs.
        add_note(a.document, "pushed-by-a", "hello")
        a.sync_now()
        assert wait_until(
            lambda: any("pushed-by-a" in e.record_ids for e in recorder.of(quire.SyncEventType.DOCUMENT_CHANGED))
        )
        assert wait_until(lambda: "pushed-by-a" in records(b.document))
        # B's own edit is pushed by the automatic sync (0.2 s after it), no call needed.
        add_note(b.document, "auto-from-b", "automatic")
        assert wait_until(lambda: "auto-from-b" in server_records(server, keys, doc))
        assert wait_until(lambda: b.pending_changes == 0)
        b.listen(False)


def test_reset_refetches_the_layer_and_keeps_local_changes(server, keys, tmp_path):
    from sync_support import request

    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    client, events = make_client(server, tmp_path / "c")
    with client:
        d = downloaded(client, jwt)
        for i in range(3):
            add_note(d.document, f"old-{i}", "before the reset")
        d.sync_now()
        # The layer is deleted (admin) and made again by another client with fewer changes:
        # this client's cursor is past the new layer's seq, so the feed answers "reset".
        r = request(server.port, "DELETE", f"/admin/documents/{doc}/layers/review", headers=keys.admin)
        assert r.status == 204, r
        other_client, _ = make_client(server, tmp_path / "other")
        with other_client:
            o = downloaded(other_client, jwt)
            add_note(o.document, "after-reset", "new layer")
            o.sync_now()
        add_note(d.document, "local-pending", "made before the reset was seen")
        d.sync_now()
        d.sync_now()
        states = [e.state for e in events.of(quire.SyncEventType.STATE_CHANGED)]
        assert quire.SyncState.NEEDS_RESET in states
        expected = server_records(server, keys, doc)
        assert "after-reset" in expected and "local-pending" in expected
        assert not any(k.startswith("old-") for k in expected)
        assert records(d.document) == expected


def test_many_listening_descriptors_in_one_process(server, keys, tmp_path):
    """A program that syncs many layers against one server (a backend acting for many
    users) holds one long poll per listening descriptor. They must not take every
    connection: with 20 descriptors listening, each one's download and sync still gets an
    answer within the request timeout (the HTTP client's pool used to allow 8 connections
    per host, so the ninth request waited behind the long polls)."""
    doc = fresh_document(server, keys)
    client, recorder = make_client(server, tmp_path / "many", request_timeout_seconds=10, listen_wait_seconds=30)
    with client:
        descriptors = []
        for k in range(20):
            jwt = token(keys, doc, layer="layer%d" % k)
            d = client.descriptor(jwt)
            d.download(jwt)
            d.wait_idle()
            assert d.state == quire.SyncState.CLEAN, (k, recorder.of(quire.SyncEventType.DOWNLOAD_FAILED))
            d.listen()
            descriptors.append(d)
        for k, d in enumerate(descriptors):
            note = quire.Annotation.new("Text", 0, (10 + k, 10, 30 + k, 30))
            note.name = "many-%d" % k
            d.document.add_annotation(note)
            d.sync_now()  # raises NetworkError if its request timed out behind the long polls
        for k in range(20):
            assert "many-%d" % k in server_records(server, keys, doc, layer="layer%d" % k)


def test_the_record_is_the_truth_through_the_binding(server, keys, tmp_path):
    """Issue 30 through Python: a reply made while another client deletes its parent keeps
    its link everywhere; a delete pushes nothing but itself; CHANGE_DROPPED names the local
    change ids it drops; the client's records equal the server's."""
    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    a_client, a_events = make_client(server, tmp_path / "a")
    b_client, b_events = make_client(server, tmp_path / "b")
    with a_client, b_client:
        ann, bob = downloaded(a_client, jwt), downloaded(b_client, jwt)
        parent = add_note(ann.document, "parent-note", "the parent")
        ann.sync_now()
        bob.sync_now()
        bob.document.delete_annotation(find(bob.document, "parent-note"))
        reply = ann.document.add_state_reply(parent, "Ann", "Review", "Accepted")
        ann.sync_now()
        bob.sync_now()
        ann.sync_now()
        bob.sync_now()
        on_server = server_records(server, keys, doc)
        assert "parent-note" not in on_server
        assert on_server[reply.name]["quire"]["inReplyTo"] == "parent-note"
        expected = {k: _canon(v) for k, v in on_server.items()}
        for d in (ann, bob):
            assert d.state == quire.SyncState.CLEAN and d.pending_changes == 0
            assert {k: _canon(v) for k, v in d.records().items()} == expected
            assert {k: _canon(v) for k, v in records(d.document).items()} == expected
            assert d.repairs == 0
        orphan = find(bob.document, reply.name)
        assert orphan.is_reply and orphan.in_reply_to is None and orphan.in_reply_to_id == "parent-note"
        # The same record changed by both: the later one is dropped, naming its changes.
        a_note = find(ann.document, reply.name)
        a_note.contents = "Ann's"
        ann.document.update_annotation(a_note)
        b_note = find(bob.document, reply.name)
        b_note.contents = "Bob's"
        bob.document.update_annotation(b_note)
        bobs = bob.last_change_id
        assert bobs > 0
        ann.sync_now()
        bob.sync_now()
        bob.wait_idle()
        dropped = b_events.of(quire.SyncEventType.CHANGE_DROPPED)
        assert dropped and dropped[-1].record_id == reply.name and bobs in dropped[-1].change_ids, dropped
        assert dropped[-1].client_seq > 0
        assert json.loads(bob.records_json())["annotations"]


def test_an_xfdf_import_pushes_only_what_it_changes(server, keys, tmp_path):
    """Issue 39 (XFDF over a synced layer): a user importing their document's own XFDF while
    another edits the same note pushes nothing, so the other's edit stays; an XFDF that
    changes the note's text keeps what XFDF cannot carry (its custom data), and every
    client ends with the server's records."""
    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    a_client, _ = make_client(server, tmp_path / "a")
    b_client, _ = make_client(server, tmp_path / "b")
    with a_client, b_client:
        ann, bob = downloaded(a_client, jwt), downloaded(b_client, jwt)
        note = add_note(ann.document, "xfdf-note", "first words")
        note.custom_data = '{"k": 1}'
        ann.document.update_annotation(note)
        ann.sync_now()
        bob.sync_now()
        # Bob edits; Ann, not yet synced, imports her own XFDF: nothing to push.
        note = find(bob.document, "xfdf-note")
        note.contents = "words by Bob"
        bob.document.update_annotation(note)
        bob.sync_now()
        pending = ann.pending_changes
        ann.document.import_xfdf(ann.document.export_xfdf())
        assert ann.pending_changes == pending
        ann.sync_now()
        on_server = server_records(server, keys, doc)["xfdf-note"]
        assert on_server["text"] == "words by Bob" and on_server["customData"] == {"k": 1}, on_server
        # An XFDF that changes the text: the text changes, the custom data stays.
        xfdf = ann.document.export_xfdf().replace("words by Bob", "words by Ann")
        assert "words by Ann" in xfdf
        ann.document.import_xfdf(xfdf)
        ann.sync_now()
        bob.sync_now()
        on_server = server_records(server, keys, doc)["xfdf-note"]
        assert on_server["text"] == "words by Ann" and on_server["customData"] == {"k": 1}, on_server
        for d in (ann, bob):
            assert d.pending_changes == 0
            assert _canon(records(d.document)["xfdf-note"]) == _canon(on_server)
            assert _canon(d.records()["xfdf-note"]) == _canon(on_server)


def _canon(record: dict) -> str:
    r = dict(record)
    r.pop("pdfObjectId", None)
    return json.dumps(r, sort_keys=True)


def test_field_level_merge_through_the_binding(server, keys, tmp_path):
    """Issue 33: two users change different things of one note offline and both changes
    stay; the same thing: the first wins and the other's CHANGE_DROPPED names the field,
    while its other fields are kept. On every host (SQLite, PostgreSQL, the C handler)."""
    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    a_client, a_events = make_client(server, tmp_path / "a")
    b_client, b_events = make_client(server, tmp_path / "b")
    with a_client, b_client:
        ann, bob = downloaded(a_client, jwt), downloaded(b_client, jwt)
        add_note(ann.document, "merged", "first words")
        ann.sync_now()
        bob.sync_now()
        # Different fields: Ann the text, Bob the colour and the opacity, both before syncing.
        note = find(ann.document, "merged")
        note.contents = "Ann's words"
        ann.document.update_annotation(note)
        note = find(bob.document, "merged")
        note.color = (0.0, 0.0, 1.0)
        note.opacity = 0.5
        bob.document.update_annotation(note)
        ann.sync_now()
        bob.sync_now()
        ann.sync_now()
        assert not b_events.of(quire.SyncEventType.CHANGE_DROPPED), b_events.types()
        on_server = server_records(server, keys, doc)["merged"]
        assert on_server["text"] == "Ann's words" and on_server["color"] == "#0000FF", on_server
        assert on_server["opacity"] == 0.5
        for d in (ann, bob):
            assert _canon(records(d.document)["merged"]) == _canon(on_server)
            assert _canon(d.records()["merged"]) == _canon(on_server)
        # The same field (the text) on both, and Bob's colour: Ann's text stays, Bob's colour
        # is merged in, and Bob is told that "text" lost.
        note = find(ann.document, "merged")
        note.contents = "Ann again"
        ann.document.update_annotation(note)
        note = find(bob.document, "merged")
        note.contents = "Bob's words"
        note.color = (0.0, 1.0, 0.0)
        bob.document.update_annotation(note)
        ann.sync_now()
        bob.sync_now()
        ann.sync_now()
        bob.wait_idle()
        dropped = b_events.of(quire.SyncEventType.CHANGE_DROPPED)
        assert dropped and dropped[-1].record_id == "merged" and dropped[-1].fields == ("text",), dropped
        on_server = server_records(server, keys, doc)["merged"]
        assert on_server["text"] == "Ann again" and on_server["color"] == "#00FF00", on_server
        for d in (ann, bob):
            assert _canon(records(d.document)["merged"]) == _canon(on_server)


def test_form_values_and_bookmarks_follow_the_user(server, keys, tmp_path):
    """Issue 33: a form fill through the forms API (the sample's combo box "Combo1") and a
    bookmark made on one client appear in the other's document and in its records; the same
    field filled offline on both: the first wins, the other's CHANGE_DROPPED names `value`.
    On every host."""
    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    key = "pspdfkit/form-field-value/Combo1"
    a_client, a_events = make_client(server, tmp_path / "a")
    b_client, b_events = make_client(server, tmp_path / "b")
    with a_client, b_client:
        ann, bob = downloaded(a_client, jwt), downloaded(b_client, jwt)
        assert key not in ann.records()  # no fill yet: the PDF's value
        ann.document.field("Combo1").value = "Link"
        mark = quire.Bookmark.for_page(1, "page two")
        ann.document.bookmarks.add(mark)
        ann.sync_now()
        bob.sync_now()
        assert bob.document.field("Combo1").values == ["Link"]
        shown = bob.document.bookmarks.get(mark.identifier)
        assert shown is not None and shown.name == "page two" and shown.page_index == 1, shown
        on_server = server_records(server, keys, doc)
        assert on_server[key]["value"] == ["Link"], on_server[key]
        assert on_server[mark.identifier]["action"] == {"type": "goTo", "pageIndex": 1}
        # Bob moves it to the end of his order and renames it; Ann sees both.
        bob.document.bookmarks.add(quire.Bookmark.for_page(0, "page one"))
        renamed = bob.document.bookmarks.get(mark.identifier)
        bob.document.bookmarks.add(dataclasses.replace(renamed, name="renamed"))
        bob.document.bookmarks.move(mark.identifier, 1)
        bob.sync_now()
        ann.sync_now()
        assert [b.name for b in ann.document.bookmarks.sorted()] == ["page one", "renamed"]
        # The same field offline on both: Ann first.
        ann.document.field("Combo1").value = "Popup"
        bob.document.field("Combo1").value = "Widget"
        ann.sync_now()
        bob.sync_now()
        ann.sync_now()
        bob.wait_idle()
        dropped = b_events.of(quire.SyncEventType.CHANGE_DROPPED)
        assert dropped and dropped[-1].record_id == key and dropped[-1].fields == ("value",), dropped
        assert not a_events.of(quire.SyncEventType.CHANGE_DROPPED)
        assert bob.document.field("Combo1").values == ["Popup"]
        on_server = server_records(server, keys, doc)
        for d in (ann, bob):
            assert {k: _canon(v) for k, v in d.records().items()} == {k: _canon(v) for k, v in on_server.items()}


def test_an_image_stamp_follows_the_user_and_exports(server, keys, tmp_path):
    """Issue 33's "done when": a form value, a bookmark and an image stamp made on one
    client appear on another, and in the layer's PDF export read back by pikepdf and PDFium.
    The stamp's image travels as an attachment (uploaded once, fetched on demand)."""
    import hashlib
    import io
    import struct
    import zlib

    import pikepdf
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    from sync_support import bearer, request

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\0" + bytes((20, 120, 220)) * 6 for _ in range(5))
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 6, 5, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    a_client, _ = make_client(server, tmp_path / "a")
    b_client, _ = make_client(server, tmp_path / "b")
    with a_client, b_client:
        ann, bob = downloaded(a_client, jwt), downloaded(b_client, jwt)
        stamp = quire.Annotation.new("Stamp", 1, (100, 100, 160, 150))
        stamp.name = "approved"
        stamp.set_image(png, "image/png")
        ann.document.add_annotation(stamp)
        ann.document.field("Combo1").value = "Link"
        ann.document.bookmarks.add(quire.Bookmark.for_page(1, "the stamp"))
        ann.sync_now()
        bob.sync_now()
        shown = json.loads(bob.document.export_annotations_json())
        [record] = [r for r in shown["annotations"] if r["id"] == "approved"]
        sha = hashlib.sha256(png).hexdigest()
        assert record["type"] == "pspdfkit/image" and record["imageAttachmentId"] == sha, record
        assert shown["attachments"][sha]["contentType"] == "image/png"
        assert bob.document.field("Combo1").values == ["Link"]
        assert [b.name for b in bob.document.bookmarks] == ["the stamp"]
        got = request(server.port, "GET", f"/documents/{doc}/attachments/{sha}", headers=bearer(jwt))
        assert got.status == 200 and got.body == png
    pdf = request(server.port, "GET", f"/admin/documents/{doc}/layers/review/pdf", headers=keys.admin)
    assert pdf.status == 200, pdf
    with pikepdf.open(io.BytesIO(pdf.body)) as p:
        [stamp_dict] = [a for a in p.pages[1].Annots if str(a.get("/NM", "")) == "approved"]
        images = [x for x in stamp_dict.AP.N.Resources.XObject.values() if x.get("/Subtype") == "/Image"]
        assert [(int(x.Width), int(x.Height)) for x in images] == [(6, 5)]
        [field] = [f for f in p.Root.AcroForm.Fields if str(f.get("/T")) == "Combo1"]
        assert str(field.V) == "Link"
        with p.open_outline() as outline:
            assert [str(item.title) for item in outline.root] == ["the stamp"]
    pdf_doc = pdfium.PdfDocument(pdf.body)
    page = pdf_doc[1]
    subtypes = [
        raw.FPDFAnnot_GetSubtype(raw.FPDFPage_GetAnnot(page, i)) for i in range(raw.FPDFPage_GetAnnotCount(page))
    ]
    assert raw.FPDF_ANNOT_STAMP in subtypes
    assert [item.get_title() for item in pdf_doc.get_toc()] == ["the stamp"]


def test_a_file_attachment_follows_the_user_and_exports(server, keys, tmp_path):
    """A FileAttachment made on a synced document (`quire_annotation_set_file`, refused
    before) travels as a `pspdfkit/file` record naming an attachment, uploaded before the
    push and fetched by the other client before it shows the record; the other client's
    document and the layer's PDF export (read back by pikepdf) embed the same bytes. A
    delete racing an edit of it ends the same on both clients and the server."""
    import hashlib
    import io

    import pikepdf

    from sync_support import bearer, request

    payload = bytes(range(256)) * 8 + b"the minutes"
    sha = hashlib.sha256(payload).hexdigest()
    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    a_client, _ = make_client(server, tmp_path / "a")
    b_client, _ = make_client(server, tmp_path / "b")
    with a_client, b_client:
        ann, bob = downloaded(a_client, jwt), downloaded(b_client, jwt)
        attached = quire.Annotation.new("FileAttachment", 0, (100, 100, 124, 130))
        attached.name = "minutes"
        attached.icon = "Paperclip"
        attached.set_file(payload, "minutes.bin", "application/octet-stream", "the meeting")
        ann.document.add_annotation(attached)
        ann.sync_now()
        bob.sync_now()
        got = request(server.port, "GET", f"/documents/{doc}/attachments/{sha}", headers=bearer(jwt))
        assert got.status == 200 and got.body == payload
        shown = json.loads(bob.document.export_annotations_json())
        [record] = [r for r in shown["annotations"] if r["id"] == "minutes"]
        assert record["type"] == "pspdfkit/file" and record["fileAttachmentId"] == sha, record
        assert (record["fileName"], record["description"], record["iconName"]) == (
            "minutes.bin",
            "the meeting",
            "Paperclip",
        )
        [on_b] = [a for a in bob.document.pages[0].annotations if a.name == "minutes"]
        assert bob.document.annotation_file(on_b) == payload
        # Bob changes the note's text while Ann deletes it: first come wins, both end equal.
        on_b.contents = "read this"
        bob.document.update_annotation(on_b)
        [on_a] = [a for a in ann.document.pages[0].annotations if a.name == "minutes"]
        ann.document.delete_annotation(on_a)
        bob.sync_now()
        ann.sync_now()
        bob.sync_now()
        for d in (ann, bob):
            assert {k: _canon(v) for k, v in d.records().items()} == {k: _canon(v) for k, v in bob.records().items()}
        kept = "minutes" in bob.records()
        assert kept == ("minutes" in ann.records())
        if not kept:
            # The delete won: the file comes back when Ann attaches it again.
            again = quire.Annotation.new("FileAttachment", 0, (100, 100, 124, 130))
            again.name = "minutes"
            again.set_file(payload, "minutes.bin", "application/octet-stream", "the meeting")
            ann.document.add_annotation(again)
            ann.sync_now()
            bob.sync_now()
    pdf = request(server.port, "GET", f"/admin/documents/{doc}/layers/review/pdf", headers=keys.admin)
    assert pdf.status == 200, pdf
    with pikepdf.open(io.BytesIO(pdf.body)) as p:
        [annot] = [a for a in p.pages[0].Annots if str(a.get("/NM", "")) == "minutes"]
        assert annot.Subtype == "/FileAttachment" and str(annot.FS.UF) == "minutes.bin"
        assert annot.FS.EF.F.read_bytes() == payload


def test_collaboration_permissions_through_the_binding(server, keys, tmp_path):
    """Issue 34 through Python: a change the token's collaboration permissions refuse comes
    back as CHANGE_DROPPED with reason "forbidden" and the document shows the server's
    record; a user who may view only their own records downloads a PDF and a layer without
    the others' annotations; the creator is the server's."""
    doc = fresh_document(server, keys)
    view_all = ["annotations:view:all", "comments:view:all"]
    ann_jwt = token(keys, doc, user_id="ann", collaboration_permissions=view_all + ["annotations:edit:self"])
    bob_jwt = token(keys, doc, user_id="bob", collaboration_permissions=view_all + ["annotations:edit:self"])
    own_jwt = token(
        keys, doc, user_id="cy", collaboration_permissions=["annotations:view:self", "annotations:edit:self"]
    )
    a_client, _ = make_client(server, tmp_path / "a")
    b_client, b_events = make_client(server, tmp_path / "b")
    c_client, _ = make_client(server, tmp_path / "c")
    with a_client, b_client, c_client:
        ann, bob = downloaded(a_client, ann_jwt), downloaded(b_client, bob_jwt)
        add_note(ann.document, "anns-note", "Ann's words")
        ann.sync_now()
        bob.sync_now()
        note = find(bob.document, "anns-note")
        note.contents = "Bob's words"
        bob.document.update_annotation(note)
        bob.sync_now()
        bob.wait_idle()
        dropped = b_events.of(quire.SyncEventType.CHANGE_DROPPED)
        assert dropped and dropped[-1].record_id == "anns-note" and dropped[-1].reason == "forbidden", dropped
        assert find(bob.document, "anns-note").contents == "Ann's words"
        # His own note goes through, and the server names him its creator.
        add_note(bob.document, "bobs-note", "Bob's own")
        bob.sync_now()
        on_server = server_records(server, keys, doc)
        assert on_server["bobs-note"]["quire"]["creator"] == "bob"
        assert on_server["anns-note"]["quire"]["creator"] == "ann"
        assert bob.state == quire.SyncState.CLEAN and bob.repairs == 0
        assert _canon(bob.records()["anns-note"]) == _canon(on_server["anns-note"])
        # Cy sees only what Cy made: neither the PDF's own annotations nor Ann's or Bob's.
        cy = downloaded(c_client, own_jwt)
        assert records(cy.document) == {} and cy.records() == {}
        add_note(cy.document, "cys-note", "Cy's")
        cy.sync_now()
        assert set(records(cy.document)) == {"cys-note"} and cy.repairs == 0


def test_listening_uses_the_websocket_when_offered(server, keys, tmp_path, host):
    """Issue 34: a listening descriptor follows the layer over quire-server's WebSocket
    (it is in the layer's presence while it listens, and leaves it when it stops); on a
    host without one (the C handler's hosts) it long-polls by itself. Either way a change
    pushed by another client reaches it."""
    doc = fresh_document(server, keys)
    jwt = token(keys, doc, user_id="bea")
    a_client, _ = make_client(server, tmp_path / "a")
    recorder = Recorder()
    b_client = quire.Client(
        f"http://127.0.0.1:{server.port}", tmp_path / "b", on_event=recorder, auto_sync_delay=0.2, listen_wait_seconds=5
    )
    from sync_support import request

    def present():
        r = request(server.port, "GET", f"/admin/documents/{doc}/layers/review/presence", headers=keys.admin)
        assert r.status == 200, r
        return [p["user_id"] for p in r.json["presence"]]

    with a_client, b_client:
        a = downloaded(a_client, token(keys, doc))
        b = downloaded(b_client, jwt)
        b.listen()
        if host.startswith("quire-server"):
            assert wait_until(lambda: present() == ["bea"])
            # The descriptor hears the presence too (PRESENCE_CHANGED, version 4 events).
            assert wait_until(
                lambda: any(
                    [m["user_id"] for m in e.presence] == ["bea"]
                    for e in recorder.of(quire.SyncEventType.PRESENCE_CHANGED)
                )
            )
        else:
            time.sleep(1)
            assert present() == [] and not recorder.of(quire.SyncEventType.PRESENCE_CHANGED)
        add_note(a.document, "pushed-by-a", "hello")
        a.sync_now()
        assert wait_until(lambda: "pushed-by-a" in records(b.document))
        add_note(b.document, "auto-from-b", "automatic")
        assert wait_until(lambda: "auto-from-b" in server_records(server, keys, doc))
        b.listen(False)
        assert wait_until(lambda: present() == [])


class HookedProxy:
    """A plain HTTP/1.1 proxy on loopback in front of a server process, the test's hand on
    the wire: each request is read whole, handed to ``before(method, path, body)`` (which
    may act on the server, and returns the body to forward), and forwarded; the answer is
    passed back as it came."""

    def __init__(self, upstream_port: int, before) -> None:
        import http.client
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        hop = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = before(self.command, self.path, self.rfile.read(length) if length else b"")
                upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=90)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in hop}
                    headers["Content-Length"] = str(len(body))
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    answer = upstream.getresponse()
                    data = answer.read()
                finally:
                    upstream.close()
                self.send_response(answer.status)
                for k, v in answer.getheaders():
                    if k.lower() not in hop and k.lower() not in ("date", "server"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = forward

            def log_message(self, *args) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _small_png(rgb: tuple) -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\0" + bytes(rgb) * 6 for _ in range(5))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 6, 5, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def test_a_collected_attachment_is_uploaded_again(host, start_server, keys, tmp_path):
    """Issue 33: an attachment the server no longer has when the push comes (grace 0, and
    the admin API's collection between the client's upload and its push, as after a long
    offline period) is answered 409 missing_attachment with nothing applied; the client
    uploads it again from its local store and pushes again, one mutation a push. Nothing is
    lost, and another
    client shows the stamp's image. On every host."""
    import hashlib

    from sync_support import bearer, request

    s = start_server(host, attachment_grace_seconds=0)
    doc = fresh_document(s, keys)
    jwt = token(keys, doc)
    png = _small_png((30, 160, 60))
    sha = hashlib.sha256(png).hexdigest()
    pushes: List[str] = []
    uploads: List[str] = []
    collected: List[str] = []

    def before(method: str, path: str, body: bytes) -> bytes:
        if method == "PUT" and "/attachments/" in path:
            uploads.append(path.rsplit("/", 1)[1])
        if method == "POST" and path.endswith("/mutations"):
            pushes.append(path)
        if len(pushes) == 1 and method == "POST" and path.endswith("/mutations"):
            r = request(s.port, "POST", f"/admin/documents/{doc}/attachments/collect", headers=keys.admin)
            assert r.status == 200, r
            collected.extend(r.json["collected"])
        return body

    proxy = HookedProxy(s.port, before)
    recorder = Recorder()
    try:
        with quire.Client(
            f"http://127.0.0.1:{proxy.port}", tmp_path / "a", on_event=recorder, auto_sync_delay=0
        ) as a_client:
            ann = downloaded(a_client, jwt)
            stamp = quire.Annotation.new("Stamp", 1, (100, 100, 160, 150))
            stamp.name = "approved"
            stamp.set_image(png, "image/png")
            ann.document.add_annotation(stamp)
            add_note(ann.document, "beside", "pushed with the stamp")
            ann.sync_now()
            assert collected == [sha]
            # The refused push, then one push a mutation (the stamp, the note); the image
            # uploaded before the first push and again after its refusal.
            assert len(pushes) == 3 and uploads == [sha, sha], (pushes, uploads)
            assert ann.pending_changes == 0
            assert not recorder.of(quire.SyncEventType.CHANGE_DROPPED)
    finally:
        proxy.close()
    on_server = server_records(s, keys, doc)
    assert on_server["approved"]["imageAttachmentId"] == sha and "beside" in on_server
    got = request(s.port, "GET", f"/documents/{doc}/attachments/{sha}", headers=bearer(jwt))
    assert got.status == 200 and got.body == png
    b_client, _ = make_client(s, tmp_path / "b")
    with b_client:
        bob = downloaded(b_client, jwt)
        shown = json.loads(bob.document.export_annotations_json())
        assert shown["attachments"][sha]["contentType"] == "image/png"


def test_a_refused_record_is_dropped_and_the_rest_pushed(server, keys, tmp_path):
    """Issue 33's bad input through the client: a record the server refuses on its own
    (here one the wire moved to a page the PDF lacks: the client's model makes none) refuses
    the push whole (422 invalid_record, nothing applied); the client drops that change
    alone, reports it (CHANGE_DROPPED, reason "invalid"), shows the server's records, and
    pushes the user's other changes in the same sync; the refused one is not sent again."""
    refusals: List[int] = []

    def before(method: str, path: str, body: bytes) -> bytes:
        if method != "POST" or not path.endswith("/mutations"):
            return body
        push = json.loads(body)
        for m in push["mutations"]:
            if m["id"] == "bad" and m.get("record"):
                m["record"]["pageIndex"] = 99
                refusals.append(m["client_seq"])
        return json.dumps(push).encode()

    doc = fresh_document(server, keys)
    jwt = token(keys, doc)
    proxy = HookedProxy(server.port, before)
    recorder = Recorder()
    try:
        with quire.Client(
            f"http://127.0.0.1:{proxy.port}", tmp_path / "a", on_event=recorder, auto_sync_delay=0
        ) as a_client:
            ann = downloaded(a_client, jwt)
            add_note(ann.document, "keep", "kept")
            add_note(ann.document, "bad", "refused")
            ann.sync_now()
            ann.sync_now()
            assert len(refusals) == 1, refusals
            assert ann.pending_changes == 0
            [dropped] = recorder.of(quire.SyncEventType.CHANGE_DROPPED)
            assert dropped.record_id == "bad" and dropped.reason == "invalid", dropped
            assert "page" in (dropped.message or ""), dropped
            on_server = server_records(server, keys, doc)
            assert "keep" in on_server and "bad" not in on_server
            assert set(records(ann.document)) == set(on_server)
    finally:
        proxy.close()
