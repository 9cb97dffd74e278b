"""Conformance of the HTTP API (docs/sync-protocol.md), run against every host.

Each test works in its own layers (and, where it deletes, its own documents) of the module's
server, so that the tests stay independent while sharing one process.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
import time
from typing import Any, Dict, List, Optional

import pytest

from sync_support import (
    HOST_FEATURES, SAMPLE, SAMPLE_ANNOTATIONS, Client, Keys, ServerProcess, assert_error, bearer, claims, delete,
    mint, note, put, refused_push, request, request_chunked, unique, upload,
)

ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


def client(server: ServerProcess, keys: Keys, document: str, layer: Optional[str] = None,
           permissions=("read", "write", "download"), user_id: Optional[str] = None) -> Client:
    layer = layer or unique("layer")
    token = mint(keys.rsa, claims(document, layer, permissions, user_id=user_id))
    return Client(server.port, document, layer, token)


def admin(server: ServerProcess, keys: Keys, method: str, path: str, body: Optional[bytes] = None,
          content_type: str = "application/json"):
    headers = dict(keys.admin)
    if body is not None:
        headers["Content-Type"] = content_type
    return request(server.port, method, path, body=body, headers=headers)


def empty_feed(body: Dict[str, Any], seq: int) -> bool:
    """`{"seq": seq, "changes": []}`, with `"more": false` or without it, and the layer's
    digest (32 hexadecimal digits) or without it."""
    return body.get("seq") == seq and body.get("changes") == [] and body.get("more", False) is False \
        and set(body) <= {"seq", "changes", "more", "digest"} \
        and (body.get("digest") is None or re.fullmatch(r"[0-9a-f]{32}", body["digest"]) is not None)


def layer_digest(records: List[Dict[str, Any]]) -> str:
    """The layer digest of docs/sync-protocol.md, computed here on its own: the XOR of the
    first 16 bytes of SHA-256(id NUL revision NUL canonical record without pdfObjectId)."""
    import hashlib

    acc = bytearray(16)
    for item in records:
        record = {k: v for k, v in item["record"].items() if k != "pdfObjectId"}
        canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        h = hashlib.sha256(record["id"].encode() + b"\0" + str(item["revision"]).encode() + b"\0" + canonical).digest()
        for i in range(16):
            acc[i] ^= h[i]
    return acc.hex()


def count_pdf_annotations(data: bytes) -> int:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data))
    return sum(len(page.get("/Annots") or []) for page in reader.pages)


# ---- health, routes, request ids ---------------------------------------------------------------


def test_healthz(server: ServerProcess) -> None:
    r = request(server.port, "GET", "/healthz")
    assert r.status == 200
    assert r.json == {"status": "ok"}
    assert r.header("X-Request-Id")


def test_unknown_route_is_404_and_wrong_method_405(server: ServerProcess, keys: Keys, document: str) -> None:
    assert_error(request(server.port, "GET", "/nothing/here"), 404, "not_found")
    assert_error(request(server.port, "GET", "/documents"), 404, "not_found")
    r = request(server.port, "DELETE", f"/documents/{document}/pdf")
    assert_error(r, 405, "method_not_allowed")
    assert "GET" in (r.header("Allow") or "")
    assert_error(request(server.port, "PUT", "/admin/documents", headers=keys.admin), 405, "method_not_allowed")


def test_request_id_is_echoed_when_valid_and_made_otherwise(server: ServerProcess, keys: Keys) -> None:
    r = request(server.port, "GET", "/healthz", headers={"X-Request-Id": "abc-123-XYZ"})
    assert r.header("X-Request-Id") == "abc-123-XYZ"
    # Errors carry it too.
    r = request(server.port, "GET", "/nothing", headers={"X-Request-Id": "trace-42"})
    assert r.status == 404 and r.header("X-Request-Id") == "trace-42"
    for bad in ["has space", "x" * 65, "semi;colon", "ünï"]:
        r = request(server.port, "GET", "/healthz", headers={"X-Request-Id": bad.encode("utf-8").decode("latin-1")})
        made = r.header("X-Request-Id")
        assert made and made != bad and re.fullmatch(r"[A-Za-z0-9-]{1,64}", made), (bad, made)
    ids = {request(server.port, "GET", "/healthz").header("X-Request-Id") for _ in range(5)}
    assert len(ids) == 5


# ---- admin API ----------------------------------------------------------------------------------


def test_upload_describes_the_document(server: ServerProcess, keys: Keys) -> None:
    doc = unique("up")
    data = SAMPLE.read_bytes()
    r = upload(server.port, keys, doc)
    assert r.status == 201, r
    d = r.json["document"]
    assert d["id"] == doc
    assert d["sha256"] == hashlib.sha256(data).hexdigest()
    assert d["pages"] == 2
    assert d["bytes"] == len(data)
    assert isinstance(d["created"], str) and d["created"]
    # The same id again: 409; the document is unchanged.
    assert_error(upload(server.port, keys, doc), 409, "conflict")
    r = admin(server, keys, "GET", f"/admin/documents/{doc}")
    assert r.status == 200 and r.json["document"] == d


def test_upload_without_id_generates_a_ulid(server: ServerProcess, keys: Keys) -> None:
    r = upload(server.port, keys)
    assert r.status == 201, r
    assert ULID.match(r.json["document"]["id"]), r.json


def test_upload_of_what_is_not_a_pdf_is_400(server: ServerProcess, keys: Keys) -> None:
    doc = unique("bad")
    r = upload(server.port, keys, doc, data=b"this is not a PDF at all")
    assert_error(r, 400)
    assert_error(admin(server, keys, "GET", f"/admin/documents/{doc}"), 404, "not_found")


def test_admin_api_needs_the_token(server: ServerProcess, keys: Keys, document: str) -> None:
    for headers in [{}, {"Authorization": "Token wrong"}, {"Authorization": f"Bearer {keys.admin_token}"},
                    {"Authorization": f"token {keys.admin_token}x"}]:
        r = request(server.port, "GET", "/admin/documents", headers=headers)
        assert r.status in (401, 403), (headers, r)
        assert_error(r, r.status)
        r = request(server.port, "POST", f"/admin/documents?id={unique('x')}", body=SAMPLE.read_bytes(), headers=headers)
        assert r.status in (401, 403), (headers, r)
    # A client's JWT is no admin token.
    token = mint(keys.rsa, claims(document, "l", ["read", "write", "download"]))
    assert request(server.port, "GET", "/admin/documents", headers=bearer(token)).status in (401, 403)


def test_list_describe_and_delete_documents(server: ServerProcess, keys: Keys) -> None:
    doc = unique("del")
    assert upload(server.port, keys, doc).status == 201
    r = admin(server, keys, "GET", "/admin/documents")
    assert r.status == 200
    assert doc in [d["id"] for d in r.json["documents"]]

    c = client(server, keys, doc)
    assert c.fetch().status == 200  # creates the layer
    r = admin(server, keys, "GET", f"/admin/documents/{doc}")
    assert r.status == 200
    layers = {layer["name"]: layer for layer in r.json["layers"]}
    assert layers[c.layer]["seq"] == 0 and layers[c.layer]["records"] == SAMPLE_ANNOTATIONS

    r = admin(server, keys, "DELETE", f"/admin/documents/{doc}")
    assert r.status == 204 and r.body == b""
    assert_error(admin(server, keys, "GET", f"/admin/documents/{doc}"), 404, "not_found")
    assert doc not in [d["id"] for d in admin(server, keys, "GET", "/admin/documents").json["documents"]]
    # Its layers went with it: a client with a valid token finds nothing.
    assert_error(c.fetch(), 404, "not_found")
    assert_error(c.get(f"/documents/{doc}/pdf"), 404, "not_found")
    assert_error(admin(server, keys, "DELETE", f"/admin/documents/{doc}"), 404, "not_found")


def test_delete_layer_starts_it_again_from_the_pdf(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document)
    r = c.push([put(1, note(unique("n")))])
    assert r.status == 200 and r.json["seq"] == 1
    assert admin(server, keys, "DELETE", f"/admin/documents/{document}/layers/{c.layer}").status == 204
    body = c.fetch().json
    assert body["seq"] == 0 and len(body["records"]) == SAMPLE_ANNOTATIONS


def test_copy_layer(server: ServerProcess, keys: Keys, document: str) -> None:
    src = client(server, keys, document)
    rid = unique("n")
    assert src.push([put(1, note(rid, "copied"))]).json["results"][0]["status"] == "accepted"
    dst = unique("copy")
    r = admin(server, keys, "POST", f"/admin/documents/{document}/layers/{dst}/copy",
              json.dumps({"from": src.layer}).encode())
    assert r.status == 201, r
    assert r.json["layer"]["name"] == dst
    c = client(server, keys, document, dst)
    body = c.fetch().json
    assert body["seq"] == 0  # the feed starts again
    assert {x["record"]["id"] for x in body["records"]} == {x["record"]["id"] for x in src.fetch().json["records"]}
    assert any(x["record"]["id"] == rid and x["record"]["text"] == "copied" for x in body["records"])
    # Into a layer that exists: 409. From one that does not, or with a bad body: 4xx.
    assert_error(admin(server, keys, "POST", f"/admin/documents/{document}/layers/{dst}/copy",
                       json.dumps({"from": src.layer}).encode()), 409, "conflict")
    r = admin(server, keys, "POST", f"/admin/documents/{document}/layers/{unique('c')}/copy",
              json.dumps({"from": unique("missing")}).encode())
    assert r.status in (400, 404), r
    assert_error(r, r.status)
    assert_error(admin(server, keys, "POST", f"/admin/documents/{document}/layers/{unique('c')}/copy",
                       json.dumps({"from": src.layer, "extra": 1}).encode()), 400, "unknown_field")
    assert_error(admin(server, keys, "POST", f"/admin/documents/{document}/layers/{unique('c')}/copy",
                       b"{not json"), 400, "invalid_json")


def test_layer_annotations_as_json(server: ServerProcess, keys: Keys, document: str) -> None:
    layer = unique("json")
    r = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{layer}/annotations")
    assert r.status == 200, r
    body = r.json
    assert body["format"] == "https://pspdfkit.com/instant-json/v1"
    assert len(body["annotations"]) == SAMPLE_ANNOTATIONS  # created from the PDF
    c = client(server, keys, document, layer)
    rid = unique("n")
    assert c.push([put(1, note(rid, "in the export"))]).json["results"][0]["status"] == "accepted"
    body = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{layer}/annotations").json
    assert len(body["annotations"]) == SAMPLE_ANNOTATIONS + 1
    assert any(a["id"] == rid and a["text"] == "in the export" for a in body["annotations"])


def test_layer_exported_as_pdf(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document)
    records = c.fetch().json["records"]
    # A plain highlight (some links of the sample are listed on both pages).
    [victim] = [x for x in records if x["record"]["id"] == "Highlight-1"]
    results = c.push([put(1, note(unique("n"), "exported")),
                      delete(2, victim["record"]["id"], victim["revision"])]).json["results"]
    assert [x["status"] for x in results] == ["accepted", "accepted"], results
    r = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{c.layer}/pdf")
    assert r.status == 200, r
    assert (r.header("Content-Type") or "").startswith("application/pdf")
    original = SAMPLE.read_bytes()
    assert r.body.startswith(b"%PDF-")
    assert r.body[:len(original)] == original  # saved incrementally: the upload, then an update
    assert count_pdf_annotations(r.body) == SAMPLE_ANNOTATIONS  # one added, one removed
    assert b"exported" in r.body or count_pdf_annotations(r.body) == SAMPLE_ANNOTATIONS


def _gray_pages(data: bytes, tmp: Any) -> List[bytes]:
    """Each page of a PDF as pdftoppm renders it in gray at 40 dpi (the pixels only)."""
    import subprocess
    from pathlib import Path

    src = Path(tmp) / "export.pdf"
    src.write_bytes(data)
    for old in Path(tmp).glob("page-*.pgm"):
        old.unlink()
    subprocess.run(["pdftoppm", "-gray", "-r", "40", str(src), str(Path(tmp) / "page")], check=True,
                   capture_output=True, timeout=120)
    return [pgm.read_bytes().split(maxsplit=4)[4] for pgm in sorted(Path(tmp).glob("page-*.pgm"))]


def test_layer_exported_as_flattened_pdf(server: ServerProcess, keys: Keys, document: str, tmp_path: Any) -> None:
    import pypdf

    c = client(server, keys, document)
    records = c.fetch().json["records"]
    [victim] = [x for x in records if x["record"]["id"] == "Highlight-1"]
    square = {"v": 1, "type": "pspdfkit/shape/rectangle", "id": unique("sq"), "pageIndex": 1,
              "bbox": [200, 200, 150, 100], "strokeColor": "#FF0000", "strokeWidth": 6}
    results = c.push([put(1, square), delete(2, victim["record"]["id"], victim["revision"])]).json["results"]
    assert [x["status"] for x in results] == ["accepted", "accepted"], results
    path = f"/admin/documents/{document}/layers/{c.layer}/pdf"
    plain = admin(server, keys, "GET", path)
    assert plain.status == 200, plain
    for query in ("?flatten=1", "?flatten=true", "?flatten=all"):
        flat = admin(server, keys, "GET", path + query)
        assert flat.status == 200, flat
        assert (flat.header("Content-Type") or "").startswith("application/pdf")
        original = SAMPLE.read_bytes()
        assert flat.body[:len(original)] == original  # still an incremental update of the upload
        reader = pypdf.PdfReader(io.BytesIO(flat.body))
        left = [str(a.get_object()["/Subtype"]) for page in reader.pages for a in (page.get("/Annots") or [])]
        assert left and set(left) == {"/Link"}, left  # links stay links; nothing else is an annotation
        assert "/AcroForm" not in reader.trailer["/Root"]
    # The flattened pages look like the layer's export with its annotations: the square
    # added and the deleted highlight not drawn, within 0.5 % of the pixels (poppler draws
    # the annotations of the plain export from their appearances, which the flattening burns).
    before, after = _gray_pages(plain.body, tmp_path), _gray_pages(flat.body, tmp_path)
    assert len(before) == len(after) == 2
    for a, b in zip(before, after):
        assert len(a) == len(b)
        assert sum(1 for x, y in zip(a, b) if abs(x - y) > 48) <= 0.005 * len(a)
    # The square is in the page content now: without its annotation, page 2 still shows it.
    blank = _gray_pages(SAMPLE.read_bytes(), tmp_path)
    assert sum(1 for x, y in zip(blank[1], after[1]) if abs(x - y) > 48) > 100
    # Only the annotations: the form field stays a fillable widget, and the form with it.
    only = admin(server, keys, "GET", path + "?flatten=annotations")
    assert only.status == 200, only
    reader = pypdf.PdfReader(io.BytesIO(only.body))
    left = [str(a.get_object()["/Subtype"]) for page in reader.pages for a in (page.get("/Annots") or [])]
    assert set(left) == {"/Link", "/Widget"} and left.count("/Widget") == 1, left
    assert "/AcroForm" in reader.trailer["/Root"]
    # flatten=0 is the plain export; other values and other parameters are refused.
    assert admin(server, keys, "GET", path + "?flatten=0").body == plain.body
    assert_error(admin(server, keys, "GET", path + "?flatten=maybe"), 400, "bad_request")
    assert_error(admin(server, keys, "GET", path + "?flattened=1"), 400, "bad_request")


def test_layer_export_says_when_it_invalidates_a_signature(server: ServerProcess, keys: Keys, tmp_path: Any) -> None:
    """Issue 37: the export of a layer over a signed PDF says, in Quire-Signature-Warning,
    when it invalidates a signature, and says nothing when it does not. pyHanko confirms
    the signed revision stays intact either way; its diff policy (0.38) calls every
    annotation change suspicious, so it cannot tell the allowed cases apart (see
    docs/signatures.md), and Quire's own validation judges them."""
    pytest.importorskip("pyhanko")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
    import quire
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from signing_pki import PKI

    pki = PKI(tmp_path)
    key, cert = pki.signer("Layer Export Signer")
    identity = quire.SigningIdentity.from_pem(key, cert)

    def intact(data: bytes) -> bool:
        (sig,) = PdfFileReader(io.BytesIO(data)).embedded_signatures
        status = validate_pdf_signature(sig, pki.context())
        return status.intact and status.valid and status.coverage.name == "ENTIRE_REVISION"

    for certify, query, broken in [(None, "", False), (None, "?flatten=annotations", True), (1, "", True),
                                   (3, "", False)]:
        signed = io.BytesIO()
        with quire.Document(SAMPLE) as doc:
            doc.sign(signed, identity, certify=certify)
        document = unique("signed")
        assert upload(server.port, keys, document, signed.getvalue()).status == 201
        c = client(server, keys, document)
        c.fetch()
        assert c.push([put(1, note(unique("n"), "after signing"))]).json["results"][0]["status"] == "accepted"
        r = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{c.layer}/pdf{query}")
        assert r.status == 200, r
        assert r.body.startswith(signed.getvalue())
        warning = r.header("Quire-Signature-Warning")
        assert (warning is not None) == broken, (certify, query, warning)
        assert intact(r.body)
        with quire.Document(r.body) as exported:
            (report,) = exported.signatures(pki.root_pem)
        assert report.valid == (not broken), (certify, query, report)
        if certify == 1:
            assert "P=1" in warning


