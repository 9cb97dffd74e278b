#!/usr/bin/env python3
"""Seeds for the fuzz targets, written to a directory that is not committed.

    python3 Tests/fuzz/seed.py OUT_DIR [--max-size BYTES]

writes OUT_DIR/walk/ and OUT_DIR/edit/ (small PDFs: every file of ../shared/corpus up to
--max-size bytes, default 16 KiB, plus examples/sample.pdf) and OUT_DIR/json/ (annotation
JSON: the examples of docs/annotation-json.md, one record of each Instant JSON type, and
the annotations of small corpus files exported through the Python binding when it is
built), OUT_DIR/sig/ (FuzzSignatures: CMS blobs cryptography makes and the /Contents of the
corpus's signed files behind a 0 byte, signature dictionary entries behind a 1 byte), and OUT_DIR/font/ (the embedded font programs of corpus files up to --max-size
bytes decoded, through pikepdf, each behind FuzzFont's selector byte: 0 /FontFile,
1 /FontFile2, 2 /FontFile3). Small seeds keep libFuzzer fast: it mutates every byte of an input it keeps.
Files are named by the SHA-256 of their contents, so seeding twice adds nothing.
Without ../shared/corpus, only the built-in seeds are written.
"""
import argparse
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")


def put(directory, data):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, hashlib.sha256(data).hexdigest()[:16])
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)


def corpus_files(max_size):
    manifest = os.path.join(CORPUS, "manifest.jsonl")
    if not os.path.exists(manifest):
        return []
    out = []
    with open(manifest) as f:
        for line in f:
            entry = json.loads(line)
            if entry.get("size", max_size + 1) <= max_size:
                out.append((os.path.join(CORPUS, entry["path"]), entry))
    return out


def builtin_json_records():
    """One record of each type the importer reads, on page 0 of the target's document."""
    base = {"v": 1, "pageIndex": 0, "bbox": [72, 72, 40, 20], "creatorName": "Ada",
            "createdAt": "2024-01-01T12:00:00Z", "updatedAt": "2024-01-01T12:00:00Z",
            "color": "#FF0000", "opacity": 0.5, "flags": ["print"]}
    records = [
        {"type": "pspdfkit/note", "text": "note", "icon": "comment", "name": "n1"},
        {"type": "pspdfkit/text", "text": "free text", "fontSize": 12, "fontColor": "#000000"},
        {"type": "pspdfkit/shape/rectangle", "strokeWidth": 2, "fillColor": "#00FF00"},
        {"type": "pspdfkit/shape/ellipse", "strokeWidth": 1, "strokeColor": "#0000FF"},
        {"type": "pspdfkit/shape/line", "startPoint": [72, 72], "endPoint": [112, 92],
         "lineCaps": {"start": "openArrow", "end": "circle"}},
        {"type": "pspdfkit/shape/polygon", "points": [[72, 72], [112, 72], [92, 92]]},
        {"type": "pspdfkit/shape/polyline", "points": [[72, 72], [112, 72], [92, 92]]},
        {"type": "pspdfkit/markup/highlight", "rects": [[72, 72, 40, 20]]},
        {"type": "pspdfkit/markup/underline", "rects": [[72, 72, 40, 20]]},
        {"type": "pspdfkit/markup/squiggly", "rects": [[72, 72, 40, 20]]},
        {"type": "pspdfkit/markup/strikeout", "rects": [[72, 72, 40, 20]]},
        {"type": "pspdfkit/ink", "lines": {"points": [[[72, 72], [80, 80], [90, 75]]],
                                          "intensities": [[1, 1, 1]]}, "lineWidth": 2},
        {"type": "pspdfkit/stamp", "stampType": "Approved"},
        {"type": "pspdfkit/link", "action": {"type": "uri", "uri": "https://example.com"}},
        {"type": "pspdfkit/note", "text": "a reply", "name": "r1",
         "quire": {"inReplyTo": "note", "replyType": "reply"}},
        {"type": "pspdfkit/note", "name": "s1", "flags": ["hidden"],
         "quire": {"inReplyTo": "note", "replyType": "reply", "state": "Rejected",
                   "stateModel": "Review"}},
        {"type": "pspdfkit/note", "name": "note", "text": "updated by name",
         "customData": {"ticket": "DOC-42", "n": [1, 2.5, None, True]}},
    ]
    return [dict(base, **r) for r in records]


