"""Edges of the protocol found from outside (issue 35), on every host: a NUL in the target,
an upload that repairs to no page, the layer export of an annotation object listed on two
pages, and the answers to HTTP the host's parser refuses (framing errors)."""

from __future__ import annotations

import io
import socket
from typing import Any, Optional

import pytest

from sync_support import (
    SAMPLE,
    Client,
    Keys,
    ServerProcess,
    assert_error,
    claims,
    delete,
    mint,
    request,
    unique,
    upload,
)


def admin(server: ServerProcess, keys: Keys, method: str, path: str, body: Optional[bytes] = None) -> Any:
    headers = dict(keys.admin)
    if body is not None:
        headers["Content-Type"] = "application/pdf"
    return request(server.port, method, path, body=body, headers=headers)


# ---- a NUL in the target -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "/healthz%00",
        "/admin/documents/doc%00x",
        "/admin/documents?id=a%00b",
        "/documents/d/layers/l/changes?since=0&wait=%00",
    ],
)
def test_a_nul_in_the_target_is_400_json(server: ServerProcess, keys: Keys, target: str) -> None:
    r = request(
        server.port,
        "GET" if "id=" not in target else "POST",
        target,
        headers=dict(keys.admin),
        body=None if "id=" not in target else SAMPLE.read_bytes(),
    )
    assert_error(r, 400, "bad_request")
    assert "NUL" in r.json["error"]["message"], r


# ---- an upload with no page ----------------------------------------------------------------------


def test_an_upload_that_repairs_to_no_page_is_400(server: ServerProcess, keys: Keys) -> None:
    data = SAMPLE.read_bytes()
    # The first 300 bytes: the header and the catalog, which Quire opens by repairing the
    # file, with no page object left (from 450 bytes on, the repair finds both pages).
    truncated = data[:300]
    doc = unique("nopages")
    r = upload(server.port, keys, doc, truncated)
    assert_error(r, 400, "bad_request")
    assert "no page" in r.json["error"]["message"], r
    assert admin(server, keys, "GET", f"/admin/documents/{doc}").status == 404  # nothing stored
    # The whole file still uploads.
    assert upload(server.port, keys, unique("whole"), data).status == 201


# ---- the export of an annotation listed on two pages -----------------------------------------------


def test_deleting_an_annotation_listed_on_two_pages_removes_it_from_every_page(
    server: ServerProcess, keys: Keys
) -> None:
    pikepdf = pytest.importorskip("pikepdf")
    pdfium = pytest.importorskip("pypdfium2")
    # examples/sample.pdf: link object 15 is in the /Annots of page 1 (record "15") and of
    # page 2 (record "15#1..."), each page's record of the one object.
    with pikepdf.open(SAMPLE) as pdf:
        listed = [[a.objgen[0] for a in page.obj.get("/Annots", [])] for page in pdf.pages]
    assert 15 in listed[0] and 15 in listed[1], listed
    doc = unique("twopages")
    assert upload(server.port, keys, doc).status == 201
    layer = unique("layer")
    c = Client(server.port, doc, layer, mint(keys.rsa, claims(doc, layer)))
    records = {x["record"]["id"]: x for x in c.fetch().json["records"]}
    on_two = [rid for rid in records if rid == "15" or rid.startswith("15#")]
    assert len(on_two) == 2, sorted(records)
    for seq, deleted in enumerate(sorted(on_two), start=1):
        results = c.push([delete(seq, deleted, records[deleted]["revision"])]).json["results"]
        assert results[0]["status"] == "accepted", results
        r = admin(server, keys, "GET", f"/admin/documents/{doc}/layers/{layer}/pdf")
        assert r.status == 200, r
        # qpdf: no page's /Annots names a freed object (a reference qpdf reads as null).
        with pikepdf.open(io.BytesIO(r.body)) as pdf:
            for number, page in enumerate(pdf.pages):
                for a in page.obj.get("/Annots", []):
                    assert a.is_indirect and a.get("/Subtype") is not None, (number, a)
        # PDFium: the links it shows per page.
        document = pdfium.PdfDocument(r.body)
        try:
            links = [
                sum(1 for a in _annots(document[i]) if a == pdfium.raw.FPDF_ANNOT_LINK) for i in range(len(document))
            ]
        finally:
            document.close()
        original = pdfium.PdfDocument(SAMPLE.read_bytes())
        try:
            before = [
                sum(1 for a in _annots(original[i]) if a == pdfium.raw.FPDF_ANNOT_LINK) for i in range(len(original))
            ]
        finally:
            original.close()
        if deleted == "15":
            assert links[0] == before[0] - 1, (links, before)
        # Deleting the other page's record as well takes it off both pages.
        records = {x["record"]["id"]: x for x in c.fetch().json["records"]}
    assert links == [before[0] - 1, before[1] - 1], (links, before)