def test_import_from_a_pdf(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document)
    assert c.fetch().json["seq"] == 0
    r = admin(server, keys, "POST", f"/admin/documents/{document}/layers/{c.layer}/import",
              SAMPLE.read_bytes(), "application/pdf")
    assert r.status == 200, r
    n = r.json["imported"]
    assert n == SAMPLE_ANNOTATIONS
    # They are changes of the feed, with new ids where the layer had them already.
    feed = c.changes(0).json
    assert feed["seq"] == n and len(feed["changes"]) == n
    assert all(ch["op"] == "put" for ch in feed["changes"])
    body = c.fetch().json
    assert len(body["records"]) == 2 * SAMPLE_ANNOTATIONS
    assert len({x["record"]["id"] for x in body["records"]}) == 2 * SAMPLE_ANNOTATIONS
    assert_error(admin(server, keys, "POST", f"/admin/documents/{document}/layers/{c.layer}/import",
                       b"not a pdf", "application/pdf"), 400)
    assert c.fetch().json["seq"] == n


def test_admin_api_is_off_without_a_token(host: str, start_server, keys: Keys) -> None:
    s = start_server(host, admin_token_file=None)
    assert_error(request(s.port, "GET", "/admin/documents", headers=keys.admin), 404, "not_found")
    assert_error(request(s.port, "POST", "/admin/documents?id=x", body=SAMPLE.read_bytes(), headers=keys.admin),
                 404, "not_found")


