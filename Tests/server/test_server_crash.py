"""kill -9 of the server during a stream of pushes, then a restart on the same store: every
acknowledged mutation is there, none twice, and the clients' retries apply nothing twice.

Three writers push one mutation per request as fast as they can; the server is killed at a
moment chosen at random (QUIRE_CRASH_SEED repeats a run) while they do, in two rounds.
"""

from __future__ import annotations

import os
import random
import threading
import time
from typing import Any, Dict, List, Tuple

from sync_support import (
    SAMPLE_ANNOTATIONS, Client, Keys, claims, layer_state, mint, note, put, unique, upload,
)

WRITERS = 3
ROUNDS = 2

Key = Tuple[str, int]  # (client_id, client_seq)


def full_feed(c: Client) -> List[Dict[str, Any]]:
    changes: List[Dict[str, Any]] = []
    since = 0
    while True:
        r = c.changes(since)
        assert r.status == 200, r
        body = r.json
        assert not body.get("reset"), body
        changes += body["changes"]
        if not body["changes"] or not body.get("more"):
            return changes
        since = body["changes"][-1]["seq"]


def test_kill_9_during_pushes_then_restart(host: str, start_server, keys: Keys, tmp_path) -> None:
    rng = random.Random(int(os.environ.get("QUIRE_CRASH_SEED", random.randrange(1 << 30))))
    workdir = tmp_path / "store"
    server = start_server(host, workdir=workdir)
    doc, layer = unique("crash"), unique("layer")
    assert upload(server.port, keys, doc).status == 201
    token = mint(keys.rsa, claims(doc, layer))

    sent: Dict[Key, Dict[str, Any]] = {}      # every mutation a writer sent, acknowledged or not
    acked: Dict[Key, Dict[str, Any]] = {}     # the answers the writers received
    next_seq = {f"writer-{i}": 1 for i in range(WRITERS)}
    lock = threading.Lock()

    for round_no in range(ROUNDS):
        stop = threading.Event()

        def write(client_id: str) -> None:
            c = Client(server.port, doc, layer, token, client_id)
            while not stop.is_set():
                seq = next_seq[client_id]
                with lock:  # the push the kill left unanswered is retried as it was
                    m = sent.setdefault((client_id, seq),
                                        put(seq, note(f"{client_id}-{seq}", f"round {round_no}, push {seq}")))
                try:
                    r = c.push([m], timeout=10)
                except OSError:
                    return  # the server died under this request: no answer, maybe applied
                if r.status != 200:
                    return
                [result] = r.json["results"]
                assert result["status"] == "accepted", result
                with lock:
                    acked[(client_id, seq)] = result
                    next_seq[client_id] = seq + 1

        threads = [threading.Thread(target=write, args=(f"writer-{i}",)) for i in range(WRITERS)]
        for t in threads:
            t.start()
        target = len(acked) + rng.randint(20, 120)
        deadline = time.monotonic() + 60
        while len(acked) < target and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.random() * 0.05)
        server.kill()  # SIGKILL, in the middle of the stream
        stop.set()
        for t in threads:
            t.join(30)
        assert len(acked) >= target, "the writers were too slow to reach the kill"
        # A writer whose request died retries it after the restart, with the same client_seq.
        server = start_server(host, workdir=workdir)

        c = Client(server.port, doc, layer, token, "reader")
        seq, records = layer_state(server.port, keys, doc, layer)
        by_id = {x["record"]["id"]: x for x in records}
        feed = full_feed(c)
        # The feed: 1..seq, each record once.
        assert [ch["seq"] for ch in feed] == list(range(1, seq + 1))
        ids = [ch["id"] for ch in feed]
        assert len(ids) == len(set(ids)), "a mutation was applied twice"
        assert len(records) == SAMPLE_ANNOTATIONS + seq
        # Every acknowledged mutation is there, at the seq it was acknowledged with.
        for (client_id, cseq), result in acked.items():
            rid = f"{client_id}-{cseq}"
            assert rid in by_id, f"acknowledged {rid} is lost"
            assert by_id[rid]["revision"] == result["seq"] == result["revision"]
            assert by_id[rid]["record"]["text"] == sent[(client_id, cseq)]["record"]["text"]
        # What is there was sent: at most the one unanswered push of each writer besides
        # the acknowledged ones.
        unanswered = set(sent) - set(acked)
        assert len(unanswered) <= WRITERS
        applied = {ch["id"] for ch in feed}
        assert applied <= {f"{cid}-{s}" for cid, s in sent}

    # Every client retries everything it ever sent: answered from the store, nothing twice.
    seq_before, _ = layer_state(server.port, keys, doc, layer)
    applied_before = {ch["id"] for ch in full_feed(Client(server.port, doc, layer, token, "reader"))}
    for i in range(WRITERS):
        client_id = f"writer-{i}"
        c = Client(server.port, doc, layer, token, client_id)
        mine = sorted(s for cid, s in sent if cid == client_id)
        for start in range(0, len(mine), 500):
            batch = [sent[(client_id, s)] for s in mine[start:start + 500]]
            r = c.push(batch, timeout=60)
            assert r.status == 200, r
            for m, result in zip(batch, r.json["results"]):
                assert result["client_seq"] == m["client_seq"]
                if (client_id, m["client_seq"]) in acked:
                    assert result == acked[(client_id, m["client_seq"])], (m["id"], result)
                else:
                    assert result["status"] == "accepted", result
    seq_after, records = layer_state(server.port, keys, doc, layer)
    feed = full_feed(Client(server.port, doc, layer, token, "reader"))
    ids = [ch["id"] for ch in feed]
    assert len(ids) == len(set(ids)) == len(sent) == seq_after
    # The retries applied exactly what had not reached the store before the kills.
    assert seq_after - seq_before == len({f"{cid}-{s}" for cid, s in sent} - applied_before)
    # And a second retry of everything changes nothing at all.
    for i in range(WRITERS):
        client_id = f"writer-{i}"
        c = Client(server.port, doc, layer, token, client_id)
        mine = sorted(s for cid, s in sent if cid == client_id)
        r = c.push([sent[(client_id, s)] for s in mine[:500]], timeout=60)
        assert r.status == 200 and r.json["seq"] == seq_after
    assert layer_state(server.port, keys, doc, layer)[0] == seq_after
