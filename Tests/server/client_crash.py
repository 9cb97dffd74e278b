#!/usr/bin/env python3
"""SIGKILL of a sync client process at random moments while it edits and syncs, then a
restart: nothing the library acknowledged is lost, and nothing is pushed twice.

    python3 Tests/server/client_crash.py --trials 1000          # the long run
    (Tests/server/test_client_crash.py runs 200 trials inside `make test`)

One quire-server on loopback (SQLite store). Each trial starts a child process (this file
with --child) on the same data directory: it first recovers what the previous child left
(a new client, the token from a token provider: tokens are not stored; a sync until
nothing is pending), prints RECOVERED, then adds notes with fresh ids, printing each id
once `add_annotation` has returned (the library's acknowledgement: the change is in the
local store), and syncs every few notes. The parent kills it with SIGKILL after a random
delay. After the last trial a final child recovers only. Then:

- every acknowledged id is a record of the layer (nothing acknowledged lost);
- the layer's change feed holds exactly one change per id (each note is created once and
  never changed: a second push of the same creation would be a second change, or a
  rejected conflict, which the children report and which fails the run);
- no child reported a dropped change.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import List, Set

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))


def child(url: str, data: str, token_file: str, seed: int) -> int:
    import quire

    token = Path(token_file).read_text().strip()
    dropped: List[str] = []

    def on_event(descriptor: "quire.Descriptor", event: "quire.SyncEvent") -> None:
        if event.type == quire.SyncEventType.CHANGE_DROPPED:
            dropped.append(event.record_id or "?")
            print("DROPPED %s %s" % (event.record_id, event.reason), flush=True)

    client = quire.Client(url, data, on_event=on_event, token_provider=lambda d: token, auto_sync_delay=0)
    d = client.descriptor(token)
    if d.state == quire.SyncState.UNKNOWN:
        d.download(token)
        d.wait_idle()
    for _ in range(20):
        try:
            d.sync_now()
        except quire.NetworkError:
            time.sleep(0.2)
            continue
        if d.pending_changes == 0:
            break
    print("RECOVERED %d" % d.pending_changes, flush=True)
    if seed < 0:
        d.wait_idle()
        client.close()
        return 0
    rng = random.Random(seed)
    doc = d.document
    i = 0
    while True:
        note = quire.Annotation.new("Text", rng.randrange(2), (72, 700, 96, 724))
        note.name = "s%d-%d" % (seed, i)
        note.contents = "note %d of child %d" % (i, seed)
        doc.add_annotation(note)
        print("ACK %s" % note.name, flush=True)
        i += 1
        if rng.random() < 0.25:
            d.sync_now()


def run(trials: int, seed: int, server_path: str, workdir: Path) -> None:
    os.environ.setdefault("QUIRE_SERVER", server_path)
    from sync_support import (HostSettings, ServerProcess, bearer, child_env, claims, free_port, make_keys, mint, request,
                              upload)

    keys = make_keys(workdir / "keys")
    settings = HostSettings(port=free_port(), store=f"sqlite://{workdir / 'quire.db'}",
                            public_keys=keys.public_key_files, admin_token_file=keys.admin_token_file)
    server = ServerProcess("quire-server", settings, workdir).start()
    try:
        assert upload(server.port, keys, "crash").status == 201
        token = mint(keys.rsa, claims("crash", "main", exp_in=7 * 24 * 3600))
        token_file = workdir / "token"
        token_file.write_text(token)
        data = workdir / "client"
        url = f"http://127.0.0.1:{server.port}"
        rng = random.Random(seed)
        acked: Set[str] = set()
        problems: List[str] = []
        env = child_env()  # the package and library under test (Tests/support/quire_testing)

        def start(child_seed: int) -> "subprocess.Popen[str]":
            return subprocess.Popen(
                [sys.executable, __file__, "--child", url, str(data), str(token_file), str(child_seed)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

        def read_until_recovered(p: "subprocess.Popen[str]") -> None:
            assert p.stdout is not None
            for line in p.stdout:
                if line.startswith("DROPPED"):
                    problems.append(line.strip())
                if line.startswith("RECOVERED"):
                    if line.split()[1] != "0":
                        problems.append("pending after recovery: " + line.strip())
                    return
            raise AssertionError("a child ended before recovering:\n" + (p.stderr.read() if p.stderr else ""))

        for trial in range(trials):
            p = start(trial)
            read_until_recovered(p)
            # Let it edit and sync for a random while, its acknowledgements read by a
            # thread, then kill it.
            lines: List[str] = []
            reader = threading.Thread(target=lambda: lines.extend(p.stdout or []), daemon=True)
            reader.start()
            time.sleep(rng.uniform(0.0, 0.4))
            p.send_signal(signal.SIGKILL)
            p.wait()
            reader.join(30)
            for line in lines:
                if line.startswith("ACK "):
                    acked.add(line[4:].strip())
                elif line.startswith("DROPPED"):
                    problems.append(line.strip())
            if p.returncode != -signal.SIGKILL:
                problems.append("child %d ended with %s: %s" % (trial, p.returncode, p.stderr.read() if p.stderr else ""))
        final = start(-1)
        read_until_recovered(final)
        final.wait(60)

        r = request(server.port, "GET", "/documents/crash/layers/main", headers=bearer(token))
        assert r.status == 200, r
        records = {item["record"]["id"] for item in r.json["records"]}
        ids: List[str] = []
        since = 0
        while True:
            f = request(server.port, "GET", f"/documents/crash/layers/main/changes?since={since}", headers=bearer(token))
            assert f.status == 200, f
            changes = f.json["changes"]
            ids += [c["id"] for c in changes]
            if not f.json.get("more") or not changes:
                break
            since = changes[-1]["seq"]  # the page's last change ("seq" is the layer's)
        lost = sorted(acked - records)
        twice = sorted({i for i in ids if ids.count(i) > 1})
        print("client crash test: %d trials, %d notes acknowledged, %d records, %d changes"
              % (trials, len(acked), len(records), len(ids)))
        assert not lost, "acknowledged and lost: %s\n%s" % (lost[:20], "\n".join(problems[:20]))
        assert not twice, "pushed twice: %s" % twice[:20]
        assert not problems, "\n".join(problems[:20])
    finally:
        server.stop()


def main(argv: List[str]) -> int:
    if len(argv) > 1 and argv[1] == "--child":
        return child(argv[2], argv[3], argv[4], int(argv[5]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--server", default=os.environ.get("QUIRE_SERVER", str(REPO / "build" / "bin" / "quire-server")))
    args = parser.parse_args(argv[1:])
    with tempfile.TemporaryDirectory(prefix="quire-client-crash-") as directory:
        run(args.trials, args.seed, args.server, Path(directory))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