# ---- client API: fetch, download, feed -------------------------------------------------------


def test_download_the_pdf(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document, permissions=["download"])
    r = c.get(f"/documents/{document}/pdf")
    assert r.status == 200
    assert r.body == SAMPLE.read_bytes()
    assert (r.header("Content-Type") or "").startswith("application/pdf")
    assert (r.header("ETag") or "").strip('"') == hashlib.sha256(r.body).hexdigest()
    # Without the download permission: 403.
    c2 = client(server, keys, document, permissions=["read", "write"])
    assert_error(c2.get(f"/documents/{document}/pdf"), 403, "forbidden")
    # A document that does not exist: 404 (a token may name it).
    missing = unique("missing")
    c3 = client(server, keys, missing, permissions=["download", "read"])
    assert_error(c3.get(f"/documents/{missing}/pdf"), 404, "not_found")
    assert_error(c3.fetch(), 404, "not_found")


def test_fetch_creates_the_layer_from_the_pdf(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document, permissions=["read"])
    body = c.fetch().json
    assert body["seq"] == 0
    assert len(body["records"]) == SAMPLE_ANNOTATIONS
    for x in body["records"]:
        assert set(x) == {"revision", "record"}
        assert x["record"]["v"] == 1 and isinstance(x["record"]["id"], str)
    exported = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{c.layer}/annotations").json
    assert sorted(a["id"] for a in exported["annotations"]) == sorted(x["record"]["id"] for x in body["records"])
    assert empty_feed(c.changes(0).json, 0)


def test_push_then_changes(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document, user_id="ada")
    rid = unique("n")
    r = c.push([put(1, note(rid, "hello"))])
    assert r.status == 200, r
    assert r.json == {"seq": 1, "results": [{"client_seq": 1, "status": "accepted", "seq": 1, "revision": 1}]}
    feed = c.changes(0).json
    assert feed["seq"] == 1
    [ch] = feed["changes"]
    assert ch["seq"] == 1 and ch["id"] == rid and ch["op"] == "put"
    assert ch["client_id"] == c.client_id and ch["user_id"] == "ada"
    assert ch["record"]["text"] == "hello"
    # user_id became the author of the new record (it had no creatorName).
    assert ch["record"]["creatorName"] == "ada"
    assert empty_feed(c.changes(1).json, 1)
    # Update with the right base revision, then delete.
    r = c.push([put(2, note(rid, "hello again"), base_revision=1), delete(3, rid, base_revision=2)]).json
    assert [x["status"] for x in r["results"]] == ["accepted", "accepted"], r
    assert [x["seq"] for x in r["results"]] == [2, 3] and r["seq"] == 3
    feed = c.changes(1).json
    assert [(ch["seq"], ch["op"]) for ch in feed["changes"]] == [(2, "put"), (3, "delete")]
    assert "record" not in feed["changes"][1] or feed["changes"][1]["record"] is None
    assert rid not in [x["record"]["id"] for x in c.fetch().json["records"]]


def test_the_query_decodes_the_same_on_every_host(server: ServerProcess, keys: Keys, document: str) -> None:
    """One query decoder for every host (issue 32: `?since=%31%4` was `%31%4` to quire-server
    and `1%4` to the C handler; `%FF` was kept by one and U+FFFD to the other): escapes
    and `+` decode, the first of repeated names wins, and a malformed escape or bytes that
    are not UTF-8 are a 400, never a guess."""
    c = client(server, keys, document)
    assert c.push([put(1, note(unique("n"), "q"))]).json["results"][0]["status"] == "accepted"
    base = f"/documents/{document}/layers/{c.layer}/changes"

    def seqs(query: str) -> Any:
        r = c.get(f"{base}?{query}")
        return [ch["seq"] for ch in r.json["changes"]] if r.status == 200 else r

    assert seqs("since=0") == [1]
    assert seqs("since=%30") == [1]           # %30 is "0"
    assert seqs("s%69nce=%31") == []          # names decode too: since=1
    assert seqs("since=0&since=1") == [1]     # the first wins
    assert seqs("since=1&&since=0&") == []    # empty parts are skipped
    for bad in ["since=%30%4", "since=%3", "since=%G0", "since=%FF", "since=0&x=%C3%28", "%ZZ=0&since=0"]:
        r = c.get(f"{base}?{bad}")
        assert_error(r, 400, "bad_request")
        assert "query" in r.json["error"]["message"], (bad, r.json)
    # "+" is a space: " 0" is not a sequence number.
    assert_error(c.get(f"{base}?since=+0"), 400)
    # Before any route: /healthz refuses a malformed query as well.
    assert_error(request(server.port, "GET", "/healthz?id=%41%4"), 400, "bad_request")
    assert request(server.port, "GET", "/healthz?id=%41").status == 200


def test_creator_name_is_kept_when_given(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document, user_id="ada")
    rid = unique("n")
    assert c.push([put(1, note(rid, creatorName="Grace"))]).json["results"][0]["status"] == "accepted"
    [x] = [x for x in c.fetch().json["records"] if x["record"]["id"] == rid]
    assert x["record"]["creatorName"] == "Grace"


def test_changes_paging_and_reset(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document)
    seq = 0
    for batch in range(3):  # 1,001 changes: one past a page
        n = 500 if batch < 2 else 1
        muts = [put(seq + i + 1, note(f"p{batch}-{i}", f"n{i}")) for i in range(n)]
        r = c.push(muts, timeout=120)
        assert r.status == 200, r
        seq = r.json["seq"]
    assert seq == 1001
    page = c.changes(0).json
    assert len(page["changes"]) == 1000 and page.get("more") is True
    assert [ch["seq"] for ch in page["changes"]] == list(range(1, 1001))
    rest = c.changes(page["changes"][-1]["seq"]).json
    assert [ch["seq"] for ch in rest["changes"]] == [1001] and not rest.get("more", False)
    # Newer than the layer's seq: reset.
    r = c.changes(5000).json
    assert r.get("reset") is True and r["seq"] == 1001


