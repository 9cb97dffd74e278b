#!/usr/bin/env python3
"""The checkpoint crash test: what the library acknowledged survives SIGKILL.

A child process opens a PDF with checkpoints (loading what an earlier child left) and
makes a random mix of every kind of change that reaches the checkpoint journal:
annotations of several subtypes added, updated and deleted; replies, state replies and
/IRT changes; bookmarks added, renamed, moved and removed; low-level objects added, set,
edited and deleted, and 50-200 KB streams rewritten until the journal is compacted in the
background; Instant JSON imports with explicit ids (new annotations, updates of existing
ones, replies); in-place, full and save-as saves; blocking and asynchronous checkpoints.
The parent kills it with SIGKILL: at a random moment; just after the child announced an
operation (so inside the library call more often than by chance); inside a save; while a
background compaction is writing its new journal; or while the child opens the document
and loads the checkpoint. It then reopens the document with the checkpoint and checks the
state it recovers. The next child continues from there.

How the expected states are known: the child keeps a *shadow* document, opened from the
same bytes with the same checkpoint applied but without checkpoints of its own. Each
operation is applied to the shadow first; the child prints "expect N OP DIGEST" (the
fingerprint of the state after operation N), then applies the operation to the real
document and prints "ack N" when the call returns. A save is done on the shadow too
(`save_to_bytes`, same mode), so that object numbers stay in step; after it, the shadow
is reopened from the bytes the real document wrote and compared with it.

The check after each kill, in terms of what the child was told:

- the file opens and its checkpoint loads (no error at all);
- the recovered state is the state after operation k for some L <= k <= U, where U is the
  last operation the child started (the one in flight, acknowledged or not) and L is the
  last point the library promised to be durable: for the immediate strategy the last
  acknowledged operation; for the manual strategy the last `checkpoint()` that returned
  or asynchronous checkpoint whose callback reported success (the state when it was
  requested); for the timed strategy the last save or blocking checkpoint (a timer tick
  cannot be observed); every completed save for all three;
- a recovered state earlier than L is "lost" (an acknowledged change is missing), any
  other state is "wrong" (changes doubled, half an operation, an unacknowledged change
  beyond the one in flight, a corrupted value);
- `qpdf --check` passes on the file (exit 0 or 3).

The fingerprint (`describe`) is a canonical description of the logical state: every
page's annotations (object number, subtype, rectangle, contents, /NM unless a generated
UUID, author, state, colours, opacity, flags, /IRT, quad points, ink), the bookmarks in
their custom order, the test objects (a registry dictionary in the catalog,
/QuireCrashTest, whose values are resolved: streams by a digest of their data) and the
object count. It leaves out dates and generated UUIDs, the only values that differ
between two documents given the same operations.

File kinds: a plain file; AES-256 (R6) and RC4-128 (R3) encrypted copies of it (made
with qpdf, opened with the user password); and documents opened from memory with a
checkpoint UID (plain and AES-128), whose saves go to a file the parent then opens
(atomically with `save(path)`, or through a file object into a temporary file that is
renamed: when the process dies between the end of the save and the rename, the
checkpoint belongs to the temporary file, which the parent then uses, as an application
would). Strategies: immediate, timed (every 0.05 s), manual (blocking and asynchronous
checkpoints).

    python3 Tests/python/checkpoint_crash.py [--trials N] [--seed S] [--jobs J]

`make test` runs 200 trials through Tests/python/test_checkpoints.py; `make test-crash`
runs 2,000. QUIRE_CRASH_SEED sets the seed of both; QUIRE_CRASH_KEEP=DIR keeps every
trial's files (the child's output, the PDF and the checkpoint) under DIR;
QUIRE_CRASH_DEBUG=1 makes children write the full description of every expected state,
and the parent show how a wrong state differs from the allowed ones.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# Appended, not inserted: a quire package on PYTHONPATH (an installed check, or another
# build of the library) is the one tested.
if str(REPO / "bindings" / "python") not in sys.path:
    sys.path.append(str(REPO / "bindings" / "python"))

STRATEGIES = ("immediate", "timed", "manual")
#: kind -> (opened from memory, qpdf encryption arguments or None)
KINDS: Dict[str, Tuple[bool, Optional[List[str]]]] = {
    "plain": (False, None),
    "aes256": (False, ["256"]),
    "rc4": (False, ["128", "--use-aes=n"]),
    "memory": (True, None),
    "memory-aes128": (True, ["128", "--use-aes=y"]),
}
USER_PASSWORD = "user-pw"
OWNER_PASSWORD = "owner-pw"
TIMED_INTERVAL = 0.05
REGISTRY_KEY = "QuireCrashTest"

#: Subtypes the library creates (and can update and delete); the sample also has Link,
#: Popup and Widget annotations, which are read but not targeted.
CREATED = ("Text", "FreeText", "Line", "Square", "Circle", "Polygon", "PolyLine", "Highlight", "Underline",
           "Squiggly", "StrikeOut", "Ink", "Stamp")
MARKUP = ("Highlight", "Underline", "Squiggly", "StrikeOut")
UUID = re.compile(r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")


# ------------------------------------------------------------------------------------------
# The fingerprint: a canonical description of the logical state
# ------------------------------------------------------------------------------------------


def _round(values: Any, digits: int = 2) -> Any:
    if values is None:
        return None
    if isinstance(values, (int, float)):
        return round(float(values), digits)
    return [_round(v, digits) for v in values]


def _canonical(doc: Any, value: Any, depth: int = 0) -> Any:
    """A JSON-able form of a PDF value; references stay references (by number), streams
    become their dictionary and a digest of their decoded data."""
    import quire

    if depth > 32:
        return "..."
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, quire.Name):
        return "/" + value
    if isinstance(value, (bytes, bytearray)):
        return "(" + bytes(value).hex()
    if isinstance(value, quire.Reference):
        return "R%d.%d" % (value.number, value.generation)
    if isinstance(value, quire.Stream):
        data = doc.stream_data(value)
        entries = {k: v for k, v in value.dictionary.items() if k not in ("Length", "Filter", "DecodeParms", "DL")}
        return {"stream": _canonical(doc, entries, depth + 1), "data": hashlib.sha1(data).hexdigest(), "size": len(data)}
    if isinstance(value, (list, tuple)):
        return [_canonical(doc, v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): _canonical(doc, v, depth + 1) for k, v in sorted(value.items())}
    return repr(value)


def registry_number(doc: Any) -> Optional[int]:
    """The object number of the test objects' registry, if the catalog has one."""
    import quire

    catalog = doc.get_object(doc.trailer["Root"])
    ref = catalog.get(REGISTRY_KEY) if isinstance(catalog, dict) else None
    return ref.number if isinstance(ref, quire.Reference) else None