def _annots(page: Any) -> Any:
    import pypdfium2.raw as raw

    for i in range(raw.FPDFPage_GetAnnotCount(page.raw)):
        annot = raw.FPDFPage_GetAnnot(page.raw, i)
        try:
            yield raw.FPDFAnnot_GetSubtype(annot)
        finally:
            raw.FPDFPage_CloseAnnot(annot)


# ---- HTTP framing errors -------------------------------------------------------------------------


def raw_exchange(port: int, data: bytes, shut_write: bool = False, timeout: float = 10.0) -> bytes:
    """Sends bytes as they are on a new connection and reads until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
            if shut_write:
                s.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass
        out = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except (ConnectionResetError, socket.timeout):
            pass
        return out


FRAMING = {
    "a 300 KiB header": (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (300 << 10) + b"\r\n\r\n", False, 431),
    "a NUL in the request line": (b"GET /heal\x00thz HTTP/1.1\r\nHost: x\r\n\r\n", False, 400),
    "a NUL in a header": (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n", False, 400),
    "a garbage request line": (b"\x01\x02garbage garbage\r\n\r\n", False, 400),
    "a body shorter than its Content-Length": (
        b"POST /admin/documents HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n%PDF-1.7",
        True,
        400,
    ),
}


@pytest.mark.parametrize("case", list(FRAMING))
def test_framing_errors_are_answered_in_the_protocols_shape(
    server: ServerProcess, case: str, expect_failure_unless
) -> None:
    if case == "a NUL in the request line":
        expect_failure_unless("nul_in_request_line", "refuses a NUL in the request line in its HTTP server's own shape")
    else:
        expect_failure_unless("framing_errors", "answers HTTP its server refuses in that server's own shape")
    data, shut_write, status = FRAMING[case]
    answer = raw_exchange(server.port, data, shut_write)
    assert answer, "no answer at all"
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    code = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    assert code == status, answer[:500]
    assert headers.get("x-request-id"), headers
    assert headers.get("content-type", "").startswith("application/json"), headers
    import json

    error = json.loads(body[: int(headers["content-length"])])["error"]
    assert error["code"] == ("too_large" if status == 431 else "bad_request") and error["message"], error
    # The server goes on serving.
    assert request(server.port, "GET", "/healthz").status == 200


# ---- a client that goes away ------------------------------------------------------------------------


def test_a_long_poll_stops_when_its_client_goes_away(server: ServerProcess, keys: Keys, expect_failure_unless) -> None:
    expect_failure_unless(
        "cancels_on_disconnect", "keeps a long poll waiting after its client went away (up to its wait)"
    )
    import time

    doc = unique("gone")
    assert upload(server.port, keys, doc).status == 201
    layer = unique("layer")
    token = mint(keys.rsa, claims(doc, layer))
    c = Client(server.port, doc, layer, token)
    seq = c.fetch().json["seq"]
    target = f"/documents/{doc}/layers/{layer}/changes?since={seq}&wait=30"
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        time.sleep(1.0)
    gone = time.monotonic()
    # The host logs each request when it has answered it: the poll's line comes at once when
    # the library stopped waiting for it, 30 s later when it did not.
    while time.monotonic() - gone < 10:
        if any("changes" in line and layer in line for line in server.log().splitlines()):
            return
        time.sleep(0.1)
    pytest.fail(f"the long poll of {layer} still waits 10 s after its client went away")