def test_changes_query_errors(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document)
    assert_error(c.get(c.base + "/changes"), 400)                # since is required
    assert_error(c.get(c.base + "/changes?since=abc"), 400)
    assert_error(c.get(c.base + "/changes?since=-1"), 400)
    assert_error(c.get(c.base + "/changes?since=0&wait=61"), 400)
    assert_error(c.get(c.base + "/changes?since=0&wait=x"), 400)


# ---- client API: pushes --------------------------------------------------------------------------


def test_retry_is_answered_from_the_store(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document)
    a, b = unique("a"), unique("b")
    first = c.push([put(1, note(a)), put(2, note(b))])
    assert first.status == 200
    again = c.push([put(1, note(a)), put(2, note(b))])
    assert again.json == first.json
    # The same pairs with other bodies: the first answers win, nothing is applied.
    other = c.push([put(1, note(a, "changed")), delete(2, b, 2)])
    assert other.json["results"] == first.json["results"]
    feed = c.changes(0).json
    assert feed["seq"] == 2 and [ch["id"] for ch in feed["changes"]] == [a, b]
    # Another client may use the same client_seq values.
    other_client = Client(c.port, c.document, c.layer, c.token)
    r = other_client.push([put(1, note(unique("c")))]).json
    assert r["results"][0]["status"] == "accepted" and r["results"][0]["seq"] == 3


def test_conflicts_first_writer_wins(server: ServerProcess, keys: Keys, document: str) -> None:
    layer = unique("layer")
    alice = client(server, keys, document, layer)
    bob = client(server, keys, document, layer)
    rid = unique("n")
    assert alice.push([put(1, note(rid, "alice"))]).json["results"][0]["revision"] == 1
    # Bob believed it did not exist.
    [res] = bob.push([put(1, note(rid, "bob"))]).json["results"]
    assert res["status"] == "rejected" and res["reason"] == "conflict"
    assert res["current"]["text"] == "alice" and res["current_revision"] == 1
    # Bob rebases on revision 1 and wins; Alice, still on 1, loses.
    [res] = bob.push([put(2, note(rid, "bob"), base_revision=1)]).json["results"]
    assert res["status"] == "accepted" and res["revision"] == 2
    [res] = alice.push([put(2, note(rid, "alice 2"), base_revision=1)]).json["results"]
    assert res["status"] == "rejected" and res["reason"] == "conflict" and res["current_revision"] == 2
    assert res["current"]["text"] == "bob"
    # A delete on a stale revision, then a delete of what is not there.
    [res] = alice.push([delete(3, rid, base_revision=1)]).json["results"]
    assert res["status"] == "rejected" and res["reason"] == "conflict"
    [res] = alice.push([delete(4, unique("none"), base_revision=1)]).json["results"]
    assert res["status"] == "rejected" and res["reason"] == "conflict" and res["current"] is None
    # After a delete, a put based on the old revision conflicts (the record is gone).
    assert bob.push([delete(3, rid, base_revision=2)]).json["results"][0]["status"] == "accepted"
    [res] = alice.push([put(5, note(rid, "resurrect"), base_revision=2)]).json["results"]
    assert res["status"] == "rejected" and res["reason"] == "conflict" and res["current"] is None
    assert alice.changes(0).json["seq"] == 3


def test_each_mutation_answered_in_order(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document)
    good1, good2 = unique("g"), unique("g")
    muts = [
        put(1, note(good1)),
        put(2, {"v": 1, "type": "pspdfkit/unknown-kind", "id": "u1", "pageIndex": 0, "bbox": [0, 0, 1, 1]}),
        put(3, note(unique("p"), page=99)),                           # no such page
        {"client_seq": 4, "op": "put", "id": "mismatch", "base_revision": None, "record": note("other-id")},
        put(5, note(unique("r"), **{"quire": {"inReplyTo": unique("nobody")}})),
        put(6, note(good2)),
    ]
    # Records refused on their own (an unknown kind, no such page, an id that is not the
    # mutation's) refuse the whole push: 422 naming each, nothing applied, no answer kept.
    named = refused_push(c.push(muts))
    assert sorted(named) == [2, 3, 4] and named[4]["id"] == "mismatch", named
    assert "record.id must equal" in named[4]["message"]
    assert c.changes(0).json["seq"] == 0
    # Without them, every mutation is answered in order; a reply to a record the layer lacks
    # depends on the layer, and is that mutation's `invalid` answer.
    r = c.push([muts[0], muts[4], muts[5]])
    assert r.status == 200, r
    results = r.json["results"]
    assert [x["client_seq"] for x in results] == [1, 5, 6]
    assert [x["status"] for x in results] == ["accepted", "rejected", "accepted"]
    assert results[1]["reason"] == "invalid" and "inReplyTo" in results[1]["message"], results[1]
    assert [results[0]["seq"], results[2]["seq"]] == [1, 2] and r.json["seq"] == 2
    ids = [x["record"]["id"] for x in c.fetch().json["records"]]
    assert good1 in ids and good2 in ids and "u1" not in ids and "mismatch" not in ids


def test_replies_and_states_sync(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document)
    root, reply, state = unique("root"), unique("reply"), unique("state")
    r = c.push([
        put(1, note(root, "Please check")),
        put(2, note(reply, "Done", quire={"inReplyTo": root, "replyType": "reply"})),
        put(3, note(state, "Accepted", quire={"inReplyTo": root, "replyType": "reply",
                                              "state": "Accepted", "stateModel": "Review"})),
    ]).json
    assert [x["status"] for x in r["results"]] == ["accepted"] * 3, r
    recs = {x["record"]["id"]: x["record"] for x in c.fetch().json["records"]}
    assert recs[reply]["quire"]["inReplyTo"] == root
    assert recs[state]["quire"]["state"] == "Accepted"
    # Deleting the root leaves its replies.
    assert c.push([delete(4, root, 1)]).json["results"][0]["status"] == "accepted"
    recs = {x["record"]["id"] for x in c.fetch().json["records"]}
    assert root not in recs and reply in recs and state in recs


def test_bad_push_bodies(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document)
    assert_error(c.push([], raw=b"{not json"), 400, "invalid_json")
    assert_error(c.push([], raw=b"[1, 2]"), 400)
    assert_error(c.push([], raw=json.dumps({"client_id": "c", "mutations": [], "extra": 1}).encode()),
                 400, "unknown_field")
    m = put(1, note(unique("n")))
    m["surprise"] = True
    assert_error(c.push([], raw=json.dumps({"client_id": "c", "mutations": [m]}).encode()), 400, "unknown_field")
    assert_error(c.push([], raw=json.dumps({"mutations": []}).encode()), 400)                 # no client_id
    assert_error(c.push([], raw=json.dumps({"client_id": "a/b", "mutations": []}).encode()), 400)
    assert_error(c.push([{"client_seq": 1, "op": "upsert", "id": "x", "base_revision": None}]), 400)
    too_many = [put(i + 1, note(f"m{i}")) for i in range(501)]
    r = c.push(too_many)
    assert r.status in (400, 413), r
    assert_error(r, r.status)
    assert c.changes(0).json["seq"] == 0  # nothing of it applied


# ---- listening -----------------------------------------------------------------------------------


def test_long_poll_wakes_on_another_clients_push(server: ServerProcess, keys: Keys, document: str) -> None:
    layer = unique("live")
    listener = client(server, keys, document, layer, permissions=["read"])
    writer = client(server, keys, document, layer)
    got: Dict[str, Any] = {}

    def listen() -> None:
        t0 = time.monotonic()
        got["response"] = listener.changes(0, wait=30)
        got["elapsed"] = time.monotonic() - t0

    t = threading.Thread(target=listen)
    t.start()
    time.sleep(0.5)  # the listener is waiting (an answer now would hold no change)
    rid = unique("n")
    assert writer.push([put(1, note(rid, "wake up"))]).status == 200
    t.join(40)
    assert not t.is_alive()
    r = got["response"]
    assert r.status == 200, r
    assert [ch["id"] for ch in r.json["changes"]] == [rid]
    assert got["elapsed"] < 25, got["elapsed"]  # woken, not timed out


