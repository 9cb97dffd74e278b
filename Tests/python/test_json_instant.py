"""Issue 23: Instant JSON as PSPDFKit writes it, through the Python binding.

The fixture follows the shapes of Nutrient's public guides: the comment record of
https://nutrient.io/guides/document-engine/json/schema/comments, the top-level `comments`
of https://www.nutrient.io/api/web/interfaces/InstantJSON.html, a `pspdfkit/comment-marker`
root, and v2 `text` objects in the xhtml format. Imported into a blank page, every
annotation renders (pdftoppm: pixels change in its rectangle), pypdf reads /RC and /IRT
back, and the export, plain or with Instant comments, imports again unchanged.
"""

from __future__ import annotations

import io
import json
from typing import Any, Dict, List

import pytest

import quire
from quire_testing.peers import peer
from test_annotations import blank_pdf, pdftoppm_render

ROOT = "01F46WTF5X3J1WEN6J2YXWHHEW"
THREAD: Dict[str, Any] = {
    "format": "https://pspdfkit.com/instant-json/v1",
    "annotations": [
        {"v": 1, "type": "pspdfkit/comment-marker", "id": ROOT, "pageIndex": 0, "bbox": [100, 100, 24, 24],
         "createdAt": "2021-04-26T10:50:30.650Z", "updatedAt": "2021-04-26T10:50:30.650Z"},
        {"v": 2, "type": "pspdfkit/markup/highlight", "id": "hl-1", "pageIndex": 0, "bbox": [72, 300, 200, 14],
         "rects": [[72, 300, 200, 14]], "color": "#FFFF00", "isCommentThreadRoot": True},
        {"v": 2, "type": "pspdfkit/text", "id": "ft-1", "pageIndex": 0, "bbox": [300, 500, 200, 40], "fontSize": 14,
         "fontColor": "#000000", "text": {"format": "xhtml", "value": "<p>Free <b>text</b></p>"}},
    ],
    "comments": [
        {"type": "pspdfkit/comment", "v": 1, "id": "c-1", "rootId": ROOT, "pageIndex": 0, "pdfObjectId": None,
         "creatorName": None, "createdAt": "2021-04-26T10:50:30.650Z", "updatedAt": "2021-04-26T10:50:30.650Z",
         "text": "This is a comment.", "customData": None},
        {"type": "pspdfkit/comment", "v": 2, "id": "c-2", "rootId": ROOT, "pageIndex": 0, "creatorName": "Ada",
         "createdAt": "2021-04-26T11:00:00Z", "text": {"format": "xhtml", "value": "<p>I <b>agree</b></p>"},
         "customData": {"ticket": "DOC-1"}},
        {"type": "pspdfkit/comment", "v": 2, "id": "c-3", "rootId": "hl-1", "pageIndex": 0, "creatorName": "Bob",
         "text": {"format": "plain", "value": "Why?"}},
    ],
}


def changed_pixels(before: Any, after: Any, box: List[float], height: float = 792) -> int:
    """Pixels that differ between two 72 dpi renders inside the JSON `bbox` (top-left origin)."""
    left, top, width, bottom = int(box[0]), int(box[1]), box[2], box[3]
    count = 0
    for x in range(left, int(left + width + 0.999)):
        for y in range(top, int(top + bottom + 0.999)):
            if 0 <= x < before.width and 0 <= y < before.height and before.getpixel((x, y)) != after.getpixel((x, y)):
                count += 1
    return count


