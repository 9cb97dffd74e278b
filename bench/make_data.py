#!/usr/bin/env python3
"""Generates the benchmark's large documents from a corpus file (nothing here is committed:
the output goes to build/bench/, which git ignores).

    large.pdf  the seed's page repeated --pages times (3000 by default), each copy with its
               own copies of the seed's annotations (markup, popups, the /IRT reply of the
               seed) plus two text replies (/IRT) to its first markup annotation; written
               with object streams and a cross-reference stream, as current writers do.
    big.pdf    large.pdf plus --image-mb megabytes of image XObjects (1 MiB each, Flate
               over incompressible pixels), one per page from the first: ~100 MB.

The seed is pdfannots/tests/caret.pdf from the corpus (one page, ten annotations: five
markup annotations, five popups, one /IRT group reply), which every peer opens.
Uses pikepdf (qpdf), which the benchmark installs anyway; run by bench/run.py when the files
are missing or older than this script.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = "pdfannots/tests/caret.pdf"
OPENABLE_KEYS = ("/P", "/Popup", "/Parent", "/IRT")


def build(seed_path: Path, pages: int, out: Path, image_mb: int, big: Path) -> None:
    import pikepdf

    seed = pikepdf.open(seed_path)
    src_page = seed.pages[0]
    pdf = pikepdf.new()
    # Content and resources of the seed page are shared by every copy (as in a scanned or
    # templated document); annotations are per page.
    template = pdf.copy_foreign(src_page.obj)
    contents = template.get("/Contents")
    resources = template.get("/Resources")
    media_box = template.get("/MediaBox")
    seed_annots = list(template.get("/Annots", []))
    for n in range(pages):
        page = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Page, MediaBox=media_box,
                                                    Contents=contents, Resources=resources))
        pdf.pages.append(pikepdf.Page(page))
        page = pdf.pages[-1].obj
        copies = {}
        for a in seed_annots:
            copies[a.objgen] = pdf.make_indirect(pikepdf.Dictionary({k: v for k, v in a.items() if k not in OPENABLE_KEYS}))
        for a in seed_annots:
            c = copies[a.objgen]
            c["/P"] = page
            for key in ("/Popup", "/Parent", "/IRT"):
                if key in a and a[key].objgen in copies:
                    c[key] = copies[a[key].objgen]
            if "/Contents" in a:
                c["/Contents"] = pikepdf.String("%s (page %d)" % (str(a["/Contents"]), n + 1))
        annots = [copies[a.objgen] for a in seed_annots]
        first_markup = next(a for a in annots if a.get("/Subtype") != pikepdf.Name.Popup)
        r = first_markup["/Rect"]
        for k in range(2):
            reply = pdf.make_indirect(pikepdf.Dictionary(
                Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Text, Rect=r, P=page, F=4,
                IRT=first_markup, T=pikepdf.String("Reviewer %d" % (k + 1)),
                Contents=pikepdf.String("Reply %d on page %d" % (k + 1, n + 1)),
                M=pikepdf.String("D:20250101120000Z"), Name=pikepdf.Name.Comment))
            annots.append(reply)
        page["/Annots"] = pikepdf.Array(annots)
    pdf.docinfo["/Title"] = pikepdf.String("Quire benchmark: %d pages from %s" % (pages, SEED))
    tmp = out.with_suffix(".tmp")
    pdf.save(tmp, object_stream_mode=pikepdf.ObjectStreamMode.generate, compress_streams=True)
    os.replace(tmp, out)

    # big.pdf: the same plus images, so that the file is ~100 MB.
    rng = random.Random(8)
    for n in range(image_mb):
        raw = rng.randbytes(1 << 20)  # 512 x 512 RGB plus change: incompressible pixels
        data = zlib.compress(raw, 1)
        image = pikepdf.Stream(pdf, data)
        image.stream_dict = pikepdf.Dictionary(Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image,
                                               Width=1024, Height=1024, ColorSpace=pikepdf.Name.DeviceGray,
                                               BitsPerComponent=8, Filter=pikepdf.Name.FlateDecode)
        page = pdf.pages[n % pages].obj
        res = pikepdf.Dictionary({k: v for k, v in resources.items()}) if "/Resources" in page else pikepdf.Dictionary()
        xobjects = pikepdf.Dictionary(res.get("/XObject", pikepdf.Dictionary()))
        xobjects[pikepdf.Name("/Im%d" % n)] = pdf.make_indirect(image)
        res["/XObject"] = xobjects
        page["/Resources"] = pdf.make_indirect(res)
    tmp = big.with_suffix(".tmp")
    pdf.save(tmp, object_stream_mode=pikepdf.ObjectStreamMode.generate, compress_streams=True,
             stream_decode_level=pikepdf.StreamDecodeLevel.none)
    os.replace(tmp, big)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--out", default=str(ROOT / "build" / "bench"))
    parser.add_argument("--pages", type=int, default=3000)
    parser.add_argument("--image-mb", type=int, default=96)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    build(Path(args.corpus) / SEED, args.pages, out / "large.pdf", args.image_mb, out / "big.pdf")
    for name in ("large.pdf", "big.pdf"):
        print("%s: %.1f MB" % (out / name, (out / name).stat().st_size / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