def describe(doc: Any) -> Dict[str, Any]:
    """The logical state of `doc`, for comparing two documents."""
    import quire

    pages = []
    for page in doc.pages:
        items = []
        for a in page.annotations:
            subtype = a.subtype
            name = a.name
            if name is not None and UUID.match(name):
                name = "uuid"  # generated by add_reply and friends: differs between runs
            items.append({
                "id": a.id, "sub": subtype, "rect": _round(a.rect), "contents": a.contents, "nm": name,
                "author": a.author, "model": a.state_model, "state": a.state, "c": _round(a.color, 3),
                "ic": _round(a.interior_color, 3), "ca": _round(a.opacity, 3), "f": a.flags, "irt": a.in_reply_to,
                "quads": _round(a.quad_points) if subtype in MARKUP else None,
                "ink": _round(a.ink) if subtype == "Ink" else None,
            })
        pages.append(items)
    bookmarks = [[b.identifier, int(b.kind), b.page_index, b.target, b.name, b.sort_key] for b in doc.bookmarks]
    registry: Optional[Dict[str, Any]] = None
    number = registry_number(doc)
    if number is not None:
        registry = {}
        table = doc.get_object(number)
        for key, value in sorted((table or {}).items()):
            if isinstance(value, quire.Reference):
                registry[key] = [value.number, _canonical(doc, doc.get_object(value))]
            else:
                registry[key] = [None, _canonical(doc, value)]
    return {"pages": pages, "bookmarks": bookmarks, "registry": registry, "registry_object": number,
            "objects": doc.object_count}


def digest(description: Dict[str, Any]) -> str:
    text = json.dumps(description, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:20]


def fingerprint(doc: Any) -> str:
    """The digest of `describe(doc)`."""
    return digest(describe(doc))


def difference(a: Dict[str, Any], b: Dict[str, Any]) -> str:
    """What differs between two descriptions, briefly (for failure messages)."""
    out = []
    for key in sorted(set(a) | set(b)):
        if a.get(key) == b.get(key):
            continue
        if key == "pages":
            for index, (pa, pb) in enumerate(zip(a["pages"], b["pages"])):
                ia = {json.dumps(x, sort_keys=True) for x in pa}
                ib = {json.dumps(x, sort_keys=True) for x in pb}
                for x in sorted(ia - ib)[:4]:
                    out.append("page %d only in recovered: %s" % (index, x))
                for x in sorted(ib - ia)[:4]:
                    out.append("page %d only in expected: %s" % (index, x))
                if ia == ib and pa != pb:
                    out.append("page %d: same annotations, another order" % index)
        else:
            out.append("%s: recovered %s, expected %s" % (key, json.dumps(a.get(key))[:300], json.dumps(b.get(key))[:300]))
    return "; ".join(out) or "no difference"


# ------------------------------------------------------------------------------------------
# Opening documents
# ------------------------------------------------------------------------------------------


def open_document(path: str, memory: bool, password: Optional[str]) -> Any:
    import quire

    if memory:
        return quire.Document.from_bytes(Path(path).read_bytes(), password)
    return quire.Document(path, password)


def start(doc: Any, strategy: str, directory: str, uid: Optional[str]) -> bool:
    """Starts checkpoints, applying an existing checkpoint."""
    return doc.start_checkpoints(strategy, interval=TIMED_INTERVAL, directory=directory, uid=uid, existing="load")


def write_durably(path: str, data: bytes) -> None:
    temporary = path + ".part"
    with open(temporary, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)
    sync_directory(path)