def test_comments_and_rich_text_import_render_and_round_trip() -> None:
    blank = blank_pdf()
    with quire.Document(blank) as doc:
        count = doc.import_annotations_json(json.dumps(THREAD))
        assert count == 6
        exported = doc.export_annotations_json()
        # Importing the document's own export changes nothing.
        assert doc.import_annotations_json(exported) == 6
        assert doc.export_annotations_json() == exported
        out = io.BytesIO()
        doc.save(out)
        data = out.getvalue()
    records = json.loads(exported)["annotations"]
    assert [r["type"] for r in records] == ["pspdfkit/note", "pspdfkit/markup/highlight", "pspdfkit/text",
                                            "pspdfkit/note", "pspdfkit/note", "pspdfkit/note"]
    rich = [r for r in records if isinstance(r.get("text"), dict)]
    assert {r["id"] for r in rich} == {"ft-1", "c-2"} and all(r["v"] == 2 and r["text"]["format"] == "xhtml" for r in rich)

    # pypdf reads the replies and the rich text back.
    pypdf = peer("pypdf")
    reader = pypdf.PdfReader(io.BytesIO(data))
    annots = [a.get_object() for a in reader.pages[0]["/Annots"]]
    by_name = {str(a["/NM"]): a for a in annots}
    assert by_name["c-1"]["/IRT"].get_object()["/NM"] == ROOT
    assert by_name["c-3"]["/IRT"].get_object()["/NM"] == "hl-1"
    assert "<b>agree</b>" in str(by_name["c-2"]["/RC"]) and by_name["c-2"]["/Contents"] == "I agree"
    assert by_name["ft-1"]["/Contents"] == "Free text" and "<b>text</b>" in str(by_name["ft-1"]["/RC"])
    assert by_name[ROOT]["/Name"] == "/Comment"

    # Every imported annotation renders: pixels change inside its rectangle.
    before, after = pdftoppm_render(blank), pdftoppm_render(data)
    for record in records:
        assert changed_pixels(before, after, record["bbox"]) > 0, record["id"]

    # Into another document: the same records.
    with quire.Document(blank) as other:
        assert other.import_annotations_json(exported) == 6
        assert other.export_annotations_json() == exported


def test_instant_comments_export() -> None:
    with quire.Document(blank_pdf()) as doc:
        doc.import_annotations_json(json.dumps(THREAD))
        plain = doc.export_annotations_json()
        text = doc.export_annotations_json(instant_comments=True)
        exported = json.loads(text)
        assert [r["type"] for r in exported["annotations"]] == [
            "pspdfkit/comment-marker", "pspdfkit/markup/highlight", "pspdfkit/text"]
        assert [r.get("isCommentThreadRoot") for r in exported["annotations"]] == [True, True, None]
        comments = exported["comments"]
        assert [(c["id"], c["rootId"]) for c in comments] == [("c-1", ROOT), ("c-2", ROOT), ("c-3", "hl-1")]
        assert comments[1]["text"]["format"] == "xhtml" and comments[1]["customData"] == {"ticket": "DOC-1"}
        assert json.loads(doc.export_annotations_json(0, instant_comments=True))["comments"] == comments
        # Imported into the same document, nothing changes.
        doc.import_annotations_json(text)
        assert doc.export_annotations_json() == plain
    with quire.Document(blank_pdf()) as other:
        other.import_annotations_json(text)
        assert other.export_annotations_json(instant_comments=True) == text


@pytest.mark.parametrize("comments, message", [
    ([{"type": "pspdfkit/comment", "v": 1, "id": "c", "rootId": "nobody", "pageIndex": 0, "text": "x"}],
     'comments[0].rootId: no annotation "nobody"'),
    ([{"type": "pspdfkit/comment", "v": 1, "id": "a", "rootId": "b", "pageIndex": 0, "text": "x"},
      {"type": "pspdfkit/comment", "v": 1, "id": "b", "rootId": "a", "pageIndex": 0, "text": "x"}],
     "the comments make a cycle"),
    ([{"type": "pspdfkit/comment", "v": 2, "id": "c", "rootId": ROOT, "pageIndex": 0,
       "text": {"format": "xhtml", "value": "<p>" + "x" * (10 << 20) + "</p>"}}],
     "comments[0].text.value: the rich text is"),
    ([{"type": "pspdfkit/comment", "v": 2, "id": "c", "rootId": ROOT, "pageIndex": 0,
       "text": {"format": "xhtml", "value": '<!DOCTYPE p [<!ENTITY e "boom">]><p>&e;</p>'}}],
     "not well-formed"),
])
def test_malformed_comments_change_nothing(comments: List[Dict[str, Any]], message: str) -> None:
    with quire.Document(blank_pdf()) as doc:
        doc.import_annotations_json(json.dumps({"annotations": [THREAD["annotations"][0]]}))
        before = doc.export_annotations_json()
        bad = {"annotations": [THREAD["annotations"][0]], "comments": comments}
        with pytest.raises(quire.QuireError) as error:
            doc.import_annotations_json(json.dumps(bad))
        assert message in str(error.value)
        assert doc.export_annotations_json() == before