def test_long_poll_times_out_empty(server: ServerProcess, keys: Keys, document: str) -> None:
    c = client(server, keys, document, permissions=["read"])
    t0 = time.monotonic()
    r = c.changes(0, wait=1)
    assert r.status == 200 and empty_feed(r.json, 0)
    assert time.monotonic() - t0 >= 0.9
    # A change already there answers at once, whatever the wait.
    w = client(server, keys, document, c.layer)
    w.push([put(1, note(unique("n")))])
    t0 = time.monotonic()
    assert len(c.changes(0, wait=30).json["changes"]) == 1
    assert time.monotonic() - t0 < 20


# ---- limits and hostile paths ---------------------------------------------------------------


def test_body_limits(host: str, start_server, keys: Keys) -> None:
    s = start_server(host, max_body_bytes=4096, max_upload_bytes=len(SAMPLE.read_bytes()) + 100)
    doc = unique("lim")
    assert upload(s.port, keys, doc).status == 201
    c = client(s, keys, doc)
    big = json.dumps({"client_id": "c", "mutations": [put(1, note("n", "x" * 5000))]}).encode()
    assert_error(c.push([], raw=big), 413, "too_large")
    # A body under the limit still works.
    ok = json.dumps({"client_id": "c", "mutations": [put(1, note(unique("n")))]}).encode()
    assert c.push([], raw=ok).status == 200
    assert c.changes(0).json["seq"] == 1
    assert request(s.port, "GET", "/healthz").status == 200


def test_listeners_past_the_limit_are_told_busy(host: str, start_server, keys: Keys) -> None:
    if not HOST_FEATURES.get(host, {}).get("max_listeners", True):
        pytest.skip(f"{host} has no --max-listeners (the C handler's configuration has no such field)")
    s = start_server(host, max_listeners=1)
    doc = unique("busy")
    assert upload(s.port, keys, doc).status == 201
    c = client(s, keys, doc)
    answers: List[Any] = []
    first = threading.Thread(target=lambda: answers.append(c.changes(0, wait=30)))
    first.start()
    time.sleep(1.0)  # the first takes the one slot
    # The second long poll finds it taken: 503 busy with Retry-After, at once, never an
    # empty 200 that reads as "nothing new" (issue 41).
    t0 = time.monotonic()
    r = c.changes(0, wait=30)
    assert_error(r, 503, "busy")
    assert time.monotonic() - t0 < 10
    retry_after = r.header("Retry-After")
    assert retry_after is not None and retry_after.isdigit() and int(retry_after) >= 1, r.headers
    assert "max_listeners" in r.json["error"]["message"]
    # A poll that does not wait is not a listener; a push wakes the one that waits.
    assert c.changes(0).status == 200
    assert c.push([put(1, note(unique("n")))]).json["results"][0]["status"] == "accepted"
    first.join(30)
    assert len(answers) == 1 and answers[0].status == 200 and len(answers[0].json["changes"]) == 1
    # The slot is free again: a long poll waits (and times out with nothing new).
    r = c.changes(1, wait=1)
    assert r.status == 200 and r.json["changes"] == [], r


def test_upload_limit(host: str, start_server, keys: Keys, expect_failure_unless) -> None:
    expect_failure_unless("request_id_on_host_errors", "answers a body past its own limit without X-Request-Id")
    size = len(SAMPLE.read_bytes())
    s = start_server(host, max_body_bytes=4096, max_upload_bytes=size + 100)
    assert upload(s.port, keys, unique("fits")).status == 201
    padded = SAMPLE.read_bytes() + b"\n%" + b"p" * 200 + b"\n"
    doc = unique("big")
    assert_error(upload(s.port, keys, doc, data=padded), 413, "too_large")
    assert_error(request(s.port, "GET", f"/admin/documents/{doc}", headers=keys.admin), 404, "not_found")


def test_chunked_bodies_and_their_limit(host: str, start_server, keys: Keys, expect_failure_unless) -> None:
    expect_failure_unless("chunked_requests", "does not read chunked request bodies (it reads Content-Length only)")
    s = start_server(host, max_body_bytes=4096)
    doc = unique("chunk")
    assert upload(s.port, keys, doc).status == 201
    c = client(s, keys, doc)
    headers = {**bearer(c.token), "Content-Type": "application/json"}
    ok = json.dumps({"client_id": "c", "mutations": [put(1, note(unique("n")))]}).encode()
    r = request_chunked(s.port, "POST", c.base + "/mutations", [ok[:10], ok[10:]], headers=headers)
    assert r.status == 200, r
    assert r.json["results"][0]["status"] == "accepted"
    # Past the limit without a Content-Length: refused without reading it all.
    r = request_chunked(s.port, "POST", c.base + "/mutations", (b"x" * 1024 for _ in range(64)), headers=headers)
    assert_error(r, 413, "too_large")
    assert c.changes(0).json["seq"] == 1


@pytest.mark.parametrize("raw_id", [
    "a%2Fb", "%2E%2E", "..", ".", "a%00b", "a%20b", "a%5Cb", "x" * 129, "%C3%A9", "a%3Fb", "a%23b", "%25",
])
def test_ids_with_path_characters_are_refused(server: ServerProcess, keys: Keys, document: str, raw_id: str) -> None:
    before = len(admin(server, keys, "GET", "/admin/documents").json["documents"])
    r = request(server.port, "POST", f"/admin/documents?id={raw_id}", body=SAMPLE.read_bytes(),
                headers={**keys.admin, "Content-Type": "application/pdf"})
    assert r.status in (400, 404), r
    assert_error(r, r.status)
    for path in [f"/admin/documents/{raw_id}", f"/admin/documents/{document}/layers/{raw_id}/annotations"]:
        r = request(server.port, "GET", path, headers=keys.admin)
        assert r.status in (400, 404), (path, r)
        assert_error(r, r.status)
    # A client whose token names the decoded id gets a 4xx too, never another layer.
    decoded = re.sub("%([0-9A-F]{2})", lambda m: chr(int(m.group(1), 16)), raw_id)
    token = mint(keys.rsa, claims(document, decoded, ["read", "write"]))
    r = request(server.port, "GET", f"/documents/{document}/layers/{raw_id}", headers=bearer(token))
    assert 400 <= r.status < 500, r
    assert_error(r, r.status)
    assert len(admin(server, keys, "GET", "/admin/documents").json["documents"]) == before
    names = [layer["name"] for layer in admin(server, keys, "GET", f"/admin/documents/{document}").json["layers"]]
    assert decoded not in names


def test_valid_ids_with_dots_dashes_underscores(server: ServerProcess, keys: Keys) -> None:
    doc = "Doc_1.v-2." + unique("x")
    assert upload(server.port, keys, doc).status == 201
    c = client(server, keys, doc, "layer_A.b-c")
    assert c.fetch().status == 200
    assert c.push([put(1, note("note.id_with-chars"))]).json["results"][0]["status"] == "accepted"


FORM_VALUE = "pspdfkit/form-field-value"


def form_value(name: str, value: Any = None, **extra: Any) -> Dict[str, Any]:
    record: Dict[str, Any] = {"v": 1, "type": FORM_VALUE, "id": f"{FORM_VALUE}/{name}", "name": name}
    if value is not None:
        record["value"] = value
    record.update(extra)
    return record


def bookmark(id: str, name: str, page: int, sort_key: Optional[int] = None, **extra: Any) -> Dict[str, Any]:
    record: Dict[str, Any] = {"v": 1, "type": "pspdfkit/bookmark", "id": id, "name": name,
                              "action": {"type": "goTo", "pageIndex": page}}
    if sort_key is not None:
        record["sortKey"] = sort_key
    record.update(extra)
    return record