def sync_directory(path: str) -> None:
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class RawFile:
    """A file object whose write() reaches the kernel at once (no user-space buffer that a
    SIGKILL would lose)."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

    def write(self, data: bytes) -> int:
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]
        return len(data)

    def close(self) -> None:
        os.fsync(self.fd)
        os.close(self.fd)


# ------------------------------------------------------------------------------------------
# The child: random operations on the real document and its shadow
# ------------------------------------------------------------------------------------------


class Op:
    """One operation: `apply(doc)` makes the same change on either document and returns
    what should be equal for both (a new object number, say)."""

    def __init__(self, name: str, apply: Callable[[Any], Any], after: Optional[Callable[[Any], None]] = None) -> None:
        self.name = name
        self.apply = apply
        self.after = after


class Child:
    def __init__(self, config: Dict[str, Any]) -> None:
        import quire

        self.quire = quire
        self.config = config
        self.rng = random.Random(config["seed"])
        self.print_lock = threading.Lock()
        self.memory = config["memory"]
        self.password = config["password"]
        self.strategy = config["strategy"]
        self.tag = "t%d" % config["trial"]
        self.n = 0  # operations started; state n is the state after operation n
        self.unregistered: List[int] = []  # objects added but not in the registry yet
        self.new_registry: Optional[int] = None
        self.blob: Optional[int] = None  # a big stream added, not linked yet
        self.old_blobs: List[int] = []  # replaced big streams, to delete
        self.saveas_count = 0
        self.debug = open(config["debug"], "a") if config.get("debug") else None
        profile = self.rng.random()
        # Some children rewrite big streams and rarely save, so that the journal passes
        # 1 MiB and four times its live records: the background compaction runs, and the
        # kill sometimes lands in it.
        self.compacting = profile < 0.3
        self.weights = self._weights()

    def out(self, line: str) -> None:
        with self.print_lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    # -- setup -----------------------------------------------------------------------------

    def open(self) -> None:
        quire = self.quire
        cfg = self.config
        self.path = cfg["source"]
        self.real = open_document(self.path, self.memory, self.password)
        start(self.real, self.strategy, cfg["directory"], cfg.get("uid"))
        self.checkpoint_path = self.real.checkpoint_path
        # The shadow: the same bytes with the same checkpoint applied (a copy of it, as the
        # real document holds the original's lock), without checkpoints of its own.
        shadow_dir = cfg["shadow_dir"]
        os.makedirs(shadow_dir, exist_ok=True)
        if self.checkpoint_path and os.path.exists(self.checkpoint_path):
            shutil.copyfile(self.checkpoint_path, os.path.join(shadow_dir, "shadow.qcheckpoint"))
        self.shadow = quire.Document.from_bytes(Path(cfg["source"]).read_bytes(), self.password)
        self.shadow.start_checkpoints("manual", directory=shadow_dir, uid="shadow", existing="load")
        self.shadow.stop_checkpoints(remove=True)
        self.state = describe(self.shadow)
        real = describe(self.real)
        if real != self.state:
            self.fail("the shadow differs from the real document after loading: " + difference(real, self.state))
        self.out("start %s" % digest(real))
        self.last_size = self._journal_size()

    def fail(self, message: str) -> None:
        self.out("error %d %s" % (self.n, message.replace("\n", " | ")))
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
        os._exit(3)

    def _journal_size(self) -> int:
        try:
            return os.stat(self.checkpoint_path).st_size if self.checkpoint_path else 0
        except OSError:
            return 0

    # -- the loop --------------------------------------------------------------------------

    def run(self) -> None:
        self.out("ready")
        limit = self.config.get("limit")
        while limit is None or self.n < limit:
            name = self._choose()
            if name == "close":
                self.real.close()
                self.out("closed %d" % self.n)
                return
            if name == "checkpoint":
                k = self.n
                self.real.checkpoint()
                self.out("durable %d" % k)
                self._note_compaction(False)
                continue
            if name == "checkpoint_async":
                k = self.n
                self.real.checkpoint(wait=False, done=lambda status, k=k: self.out(
                    ("durable %d" % k) if status == 0 else ("cpfail %d %d" % (k, status))))
                continue
            if name.startswith("save"):
                self._save(name)
                continue
            op = getattr(self, "op_" + name)()
            if op is None:
                continue
            self.n += 1
            try:
                expected = op.apply(self.shadow)
            except Exception:
                self.fail("operation %s failed on the shadow: %s" % (op.name, traceback.format_exc()))
            self.state = describe(self.shadow)
            self.out("expect %d %s %s" % (self.n, op.name, digest(self.state)))
            if self.debug:
                self.debug.write(json.dumps([self.n, self.state]) + "\n")
                self.debug.flush()
            try:
                got = op.apply(self.real)
            except Exception:
                self.fail("operation %s failed on the real document: %s" % (op.name, traceback.format_exc()))
            if got != expected:
                self.fail("operation %s gave %r on the real document, %r on the shadow" % (op.name, got, expected))
            self.out("ack %d" % self.n)
            if op.after:
                op.after(got)
            self._note_compaction(False)

    def _note_compaction(self, saved: bool) -> None:
        size = self._journal_size()
        if not saved and size < self.last_size:
            self.out("compacted %d %d" % (self.last_size, size))
        self.last_size = size

    # -- choosing --------------------------------------------------------------------------

    def _weights(self) -> Dict[str, float]:
        w = {
            "annot_add": 10, "annot_update": 7, "annot_delete": 5, "reply": 4, "state_reply": 3, "irt": 1,
            "json_import": 4, "bm_add": 3, "bm_rename": 2, "bm_move": 2, "bm_remove": 2,
            "obj_add": 3, "obj_register": 3, "obj_set": 3, "obj_setkey": 3, "obj_delete": 2, "obj_unregister": 1,
            "stream_add": 1, "blob_add": 1, "blob_free": 1, "blob_shrink": 1,
            "save": 2, "save_full": 0.7, "save_as": 1, "save_file": 1,
            "close": 0.05,
        }
        if self.strategy == "manual":
            w["checkpoint"] = 1.5
            w["checkpoint_async"] = 5
        elif self.strategy == "timed":
            w["checkpoint"] = 0.5
        if self.compacting:
            w["blob_add"] = 25
            for key in ("save", "save_full", "save_as", "save_file"):
                w[key] /= 8
            if self.strategy == "manual":
                w["checkpoint"] = 4
        if self.memory:
            w["save_as"] = 0
        else:
            w["save_file"] = 0
        # QUIRE_CRASH_OPS="annot_delete=0,save=2": other weights, to explore or to bisect.
        for item in filter(None, os.environ.get("QUIRE_CRASH_OPS", "").split(",")):
            key, _, value = item.partition("=")
            if key not in w:
                raise SystemExit("QUIRE_CRASH_OPS: no operation %r (%s)" % (key, ", ".join(sorted(w))))
            w[key] = float(value)
        return w

    def _choose(self) -> str:
        names = list(self.weights)
        weights = [self.weights[k] for k in names]
        annotations = sum(len(p) for p in self.state["pages"])
        if annotations > 45:
            weights[names.index("annot_delete")] *= 3
        if self.new_registry is not None:
            return "obj_register"
        # A big stream is linked into the registry and the one it replaces deleted soon
        # after it is added, so that the journal holds much more than its live records.
        if self.blob is not None and self.rng.random() < 0.7:
            return "blob_link"
        if self.old_blobs and self.rng.random() < 0.7:
            if self.weights["blob_free"] + self.weights["blob_shrink"] > 0:
                return self.rng.choices(["blob_free", "blob_shrink"],
                                        [self.weights["blob_free"], self.weights["blob_shrink"]])[0]
        while True:
            name = self.rng.choices(names, weights)[0]
            if name not in ("blob_free", "blob_shrink") and (name != "blob_add" or self.blob is None):
                return name

    # -- what the state holds --------------------------------------------------------------

    def _annotations(self, created_only: bool = True, stable_names: bool = False) -> List[Tuple[int, Dict[str, Any]]]:
        out = []
        for index, page in enumerate(self.state["pages"]):
            for a in page:
                if a["id"] is None:
                    continue
                if created_only and a["sub"] not in CREATED:
                    continue
                if stable_names and (a["nm"] in (None, "uuid")):
                    continue
                out.append((index, a))
        return out

    def _registered(self, streams: Optional[bool] = None) -> List[Tuple[str, int, Any]]:
        registry = self.state["registry"] or {}
        out = []
        for key, (number, value) in sorted(registry.items()):
            if number is None or key == "big":
                continue
            is_stream = isinstance(value, dict) and "stream" in value
            if value is None or (streams is not None and is_stream != streams):
                continue
            out.append((key, number, value))
        return out

    def _rect(self) -> Tuple[float, float, float, float]:
        rng = self.rng
        x, y = rng.randint(20, 480), rng.randint(60, 700)
        return (x, y, x + rng.randint(12, 110), y + rng.randint(10, 60))

    def _color(self) -> List[float]:
        return [self.rng.choice([0, 0.25, 0.5, 1]) for _ in range(3)]

    def _text(self, what: str) -> str:
        words = ["figure", "table", "typo", "check", "räksmörgås", "数据", "ok", "(paren)", "back\\slash"]
        return "%s %s %d %s" % (what, self.tag, self.n + 1, " ".join(self.rng.sample(words, 2)))

    def _value(self) -> Any:
        quire = self.quire
        rng = self.rng
        value: Dict[str, Any] = {"Type": quire.Name("QuireTestObject"), "N": rng.randint(-10**6, 10**6)}
        if rng.random() < 0.5:
            value["S"] = quire.String(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 24))))
        if rng.random() < 0.5:
            value["A"] = [rng.randint(0, 9), round(rng.uniform(-5, 5), 3), quire.Name("X%d" % rng.randint(0, 9)), None, True]
        if rng.random() < 0.3:
            value["D"] = {"Nested": {"Deep": [quire.String.from_text(self._text("nested"))]}}
        others = self._registered()
        if others and rng.random() < 0.4:
            value["R"] = quire.Reference(rng.choice(others)[1], 0)
        return value

    # -- operations: annotations -----------------------------------------------------------

    def op_annot_add(self) -> Op:
        quire = self.quire
        rng = self.rng
        subtype = rng.choice(CREATED)
        page = rng.randrange(len(self.state["pages"]))
        rect = self._rect()
        name = "q-%s-%d" % (self.tag, self.n + 1)
        contents = self._text(subtype)
        author = rng.choice(["Ada", "Bob", None])
        color = self._color()
        left, bottom, right, top = rect
        extra: Dict[str, Any] = {}
        if subtype in MARKUP:
            extra["quad_points"] = [left, top, right, top, left, bottom, right, bottom]
        elif subtype == "Ink":
            strokes = []
            for _ in range(rng.randint(1, 3)):
                points = rng.randint(2, 6)
                stroke: List[float] = []
                for i in range(points):
                    stroke += [left + (right - left) * i / (points - 1), rng.randint(int(bottom), int(top))]
                strokes.append(stroke)
            extra["ink"] = strokes
        elif subtype == "Line":
            extra["line"] = [left, bottom, right, top]
        elif subtype in ("Polygon", "PolyLine"):
            extra["vertices"] = [left, bottom, right, bottom, (left + right) / 2, top]
        elif subtype in ("Square", "Circle"):
            extra["interior_color"] = self._color()

        def apply(doc: Any) -> Any:
            a = quire.Annotation.new(subtype, page, rect)
            a.name = name
            a.contents = contents
            a.author = author
            a.color = color
            for key, value in extra.items():
                setattr(a, key, value)
            doc.add_annotation(a)
            return a.id

        return Op("annot_add:" + subtype, apply)

    def op_annot_update(self) -> Optional[Op]:
        candidates = self._annotations()
        if not candidates:
            return None
        rng = self.rng
        _, target = rng.choice(candidates)
        number = target["id"]
        field = rng.choice(["contents", "color", "rect", "author", "opacity", "contents"])
        if field == "contents":
            value: Any = self._text("edited")
        elif field == "color":
            value = self._color()
        elif field == "rect":
            value = self._rect()
        elif field == "author":
            value = rng.choice(["Ada", "Bob", "Carol", None])
        else:
            value = rng.choice([0.25, 0.5, 0.75, 1.0])

        def apply(doc: Any) -> Any:
            a = doc.annotation(number)
            setattr(a, field, value)
            doc.update_annotation(a)
            return a.id

        return Op("annot_update:" + field, apply)

    def op_annot_delete(self) -> Optional[Op]:
        candidates = self._annotations()
        if not candidates:
            return None
        _, target = self.rng.choice(candidates)
        number = target["id"]
        return Op("annot_delete", lambda doc: doc.delete_annotation(number))

    def _reply_targets(self) -> List[Tuple[int, Dict[str, Any]]]:
        return [(p, a) for p, a in self._annotations() if a["state"] is None]

    def op_reply(self) -> Optional[Op]:
        targets = self._reply_targets()
        if not targets:
            return None
        _, target = self.rng.choice(targets)
        number, author, text = target["id"], self.rng.choice(["Ada", "Bob"]), self._text("reply")
        return Op("reply", lambda doc: doc.add_reply(number, author, text).id)

    def op_state_reply(self) -> Optional[Op]:
        targets = self._reply_targets()
        if not targets:
            return None
        _, target = self.rng.choice(targets)
        number = target["id"]
        model = self.rng.choice(sorted(self.quire.STATE_MODELS))
        state = self.rng.choice(self.quire.STATE_MODELS[model])
        author = self.rng.choice(["Ada", "Bob"])
        return Op("state_reply", lambda doc: doc.add_state_reply(number, author, model, state).id)

    def op_irt(self) -> Optional[Op]:
        """Makes a top-level annotation reply to another of its page, or a reply top-level
        (never a cycle: the target is top-level)."""
        rng = self.rng
        annotations = self._annotations()
        replies = [a for _, a in annotations if a["irt"] is not None and a["state"] is None]
        if replies and rng.random() < 0.5:
            number = rng.choice(replies)["id"]
            return Op("irt_clear", lambda doc: doc.set_in_reply_to(number, None))
        top = [(p, a) for p, a in annotations if a["irt"] is None]
        pairs = [(a["id"], b["id"]) for p, a in top for q, b in top if p == q and a["id"] != b["id"]]
        if not pairs:
            return None
        number, target = rng.choice(pairs)
        return Op("irt_set", lambda doc: doc.set_in_reply_to(number, target))

    # -- operations: Instant JSON ----------------------------------------------------------

    _JSON_TYPES = {"Text": "pspdfkit/note", "Square": "pspdfkit/shape/rectangle", "Circle": "pspdfkit/shape/ellipse",
                   "Highlight": "pspdfkit/markup/highlight", "Ink": "pspdfkit/ink", "FreeText": "pspdfkit/text"}

    def _json_record(self, subtype: str, ident: str, page: int) -> Dict[str, Any]:
        rng = self.rng
        x, y = rng.randint(20, 480), rng.randint(60, 700)
        w, h = rng.randint(12, 110), rng.randint(10, 60)
        color = "#%02x%02x%02x" % tuple(rng.choice([0, 64, 128, 255]) for _ in range(3))
        record: Dict[str, Any] = {
            "v": 1, "type": self._JSON_TYPES[subtype], "id": ident, "pageIndex": page, "bbox": [x, y, w, h],
            "createdAt": "2026-01-02T03:04:05Z", "updatedAt": "2026-01-02T03:04:%02dZ" % rng.randint(0, 59),
            "creatorName": rng.choice(["Ada", "Bob", "Json"]),
        }
        text = self._text("json " + subtype)
        if subtype in ("Text", "FreeText"):
            record["text"] = text
        else:
            record["note"] = text
        if subtype == "Text":
            record["color"] = color
        elif subtype == "FreeText":
            record["fontSize"] = rng.choice([10, 12, 14])
        elif subtype in ("Square", "Circle"):
            record["strokeColor"] = color
            record["strokeWidth"] = rng.choice([1, 2, 3])
        elif subtype == "Highlight":
            record["rects"] = [[x, y, w, h]]
            record["color"] = color
        elif subtype == "Ink":
            record["lines"] = {"points": [[[x, y], [x + w / 2, y + h], [x + w, y]]], "intensities": [[1, 1, 1]]}
            record["strokeColor"] = color
            record["lineWidth"] = 2
        return record

    def op_json_import(self) -> Op:
        rng = self.rng
        records = []
        pages = len(self.state["pages"])
        for i in range(rng.randint(1, 3)):
            subtype = rng.choice(sorted(self._JSON_TYPES))
            records.append(self._json_record(subtype, "j-%s-%d-%d" % (self.tag, self.n + 1, i), rng.randrange(pages)))
        # An update of an annotation already in the document (by its /NM), whole.
        existing = [(p, a) for p, a in self._annotations(stable_names=True) if a["sub"] in self._JSON_TYPES]
        if existing and rng.random() < 0.6:
            page, a = rng.choice(existing)
            records.append(self._json_record(a["sub"], a["nm"], page))
        # A reply and a state reply, to a record of this JSON or to a stable name.
        if rng.random() < 0.5:
            parent = rng.choice(records)
            reply = self._json_record("Text", "j-%s-%d-reply" % (self.tag, self.n + 1), parent["pageIndex"])
            reply["quire"] = {"inReplyTo": parent["id"]}
            records.append(reply)
            if rng.random() < 0.5:
                state = self._json_record("Text", "j-%s-%d-state" % (self.tag, self.n + 1), parent["pageIndex"])
                state["quire"] = {"inReplyTo": parent["id"], "stateModel": "Review",
                                  "state": rng.choice(["Accepted", "Rejected", "Completed"])}
                records.append(state)
        payload = json.dumps({"format": "https://pspdfkit.com/instant-json/v1", "annotations": records})
        return Op("json_import:%d" % len(records), lambda doc: doc.import_annotations_json(payload))

    # -- operations: bookmarks -------------------------------------------------------------

    def op_bm_add(self) -> Op:
        quire = self.quire
        rng = self.rng
        name = self._text("bookmark") if rng.random() < 0.8 else None
        choice = rng.random()
        if choice < 0.6:
            bookmark = quire.Bookmark.for_page(rng.randrange(len(self.state["pages"])), name=name)
        elif choice < 0.8:
            bookmark = quire.Bookmark.for_uri("https://example.com/%s/%d" % (self.tag, self.n), name=name)
        else:
            bookmark = quire.Bookmark.for_named_action(rng.choice(["NextPage", "PrevPage", "FirstPage"]), name=name)
        return Op("bm_add", lambda doc: doc.bookmarks.add(bookmark))

    def op_bm_rename(self) -> Optional[Op]:
        if not self.state["bookmarks"]:
            return None
        identifier = self.rng.choice(self.state["bookmarks"])[0]
        name = self._text("renamed")

        def apply(doc: Any) -> None:
            doc.bookmarks.add(doc.bookmarks.get(identifier).replace(name=name))

        return Op("bm_rename", apply)

    def op_bm_move(self) -> Optional[Op]:
        marks = self.state["bookmarks"]
        if len(marks) < 2:
            return None
        identifier = self.rng.choice(marks)[0]
        index = self.rng.randrange(len(marks))
        return Op("bm_move", lambda doc: doc.bookmarks.move(identifier, index))

    def op_bm_remove(self) -> Optional[Op]:
        if not self.state["bookmarks"]:
            return None
        identifier = self.rng.choice(self.state["bookmarks"])[0]
        return Op("bm_remove", lambda doc: doc.bookmarks.remove(identifier))

    # -- operations: low-level objects -----------------------------------------------------

    def op_obj_add(self) -> Op:
        value = self._value()

        def after(reference: Any) -> None:
            self.unregistered.append(reference.number)

        return Op("obj_add", lambda doc: doc.add_object(value), after)

    def op_stream_add(self) -> Op:
        quire = self.quire
        text = (self._text("stream") + "\n") * self.rng.randint(1, 200)
        data = zlib.compress(text.encode())

        def after(reference: Any) -> None:
            self.unregistered.append(reference.number)

        return Op("stream_add", lambda doc: doc.add_stream({"Filter": quire.Name("FlateDecode"),
                                                            "Type": quire.Name("QuireTestStream")}, data), after)

    def op_obj_register(self) -> Optional[Op]:
        quire = self.quire
        number = registry_number_of(self.state)
        if number is None:
            if self.new_registry is None:
                def after(reference: Any) -> None:
                    self.new_registry = reference.number

                return Op("registry_add", lambda doc: doc.add_object({"Type": quire.Name("QuireCrashRegistry")}), after)
            new = self.new_registry
            self.new_registry = None

            def link(doc: Any) -> None:
                doc.set_dict_value(doc.trailer["Root"], REGISTRY_KEY, quire.Reference(new, 0))

            return Op("registry_link", link)
        if not self.unregistered:
            return None
        item = self.unregistered.pop(self.rng.randrange(len(self.unregistered)))
        key = "k%s-%d" % (self.tag, self.n + 1)
        return Op("obj_register", lambda doc: doc.set_dict_value(number, key, quire.Reference(item, 0)))

    def op_obj_set(self) -> Optional[Op]:
        objects = self._registered(streams=False)
        if not objects:
            return None
        _, number, _ = self.rng.choice(objects)
        value = self._value() if self.rng.random() < 0.8 else [1, 2, self.quire.String(b"array now")]
        return Op("obj_set", lambda doc: doc.set_object(number, value))

    def op_obj_setkey(self) -> Optional[Op]:
        objects = [o for o in self._registered() if isinstance(o[2], dict)]
        if not objects:
            return None
        _, number, _ = self.rng.choice(objects)
        key = self.rng.choice(["N", "S", "A", "Extra", "Type"])
        value = None if self.rng.random() < 0.25 else self.rng.choice([
            self.rng.randint(0, 99), self.quire.Name("V%d" % self.rng.randint(0, 9)),
            self.quire.String(self._text("value").encode("utf-8")), [self.rng.random() < 0.5]])
        return Op("obj_setkey" if value is not None else "obj_delkey", lambda doc: doc.set_dict_value(number, key, value))

    def op_obj_delete(self) -> Optional[Op]:
        objects = self._registered()
        if not objects:
            return None
        _, number, _ = self.rng.choice(objects)
        return Op("obj_delete", lambda doc: doc.delete_object(number))

    def op_obj_unregister(self) -> Optional[Op]:
        registry = self.state["registry"] or {}
        keys = [k for k in registry if k != "big"]
        number = registry_number_of(self.state)
        if not keys or number is None:
            return None
        key = self.rng.choice(sorted(keys))
        return Op("obj_unregister", lambda doc: doc.set_dict_value(number, key, None))

    def op_blob_add(self) -> Op:
        """A big stream (50-200 KB, incompressible): the journal grows fast."""
        quire = self.quire
        data = self.rng.randbytes(self.rng.randint(50_000, 200_000))
        sequence = self.n + 1

        def after(reference: Any) -> None:
            self.blob = reference.number

        return Op("blob_add", lambda doc: doc.add_stream({"Type": quire.Name("QuireBlob"), "Seq": sequence}, data), after)

    def op_blob_link(self) -> Optional[Op]:
        quire = self.quire
        blob = self.blob
        number = registry_number_of(self.state)
        if blob is None:
            return None
        if number is None:
            return self.op_obj_register()  # the registry first
        self.blob = None
        old = (self.state["registry"] or {}).get("big")
        if old and old[0] is not None and old[1] is not None:
            self.old_blobs.append(old[0])
        return Op("blob_link", lambda doc: doc.set_dict_value(number, "big", quire.Reference(blob, 0)))

    def op_blob_free(self) -> Optional[Op]:
        """Deletes a replaced big stream."""
        if not self.old_blobs:
            return None
        number = self.old_blobs.pop(0)
        return Op("blob_free", lambda doc: doc.delete_object(number))

    def op_blob_shrink(self) -> Optional[Op]:
        """Replaces a replaced big stream by a small object (its live record shrinks
        without a deletion)."""
        if not self.old_blobs:
            return None
        number = self.old_blobs.pop(0)
        value = {"Type": self.quire.Name("QuireFormerBlob")}
        return Op("blob_shrink", lambda doc: doc.set_object(number, value))

    # -- saves -----------------------------------------------------------------------------

    def _save(self, how: str) -> None:
        """A save, as one operation: the shadow saves the same way first (to bytes) and
        continues from them, which gives the state after the save (a full save renumbers
        objects); the real document then saves; the shadow is reopened from what the real
        document wrote, and must equal it."""
        cfg = self.config
        full = how == "save_full"
        object_streams = full and self.rng.random() < 0.5
        if how == "save_as":
            self.saveas_count += 1
            target = os.path.join(cfg["save_dir"], "doc-%s-%d.pdf" % (self.tag, self.saveas_count))
        else:
            target = self.path  # where the document is now (a save-as moves it)
        self.n += 1
        expected_bytes = self.shadow.save_to_bytes(full=full, object_streams=object_streams)
        self.state = describe(self.shadow)
        name = how + (":objstm" if object_streams else "")
        self.out("expect %d %s %s %s" % (self.n, name, digest(self.state), target))
        if self.debug:
            self.debug.write(json.dumps([self.n, self.state]) + "\n")
            self.debug.flush()
        try:
            if how == "save_file":
                # Through a file object into a temporary file, renamed once the save returned.
                temporary = target + ".tmp"
                sink = RawFile(temporary)
                self.real.save(sink)
                sink.close()
                time.sleep(0.004)  # an application's own work: the kill sometimes lands here
                os.replace(temporary, target)
                sync_directory(target)
            else:
                self.real.save(target, full=full, object_streams=object_streams)
        except Exception:
            self.fail("%s failed: %s" % (how, traceback.format_exc()))
        self.out("ack %d" % self.n)
        written = Path(target).read_bytes()
        self.shadow.close()
        self.shadow = self.quire.Document.from_bytes(written, self.password)
        state = describe(self.shadow)
        if state != self.state:
            self.fail("the saved file differs from the shadow's save: " + difference(state, self.state))
        if not self.password and not object_streams and normalized(written) != normalized(expected_bytes):
            # Generated names and dates aside (compressed in object streams, encrypted in an
            # encrypted file), the same changes should save the same bytes.
            self.out("note %d the saved bytes differ from the shadow's" % self.n)
            if self.debug:
                Path(self.config["debug"] + ".%d.expected.pdf" % self.n).write_bytes(expected_bytes)
                Path(self.config["debug"] + ".%d.written.pdf" % self.n).write_bytes(written)
        real = describe(self.real)
        if real != state:
            self.fail("the document after its save differs from the file it wrote: " + difference(real, state))
        if how == "save_as":
            self.path = target
            self.checkpoint_path = self.real.checkpoint_path
        self.unregistered = []  # a full save drops unreachable objects: forget them all
        self.new_registry = None
        self.blob = None
        self.old_blobs = []
        self._note_compaction(True)


_VOLATILE = re.compile(rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|D:\d{14}")


def normalized(data: bytes) -> bytes:
    """Saved bytes without generated UUIDs and dates (of the same length, so offsets stay)."""
    return _VOLATILE.sub(lambda m: b"x" * len(m.group(0)), data)


def registry_number_of(state: Dict[str, Any]) -> Optional[int]:
    return state.get("registry_object")


def child_main(config: Dict[str, Any]) -> int:
    child = Child(config)
    child.open()
    child.run()
    return 0


# ------------------------------------------------------------------------------------------
# The parent
# ------------------------------------------------------------------------------------------


class Result:
    def __init__(self) -> None:
        self.trials = 0
        self.acknowledged = 0
        self.killed_during_save = 0
        self.killed_in_flight = 0  # an operation started (expected) but not acknowledged
        self.killed_before_ready = 0
        self.killed_during_compaction = 0
        self.compactions = 0
        self.closed = 0
        self.loaded = 0  # recoveries that applied a checkpoint
        self.from_temporary = 0  # memory documents recovered from the renamed-to-be file
        self.byte_differences = 0  # saves whose bytes differ from the shadow's (not a failure)
        self.lost = 0
        self.unloadable = 0
        self.wrong = 0
        self.other = 0
        self.failures: List[str] = []
        self.ops: "collections.Counter[Tuple[str, str, str]]" = collections.Counter()
        self.trials_by: "collections.Counter[Tuple[str, str]]" = collections.Counter()
        self.kill_modes: "collections.Counter[str]" = collections.Counter()
        self.seconds = 0.0

    def merge(self, other: "Result") -> None:
        for key, value in vars(other).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                setattr(self, key, getattr(self, key) + value)
        self.failures += other.failures
        self.ops.update(other.ops)
        self.trials_by.update(other.trials_by)
        self.kill_modes.update(other.kill_modes)

    def summary(self) -> str:
        lines = [
            "%d trials, %d acknowledged operations, %d failures (%d lost, %d unloadable, %d wrong states, %d other)"
            % (self.trials, self.acknowledged, len(self.failures), self.lost, self.unloadable, self.wrong, self.other),
            "kills: %d during a save, %d with an operation in flight, %d before the child was ready, "
            "%d during a background compaction; %d compactions seen, %d children closed the document"
            % (self.killed_during_save, self.killed_in_flight, self.killed_before_ready,
               self.killed_during_compaction, self.compactions, self.closed),
            "recoveries: %d applied a checkpoint, %d took a memory document's unrenamed save; "
            "%d saves differed from the shadow's in more than names and dates"
            % (self.loaded, self.from_temporary, self.byte_differences),
            "kill timing: " + ", ".join("%s %d" % item for item in sorted(self.kill_modes.items())),
        ]
        for strategy in STRATEGIES:
            for kind in KINDS:
                trials = self.trials_by[(strategy, kind)]
                if not trials:
                    continue
                ops: "collections.Counter[str]" = collections.Counter()
                for (s, k, op), count in self.ops.items():
                    if s == strategy and k == kind:
                        ops[op.split(":")[0]] += count
                lines.append("  %-9s %-13s %4d trials, %5d ops: %s" % (
                    strategy, kind, trials, sum(ops.values()),
                    " ".join("%s=%d" % (op, count) for op, count in sorted(ops.items()))))
        return "\n".join(lines)


def encrypt(source: Path, target: Path, arguments: List[str]) -> None:
    """An encrypted copy of `source` with the user password, by qpdf (or pikepdf)."""
    qpdf = shutil.which("qpdf")
    if qpdf:
        command = [qpdf, "--allow-weak-crypto", "--encrypt", USER_PASSWORD, OWNER_PASSWORD] + arguments + \
                  ["--", str(source), str(target)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode not in (0, 3):
            raise RuntimeError("qpdf could not encrypt: %s" % done.stderr)
        return
    import pikepdf  # noqa: F401 - the fallback

    bits = arguments[0]
    aes = "--use-aes=n" not in arguments
    with pikepdf.open(str(source)) as pdf:
        pdf.save(str(target), encryption=pikepdf.Encryption(user=USER_PASSWORD, owner=OWNER_PASSWORD,
                                                            R=6 if bits == "256" else 4 if aes else 3, aes=aes))


class Stop(threading.Event):
    """Set when the run should stop early; counts the failures of every block."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.failures = 0