def image_bytes(kind: str) -> bytes:
    """A 40 × 20 image made by Pillow: red and blue halves (RGBA with a transparent band
    for the PNG)."""
    Image = peer("PIL.Image", why="Pillow makes the test images")
    image = Image.new("RGBA" if kind == "png" else "RGB", (40, 20), (255, 0, 0, 255) if kind == "png" else (255, 0, 0))
    for x in range(20, 40):
        for y in range(20):
            image.putpixel((x, y), (0, 0, 255, 255) if kind == "png" else (0, 0, 255))
    if kind == "png":
        for x in range(40):
            image.putpixel((x, 0), (0, 255, 0, 0))  # a transparent top row
    out = io.BytesIO()
    image.save(out, format="PNG" if kind == "png" else "JPEG", quality=95)
    return out.getvalue()


@pytest.mark.parametrize("kind, content_type", [("jpeg", "image/jpeg"), ("png", "image/png")])
def test_image_stamps_render_and_export_their_attachment(kind: str, content_type: str) -> None:
    import base64

    data = image_bytes(kind)
    document = {
        "format": "https://pspdfkit.com/instant-json/v1",
        "annotations": [{"v": 1, "type": "pspdfkit/image", "id": "image-1", "pageIndex": 0,
                         "bbox": [100, 100, 160, 80], "imageAttachmentId": "a1", "contentType": content_type,
                         "opacity": 1, "rotation": 0, "description": "signature"}],
        "attachments": {"a1": {"binary": base64.b64encode(data).decode("ascii"), "contentType": content_type}},
    }
    blank = blank_pdf()
    with quire.Document(blank) as doc:
        assert doc.import_annotations_json(json.dumps(document)) == 1
        exported = doc.export_annotations_json()
        assert doc.import_annotations_json(exported) == 1
        assert doc.export_annotations_json() == exported
        out = io.BytesIO()
        doc.save(out)
        pdf = out.getvalue()
    record = json.loads(exported)["annotations"][0]
    assert record["type"] == "pspdfkit/image" and record["contentType"] == content_type
    attachment = json.loads(exported)["attachments"][record["imageAttachmentId"]]
    assert base64.b64decode(attachment["binary"]) == data  # the bytes imported, written back

    # pdftoppm draws the image in the rectangle: red on the left, blue on the right.
    after = pdftoppm_render(pdf)
    left, right = after.getpixel((140, 150)), after.getpixel((220, 150))
    assert left[0] > 200 and left[2] < 60, left
    assert right[2] > 200 and right[0] < 60, right
    assert changed_pixels(pdftoppm_render(blank), after, record["bbox"]) > 10000

    # PyMuPDF finds the image in the stamp's appearance, of the attachment's size.
    pymupdf = peer("pymupdf")
    with pymupdf.open(stream=pdf, filetype="pdf") as mu:
        page = mu[0]
        annot = page.first_annot
        assert annot is not None and annot.type[1] == "Stamp"
        xref = annot.xref
        ap = mu.xref_get_key(xref, "AP/N")[1]
        form = int(ap.split()[0])
        image_ref = mu.xref_get_key(form, "Resources/XObject/Im0")[1]
        image_xref = int(image_ref.split()[0])
        info = mu.extract_image(image_xref)
        assert (info["width"], info["height"]) == (40, 20)
        if kind == "jpeg":
            assert info["ext"] == "jpeg" and info["image"] == data  # passed through as DCT
        else:
            assert mu.xref_get_key(image_xref, "SMask")[0] == "xref"  # alpha as a soft mask
