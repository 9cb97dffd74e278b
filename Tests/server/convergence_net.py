#!/usr/bin/env python3
"""Several quire.Client processes editing one layer through fault-injecting proxies
(Tests/server/fault_proxy.py) to a real quire-server, then the network heals: every client
must equal the server within 30 s (issue 30).

    python3 Tests/server/convergence_net.py [--duration 60] [--clients 4] [--seed N]
    (Tests/server/test_convergence_proxy.py runs it for 60 s inside `make test`)

Each client is a child process (this file with --child) behind its own proxy (up to 200 ms
of delay per chunk each way, 2% of chunks dropping their connection), with automatic sync
(0.3 s) and listening. For the whole run its user edits: notes, edits of any record's text
and position, replies and review states to any record, deletions of any record (parents
with replies among them). Meanwhile the network breaks: one client at a time is cut off
for 2 to 8 s ("reset": refused; "blackhole": unanswered, its connections held), one client
is partitioned for 20 s, and the server is killed (SIGKILL) and started again on its
database. Then every proxy heals and the children stop editing; the checks:

- within 30 s every client is CLEAN with nothing pending, and its records
  (Descriptor.records) and its document's export equal the server's layer, byte for byte
  in canonical JSON;
- the layer is its feed replayed;
- every client's last edit of each record is in the feed as that user's change, or a
  CHANGE_DROPPED named its local change id (nothing lost);
- no client repaired its records (RECORDS_REPAIRED).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "bindings" / "python"))


def canonical(record: Dict[str, Any]) -> str:
    r = dict(record)
    r.pop("pdfObjectId", None)
    return json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ---- the child: one user's client ---------------------------------------------------------------


def with_record_ids(doc: Any) -> Dict[Any, str]:
    """The document's annotations, each with its record id. An annotation without /NM (the
    uploaded file's links and square) is a record whose id is not its name: the annotation
    JSON lists every annotation in the order `annotations()` does, so the two are read
    together, again while the sync thread changed the document in between."""
    while True:
        first = list(doc.annotations())
        ids = [item["id"] for item in json.loads(doc.export_annotations_json())["annotations"]]
        again = list(doc.annotations())
        if len(ids) == len(first) and [(a.id, a.name) for a in first] == [(a.id, a.name) for a in again]:
            return dict(zip(first, ids))


def child(url: str, data: str, token: str, user: str, seed: int, duration: float) -> int:
    import quire

    rng = random.Random(seed)
    dropped: List[int] = []
    repairs: List[str] = []
    lock = threading.Lock()

    def on_event(descriptor: "quire.Descriptor", event: "quire.SyncEvent") -> None:
        if event.type == quire.SyncEventType.CHANGE_DROPPED:
            with lock:
                dropped.extend(event.change_ids)
        elif event.type == quire.SyncEventType.RECORDS_REPAIRED:
            with lock:
                repairs.append(event.message or "")

    client = quire.Client(url, data, on_event=on_event, token_provider=lambda d: token, auto_sync_delay=0.3,
                          listen_wait_seconds=5)
    d = client.descriptor(token)
    while True:
        try:
            d.download(token, wait=True)
            break
        except quire.QuireError:
            time.sleep(0.5)
    d.listen(True)
    print("READY", flush=True)
    doc = d.document
    # (change id, kind, record id, marker): what each edit must lead to on the server.
    edits: List[Tuple[int, str, str, Optional[str]]] = []
    errors: List[str] = []
    end = time.monotonic() + duration
    n = 0
    while time.monotonic() < end:
        time.sleep(rng.uniform(0.05, 0.35))
        n += 1
        marker = "%s-%d" % (user, n)
        try:
            listed = with_record_ids(doc)
            annotations = [a for a in listed if a.subtype not in ("Popup", "Widget")]
            kind = rng.choice(["note", "note", "edit", "edit", "move", "reply", "reply", "state", "delete"])
            if not annotations and kind != "note":
                kind = "note"
            before = d.last_change_id
            target = rng.choice(annotations) if annotations else None
            if kind == "note":
                a = quire.Annotation.new("Text", rng.randrange(2), (rng.uniform(50, 500), rng.uniform(50, 700), 0, 0))
                a.rect = (a.rect[0], a.rect[1], a.rect[0] + 20, a.rect[1] + 20)
                a.name = marker
                a.contents = marker
                a.author = user
                doc.add_annotation(a)
                record = marker
            elif kind in ("edit", "move"):
                assert target is not None
                if kind == "edit":
                    target.contents = marker
                else:
                    x0, y0, x1, y1 = target.rect
                    dx, dy = rng.uniform(-5, 5), rng.uniform(-5, 5)
                    target.rect = (x0 + dx, y0 + dy, x1 + dx, y1 + dy)
                    marker = None
                doc.update_annotation(target)
                record = listed[target]
            elif kind == "reply":
                assert target is not None
                reply = doc.add_reply(target, user, marker)
                record = reply.name or ""
            elif kind == "state":
                assert target is not None
                reply = doc.add_state_reply(target, user, "Review", rng.choice(["Accepted", "Rejected", "Completed"]))
                record, marker = reply.name or "", None
            else:
                assert target is not None
                record, marker = listed[target], None
                doc.delete_annotation(target)
            change = d.last_change_id
            if change != before:
                edits.append((change, kind, record, marker))
        except quire.QuireError as e:
            # A record another user's change removed meanwhile: not this test's concern.
            if "not in the document" not in str(e) and "no annotation" not in str(e):
                errors.append("%s: %s" % (type(e).__name__, e))
    print("EDITS-DONE %d" % len(edits), flush=True)
    for line in sys.stdin:
        command = line.strip()
        if command == "REPORT":
            exported = {}
            for item in json.loads(doc.export_annotations_json())["annotations"]:
                exported[item["id"]] = canonical(item)
            records = {rid: canonical(r) for rid, r in d.records().items()}
            with lock:
                report = {"state": d.state.name, "pending": d.pending_changes, "records": records,
                          "exported": exported, "dropped": list(dropped), "repairs": list(repairs),
                          "edits": edits, "errors": errors}
            print("REPORT " + json.dumps(report), flush=True)
        elif command == "EXIT":
            break
    d.listen(False)
    client.close()
    return 0


# ---- the parent -------------------------------------------------------------------------------------


class Child:
    def __init__(self, index: int, proxy: Any, url: str, data: Path, token: str, seed: int, duration: float) -> None:
        self.index = index
        self.user = "user%d" % index
        self.proxy = proxy
        from sync_support import child_env

        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--child", url, str(data), token, self.user, str(seed), str(duration)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=child_env())  # the package and library under test (Tests/support/quire_testing)
        self.lines: List[str] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def wait_for(self, prefix: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for i, line in enumerate(self.lines):
                    if line.startswith(prefix):
                        del self.lines[: i + 1]
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None and not self.lines:
                    err = self.proc.stderr.read() if self.proc.poll() is not None and self.proc.stderr else ""
                    raise AssertionError("client %d: no %s within %.0f s (exit %s)\n%s" % (
                        self.index, prefix, timeout, self.proc.poll(), err[-3000:]))
                self.cond.wait(min(left, 0.5))

    def report(self) -> Dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("REPORT\n")
        self.proc.stdin.flush()
        return json.loads(self.wait_for("REPORT ", 30)[len("REPORT "):])

    def exit(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.write("EXIT\n")
                self.proc.stdin.flush()
            self.proc.wait(timeout=30)
        except Exception:
            self.proc.kill()


def run(duration: float = 60.0, clients: int = 4, seed: int = 1, workdir: Optional[Path] = None,
        log: Any = print) -> Dict[str, Any]:
    """Runs the scenario; returns its measurements. Raises AssertionError on a failure."""
    from fault_proxy import FaultProxy
    from sync_support import (ServerProcess, HostSettings, claims, free_port, layer_state, make_keys, mint,
                              request, bearer, upload)

    rng = random.Random(seed)
    work = Path(workdir or tempfile.mkdtemp(prefix="quire-convergence-net-"))
    keys = make_keys(work / "keys")
    settings = HostSettings(port=free_port(), store=f"sqlite://{work / 'server.db'}",
                            public_keys=keys.public_key_files, admin_token_file=keys.admin_token_file)
    server = ServerProcess("quire-server", settings, work).start()
    document = "convergence"
    assert upload(server.port, keys, document).status == 201
    # The layer's first records (revision 0), made now, before any change: the feed's replay
    # starts from them.
    _, first = layer_state(server.port, keys, document, "main")
    initial = {r["record"]["id"]: (0, canonical(r["record"])) for r in first}
    proxies = [FaultProxy(server.port, delay=0.2, loss=0.02, seed=seed * 100 + i) for i in range(clients)]
    children: List[Child] = []
    stop = threading.Event()
    events: List[str] = []
    try:
        for i, proxy in enumerate(proxies):
            token = mint(keys.rsa, claims(document, "main", user_id="user%d" % i, exp_in=7200))
            children.append(Child(i, proxy, "http://127.0.0.1:%d" % proxy.port, work / ("client%d" % i), token,
                                  seed * 1000 + i, duration))
        for c in children:
            c.wait_for("READY", 120)
        started = time.monotonic()

        def chaos() -> None:
            partitioned = rng.randrange(clients)
            partition_at = duration * 0.2
            kill_at = duration * 0.5
            partition_done = killed = False
            while not stop.is_set():
                t = time.monotonic() - started
                if not partition_done and t >= partition_at:
                    partition_done = True
                    events.append("t=%.0f: client %d partitioned for 20 s (blackhole)" % (t, partitioned))
                    proxies[partitioned].cut("blackhole")
                    threading.Timer(20, proxies[partitioned].heal).start()
                if not killed and t >= kill_at:
                    killed = True
                    events.append("t=%.0f: quire-server killed (SIGKILL), restarted after 2 s" % t)
                    server.kill()
                    time.sleep(2)
                    server.start()
                victim = rng.randrange(clients)
                if victim != partitioned or partition_done and t > partition_at + 21:
                    mode = rng.choice(["reset", "blackhole"])
                    length = rng.uniform(2, 8)
                    events.append("t=%.0f: client %d cut (%s) for %.1f s" % (t, victim, mode, length))
                    proxies[victim].cut(mode)
                    stop.wait(length)
                    proxies[victim].heal()
                stop.wait(rng.uniform(1, 4))

        chaos_thread = threading.Thread(target=chaos, daemon=True)
        chaos_thread.start()
        for c in children:
            c.wait_for("EDITS-DONE", duration + 120)
        stop.set()
        chaos_thread.join(30)
        # The network heals: no more faults.
        healed = time.monotonic()
        for p in proxies:
            p.heal()
            p.set_faults(delay=0, loss=0)
        # Within 30 s every client equals the server.
        token = mint(keys.rsa, claims(document, "main", ["read"]))
        converged_after: Optional[float] = None
        last: Dict[int, Dict[str, Any]] = {}
        server_records: Dict[str, str] = {}
        while time.monotonic() - healed < 30:
            seq, records = layer_state(server.port, keys, document, "main")
            server_records = {r["record"]["id"]: canonical(r["record"]) for r in records}
            last = {c.index: c.report() for c in children}
            if all(r["state"] == "CLEAN" and r["pending"] == 0 and r["records"] == server_records
                   and r["exported"] == server_records for r in last.values()):
                converged_after = time.monotonic() - healed
                break
            time.sleep(1)
        problems: List[str] = []
        if converged_after is None:
            for i, r in sorted(last.items()):
                if r["state"] != "CLEAN" or r["pending"]:
                    problems.append("client %d ends %s with %d pending" % (i, r["state"], r["pending"]))
                for what in ("records", "exported"):
                    for rid in sorted(set(r[what]) | set(server_records)):
                        if r[what].get(rid) != server_records.get(rid):
                            problems.append("client %d's %s %s: %s / server %s" % (
                                i, what, rid, (r[what].get(rid) or "absent")[:300], (server_records.get(rid) or "absent")[:300]))
        # The layer is its feed replayed; every last edit is on the server or reported dropped.
        feed: List[Dict[str, Any]] = []
        since = 0
        while True:
            ans = request(server.port, "GET", "/documents/%s/layers/main/changes?since=%d" % (document, since),
                          headers=bearer(token)).json
            feed += ans["changes"]
            if not ans.get("more"):
                break
            since = ans["changes"][-1]["seq"]
        replay = dict(initial)
        for change in feed:
            if change["op"] == "delete":
                replay.pop(change["id"], None)
            else:
                replay[change["id"]] = (change["seq"], canonical(change["record"]))
        _, final_records = layer_state(server.port, keys, document, "main")
        layer = {r["record"]["id"]: (r["revision"], canonical(r["record"])) for r in final_records}
        if replay != layer:
            for rid in sorted(set(replay) | set(layer)):
                if replay.get(rid) != layer.get(rid):
                    problems.append("the layer's %s is not its feed replayed: %s / %s" % (rid, layer.get(rid), replay.get(rid)))
        by_user: Dict[str, List[Dict[str, Any]]] = {}
        for change in feed:
            by_user.setdefault(change.get("user_id") or "", []).append(change)
        lost = 0
        for c in children:
            r = last.get(c.index) or c.report()
            if r["repairs"]:
                problems.append("client %d repaired its records: %s" % (c.index, r["repairs"]))
            for e in r["errors"]:
                problems.append("client %d: %s" % (c.index, e))
            dropped = set(r["dropped"])
            final: Dict[str, Tuple[int, str, str, Optional[str]]] = {}
            for change_id, kind, record, marker in r["edits"]:
                final[record] = (change_id, kind, record, marker)
            mine = by_user.get(c.user, [])
            for record, (change_id, kind, _, marker) in sorted(final.items()):
                if change_id in dropped:
                    continue
                ops = [x for x in mine if x["id"] == record]
                if kind == "delete":
                    ok = any(x["op"] == "delete" for x in ops) or not ops
                else:
                    puts = [x for x in ops if x["op"] == "put"]
                    ok = bool(puts) and (marker is None or any(marker in json.dumps(x["record"]) for x in puts))
                if not ok:
                    lost += 1
                    problems.append("client %d's change %d (%s %s) is neither on the server nor reported dropped" % (
                        c.index, change_id, kind, record))
        result = {
            "clients": clients, "duration": duration, "edits": sum(len((last.get(c.index) or {}).get("edits", [])) for c in children),
            "changes": len(feed), "records": len(server_records),
            "dropped": sum(len((last.get(c.index) or {}).get("dropped", [])) for c in children),
            "converged_after": converged_after, "lost": lost, "events": events,
            "proxy": [p.stats for p in proxies], "problems": problems,
        }
        log("convergence through faulty networks: %s" % json.dumps({k: v for k, v in result.items() if k not in ("events", "problems")}))
        for e in events:
            log("  " + e)
        if converged_after is None:
            problems.insert(0, "the clients did not equal the server within 30 s of the network healing")
        assert not problems, "\n".join(problems[:40])
        return result
    finally:
        stop.set()
        for c in children:
            c.exit()
        for p in proxies:
            p.close()
        server.kill()


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        url, data, token, user, seed, duration = sys.argv[2:8]
        return child(url, data, token, user, int(seed), float(duration))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--seed", type=int, default=int(os.environ.get("QUIRE_CONVERGENCE_SEED", "1")))
    args = ap.parse_args()
    run(args.duration, args.clients, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