def json_seeds(max_size):
    seeds = []
    fmt = "https://pspdfkit.com/instant-json/v1"
    records = builtin_json_records()
    for r in records:
        seeds.append({"format": fmt, "annotations": [r]})
    seeds.append({"format": fmt, "quire": {"version": 1, "pageCount": 2}, "annotations": records})
    # The examples of the schema's documentation.
    doc = os.path.join(ROOT, "docs", "annotation-json.md")
    if os.path.exists(doc):
        for block in re.findall(r"```json\n(.*?)```", open(doc).read(), re.S):
            try:
                seeds.append(json.loads(block))
            except ValueError:
                pass  # an excerpt with "..." in it
    out = [json.dumps(s, sort_keys=True).encode() for s in seeds]
    # What Quire exports from small corpus files that have annotations, moved to the two
    # pages of the target's document.
    try:
        sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
        import quire  # noqa: E402
    except Exception as e:  # the library is not built: `make` first for these seeds
        print(f"seed.py: no exported JSON seeds ({e})", file=sys.stderr)
        return out
    for path, entry in corpus_files(max_size):
        if not entry.get("raw", {}).get("has_token_Annots"):
            continue
        try:
            with quire.Document(path) as d:
                data = json.loads(d.export_annotations_json())
        except Exception:
            continue
        if not data.get("annotations"):
            continue
        for r in data["annotations"]:
            r["pageIndex"] = r.get("pageIndex", 0) % 2
        data.get("quire", {}).pop("pageCount", None)
        text = json.dumps(data, sort_keys=True).encode()
        if len(text) <= max_size:
            out.append(text)
    return out


def font_seeds(max_size, most=400):
    """The embedded font programs of corpus files, each prefixed with its selector byte."""
    try:
        import pikepdf
    except ImportError:
        return []
    keys = {"/FontFile": 0, "/FontFile2": 1, "/FontFile3": 2}
    out, seen = [], set()
    for path, _ in corpus_files(4 << 20):
        if len(out) >= most:
            break
        try:
            with pikepdf.open(path) as pdf:
                for obj in pdf.objects:
                    if not isinstance(obj, pikepdf.Dictionary) or obj.get("/Type") != "/FontDescriptor":
                        continue
                    for key, selector in keys.items():
                        stream = obj.get(key)
                        if stream is None:
                            continue
                        data = bytes(stream.read_bytes())
                        digest = hashlib.sha256(data).digest()
                        if len(data) <= max_size and digest not in seen:
                            seen.add(digest)
                            out.append(bytes([selector]) + data)
        except Exception:
            continue
    return out


def sig_seeds(max_size, most=200):
    """FuzzSignatures' seeds: selector byte 0 and a CMS SignedData (a detached signature that
    cryptography makes with a throwaway CA, with signed attributes; and the /Contents of the
    corpus's signed files), selector 1 and entries of a signature dictionary."""
    out = []
    try:
        import datetime

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        from cryptography.hazmat.primitives.serialization import pkcs7
        from cryptography.x509.oid import NameOID

        now = datetime.datetime.now(datetime.timezone.utc)
        for key in (ec.generate_private_key(ec.SECP256R1()), rsa.generate_private_key(65537, 2048)):
            name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Fuzz Signer")])
            cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                    .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
                    .sign(key, hashes.SHA256()))
            for digest in (hashes.SHA256(), hashes.SHA512()):
                out.append(b"\0" + pkcs7.PKCS7SignatureBuilder().set_data(b"%PDF-1.7 signed bytes")
                           .add_signer(cert, key, digest)
                           .sign(serialization.Encoding.DER, [pkcs7.PKCS7Options.DetachedSignature]))
    except ImportError:
        pass
    for path, _ in corpus_files(max_size * 64):
        if len(out) >= most:
            break
        try:
            data = open(path, "rb").read()
        except OSError:
            continue
        if b"/ByteRange" not in data:
            continue
        for m in re.finditer(rb"/Contents\s*<([0-9A-Fa-f\s]{64,20000})>", data):
            try:
                out.append(b"\0" + bytes.fromhex(re.sub(rb"\s", b"", m.group(1)).decode()).rstrip(b"\0"))
            except ValueError:
                pass
    for entries in (b"/Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0 10 20 30] /Contents <3000>",
                    b"/ByteRange [0 -1 99999999999 4] /Contents <30800000>",
                    b"/ByteRange [0 100 200] /Contents (x)",
                    b"/SubFilter /ETSI.CAdES.detached /ByteRange 7 0 R /Contents <>",
                    b"/Reference [<< /TransformMethod /DocMDP /TransformParams << /P 1 /V /1.2 >> >>] "
                    b"/ByteRange [0 1 2 3] /Contents <00> /M (D:20250101)",
                    b"/Reference [<< /TransformMethod /FieldMDP /TransformParams << /Action /Include /Fields [(Sig1)] >> >>]"):
        out.append(b"\1" + entries)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--max-size", type=int, default=16384)
    args = parser.parse_args()
    pdfs = [open(os.path.join(ROOT, "examples", "sample.pdf"), "rb").read()]
    for path, _ in corpus_files(args.max_size):
        try:
            pdfs.append(open(path, "rb").read())
        except OSError:
            pass
    for target in ("walk", "edit"):
        for data in pdfs:
            put(os.path.join(args.out, target), data)
    jsons = json_seeds(args.max_size)
    for data in jsons:
        put(os.path.join(args.out, "json"), data)
    fonts = font_seeds(args.max_size)
    for data in fonts:
        put(os.path.join(args.out, "font"), data)
    sigs = sig_seeds(args.max_size)
    for data in sigs:
        put(os.path.join(args.out, "sig"), data)
    print(f"seed.py: {len(pdfs)} PDFs (walk, edit), {len(jsons)} JSON documents, {len(fonts)} fonts, "
          f"{len(sigs)} signatures in {args.out}")


if __name__ == "__main__":
    main()
