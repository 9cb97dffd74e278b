#!/usr/bin/env python3
"""Inflate speed on a large image: Quire's stream decoding against qpdf's (pikepdf) and
zlib's own (Python's zlib module, the floor: the same zlib, no PDF library around it).

    python3 bench/inflate.py [--mb 48] [--reps 5]

Makes build/bench/image.pdf (one Flate image of --mb MiB, a gradient with noise, which
zlib compresses to about three quarters, like a scan's pixels), then decodes it in alternating fresh
processes and prints the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH = ROOT / "build" / "bench" / "image.pdf"

CHILD = r"""
import json, sys, time
kind, path = sys.argv[1], sys.argv[2]
if kind == "quire":
    sys.path.insert(0, sys.argv[3])
    import quire
    doc = quire.Document(path)
    number = next(n for n in range(1, doc.object_count + 1)
                  if isinstance(doc.get_object(n), quire.Stream) and doc.get_object(n).get("Subtype") == quire.Name("Image"))
    stream = doc.get_object(number)
    t = time.perf_counter(); data = doc.stream_data(stream); t = time.perf_counter() - t
elif kind == "qpdf":
    import pikepdf
    pdf = pikepdf.open(path)
    image = next(o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image")
    t = time.perf_counter(); data = image.read_bytes(); t = time.perf_counter() - t
else:
    import pikepdf, zlib
    pdf = pikepdf.open(path)
    image = next(o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image")
    raw = image.read_raw_bytes()
    t = time.perf_counter(); data = zlib.decompress(raw); t = time.perf_counter() - t
print(json.dumps({"seconds": t, "bytes": len(data)}))
"""


def make(mb: int) -> None:
    import pikepdf
    width = 4096
    rows = mb * (1 << 20) // width
    rng = random.Random(8)
    noise = bytes(b & 7 for b in rng.randbytes(1 << 16))
    out = bytearray()
    for y in range(rows):
        # A diagonal gradient plus three bits of noise per pixel.
        base = bytes(((x + y) // 16) & 0xF8 for x in range(width))
        k = (y * 977) % ((1 << 16) - width)
        out += (int.from_bytes(base, "big") | int.from_bytes(noise[k:k + width], "big")).to_bytes(width, "big")
    pdf = pikepdf.new()
    image = pikepdf.Stream(pdf, zlib.compress(bytes(out), 6))
    image.stream_dict = pikepdf.Dictionary(Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image, Width=width,
                                           Height=rows, ColorSpace=pikepdf.Name.DeviceGray, BitsPerComponent=8,
                                           Filter=pikepdf.Name.FlateDecode)
    pdf.add_blank_page()
    pdf.pages[0].Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=pdf.make_indirect(image)))
    PATH.parent.mkdir(parents=True, exist_ok=True)
    pdf.save(PATH, compress_streams=False, stream_decode_level=pikepdf.StreamDecodeLevel.none)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=48)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--binding", default=str(ROOT / "bindings" / "python"), help="where the quire package is")
    args = parser.parse_args()
    if not PATH.exists():
        make(args.mb)
    times = {"quire": [], "qpdf": [], "zlib": []}
    size = 0
    for rep in range(args.reps):
        for kind in times:
            r = subprocess.run([sys.executable, "-c", CHILD, kind, str(PATH), args.binding], capture_output=True, text=True)
            if r.returncode != 0:
                print(kind, "failed:", r.stderr.strip().splitlines()[-1:])
                return 1
            result = json.loads(r.stdout)
            times[kind].append(result["seconds"])
            size = result["bytes"]
    print("image: %.1f MB encoded, %.1f MB decoded" % (os.path.getsize(PATH) / 1e6, size / 1e6))
    for kind, values in times.items():
        print("%-6s median %.1f ms (%s)" % (kind, statistics.median(values) * 1000, ", ".join("%.0f" % (v * 1000) for v in values)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