def _pdfium_form_values(data: bytes) -> Dict[str, str]:
    """Each widget's field name and value as PDFium's form module reads them."""
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    pdf = pdfium.PdfDocument(data)
    pdf.init_forms()
    out: Dict[str, str] = {}
    for page in pdf:
        for i in range(raw.FPDFPage_GetAnnotCount(page)):
            annot = raw.FPDFPage_GetAnnot(page, i)
            if raw.FPDFAnnot_GetSubtype(annot) == raw.FPDF_ANNOT_WIDGET:
                texts = []
                for getter in (raw.FPDFAnnot_GetFormFieldName, raw.FPDFAnnot_GetFormFieldValue):
                    n = getter(pdf.formenv, annot, None, 0)
                    buf = ctypes.create_string_buffer(n)
                    getter(pdf.formenv, annot, ctypes.cast(buf, ctypes.POINTER(raw.FPDF_WCHAR)), n)
                    texts.append(buf.raw[:max(n - 2, 0)].decode("utf-16-le"))
                out[texts[0]] = texts[1]
            raw.FPDFPage_CloseAnnot(annot)
    return out


def test_form_field_values_sync_as_records(server: ServerProcess, keys: Keys, document: str) -> None:
    """Form values are records of the layer (issue 33): one per field, keyed
    `pspdfkit/form-field-value/NAME`, checked with the forms model's rules against the
    uploaded PDF (the sample's combo box "Combo1": Highlight, Link, Popup, Widget); a refused
    value refuses the push (422 `invalid_record` naming the mutation and the field), and
    nothing of it is applied. The same
    field filled concurrently: the first writer wins, the other's answer names the field. The
    layer's PDF export sets the value (read back by pikepdf and PDFium)."""
    c = client(server, keys, document)
    other = Client(c.port, c.document, c.layer, c.token)
    other.client_id = unique("other")
    bad = [
        form_value("Combo1", ["Durian"]),                      # not an option
        form_value("Combo1", "Link"),                          # a combo box's value is an array, as export writes it
        form_value("Combo1", ["Link", "Popup"]),               # one value
        form_value("Nope", ["Link"]),                          # no such field
        dict(form_value("Combo1", ["Link"]), id="fv-1"),       # the id is the field's key
        form_value("Combo1", ["Link"], optionIndexes=[0]),     # not synced
        {"v": 1, "type": "pspdfkit/form-field/text", "id": "ff-1", "name": "Combo1"},
    ]
    named = refused_push(c.push([put(i + 1, record) for i, record in enumerate(bad)]))
    assert sorted(named) == list(range(1, len(bad) + 1)), named
    results = [named[i + 1] for i in range(len(bad))]
    assert '"Durian" is not an option of field "Combo1"' in results[0]["message"]
    assert 'takes this value as ["Link"]' in results[1]["message"]
    assert "combo box" in results[2]["message"]
    assert 'no field "Nope"' in results[3]["message"]
    assert "id" in results[4]["message"] and "optionIndexes" in results[5]["message"]
    assert "form field definition" in results[6]["message"]
    assert not [x for x in c.fetch().json["records"] if x["record"]["type"].startswith("pspdfkit/form-field")]
    # A fill, then a concurrent fill of the same field on the same base: the first wins.
    key = f"{FORM_VALUE}/Combo1"
    first = c.push([put(10, form_value("Combo1", ["Link"]))]).json["results"][0]
    assert first["status"] == "accepted", first
    late = other.push([put(1, form_value("Combo1", ["Popup"]))]).json["results"][0]
    assert late["status"] == "rejected" and late["reason"] == "conflict" and late["current"]["value"] == ["Link"], late
    second = c.push([put(11, form_value("Combo1", ["Widget"]), first["revision"])]).json["results"][0]
    assert second["status"] == "accepted", second
    r = other.push([{"client_seq": 2, "op": "put", "id": key, "base_revision": first["revision"],
                     "record": form_value("Combo1", ["Popup"]), "fields": ["value"]}], version=2)
    [stale] = r.json["results"]
    assert stale["status"] == "rejected" and stale["reason"] == "conflict" and stale["fields"] == ["value"], stale
    layer = c.fetch().json
    [held] = [x for x in layer["records"] if x["record"]["id"] == key]
    assert held["record"]["value"] == ["Widget"] and held["revision"] == second["revision"]
    assert layer["digest"] == layer_digest(layer["records"])
    exported = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{c.layer}/annotations").json
    assert exported["formFieldValues"] == [held["record"]]
    # The export: the value set through the forms model.
    pdf = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{c.layer}/pdf")
    assert pdf.status == 200, pdf
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf.body)) as p:
        [field] = [f for f in p.Root.AcroForm.Fields if str(f.get("/T")) == "Combo1"]
        assert str(field.V) == "Widget"
        assert "/AP" in field  # its appearance made again
    assert _pdfium_form_values(pdf.body)["Combo1"] == "Widget"


def test_bad_input_refuses_the_whole_push(server: ServerProcess, keys: Keys, document: str) -> None:
    """Issue 33's "done when", bad input: a form value the field refuses and a bookmark of
    the wrong shape, among good mutations, refuse the push whole (422 `invalid_record`,
    the documented error naming each mutation and why), and nothing of it is applied; a
    put naming an attachment the document lacks is 409 `missing_attachment`, nothing
    applied. Idempotency is unaffected: the refused push kept no answer, so its good
    mutations go again with the same client_seq; a mutation answered before keeps its
    answer even when sent again with a bad record."""
    c = client(server, keys, document)
    seq0 = c.changes(0).json["seq"]
    good = put(1, note(unique("good"), "kept once the push is right"))
    refused_value = put(2, form_value("Combo1", ["Durian"]))
    refused_mark = put(3, {"v": 1, "type": "pspdfkit/bookmark", "id": "bm-shape", "name": "No action"})
    later = put(4, bookmark("bm-ok", "Fine", 0, 0))
    named = refused_push(c.push([good, refused_value, refused_mark, later]))
    assert sorted(named) == [2, 3], named
    assert named[2]["id"] == f"{FORM_VALUE}/Combo1" and '"Durian" is not an option of field "Combo1"' in named[2]["message"]
    assert named[3]["id"] == "bm-shape" and 'missing field "action"' in named[3]["message"]
    r = c.push([good, refused_value])
    assert "client_seq 2" in r.json["error"]["message"], r.json
    assert c.changes(0).json["seq"] == seq0  # nothing applied
    missing = "ab" * 32
    image = {"v": 1, "type": "pspdfkit/image", "id": unique("img"), "pageIndex": 0, "bbox": [100, 100, 40, 30],
             "imageAttachmentId": missing, "contentType": "image/png"}
    gone = refused_push(c.push([good, put(5, image)]), 409, "missing_attachment")
    assert list(gone) == [5] and gone[5]["attachment"] == missing, gone
    assert c.changes(0).json["seq"] == seq0
    # The same client_seq values, without the bad records: accepted, each once.
    r = c.push([good, later])
    assert r.status == 200 and [x["status"] for x in r.json["results"]] == ["accepted", "accepted"], r
    # A retry of an answered mutation is answered from the store, whatever its body now.
    bad_retry = dict(good, record=dict(good["record"], pageIndex=99))
    again = c.push([bad_retry])
    assert again.status == 200 and again.json["results"][0] == r.json["results"][0], again
    assert c.changes(0).json["seq"] == seq0 + 2


def test_a_version_1_push_keeps_its_per_mutation_answers(server: ServerProcess, keys: Keys, document: str) -> None:
    """Issue 33: old clients keep working. A push without `v` (libquire 0.4's client, which
    would send a refused push again forever) is answered as before: a record refused on its
    own gets its `invalid` answer inside a 200, and the push's good mutations apply."""
    c = client(server, keys, document)
    seq0 = c.changes(0).json["seq"]
    good = put(1, note(unique("old"), "an old client's note"))
    bad_page = put(2, note(unique("far"), "on no page", page=99))
    bad_mark = put(3, {"v": 1, "type": "pspdfkit/bookmark", "id": "bm-old", "name": "No action"})
    r = c.push([good, bad_page, bad_mark], version=None)
    assert r.status == 200, r
    results = r.json["results"]
    assert [x["status"] for x in results] == ["accepted", "rejected", "rejected"], results
    assert [x.get("reason") for x in results[1:]] == ["invalid", "invalid"], results
    assert "page" in results[1]["message"] and 'missing field "action"' in results[2]["message"], results
    assert c.changes(0).json["seq"] == seq0 + 1
    # The same records as version 2 refuse the push whole.
    named = refused_push(c.push([put(4, note(unique("new"), "x")), dict(bad_page, client_seq=5)]))
    assert list(named) == [5], named


