"""Collaboration permissions (docs/sync-protocol.md, "Collaboration permissions"), run
against every host: each right allowed and refused on every path (push, fetch, feed, long
poll, layer export, download), the creator owned by the server, and forged claims.

Alice and Bob are users of one layer. Each test works in a layer of its own; tokens are
minted with PyJWT (sync_support.mint) with the server's key, or another's for forgeries.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import threading
from typing import Any, Dict, List, Optional, Sequence

import pypdf
import pytest

from sync_support import (
    SAMPLE,
    SAMPLE_ANNOTATIONS,
    Client,
    Keys,
    ServerProcess,
    assert_error,
    b64url,
    bearer,
    claims,
    delete,
    mint,
    note,
    put,
    refused_push,
    request,
    unique,
)

VIEW_ALL = ["annotations:view:all", "comments:view:all"]


def user(
    server: ServerProcess,
    keys: Keys,
    document: str,
    layer: str,
    user_id: Optional[str],
    rights: Optional[Sequence[str]],
    key: Any = None,
    **extra: Any,
) -> Client:
    """A client of `layer` whose token has `user_id` and, unless None, `rights` as its
    collaboration_permissions."""
    c = claims(document, layer, ["read", "write", "download"], user_id=user_id, **extra)
    if rights is not None:
        c["collaboration_permissions"] = list(rights)
    return Client(server.port, document, layer, mint(key or keys.rsa, c))


def result(c: Client, mutation: Dict[str, Any]) -> Dict[str, Any]:
    r = c.push([mutation])
    assert r.status == 200, r
    [x] = r.json["results"]
    return x


def accepted(c: Client, mutation: Dict[str, Any]) -> int:
    x = result(c, mutation)
    assert x["status"] == "accepted", x
    return int(x["revision"])


def forbidden(c: Client, mutation: Dict[str, Any]) -> Dict[str, Any]:
    x = result(c, mutation)
    assert x["status"] == "rejected" and x["reason"] == "forbidden", x
    assert "collaboration_permissions" in x["message"], x
    return x


def records(c: Client) -> Dict[str, Dict[str, Any]]:
    r = c.fetch()
    assert r.status == 200, r
    return {x["record"]["id"]: x for x in r.json["records"]}


def stored(server: ServerProcess, keys: Keys, document: str, layer: str) -> Dict[str, Dict[str, Any]]:
    """The layer as a token without the claim sees it (every record)."""
    return records(user(server, keys, document, layer, None, None))


def reply(rid: str, parent: str, text: str = "a reply", **quire: Any) -> Dict[str, Any]:
    return note(rid, text, quire={"inReplyTo": parent, "replyType": "reply", **quire})


def state(rid: str, parent: str, value: str = "Accepted") -> Dict[str, Any]:
    return reply(rid, parent, value, state=value, stateModel="Review")


@pytest.fixture
def layer() -> str:
    return unique("rights")


@pytest.fixture
def alice(server: ServerProcess, keys: Keys, document: str, layer: str) -> Client:
    return user(
        server,
        keys,
        document,
        layer,
        "alice",
        VIEW_ALL
        + [
            "annotations:edit:self",
            "annotations:delete:self",
            "comments:reply:all",
            "comments:edit:self",
            "comments:delete:self",
            "annotations:set-state:self",
        ],
    )


def alices_note(alice: Client, **extra: Any) -> str:
    rid = unique("alice")
    accepted(alice, put(1, note(rid, "Alice's note", **extra)))
    return rid


# ---- the creator is the server's -----------------------------------------------------------


def test_the_creator_is_the_tokens_user_whatever_the_client_sends(server, keys, document, layer, alice) -> None:
    rid = unique("n")
    accepted(alice, put(1, note(rid, quire={"creator": "bob"})))
    assert records(alice)[rid]["record"]["quire"]["creator"] == "alice"
    # An update cannot change it either, from any token.
    accepted(alice, put(2, note(rid, "edited", quire={"creator": "bob"}), base_revision=1))
    no_claim = user(server, keys, document, layer, "mallory", None)
    accepted(no_claim, put(3, note(rid, "edited again", quire={"creator": "mallory"}), base_revision=2))
    assert stored(server, keys, document, layer)[rid]["record"]["quire"]["creator"] == "alice"
    # Bob, who may edit his own records only, cannot take Alice's by naming himself.
    bob = user(server, keys, document, layer, "bob", VIEW_ALL + ["annotations:edit:self"])
    x = forbidden(bob, put(1, note(rid, "mine now", quire={"creator": "bob"}), base_revision=3))
    assert x["current"]["quire"]["creator"] == "alice" and x["current_revision"] == 3


def test_a_token_without_the_claim_sets_no_creator_and_keeps_none_sent(server, keys, document, layer) -> None:
    c = user(server, keys, document, layer, "ada", None)
    rid = unique("n")
    accepted(c, put(1, note(rid, quire={"creator": "someone", "subject": "kept"})))
    record = records(c)[rid]["record"]
    assert "creator" not in record["quire"] and record["quire"]["subject"] == "kept"
    assert record["creatorName"] == "ada"  # today's behaviour, unchanged


def test_without_the_claim_any_writer_changes_anyones_record(server, keys, document, layer, alice) -> None:
    rid = alices_note(alice)
    c = user(server, keys, document, layer, "bob", None)
    assert rid in records(c)
    accepted(c, put(1, note(rid, "Bob was here"), base_revision=records(c)[rid]["revision"]))
    accepted(c, delete(2, rid, records(c)[rid]["revision"]))


# ---- annotations: edit, delete, view -------------------------------------------------------


@pytest.mark.parametrize("scope,allowed", [("all", True), ("self", False), ("group=reviewers", False), (None, False)])
def test_edit_anothers_annotation(server, keys, document, layer, alice, scope, allowed) -> None:
    rid = alices_note(alice)
    rights = VIEW_ALL + ([f"annotations:edit:{scope}"] if scope else [])
    bob = user(server, keys, document, layer, "bob", rights)
    revision = records(bob)[rid]["revision"]
    mutation = put(1, note(rid, "Bob's edit"), base_revision=revision)
    if allowed:
        accepted(bob, mutation)
        assert records(bob)[rid]["record"]["text"] == "Bob's edit"
    else:
        x = forbidden(bob, mutation)
        assert x["current"]["text"] == "Alice's note" and x["current_revision"] == revision
        assert stored(server, keys, document, layer)[rid]["revision"] == revision


def test_edit_self_is_ones_own_annotations(server, keys, document, layer) -> None:
    bob = user(server, keys, document, layer, "bob", VIEW_ALL + ["annotations:edit:self"])
    rid = unique("n")
    r = accepted(bob, put(1, note(rid, "Bob's")))
    accepted(bob, put(2, note(rid, "Bob's, edited"), base_revision=r))
    # Creating needs the edit right on what is created: a reader creates nothing.
    reader = user(server, keys, document, layer, "carol", VIEW_ALL)
    forbidden(reader, put(1, note(unique("n"))))
    # Without user_id, `self` matches no record.
    anonymous = user(server, keys, document, layer, None, VIEW_ALL + ["annotations:edit:self"])
    forbidden(anonymous, put(1, note(unique("n"))))


@pytest.mark.parametrize("scope,allowed", [("all", True), ("self", False), (None, False)])
def test_delete_anothers_annotation(server, keys, document, layer, alice, scope, allowed) -> None:
    rid = alices_note(alice)
    rights = VIEW_ALL + ["annotations:edit:all"] + ([f"annotations:delete:{scope}"] if scope else [])
    bob = user(server, keys, document, layer, "bob", rights)
    revision = records(bob)[rid]["revision"]
    if allowed:
        accepted(bob, delete(1, rid, revision))
        assert rid not in stored(server, keys, document, layer)
    else:
        x = forbidden(bob, delete(1, rid, revision))
        assert x["current"]["id"] == rid and x["current_revision"] == revision
        # A stale base changes nothing: the right is checked first.
        forbidden(bob, delete(2, rid, revision + 7))
        assert rid in stored(server, keys, document, layer)
    # Deleting one's own with delete:self.
    own = unique("n")
    carol = user(
        server, keys, document, layer, "carol", VIEW_ALL + ["annotations:edit:self", "annotations:delete:self"]
    )
    accepted(carol, delete(2, own, accepted(carol, put(1, note(own)))))


def test_view_filters_fetch_feed_long_poll_and_refuses_what_it_hides(server, keys, document, layer, alice) -> None:
    bob = user(server, keys, document, layer, "bob", ["annotations:view:self", "annotations:edit:self"])
    mine = unique("bob")
    accepted(bob, put(1, note(mine, "Bob's")))
    rid = alices_note(alice)
    # Fetch: only Bob's record (the PDF's own annotations have no creator: hidden too), and
    # the digest is that of what Bob holds.
    body = bob.fetch().json
    assert [x["record"]["id"] for x in body["records"]] == [mine]
    everyone = user(server, keys, document, layer, "root", None).fetch().json
    assert len(everyone["records"]) == SAMPLE_ANNOTATIONS + 2
    assert body["digest"] != everyone["digest"]
    # Feed: Alice's put reaches Bob as a delete of its id, with no record, and no digest.
    feed = bob.changes(0).json
    assert [(c["id"], c["op"]) for c in feed["changes"]] == [(mine, "put"), (rid, "delete")]
    assert "record" not in feed["changes"][1] or feed["changes"][1]["record"] is None
    assert "digest" not in feed
    # Long poll: Bob waiting is woken by Alice's change and gets it as a delete.
    seq = feed["seq"]
    got: List[Any] = []
    t = threading.Thread(target=lambda: got.append(bob.changes(seq, wait=20)))
    t.start()
    other = unique("alice")
    accepted(alice, put(900, note(other, "Alice again")))
    t.join(30)
    [ch] = got[0].json["changes"]
    assert ch["id"] == other and ch["op"] == "delete" and ch.get("record") is None
    # A mutation of a record Bob cannot see is refused without showing it.
    x = forbidden(bob, put(2, note(rid, "blind edit"), base_revision=1))
    assert x["current"] is None and x["current_revision"] is None
    x = forbidden(bob, put(3, note(rid, "blind create")))
    assert x["current"] is None
    # Alice's rights show her everything.
    assert set(records(alice)) >= {mine, rid, other}


def pdf_annotation_texts(data: bytes) -> List[str]:
    reader = pypdf.PdfReader(io.BytesIO(data))
    out = []
    for page in reader.pages:
        for a in page.get("/Annots") or []:
            a = a.get_object()
            out.append(str(a.get("/Contents", "")))
    return out


def test_view_filters_the_download_and_the_layer_export(server, keys, document, layer, alice) -> None:
    original = SAMPLE.read_bytes()
    rid = alices_note(alice)
    bob = user(server, keys, document, layer, "bob", ["annotations:view:self", "annotations:edit:self"])
    mine = unique("bob")
    accepted(bob, put(1, note(mine, "Bob's own note")))
    # Download: the PDF without the annotations Bob may not view (all of the PDF's own),
    # with an ETag of its own bytes.
    r = bob.get(f"/documents/{document}/pdf")
    assert r.status == 200 and r.body != original, r
    assert r.header("ETag") == '"%s"' % hashlib.sha256(r.body).hexdigest()
    assert len(pdf_annotation_texts(original)) == SAMPLE_ANNOTATIONS
    assert pdf_annotation_texts(r.body) == []
    assert (
        request(
            server.port,
            "GET",
            f"/documents/{document}/pdf",
            headers={**bearer(bob.token), "If-None-Match": r.header("ETag")},
        ).status
        == 304
    )
    # A token that views everything downloads the upload as it is.
    r = alice.get(f"/documents/{document}/pdf")
    assert r.status == 200 and r.body == original
    # The layer export: Bob's note, not Alice's nor the PDF's own.
    r = bob.get(f"/documents/{document}/layers/{layer}/pdf")
    assert r.status == 200 and r.header("Content-Type") == "application/pdf", r
    assert pdf_annotation_texts(r.body) == ["Bob's own note"]
    texts = pdf_annotation_texts(alice.get(f"/documents/{document}/layers/{layer}/pdf").body)
    assert "Alice's note" in texts and "Bob's own note" in texts and len(texts) == SAMPLE_ANNOTATIONS + 2
    # The export needs read and download.
    reader = Client(server.port, document, layer, mint(keys.rsa, claims(document, layer, ["read"])))
    assert_error(reader.get(f"/documents/{document}/layers/{layer}/pdf"), 403, "forbidden")
    assert rid


# ---- groups ---------------------------------------------------------------------------------


def test_groups_default_group_and_set_group(server, keys, document, layer) -> None:
    alice = user(
        server,
        keys,
        document,
        layer,
        "alice",
        VIEW_ALL + ["annotations:edit:self", "annotations:set-group:self"],
        default_group="reviewers",
    )
    rid = unique("n")
    accepted(alice, put(1, note(rid, "for reviewers")))
    assert records(alice)[rid]["record"]["group"] == "reviewers"
    # A group the client names is kept (if the token may edit a record of it).
    named = unique("n")
    accepted(alice, put(2, note(named, "drafts", group="drafts")))
    assert records(alice)[named]["record"]["group"] == "drafts"
    reviewer = ["annotations:view:group=reviewers", "annotations:edit:group=reviewers"]
    bob = user(server, keys, document, layer, "bob", reviewer)
    assert set(records(bob)) == {rid}
    r = accepted(bob, put(1, note(rid, "reviewed", group="reviewers"), base_revision=1))
    # Moving it to another group needs set-group on it.
    forbidden(bob, put(2, note(rid, "moved", group="drafts"), base_revision=r))
    carol = user(server, keys, document, layer, "carol", reviewer + ["annotations:set-group:group=reviewers"])
    seq = carol.changes(0).json["seq"]
    r = accepted(carol, put(1, note(rid, "moved", group="drafts"), base_revision=r))
    # Out of Bob's sight now: his feed says it went.
    [ch] = bob.changes(seq).json["changes"]
    assert ch["id"] == rid and ch["op"] == "delete"
    assert records(bob) == {}
    # Alice may set the group of her own records.
    r = accepted(alice, put(3, note(named, "drafts, shared", group="reviewers"), base_revision=2))
    assert set(records(bob)) == {named}
    # An update without `group` keeps it (a client that rebuilt the record from a document
    # has none): no set-group needed; a group that is not a string is invalid.
    r = accepted(bob, put(3, note(named, "edited without a group key"), base_revision=r))
    assert records(bob)[named]["record"]["group"] == "reviewers"
    refused = refused_push(bob.push([put(4, note(named, "a number", group=5), base_revision=r)]))
    assert "record.group" in refused[4]["message"], refused


# ---- comments: reply, edit, delete; states ------------------------------------------------------


@pytest.mark.parametrize("scope,on_alices,on_own", [("all", True, True), ("self", False, True), (None, False, False)])
def test_reply(server, keys, document, layer, alice, scope, on_alices, on_own) -> None:
    rid = alices_note(alice)
    rights = VIEW_ALL + ["annotations:edit:self"] + ([f"comments:reply:{scope}"] if scope else [])
    bob = user(server, keys, document, layer, "bob", rights)
    own = unique("bob")
    accepted(bob, put(1, note(own, "Bob's note")))
    for parent, allowed, seq in [(rid, on_alices, 2), (own, on_own, 3)]:
        m = put(seq, reply(unique("r"), parent))
        if allowed:
            accepted(bob, m)
        else:
            x = forbidden(bob, m)
            assert x["current"] is None


def test_comments_edit_and_delete(server, keys, document, layer, alice) -> None:
    rid = alices_note(alice)
    alices_reply = unique("r")
    r1 = accepted(alice, put(10, reply(alices_reply, rid, "Alice's reply")))
    rights = VIEW_ALL + ["comments:reply:all", "comments:edit:self", "comments:delete:self"]
    bob = user(server, keys, document, layer, "bob", rights)
    bobs_reply = unique("r")
    r2 = accepted(bob, put(1, reply(bobs_reply, rid, "Bob's reply")))
    r2 = accepted(bob, put(2, reply(bobs_reply, rid, "Bob's reply, edited"), base_revision=r2))
    forbidden(bob, put(3, reply(alices_reply, rid, "rewritten by Bob"), base_revision=r1))
    forbidden(bob, delete(4, alices_reply, r1))
    # comments: rights are not annotations: rights.
    forbidden(bob, put(5, note(rid, "edited by Bob"), base_revision=records(bob)[rid]["revision"]))
    accepted(bob, delete(6, bobs_reply, r2))
    # Comments hidden by view: Dan sees the annotations, not the replies.
    dan = user(server, keys, document, layer, "dan", ["annotations:view:all"])
    assert alices_reply not in records(dan) and rid in records(dan)


@pytest.mark.parametrize("scope,on_alices,on_own", [("all", True, True), ("self", False, True), (None, False, False)])
def test_set_state(server, keys, document, layer, alice, scope, on_alices, on_own) -> None:
    rid = alices_note(alice)
    rights = (
        VIEW_ALL
        + ["annotations:edit:self", "comments:reply:all"]
        + ([f"annotations:set-state:{scope}"] if scope else [])
    )
    bob = user(server, keys, document, layer, "bob", rights)
    own = unique("bob")
    accepted(bob, put(1, note(own, "Bob's note")))
    for parent, allowed, seq in [(rid, on_alices, 2), (own, on_own, 3)]:
        sid = unique("s")
        m = put(seq, state(sid, parent))
        if allowed:
            r = accepted(bob, m)
            # Changing and clearing a state is set-state too.
            r = accepted(bob, put(seq + 10, state(sid, parent, "Rejected"), base_revision=r))
            accepted(bob, delete(seq + 20, sid, r))
        else:
            forbidden(bob, m)
    # A state set by Alice on her own note: Bob changes it only with set-state on her note.
    sid = unique("s")
    r = accepted(alice, put(50, state(sid, rid)))
    m = put(60, state(sid, rid, "Completed"), base_revision=r)
    if on_alices:
        accepted(bob, m)
    else:
        forbidden(bob, m)


# ---- answers, retries, claims ---------------------------------------------------------------


def test_a_refusal_is_an_answer_like_a_conflict(server, keys, document, layer, alice) -> None:
    rid = alices_note(alice)
    bob = user(server, keys, document, layer, "bob", VIEW_ALL)
    revision = records(bob)[rid]["revision"]
    body = [put(1, note(rid, "no"), base_revision=revision), put(2, note(unique("n"), "no")), delete(3, rid, revision)]
    first = bob.push(body).json
    assert [x["reason"] for x in first["results"]] == ["forbidden"] * 3
    assert set(first["results"][0]) == {"client_seq", "status", "reason", "message", "current", "current_revision"}
    assert bob.push(body).json == first  # a retry gets the same answers, nothing applied
    assert stored(server, keys, document, layer)[rid]["revision"] == revision


def tamper(token: str, **changes: Any) -> str:
    header, payload, sig = token.split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    body.update(changes)
    return ".".join([header, b64url(json.dumps(body, separators=(",", ":")).encode()), sig])


def test_forged_claims_are_refused(server, keys, document, layer, alice) -> None:
    rid = alices_note(alice)
    before = stored(server, keys, document, layer)
    everything = ["annotations:view:all", "annotations:edit:all", "annotations:delete:all", "comments:view:all"]
    forged = {
        "signed by another key, claiming edit:all": user(
            server, keys, document, layer, "mallory", everything, key=keys.other
        ).token,
        "rights added to a signed token": tamper(
            mint(keys.rsa, claims(document, layer, user_id="mallory", collaboration_permissions=VIEW_ALL)),
            collaboration_permissions=everything,
        ),
        "user_id changed to the creator's": tamper(
            user(server, keys, document, layer, "mallory", VIEW_ALL + ["annotations:edit:self"]).token, user_id="alice"
        ),
    }
    for name, token in forged.items():
        c = Client(server.port, document, layer, token)
        for r in [
            c.push([put(1, note(rid, "forged"), base_revision=before[rid]["revision"])]),
            c.fetch(),
            c.changes(0),
        ]:
            assert_error(r, 401, "unauthenticated")
    assert stored(server, keys, document, layer) == before


@pytest.mark.parametrize(
    "rights",
    [
        ["annotations:fly:all"],
        ["annotations:view"],
        ["notes:view:all"],
        ["annotations:view:everyone"],
        ["annotations:reply:all"],
        ["comments:set-state:all"],
        ["annotations:view:group="],
        "annotations:view:all",
        [7],
    ],
)
def test_a_claim_outside_the_grammar_is_refused(server, keys, document, layer, rights) -> None:
    c = claims(document, layer, user_id="bob")
    c["collaboration_permissions"] = rights
    client = Client(server.port, document, layer, mint(keys.rsa, c))
    assert_error(client.fetch(), 401, "unauthenticated")
    assert_error(client.push([put(1, note(unique("n")))]), 401, "unauthenticated")