class LineReader:
    """Reads a child's output as it comes, without a buffer that communicate() would miss."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.seen = b""
        self.start = 0  # where the first line not looked at yet begins

    def until(self, predicate: Callable[[str], bool], timeout: float) -> bool:
        """Reads until a line satisfies `predicate` (True), or the timeout or the end of
        the output (False)."""
        deadline = time.monotonic() + timeout
        while True:
            end = self.seen.find(b"\n", self.start)
            while end >= 0:
                line = self.seen[self.start:end].decode(errors="replace")
                self.start = end + 1
                if predicate(line):
                    return True
                end = self.seen.find(b"\n", self.start)
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return False
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return False
            self.seen += chunk


class Block:
    """One file, one strategy: a chain of trials, each child continuing from the state the
    previous one left."""

    def __init__(self, index: int, kind: str, strategy: str, trials: int, seed: int, source: Path, work: Path,
                 max_delay: float, first_trial: int, stop: "Stop", stop_after: Optional[int], debug: bool = False) -> None:
        self.index = index
        self.kind = kind
        self.strategy = strategy
        self.trials = trials
        self.rng = random.Random("%d-%d" % (seed, index))
        self.work = work
        self.max_delay = max_delay
        self.first_trial = first_trial
        self.stop = stop
        self.stop_after = stop_after
        self.memory, encryption = KINDS[kind]
        self.password = USER_PASSWORD if encryption else None
        self.uid = "mem-%d" % index if self.memory else None
        work.mkdir(parents=True)
        self.directory = work / "checkpoints"
        self.save_dir = work / "saved"
        self.save_dir.mkdir()
        self.path = work / ("mem.pdf" if self.memory else "doc.pdf")
        if encryption:
            encrypt(source, self.path, encryption)
        else:
            shutil.copyfile(source, self.path)
        self.result = Result()
        self.state: Optional[str] = None  # the digest of the state the next child starts from
        self.description: Optional[Dict[str, Any]] = None
        self.kill_mode = ""  # how the current trial's child was killed, for failure messages
        self.keep = os.environ.get("QUIRE_CRASH_KEEP")
        self.debug = debug or bool(os.environ.get("QUIRE_CRASH_DEBUG"))
        self.env = dict(os.environ)
        import quire

        package = str(Path(quire.__file__).resolve().parent.parent)
        self.env["PYTHONPATH"] = os.pathsep.join(filter(None, [package, self.env.get("PYTHONPATH")]))

    def fail(self, trial: int, kind: str, message: str) -> None:
        setattr(self.result, kind, getattr(self.result, kind) + 1)
        self.result.failures.append("trial %d (%s, %s, block %d): %s" % (
            trial, self.strategy, self.kind, self.index, message))
        with self.stop.lock:
            self.stop.failures += 1
            if self.stop_after is not None and self.stop.failures >= self.stop_after:
                self.stop.set()

    # -- recovery --------------------------------------------------------------------------

    def recover(self, trial: int) -> Tuple[Optional[Dict[str, Any]], bool]:
        """Opens the document with its checkpoint as the next child will; returns its
        description (None when even the file alone does not open) and whether the
        checkpoint loaded (else the failure is recorded, the checkpoint removed, and the
        description is that of the file alone)."""
        import quire

        temporary = str(self.path) + ".tmp"
        try:
            try:
                description, loaded = self._open(str(self.path))
            except quire.StaleError:
                # A memory document saved through a file object: the process died after the
                # save returned and before the application renamed the file it wrote. The
                # checkpoint belongs to that file; an application recovers from it.
                if not (self.memory and os.path.exists(temporary)):
                    raise
                description, loaded = self._open(temporary)
                os.replace(temporary, self.path)
                self.result.from_temporary += 1
            else:
                if os.path.exists(temporary):
                    os.unlink(temporary)  # a save that did not finish: the file and checkpoint hold it
        except Exception as error:  # noqa: BLE001 - any error is the finding
            self.fail(trial, "unloadable", "the document or its checkpoint does not load: %s: %s"
                      % (type(error).__name__, error))
            # Go on without the checkpoint, from what the file holds.
            for name in os.listdir(self.directory):
                if name.endswith(".qcheckpoint"):
                    os.unlink(self.directory / name)
            try:
                description, loaded = self._open(str(self.path))
            except Exception as again:  # noqa: BLE001
                self.fail(trial, "other", "the file alone does not open either: %s" % again)
                self.stop.set()
                return None, False
            return description, False
        self.result.loaded += loaded
        return description, True

    def _open(self, path: str) -> Tuple[Dict[str, Any], bool]:
        doc = open_document(path, self.memory, self.password)
        try:
            loaded = doc.start_checkpoints("manual", directory=str(self.directory), uid=self.uid, existing="load")
            description = describe(doc)
            doc.stop_checkpoints()
        finally:
            doc.close()
        return description, loaded

    # -- trials ----------------------------------------------------------------------------

    def run(self) -> Result:
        started = time.monotonic()
        description, _ = self.recover(self.first_trial)
        if description is None:
            return self.result
        self.description = description
        self.state = digest(description)
        for trial in range(self.first_trial, self.first_trial + self.trials):
            if self.stop.is_set():
                break
            if not self.trial(trial):
                break
        self.result.seconds = time.monotonic() - started
        return self.result

    def trial(self, trial: int) -> bool:
        rng = self.rng
        debug_file = str(self.work / ("expect-%d.jsonl" % trial)) if self.debug else None
        config: Dict[str, Any] = {
            "trial": trial, "seed": rng.getrandbits(32), "strategy": self.strategy, "memory": self.memory,
            "password": self.password, "uid": self.uid, "source": str(self.path), "directory": str(self.directory),
            "shadow_dir": str(self.work / ("shadow-%d" % trial)), "save_dir": str(self.save_dir), "debug": debug_file,
        }
        # A compaction's new journal (UID.qcheckpoint.compact) that a killed child left
        # stays until the next compaction of that UID: only a new or rewritten one counts.
        stale = self._compactions()
        process = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(config)],
                                   env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        assert process.stdout is not None
        reader = LineReader(process.stdout.fileno())
        mode = rng.choices(["random", "in_op", "in_save", "in_compaction", "early"], [47, 30, 13, 5, 5])[0]
        if mode == "early":
            # The kill lands while the child opens the document and loads the checkpoint
            # (which truncates a torn tail), or soon after.
            time.sleep(rng.uniform(0, 0.25))
        else:
            reader.until(lambda line: line == "ready", 60)
            if mode == "random":
                time.sleep(rng.uniform(0, self.max_delay))
            elif mode == "in_op":
                # Just after the child said which operation it starts on the real document:
                # the kill lands inside the library call more often than at a random time.
                time.sleep(rng.uniform(0, self.max_delay * 0.7))
                if reader.until(lambda line: line.startswith("expect "), 1.0):
                    time.sleep(rng.uniform(0, 0.004))
            elif mode == "in_save":
                # Inside a save (when one comes soon); for memory documents often the save
                # through a file object, whose temporary file is renamed after it returns.
                wanted = "save_file" if self.memory and rng.random() < 0.5 else "save"
                if reader.until(lambda line: line.startswith("expect ") and line.split(" ")[2].startswith(wanted), 1.5):
                    time.sleep(rng.uniform(0, 0.012))
            else:
                # While a background compaction has its new journal in the making (when one
                # starts soon).
                deadline = time.monotonic() + 1.5
                while time.monotonic() < deadline:
                    if self._compactions() - stale:
                        time.sleep(rng.uniform(0, 0.004))
                        break
                    if process.poll() is not None:
                        break
                    reader.until(lambda line: False, 0.001)  # drain the pipe meanwhile
        compacting = bool(self._compactions() - stale)
        process.send_signal(signal.SIGKILL)
        out_bytes, err_bytes = process.communicate(timeout=60)
        out_bytes = reader.seen + out_bytes
        out, err = out_bytes.decode(errors="replace"), err_bytes.decode(errors="replace")
        compacting = compacting or bool(self._compactions() - stale)
        if self.keep:
            keep = Path(self.keep) / ("block%d" % self.index) / ("trial%d" % trial)
            keep.mkdir(parents=True, exist_ok=True)
            (keep / "child.out").write_text(out + "\n---\n" + err)
            if self.directory.exists():
                shutil.copytree(self.directory, keep / "checkpoints", dirs_exist_ok=True)
            shutil.copyfile(self.path, keep / self.path.name)
        shutil.rmtree(config["shadow_dir"], ignore_errors=True)
        self.result.kill_modes[mode] += 1
        failures = len(self.result.failures)
        self.kill_mode = "%s%s" % (mode, ", during a compaction" if compacting else "")
        going_on = self.check(trial, out, err, compacting, debug_file)
        if debug_file and len(self.result.failures) == failures:
            # What a passing trial expected is not needed any more (a failing one's stays).
            for name in os.listdir(self.work):
                if name.startswith(os.path.basename(debug_file)):
                    os.unlink(self.work / name)
        return going_on

    def _compactions(self) -> set:
        """The compactions' new journals in the checkpoint directory, with their times."""
        found = set()
        try:
            for entry in os.scandir(self.directory):
                if entry.name.endswith(".compact"):
                    try:
                        found.add((entry.name, entry.stat().st_mtime_ns))
                    except OSError:
                        pass
        except OSError:
            pass
        return found

    def check(self, trial: int, out: str, err: str, compacting: bool, debug_file: Optional[str]) -> bool:
        result = self.result
        expects: Dict[int, Tuple[str, str, Optional[str]]] = {}
        acked: List[int] = []
        durable: List[int] = []
        start_state: Optional[str] = None
        closed = False
        ready = False
        for line in out.splitlines():
            words = line.split(" ")
            if words[0] == "expect" and len(words) >= 4:
                expects[int(words[1])] = (words[2], words[3], words[4] if len(words) > 4 else None)
            elif words[0] == "ack":
                acked.append(int(words[1]))
            elif words[0] == "durable":
                durable.append(int(words[1]))
            elif words[0] == "start":
                start_state = words[1]
            elif words[0] == "ready":
                ready = True
            elif words[0] == "compacted":
                result.compactions += 1
            elif words[0] == "note":
                result.byte_differences += 1
            elif words[0] == "closed":
                closed = True
            elif words[0] == "error":
                self.fail(trial, "other", "the child failed: %s" % line[:3000])
            elif words[0] == "cpfail":
                self.fail(trial, "other", "an asynchronous checkpoint failed: %s" % line)
        if "Traceback" in err and "error " not in out:
            self.fail(trial, "other", "the child failed: %s" % err[-3000:])
        result.trials += 1
        result.trials_by[(self.strategy, self.kind)] += 1
        result.closed += closed
        result.killed_before_ready += not ready
        result.killed_during_compaction += compacting
        if start_state is not None and start_state != self.state:
            self.fail(trial, "wrong", "the child opened state %s, the parent recovered %s" % (start_state, self.state))
        # The states: 0 is the start, k the state after operation k.
        states: Dict[int, str] = {0: start_state or self.state or ""}
        for k, (_, state, _) in expects.items():
            states[k] = state
        for k in acked:
            result.ops[(self.strategy, self.kind, expects[k][0])] += 1
        result.acknowledged += len(acked)
        last = max(expects) if expects else 0
        if expects and last not in acked:
            result.killed_in_flight += 1
            if expects[last][0].startswith("save"):
                result.killed_during_save += 1
        saves = [k for k in acked if expects[k][0].startswith("save")]
        if self.strategy == "immediate" or (closed and self.strategy == "timed"):
            low = max(acked, default=0)
        elif self.strategy == "manual":
            low = max(durable + saves, default=0)
        else:
            low = max(durable + saves, default=0)
        high = last
        # Where the document is now: a save-as moves it (once its file exists).
        for k in sorted(expects):
            op, _, target = expects[k]
            if op.startswith("save_as") and target and os.path.exists(target):
                self.path = Path(target)
                if k > low:
                    low = k  # the saved file holds this state: nothing earlier can come back
        description, loaded = self.recover(trial)
        if description is None:
            return False
        recovered = digest(description)
        allowed = {states[k] for k in range(low, high + 1) if k in states}
        if loaded and recovered not in allowed:
            earlier = [k for k in sorted(states) if k < low and states[k] == recovered]
            detail = "killed %s; recovered %s; allowed the states after operations %d..%d (%s)" % (
                self.kill_mode, recovered, low, high, ", ".join("%d %s" % (k, expects[k][0] if k in expects else "start")
                                                for k in range(max(low, high - 3), high + 1)))
            if debug_file and os.path.exists(debug_file):
                detail += "; " + self._closest(description, debug_file, low, high)
            if earlier:
                self.fail(trial, "lost", "acknowledged changes are missing: the state is the one after operation %d; %s"
                          % (earlier[-1], detail))
            else:
                self.fail(trial, "wrong", "the recovered state is none of the allowed ones: %s" % detail)
        self.state = recovered
        self.description = description
        qpdf = shutil.which("qpdf")
        if qpdf:
            command = [qpdf] + (["--password=" + self.password] if self.password else []) + ["--check", str(self.path)]
            check = subprocess.run(command, capture_output=True, text=True)
            if check.returncode not in (0, 3):
                self.fail(trial, "other", "qpdf --check: %s" % (check.stdout + check.stderr)[-2000:])
        return True

    def _closest(self, description: Dict[str, Any], debug_file: str, low: int, high: int) -> str:
        states = {}
        with open(debug_file) as lines:
            for line in lines:
                k, state = json.loads(line)
                states[k] = state
        candidates = [k for k in range(low, high + 1) if k in states]
        if not candidates:
            return "no description of the allowed states"
        best = min(candidates, key=lambda k: len(difference(description, states[k])))
        return "against the state after operation %d: %s" % (best, difference(description, states[best]))