def test_bookmarks_sync_as_records(server: ServerProcess, keys: Keys, document: str) -> None:
    """User bookmarks are records of the layer (`pspdfkit/bookmark`, Instant JSON's shape,
    with sort keys): a record of the wrong shape refuses the push (422 `invalid_record`),
    and nothing is applied;
    changes of different fields merge; the layer's PDF export writes them as the PDF's user
    bookmarks and into its outline (read back by pikepdf and PDFium), in sort-key order."""
    c = client(server, keys, document)
    bad = [
        bookmark("bm-x1", "Far", 9),                                            # no such page
        dict(bookmark("bm-x2", "Launch", 0), action={"type": "launch", "path": "x"}),
        bookmark("bm-x3", "Colour", 0, color="#FF0000"),                        # not a bookmark's field
        {"v": 1, "type": "pspdfkit/bookmark", "id": "bm-x4", "name": "No action"},
        dict(bookmark("bm-x5", "Key", 0), sortKey="first"),
    ]
    mismatched = {"client_seq": len(bad) + 1, "op": "put", "id": "bm-x6", "base_revision": None,
                  "record": bookmark("other", "Id", 0)}
    named = refused_push(c.push([put(i + 1, record) for i, record in enumerate(bad)] + [mismatched]))
    bad.append(mismatched)
    assert sorted(named) == list(range(1, len(bad) + 1)), named
    results = [named[i + 1] for i in range(len(bad))]
    assert c.changes(0).json["seq"] == 0
    assert "page 9 does not exist" in results[0]["message"]
    assert "goTo, uri or named" in results[1]["message"]
    assert 'unknown field "color"' in results[2]["message"]
    assert 'missing field "action"' in results[3]["message"]
    assert "sortKey" in results[4]["message"] and "record.id must equal" in results[5]["message"]
    r = c.push([put(10, bookmark("bm-2", "Second", 1, 1)), put(11, bookmark("bm-1", "First", 0, 0)),
                put(12, {"v": 1, "type": "pspdfkit/bookmark", "id": "bm-3", "sortKey": 2,
                         "action": {"type": "uri", "uri": "https://example.com/"}})])
    results = r.json["results"]
    assert [x["status"] for x in results] == ["accepted"] * 3, results
    # Two changes of different fields of one bookmark, on the same base: both kept.
    base = results[0]["revision"]
    renamed = c.push([{"client_seq": 13, "op": "put", "id": "bm-2", "base_revision": base,
                       "record": bookmark("bm-2", "Renamed", 1, 1), "fields": ["name"]}], version=2).json["results"][0]
    assert renamed["status"] == "accepted", renamed
    moved = c.push([{"client_seq": 14, "op": "put", "id": "bm-2", "base_revision": base,
                     "record": bookmark("bm-2", "Second", 1, 5), "fields": ["sortKey"]}], version=2).json["results"][0]
    assert moved["status"] == "accepted" and moved["dropped_fields"] == [], moved
    assert moved["record"] == bookmark("bm-2", "Renamed", 1, 5)
    exported = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{c.layer}/annotations").json
    assert {b["id"] for b in exported["bookmarks"]} == {"bm-1", "bm-2", "bm-3"}
    assert all(a["type"] != "pspdfkit/bookmark" for a in exported["annotations"])
    pdf = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{c.layer}/pdf")
    assert pdf.status == 200, pdf
    import pikepdf
    import pypdfium2 as pdfium

    with pikepdf.open(io.BytesIO(pdf.body)) as p:
        stored = p.Root.QUIR_Bookmarks.Bookmarks
        assert [str(b.ID) for b in stored] and {str(b.ID) for b in stored} == {"bm-1", "bm-2", "bm-3"}
        with p.open_outline() as outline:
            titles = [item.title for item in outline.root]
    # One outline item per bookmark (the sample has no outline of its own), in sort-key
    # order: bm-1 (0), bm-3 (2, no name: its URI is its title), bm-2 (moved to 5).
    assert titles == ["First", "https://example.com/", "Renamed"], titles
    toc = []
    for item in pdfium.PdfDocument(pdf.body).get_toc():
        dest = item.get_dest()
        toc.append((item.get_title(), dest.get_index() if dest is not None else None))
    assert toc[0] == ("First", 0) and toc[2] == ("Renamed", 1), toc


def test_the_layer_digest_is_its_records(server, keys, document):
    """The digest the feed and the layer answer (docs/sync-protocol.md) is the one its
    records give, computed independently here, before and after changes."""
    c = client(server, keys, document)
    layer = c.fetch().json
    assert layer["digest"] == layer_digest(layer["records"])
    assert c.changes(0).json["digest"] == layer["digest"]
    r = c.push([put(1, note("digest-1", "d\u00e9j\u00e0 vu / \u4f60\u597d")), put(2, note("digest-2", "x"))])
    assert r.status == 200, r
    layer = c.fetch().json
    assert layer["digest"] == layer_digest(layer["records"])
    assert c.changes(layer["seq"]).json["digest"] == layer["digest"]
    assert c.push([delete(3, "digest-1", r.json["results"][0]["revision"])]).status == 200
    layer = c.fetch().json
    assert layer["digest"] == layer_digest(layer["records"])


