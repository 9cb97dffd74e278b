#!/usr/bin/env python3
"""instant_review.py: a reviewer on a running sync server, with quire.Client (issue 16).

Usage (from the repository root, after `make`; `make demo` runs it through
examples/sync_demo.sh beside examples/c/instant_sync.c, the other reviewer):

    PYTHONPATH=bindings/python python3 examples/python/instant_review.py URL JWT DATA_DIR NAME

1. Gets the descriptor for JWT, downloads the PDF and the layer into DATA_DIR.
2. Adds a note and a reply as NAME; syncs.
3. Listens until a note by another reviewer arrives (at most 60 s).
4. Goes offline: closes the client, opens one on DATA_DIR whose server cannot be reached,
   adds a note there (stored locally; the sync fails with NetworkError), closes it.
5. Comes back: a client on URL and DATA_DIR again (the token is not stored: it asks for
   authentication, and reauthenticates), syncs the offline note exactly once, and waits
   for the other reviewer's offline note.
6. Prints the layer's notes and a digest of its records, which the other reviewer prints
   too once both converge.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from typing import List, Optional

import quire


def log(name: str, text: str) -> None:
    print("[%s] %s" % (name, text), flush=True)


def notes_by_others(doc: quire.Document, name: str) -> List[quire.Annotation]:
    return [a for a in doc.annotations() if a.subtype == "Text" and a.in_reply_to is None
            and a.author not in (None, name) and (a.name or "").startswith("review-")]


def wait_for(descriptor: quire.Descriptor, name: str, prefix: str, seconds: float = 60) -> quire.Annotation:
    """Syncs until a note of another reviewer whose id starts with `prefix` is there."""
    deadline = time.monotonic() + seconds
    while True:
        descriptor.sync_now()
        found = [a for a in notes_by_others(descriptor.document, name) if (a.name or "").startswith(prefix)]
        if found:
            return found[0]
        if time.monotonic() > deadline:
            raise TimeoutError("no note %s* from another reviewer within %d s" % (prefix, seconds))
        time.sleep(0.3)


def digest(doc: quire.Document) -> str:
    records = json.loads(doc.export_annotations_json())["annotations"]
    for r in records:
        r.pop("pdfObjectId", None)
    text = json.dumps(sorted(records, key=lambda r: r["id"]), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def add_note(doc: quire.Document, name: str, note_id: str, text: str, y: float) -> quire.Annotation:
    note = quire.Annotation.new("Text", 0, (500, y, 524, y + 24))
    note.name = note_id
    note.author = name
    note.contents = text
    return doc.add_annotation(note)


def run(url: str, jwt: str, data: str, name: str) -> int:
    events: List[str] = []

    def on_event(descriptor: quire.Descriptor, event: quire.SyncEvent) -> None:
        if event.type in (quire.SyncEventType.DOCUMENT_CHANGED, quire.SyncEventType.AUTHENTICATION_NEEDED,
                          quire.SyncEventType.CHANGE_DROPPED):
            events.append(event.type.name)

    y = 100 if name < "m" else 160
    with quire.Client(url, data, on_event=on_event) as client:
        descriptor = client.descriptor(jwt)
        descriptor.download(jwt)
        descriptor.wait_idle()
        log(name, "downloaded %s/%s: %s" % (descriptor.document_id, descriptor.layer, descriptor.state.name))
        doc = descriptor.document
        note = add_note(doc, name, "review-%s" % name, "%s: the figure needs a caption" % name, y)
        doc.add_reply(note, name, "%s: and the axis labels" % name)
        log(name, "added a note and a reply: %d pending" % descriptor.pending_changes)
        descriptor.sync_now()
        descriptor.listen()
        other = wait_for(descriptor, name, "review-")
        log(name, "received %s's note: %r" % (other.author, other.contents))

    # Offline: the server cannot be reached from this client.
    with quire.Client("http://127.0.0.1:9", data) as offline:
        descriptor = offline.descriptor(jwt)
        add_note(descriptor.document, name, "review-offline-%s" % name, "%s, offline: page 2 too" % name, y + 30)
        try:
            descriptor.reauthenticate(jwt)
            descriptor.wait_idle()
            descriptor.sync_now()
        except quire.NetworkError as error:
            log(name, "offline: the sync says \"%s\"; %d change kept" % (quire.status_string(error.code), descriptor.pending_changes))

    with quire.Client(url, data, on_event=on_event) as client:
        descriptor = client.descriptor(jwt)
        try:
            descriptor.sync_now()
        except quire.AuthenticationError:
            log(name, "back online: the server asks for authentication (tokens are not stored)")
            descriptor.reauthenticate(jwt)
            descriptor.wait_idle()
        log(name, "synced: %d pending" % descriptor.pending_changes)
        wait_for(descriptor, name, "review-offline-")
        time.sleep(1)  # the other reviewer's last sync
        descriptor.sync_now()
        doc = descriptor.document
        for a in doc.annotations():
            if a.subtype == "Text" and (a.name or "").startswith("review-"):
                log(name, "  %s by %s: %r" % (a.name, a.author, a.contents))
        log(name, "converged: %d annotations, digest %s" % (len(list(doc.annotations())), digest(doc)))
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return run(*args)
    except (quire.QuireError, TimeoutError) as error:
        print("instant_review.py: %s" % error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