def plan(trials: int, per_file: Optional[int], kinds: List[str], strategies: List[str]) -> List[Tuple[str, str, int]]:
    """Blocks of (kind, strategy, trials): every combination gets its share, in turn."""
    combos = [(k, s) for s in strategies for k in kinds]
    if per_file is None:
        per_file = max(1, min(20, -(-trials // len(combos))))
    count = max(len(combos), -(-trials // per_file))  # blocks, at least one per combination
    base, extra = divmod(trials, count)
    return [combos[i % len(combos)] + (base + (i < extra),) for i in range(count) if base + (i < extra) > 0]


def run(trials: int, seed: int, source: Path, work: Path, max_delay: float = 0.3, per_file: Optional[int] = None,
        jobs: int = 2, kinds: Optional[List[str]] = None, strategies: Optional[List[str]] = None,
        stop_after: Optional[int] = None, debug: bool = False) -> Result:
    """`trials` trials in blocks over every file kind and strategy (each block a fresh copy
    of `source`: a file that grows without bound would make each trial slower than the
    last), `jobs` blocks at a time. With `debug` (or QUIRE_CRASH_DEBUG=1), children write
    the description of every state they expect, so that a wrong state is reported with how
    it differs from the closest allowed one."""
    kinds = list(kinds or KINDS)
    strategies = list(strategies or STRATEGIES)
    if not shutil.which("qpdf"):
        try:
            import pikepdf  # noqa: F401
        except ImportError:
            skipped = [k for k in kinds if KINDS[k][1]]
            if skipped:
                print("checkpoint_crash: neither qpdf nor pikepdf to encrypt with: skipping %s" % skipped)
            kinds = [k for k in kinds if not KINDS[k][1]]
    stop = Stop()
    blocks = []
    first = 0
    for index, (kind, strategy, count) in enumerate(plan(trials, per_file, kinds, strategies)):
        blocks.append(Block(index, kind, strategy, count, seed, source, work / ("block%d" % index), max_delay,
                            first, stop, stop_after, debug))
        first += count
    started = time.monotonic()
    result = Result()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for block_result in pool.map(lambda b: b.run(), blocks):
            result.merge(block_result)
    result.seconds = time.monotonic() - started
    return result


def main(argv: List[str]) -> int:
    if argv[:1] == ["--child"]:
        return child_main(json.loads(argv[1]))
    parser = argparse.ArgumentParser(description="the checkpoint crash test, as a stress run")
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("QUIRE_CRASH_SEED", time.time())))
    parser.add_argument("--source", default=str(REPO / "examples" / "sample.pdf"))
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="blocks run at a time")
    parser.add_argument("--per-file", type=int, default=None, help="trials per fresh copy of the file (default: "
                        "the trials spread evenly over kinds and strategies, at most 20 per copy)")
    parser.add_argument("--max-delay", type=float, default=0.3, help="the longest a child runs before the kill")
    parser.add_argument("--kinds", default=",".join(KINDS), help="file kinds: " + ", ".join(KINDS))
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--stop-after", type=int, default=None, help="stop after this many failures")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        result = run(args.trials, args.seed, Path(args.source), Path(work), max_delay=args.max_delay,
                     per_file=args.per_file, jobs=args.jobs, kinds=args.kinds.split(","),
                     strategies=args.strategies.split(","), stop_after=args.stop_after)
    print("seed %d, %.0f s" % (args.seed, result.seconds))
    print(result.summary())
    for failure in result.failures:
        print("FAILED (seed %d) %s" % (args.seed, failure))
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