def _png(width: int = 4, height: int = 3, rgb: tuple = (200, 30, 30)) -> bytes:
    """A small 8-bit RGB PNG, made here (zlib and CRCs of the standard library)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\0" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def test_image_attachments_upload_fetch_and_export(server: ServerProcess, keys: Keys, document: str) -> None:
    """Attachments (issue 33): an image is uploaded once under the SHA-256 of its bytes
    (201, then 200), fetched on demand with its media type and ETag, and an image annotation
    (`pspdfkit/image`) that names it is created through sync and written into the layer's PDF
    (read back by pikepdf and PDFium). Refused, with nothing kept: a hash that does not
    match, a media type that is not an image, bytes that are not the image they claim, and a
    record naming an attachment the document lacks."""
    c = client(server, keys, document)
    png = _png()
    sha = hashlib.sha256(png).hexdigest()
    path = f"/documents/{document}/attachments/{sha}"

    def upload_attachment(p: str, body: bytes, content_type: str = "image/png"):
        return request(server.port, "PUT", p, body=body, headers={**bearer(c.token), "Content-Type": content_type})

    assert_error(upload_attachment(path, png + b"x"), 400, "bad_request")                      # hash mismatch
    assert_error(upload_attachment(path, png, "image"), 400, "bad_request")                    # not a media type
    junk = b"not a png at all"
    assert_error(upload_attachment(f"/documents/{document}/attachments/{hashlib.sha256(junk).hexdigest()}", junk),
                 400, "bad_request")                                                            # not what it claims
    assert_error(upload_attachment(f"/documents/{document}/attachments/XYZ", png), 400, "bad_request")
    assert_error(request(server.port, "GET", path, headers=bearer(c.token)), 404, "not_found")  # nothing kept
    record = {"v": 1, "type": "pspdfkit/image", "id": unique("img"), "pageIndex": 0, "bbox": [100, 100, 40, 30],
              "imageAttachmentId": sha, "contentType": "image/png"}
    early = refused_push(c.push([put(1, record)]), 409, "missing_attachment")
    assert early[1]["attachment"] == sha and "imageAttachmentId" in early[1]["message"], early
    r = upload_attachment(path, png)
    assert r.status == 201 and r.json["attachment"] == {"sha256": sha, "content_type": "image/png", "bytes": len(png)}, r
    assert upload_attachment(path, png).status == 200  # once: the second upload keeps nothing new
    got = request(server.port, "GET", path, headers=bearer(c.token))
    assert got.status == 200 and got.body == png and got.header("Content-Type") == "image/png", got
    assert got.header("ETag") == f'"{sha}"'
    [made] = c.push([put(2, record)]).json["results"]
    assert made["status"] == "accepted", made
    pdf = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{c.layer}/pdf")
    assert pdf.status == 200, pdf
    import pikepdf
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    with pikepdf.open(io.BytesIO(pdf.body)) as p:
        stamps = [a for a in p.pages[0].Annots if a.get("/Subtype") == "/Stamp" and str(a.get("/NM", "")) == record["id"]]
        assert len(stamps) == 1
        images = [x for x in stamps[0].AP.N.Resources.XObject.values() if x.get("/Subtype") == "/Image"]
        assert [(int(x.Width), int(x.Height)) for x in images] == [(4, 3)]
    page = pdfium.PdfDocument(pdf.body)[0]
    subtypes = [raw.FPDFAnnot_GetSubtype(raw.FPDFPage_GetAnnot(page, i)) for i in range(raw.FPDFPage_GetAnnotCount(page))]
    assert raw.FPDF_ANNOT_STAMP in subtypes


def test_attachment_limit(host: str, start_server, keys: Keys) -> None:
    """`max_attachment_bytes` (quire-server's `--max-attachment-bytes`, the embedding hosts'
    through `quire_sync_config` version 2): an attachment past it is a 413 before it is
    read, and nothing is kept; one within it is kept."""
    png = _png(40, 40)
    s = start_server(host, max_attachment_bytes=len(png) - 1)
    doc = unique("att")
    assert upload(s.port, keys, doc).status == 201
    c = client(s, keys, doc)
    sha = hashlib.sha256(png).hexdigest()
    r = request(s.port, "PUT", f"/documents/{doc}/attachments/{sha}", body=png,
                headers={**bearer(c.token), "Content-Type": "image/png"})
    assert_error(r, 413, "too_large")
    assert "max_attachment_bytes" in r.json["error"]["message"]
    assert_error(request(s.port, "GET", f"/documents/{doc}/attachments/{sha}", headers=bearer(c.token)), 404, "not_found")
    small = _png(2, 2)
    ok = request(s.port, "PUT", f"/documents/{doc}/attachments/{hashlib.sha256(small).hexdigest()}", body=small,
                 headers={**bearer(c.token), "Content-Type": "image/png"})
    assert ok.status == 201, ok


def _file_record(record_id: str, sha: Optional[str], name: str = "minutes.txt") -> Dict[str, Any]:
    record: Dict[str, Any] = {"v": 1, "type": "pspdfkit/file", "id": record_id, "pageIndex": 0,
                              "bbox": [100, 100, 20, 20], "fileName": name, "description": "the minutes",
                              "contentType": "text/plain", "iconName": "Paperclip"}
    if sha is not None:
        record["fileAttachmentId"] = sha
    return record


def test_file_attachments_upload_fetch_and_export(server: ServerProcess, keys: Keys, document: str) -> None:
    """A file attachment annotation's file is an attachment of any media type (issue 33):
    uploaded under its SHA-256, fetched with its type, named by a `pspdfkit/file` record's
    `fileAttachmentId`, and embedded by the layer's PDF export (read back by pikepdf). A
    record naming a file the server does not hold, a body whose hash differs, a record whose
    file name the rules refuse: refused, nothing applied."""
    import pikepdf

    c = client(server, keys, document)
    data = b"minutes of the meeting\n" + bytes(range(256))
    sha = hashlib.sha256(data).hexdigest()
    path = f"/documents/{document}/attachments/{sha}"

    def upload_file(p: str, body: bytes, content_type: Optional[str] = "text/plain"):
        headers = dict(bearer(c.token))
        if content_type is not None:
            headers["Content-Type"] = content_type
        return request(server.port, "PUT", p, body=body, headers=headers)

    rid = unique("file")
    early = refused_push(c.push([put(1, _file_record(rid, sha))]), 409, "missing_attachment")[1]
    assert early["attachment"] == sha and early["id"] == rid, early
    assert "fileAttachmentId" in early["message"] and "upload the file first" in early["message"], early
    assert_error(upload_file(path, data + b"x"), 400, "bad_request")           # hash mismatch
    assert_error(request(server.port, "GET", path, headers=bearer(c.token)), 404, "not_found")
    r = upload_file(path, data)
    assert r.status == 201 and r.json["attachment"] == {"sha256": sha, "content_type": "text/plain", "bytes": len(data)}, r
    again = upload_file(path, data, "application/pdf")  # kept as first uploaded
    assert again.status == 200 and again.json["attachment"]["content_type"] == "text/plain", again
    got = request(server.port, "GET", path, headers=bearer(c.token))
    assert got.status == 200 and got.body == data and got.header("Content-Type") == "text/plain", got
    # No Content-Type: application/octet-stream.
    other = b"\x00\x01 binary"
    r = upload_file(f"/documents/{document}/attachments/{hashlib.sha256(other).hexdigest()}", other, None)
    assert r.status == 201 and r.json["attachment"]["content_type"] == "application/octet-stream", r
    bad = refused_push(c.push([put(2, _file_record(unique("file"), sha, name="../../etc/passwd"))]))[2]
    assert "fileName" in bad["message"], bad
    [made] = c.push([put(3, _file_record(rid, sha))]).json["results"]
    assert made["status"] == "accepted", made
    pdf = admin(server, keys, "GET", f"/admin/documents/{document}/layers/{c.layer}/pdf")
    assert pdf.status == 200, pdf
    with pikepdf.open(io.BytesIO(pdf.body)) as p:
        [annot] = [a for a in p.pages[0].Annots if str(a.get("/NM", "")) == rid]
        assert annot.Subtype == "/FileAttachment" and str(annot.Name) == "/Paperclip"
        assert str(annot.FS.UF) == "minutes.txt" and str(annot.FS.Desc) == "the minutes"
        assert annot.FS.EF.F.read_bytes() == data and str(annot.FS.EF.F.Subtype) == "/text/plain"


def test_unnamed_attachments_are_collected(host: str, start_server, keys: Keys) -> None:
    """Attachment collection (docs/sync-protocol.md): with a grace period of 0, an
    attachment that no record names is deleted when the admin API asks (and at a layer's
    deletion); one that a record of any layer names stays. On SQLite and PostgreSQL."""
    s = start_server(host, attachment_grace_seconds=0)
    doc = unique("gc")
    assert upload(s.port, keys, doc).status == 201
    c = client(s, keys, doc)
    files = [b"kept by a record", b"named, then deleted", b"never named", b"named in another layer"]
    shas = [hashlib.sha256(f).hexdigest() for f in files]

    def upload_file(data: bytes) -> int:
        r = request(s.port, "PUT", f"/documents/{doc}/attachments/{hashlib.sha256(data).hexdigest()}", body=data,
                    headers={**bearer(c.token), "Content-Type": "text/plain"})
        return r.status

    def held(sha: str) -> bool:
        r = request(s.port, "GET", f"/documents/{doc}/attachments/{sha}", headers=bearer(c.token))
        assert r.status in (200, 404), r
        return r.status == 200

    # Each upload may collect what no record names (grace 0), so each record follows its
    # file at once, as a client's push follows its upload.
    assert upload_file(files[0]) == 201
    assert c.push([put(1, _file_record("kept", shas[0]))]).json["results"][0]["status"] == "accepted"
    assert upload_file(files[1]) == 201
    [made] = c.push([put(2, _file_record("gone", shas[1]))]).json["results"]
    assert made["status"] == "accepted", made
    other = client(s, keys, doc)
    assert upload_file(files[3]) == 201
    assert other.push([put(1, _file_record("elsewhere", shas[3]))]).json["results"][0]["status"] == "accepted"
    assert upload_file(files[2]) == 201
    assert c.push([delete(3, "gone", made["revision"])]).json["results"][0]["status"] == "accepted"
    time.sleep(1.1)  # upload times are whole seconds
    r = admin(s, keys, "POST", f"/admin/documents/{doc}/attachments/collect")
    assert r.status == 200, r
    assert sorted(r.json["collected"]) == sorted([shas[1], shas[2]]), r.json
    assert [held(sha) for sha in shas] == [True, False, False, True]
    # Nothing more to collect; a record naming a collected file is refused until it is
    # uploaded again.
    assert admin(s, keys, "POST", f"/admin/documents/{doc}/attachments/collect").json == {"collected": []}
    late = refused_push(c.push([put(4, _file_record("late", shas[2]))]), 409, "missing_attachment")
    assert late[4]["attachment"] == shas[2], late
    # Deleting the other layer collects the file only it named.
    assert admin(s, keys, "DELETE", f"/admin/documents/{doc}/layers/{other.layer}").status == 204
    assert [held(sha) for sha in shas] == [True, False, False, False]
    assert_error(admin(s, keys, "POST", "/admin/documents/no-such-doc/attachments/collect"), 404, "not_found")
