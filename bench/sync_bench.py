#!/usr/bin/env python3
"""The sync server under load (`make bench-sync`, issue 15): concurrent clients on loopback,
each pushing mutations at a steady rate and listening to its layer's change feed with long
polls (or, in the `-ws` scenarios, over quire-server's WebSocket), against a real `quire-server` process with a SQLite store (or PostgreSQL with
`--store postgres`).

Measured, per scenario:
- accepted mutations per second (each push carries one mutation: a new note, an update of
  one of the client's own notes, or a deletion of one);
- the latency from a push's acknowledgement (its 200 reaching the pusher) to the change's
  arrival at each *other* listener of the layer (p50, p90, p99, max); a negative value (the
  listener saw the change before the pusher read its answer) counts as it is;
- lost (an accepted change that some other listener of the layer never received) and
  duplicated (a change a listener received twice), which must both be 0; and that each
  layer's final records are exactly the notes the clients created and did not delete;
- what limits it: the server's and the load generator's CPU time, and the load generator's
  own event-loop lag (how late its timers fire), which is part of every latency measured.

The load generator is one Python process (asyncio on uvloop, and aiohttp); both it and the server
share this machine's cores, which the results state.

    python3 bench/sync_bench.py                 # both scenarios, 60 s each
    python3 bench/sync_bench.py --seconds 10    # shorter
    python3 bench/sync_bench.py --scenario groups --rate 1000
    python3 bench/sync_bench.py --scenario client --client-rate 100   # through quire.Client
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import random
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import aiohttp
import uvloop

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "server"))
import sync_support as ss  # noqa: E402  (servers, keys and tokens, shared with the tests)


CHANGES_PREFIX = '{"type":"changes","body":{"seq":'
BODY_SEQ = re.compile(r'\{"type":"changes","body":\{"seq":(\d+)')
CHANGE_SEQ = re.compile(r'\{"seq":(\d+),"id":')


@dataclass
class Layer:
    document: str
    name: str
    token: str
    acks: Dict[int, float] = field(default_factory=dict)  # seq -> when its pusher got the 200
    pusher_of: Dict[int, str] = field(default_factory=dict)  # seq -> client id
    live: Dict[str, int] = field(default_factory=dict)  # record id -> revision (expected final state)
    start_seq: int = 0


@dataclass
class Client:
    index: int
    layer: Layer
    client_id: str
    own: Dict[str, Tuple[int, int]] = field(default_factory=dict)  # this client's live notes -> (revision, page)
    client_seq: int = 0
    received: Dict[int, float] = field(default_factory=dict)  # seq -> arrival time
    duplicates: int = 0
    resets: int = 0
    accepted: int = 0
    rejected: int = 0
    errors: int = 0
    polls: int = 0
    cursor: int = 0


def percentile(sorted_values: List[float], p: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, int(round(p / 100 * (len(sorted_values) - 1)))))
    return sorted_values[k]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class Bench:
    def __init__(
        self,
        port: int,
        keys: ss.Keys,
        clients: int,
        layers: int,
        rate: float,
        seconds: float,
        seed: int,
        websocket: bool = False,
        procs: int = 0,
    ):
        self.port = port
        self.websocket = websocket
        self.procs = procs
        self.keys = keys
        self.rate = rate
        self.seconds = seconds
        self.random = random.Random(seed)
        self.base = f"http://127.0.0.1:{port}"
        self.layers: List[Layer] = []
        self.clients: List[Client] = []
        self.n_clients = clients
        self.n_layers = layers
        self.stop_pushing = asyncio.Event()
        self.lag: List[float] = []
        self.worker_lag: List[float] = []
        self.failures: List[str] = []

    async def setup(self, session: aiohttp.ClientSession) -> None:
        document = ss.unique("bench")
        r = ss.upload(self.port, self.keys, document)
        if r.status != 201:
            raise RuntimeError(f"upload: {r}")
        for k in range(self.n_layers):
            name = f"layer{k}"
            token = ss.mint(self.keys.rsa, ss.claims(document, name, exp_in=3600))
            layer = Layer(document, name, token)
            async with session.get(f"{self.base}/documents/{document}/layers/{name}", headers=ss.bearer(token)) as resp:
                body = await resp.json()
                layer.start_seq = body["seq"]
                for entry in body["records"]:
                    layer.live[entry["record"]["id"]] = entry["revision"]
            self.layers.append(layer)
        for i in range(self.n_clients):
            layer = self.layers[i % self.n_layers]
            c = Client(i, layer, f"bench-{i}-{ss.unique('c')}")
            c.cursor = layer.start_seq
            self.clients.append(c)

    def path(self, layer: Layer) -> str:
        return f"{self.base}/documents/{layer.document}/layers/{layer.name}"

    def next_mutation(self, c: Client) -> Dict[str, Any]:
        c.client_seq += 1
        roll = self.random.random()
        if c.own and roll < 0.1:
            rid = self.random.choice(sorted(c.own))
            return ss.delete(c.client_seq, rid, c.own[rid][0])
        if c.own and roll < 0.4:
            rid = self.random.choice(sorted(c.own))
            revision, page = c.own[rid]
            return ss.put(c.client_seq, ss.note(rid, text=f"edit {c.client_seq}", page=page), revision)
        rid = f"n-{c.index}-{c.client_seq}"
        return ss.put(c.client_seq, ss.note(rid, text=f"note {c.client_seq}", page=c.client_seq % 2))

    async def pusher(self, session: aiohttp.ClientSession, c: Client) -> None:
        interval = self.n_clients / self.rate
        next_at = time.monotonic() + self.random.random() * interval
        headers = {**ss.bearer(c.layer.token), "Content-Type": "application/json"}
        while not self.stop_pushing.is_set():
            delay = next_at - time.monotonic()
            if delay > 0:
                try:
                    await asyncio.wait_for(self.stop_pushing.wait(), delay)
                    return
                except asyncio.TimeoutError:
                    pass
            next_at += interval
            m = self.next_mutation(c)
            body = json.dumps({"client_id": c.client_id, "mutations": [m]})
            try:
                async with session.post(self.path(c.layer) + "/mutations", data=body, headers=headers) as resp:
                    answer = await resp.json()
                    now = time.monotonic()
                    if resp.status != 200:
                        c.errors += 1
                        self.failures.append(f"push {resp.status}: {answer}")
                        continue
            except (aiohttp.ClientError, asyncio.TimeoutError) as e:
                c.errors += 1
                self.failures.append(f"push: {e!r}")
                continue
            result = answer["results"][0]
            if result["status"] != "accepted":
                c.rejected += 1
                self.failures.append(f"rejected: {result}")
                continue
            c.accepted += 1
            seq = result["seq"]
            c.layer.acks[seq] = now
            c.layer.pusher_of[seq] = c.client_id
            if m["op"] == "delete":
                c.own.pop(m["id"], None)
                c.layer.live.pop(m["id"], None)
            else:
                c.own[m["id"]] = (result["revision"], m["record"]["pageIndex"])
                c.layer.live[m["id"]] = result["revision"]

    def received(self, c: Client, body: Dict[str, Any], now: float) -> None:
        """Takes one feed answer (a long poll's, or a WebSocket `changes` message's body)."""
        if body.get("reset"):
            c.resets += 1
            c.cursor = body["seq"]
            return
        for change in body["changes"]:
            if change["seq"] in c.received:
                c.duplicates += 1
            else:
                c.received[change["seq"]] = now
        c.cursor = body["seq"]

    def received_seqs(self, c: Client, text: str, now: float) -> None:
        """Takes a `changes` message as quire-server writes it (`{"type":"changes","body":
        {"seq":S,"changes":[{"seq":N,"id":...},...]...}}`): the seqs are read with a
        regular expression (a change object opens with its seq; a string inside a record
        cannot hold an unescaped quote)."""
        for seq in map(int, CHANGE_SEQ.findall(text)):
            if seq in c.received:
                c.duplicates += 1
            else:
                c.received[seq] = now
        c.cursor = int(BODY_SEQ.match(text).group(1))  # type: ignore[union-attr]

    async def socket_listener(self, session: aiohttp.ClientSession, c: Client) -> None:
        """The listener over quire-server's WebSocket (docs/sync-protocol.md, "WebSocket"):
        hello from its cursor, then `changes` messages; it reconnects from its cursor when
        the connection fails, and subscribes again after a reset."""
        url = self.path(c.layer).replace("http://", "ws://", 1) + "/socket"
        while True:
            try:
                async with session.ws_connect(url, heartbeat=None, max_msg_size=64 << 20) as ws:
                    await ws.send_str(json.dumps({"type": "hello", "token": c.layer.token, "since": c.cursor}))
                    async for msg in ws:
                        now = time.monotonic()
                        if msg.type != aiohttp.WSMsgType.TEXT:
                            break
                        if msg.data.startswith(CHANGES_PREFIX) and '"reset":true' not in msg.data:
                            # The common message, read without a JSON parse (the
                            # generator's cost per message is what limits the ladder).
                            c.polls += 1
                            self.received_seqs(c, msg.data, now)
                            continue
                        m = json.loads(msg.data)
                        if m["type"] == "changes":
                            c.polls += 1
                            self.received(c, m["body"], now)
                            if m["body"].get("reset"):
                                await ws.send_str(json.dumps({"type": "subscribe", "since": c.cursor}))
                        elif m["type"] == "error":
                            c.errors += 1
                            self.failures.append(f"socket: {m}")
                            break
            except (aiohttp.ClientError, asyncio.TimeoutError) as e:
                c.errors += 1
                self.failures.append(f"socket: {e!r}")
            await asyncio.sleep(0.05)

    async def listener(self, session: aiohttp.ClientSession, c: Client) -> None:
        if self.websocket:
            await self.socket_listener(session, c)
            return
        headers = ss.bearer(c.layer.token)
        while True:
            try:
                async with session.get(
                    self.path(c.layer) + f"/changes?since={c.cursor}&wait=30", headers=headers
                ) as resp:
                    body = await resp.json()
                    now = time.monotonic()
            except (aiohttp.ClientError, asyncio.TimeoutError) as e:
                c.errors += 1
                self.failures.append(f"listen: {e!r}")
                await asyncio.sleep(0.05)
                continue
            c.polls += 1
            if resp.status != 200:
                c.errors += 1
                self.failures.append(f"listen {resp.status}: {body}")
                await asyncio.sleep(0.05)
                continue
            self.received(c, body, now)

    async def lag_monitor(self) -> None:
        while not self.stop_pushing.is_set():
            t = time.monotonic()
            await asyncio.sleep(0.01)
            self.lag.append(time.monotonic() - t - 0.01)

    async def run(self) -> Dict[str, Any]:
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0)
        timeout = aiohttp.ClientTimeout(total=90)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            await self.setup(session)
            if self.procs > 0:
                return await self.run_with_workers(session)
            listeners = [asyncio.create_task(self.listener(session, c)) for c in self.clients]
            await asyncio.sleep(0.5)  # every listener is waiting before the first push
            cpu0 = time.process_time()
            t0 = time.monotonic()
            pushers = [asyncio.create_task(self.pusher(session, c)) for c in self.clients]
            monitor = asyncio.create_task(self.lag_monitor())
            await asyncio.sleep(self.seconds)
            self.stop_pushing.set()
            await asyncio.gather(*pushers, monitor)
            elapsed = time.monotonic() - t0
            cpu = time.process_time() - cpu0
            # Drain: every listener catches up with its layer's last acknowledged change.
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if all(c.cursor >= max(c.layer.acks, default=0) for c in self.clients):
                    break
                await asyncio.sleep(0.05)
            for t in listeners:
                t.cancel()
            await asyncio.gather(*listeners, return_exceptions=True)
            # Each layer's final records, read afresh.
            state_ok = True
            for layer in self.layers:
                async with session.get(self.path(layer), headers=ss.bearer(layer.token)) as resp:
                    body = await resp.json()
                have = {e["record"]["id"]: e["revision"] for e in body["records"]}
                if have != layer.live:
                    state_ok = False
                    self.failures.append(
                        f"{layer.name}: final records differ ({len(have)} there, {len(layer.live)} expected)"
                    )
        return self.summary(elapsed, cpu, state_ok)

    async def run_with_workers(self, session: aiohttp.ClientSession) -> Dict[str, Any]:
        """The listeners in `procs` worker processes (one Python process cannot take tens of
        thousands of messages a second), the pushers here. Arrival times are
        time.monotonic() in each process: CLOCK_MONOTONIC, one clock for the machine."""
        ctx = multiprocessing.get_context("spawn")
        loop = asyncio.get_running_loop()
        workers = []
        for k in range(self.procs):
            mine = [
                (c.index, c.layer.document, c.layer.name, c.layer.token, c.client_id, c.cursor)
                for c in self.clients
                if c.index % self.procs == k
            ]
            here, there = ctx.Pipe()
            proc = ctx.Process(target=listener_worker, args=(self.port, self.websocket, mine, there), daemon=True)
            proc.start()
            workers.append((proc, here))
        for proc, conn in workers:  # every listener has its first answer
            ready = await loop.run_in_executor(None, conn.recv)
            if ready != "ready":
                raise RuntimeError(f"a listener worker: {ready}")
        await asyncio.sleep(0.5)
        cpu0 = time.process_time()
        t0 = time.monotonic()
        pushers = [asyncio.create_task(self.pusher(session, c)) for c in self.clients]
        monitor = asyncio.create_task(self.lag_monitor())
        await asyncio.sleep(self.seconds)
        self.stop_pushing.set()
        await asyncio.gather(*pushers, monitor)
        elapsed = time.monotonic() - t0
        cpu = time.process_time() - cpu0
        targets = {layer.name: max(layer.acks, default=0) for layer in self.layers}
        for proc, conn in workers:
            conn.send(targets)
        by_index = {c.index: c for c in self.clients}
        self.worker_cpu = 0.0
        for proc, conn in workers:
            report = await loop.run_in_executor(None, conn.recv)
            for index, (received, duplicates, resets, errors, polls) in report["clients"].items():
                c = by_index[index]
                c.received, c.duplicates, c.resets, c.errors, c.polls = received, duplicates, resets, errors, polls
            self.worker_lag.extend(report["lag"])
            self.failures.extend(report["failures"])
            self.worker_cpu += report["cpu"]
            proc.join(10)
        state_ok = True
        for layer in self.layers:
            async with session.get(self.path(layer), headers=ss.bearer(layer.token)) as resp:
                body = await resp.json()
            have = {e["record"]["id"]: e["revision"] for e in body["records"]}
            if have != layer.live:
                state_ok = False
                self.failures.append(
                    f"{layer.name}: final records differ ({len(have)} there, {len(layer.live)} expected)"
                )
        return self.summary(elapsed, cpu, state_ok)

    def summary(self, elapsed: float, cpu: float, state_ok: bool) -> Dict[str, Any]:
        latencies: List[float] = []
        lost = duplicated = 0
        for c in self.clients:
            duplicated += c.duplicates
            for seq, acked in c.layer.acks.items():
                if c.layer.pusher_of[seq] == c.client_id:
                    continue
                arrived = c.received.get(seq)
                if arrived is None:
                    lost += 1
                else:
                    latencies.append(arrived - acked)
        latencies.sort()
        lag = sorted(self.lag)
        accepted = sum(c.accepted for c in self.clients)
        return {
            "clients": self.n_clients,
            "layers": self.n_layers,
            "listeners_per_layer": self.n_clients // self.n_layers,
            "target_rate": self.rate,
            "seconds": round(elapsed, 2),
            "accepted": accepted,
            "accepted_per_second": round(accepted / elapsed, 1),
            "rejected": sum(c.rejected for c in self.clients),
            "errors": sum(c.errors for c in self.clients),
            "deliveries": len(latencies),
            "polls": sum(c.polls for c in self.clients),
            "latency_ms": {
                name: round(percentile(latencies, p) * 1000, 2)
                for name, p in [("p50", 50), ("p90", 90), ("p99", 99), ("max", 100)]
            },
            "lost": lost,
            "duplicated": duplicated,
            "resets": sum(c.resets for c in self.clients),
            "final_state_ok": state_ok,
            "loadgen_cpu_seconds": round(cpu, 1),
            "loadgen_loop_lag_ms": {
                "p50": round(percentile(lag, 50) * 1000, 2),
                "p99": round(percentile(lag, 99) * 1000, 2),
            },
            **(
                {
                    "listener_procs": self.procs,
                    "listener_loop_lag_ms": {
                        "p50": round(percentile(sorted(self.worker_lag), 50) * 1000, 2),
                        "p99": round(percentile(sorted(self.worker_lag), 99) * 1000, 2),
                    },
                    "listener_cpu_seconds": round(self.worker_cpu, 1),
                }
                if self.procs
                else {}
            ),
            "failures": self.failures[:10],
        }


def listener_worker(port: int, websocket: bool, specs: List[Tuple[int, str, str, str, str, int]], conn: Any) -> None:
    """A listener process of `Bench.run_with_workers`: follows the layers of `specs`
    (index, document, layer, token, client id, cursor), says "ready" once each has its first
    answer, and after the pushes end (the highest acknowledged seq of each layer received)
    drains and reports what each received and when."""

    async def main() -> None:
        layers: Dict[str, Layer] = {}
        clients: List[Client] = []
        for index, document, name, token, client_id, cursor in specs:
            layer = layers.setdefault(name, Layer(document, name, token))
            c = Client(index, layer, client_id)
            c.cursor = cursor
            clients.append(c)
        bench = Bench(port, None, 0, 0, 1.0, 0.0, 0, websocket=websocket)  # type: ignore[arg-type]
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0)
        loop = asyncio.get_running_loop()
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=90)) as session:
            tasks = [asyncio.create_task(bench.listener(session, c)) for c in clients]
            deadline = time.monotonic() + 120
            while any(c.polls == 0 for c in clients) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            conn.send("ready")
            cpu0 = time.process_time()
            monitor = asyncio.create_task(bench.lag_monitor())
            targets = await loop.run_in_executor(None, conn.recv)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not all(c.cursor >= targets.get(c.layer.name, 0) for c in clients):
                await asyncio.sleep(0.05)
            bench.stop_pushing.set()
            await monitor
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            conn.send(
                {
                    "clients": {c.index: (c.received, c.duplicates, c.resets, c.errors, c.polls) for c in clients},
                    "lag": bench.lag,
                    "failures": bench.failures[:10],
                    "cpu": time.process_time() - cpu0,
                }
            )

    uvloop.run(main())


class ClientBench:
    """The same load through libquire's own sync client (quire.Client, issue 16): each
    reviewer is a client with its own data directory and editable document, listening; it
    adds a note (stored durably as a pending change before the call returns), then syncs
    (`sync_now`: pushed, acknowledged). Arrival is the DOCUMENT_CHANGED event of each other
    reviewer of the layer that names the note. Also measured: the client's own cost per
    mutation (the edit call, and `sync_now`)."""

    def __init__(
        self, port: int, keys: ss.Keys, clients: int, layers: int, rate: float, seconds: float, seed: int, work: Path
    ):
        self.port, self.keys, self.rate, self.seconds = port, keys, rate, seconds
        self.n_clients, self.n_layers, self.work = clients, layers, work
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.acks: Dict[Tuple[int, str], float] = {}  # (layer, note id) -> acknowledged at
        self.arrivals: Dict[Tuple[int, str], float] = {}  # (reviewer, note id) -> first event
        self.event_dups = 0
        self.edit_times: List[float] = []
        self.sync_times: List[float] = []
        self.failures: List[str] = []
        self.stop = threading.Event()
        self.draining = False

    def run(self) -> Dict[str, Any]:
        import quire

        document = ss.unique("cbench")
        r = ss.upload(self.port, self.keys, document)
        if r.status != 201:
            raise RuntimeError(f"upload: {r}")
        tokens = [ss.mint(self.keys.rsa, ss.claims(document, f"layer{k}", exp_in=3600)) for k in range(self.n_layers)]
        reviewers = []
        for i in range(self.n_clients):

            def on_event(descriptor: Any, event: Any, i: int = i) -> None:
                if event.type != quire.SyncEventType.DOCUMENT_CHANGED or self.draining:
                    return
                now = time.monotonic()
                with self.lock:
                    for rid in event.record_ids:
                        if (i, rid) in self.arrivals:
                            self.event_dups += 1
                        else:
                            self.arrivals[(i, rid)] = now

            client = quire.Client(
                f"http://127.0.0.1:{self.port}", str(self.work / f"client{i}"), on_event=on_event, auto_sync_delay=0
            )
            descriptor = client.descriptor(tokens[i % self.n_layers])
            descriptor.download(tokens[i % self.n_layers])
            descriptor.wait_idle()
            descriptor.listen()
            reviewers.append((client, descriptor))
        time.sleep(1.0)
        cpu0 = time.process_time()
        t0 = time.monotonic()
        threads = [
            threading.Thread(target=self.reviewer, args=(i, d), daemon=True) for i, (_, d) in enumerate(reviewers)
        ]
        for t in threads:
            t.start()
        time.sleep(self.seconds)
        self.stop.set()
        for t in threads:
            t.join(120)
        elapsed = time.monotonic() - t0
        cpu = time.process_time() - cpu0
        # Drain: every reviewer syncs until its document holds every acknowledged note of its layer.
        time.sleep(2.0)
        self.draining = True
        lost = duplicated = 0
        for i, (_, descriptor) in enumerate(reviewers):
            layer = i % self.n_layers
            wanted = {rid for (lay, rid) in self.acks if lay == layer}
            deadline = time.monotonic() + 30
            while True:
                descriptor.sync_now()
                names = [a.name for a in descriptor.document.annotations() if (a.name or "").startswith("b-")]
                if wanted <= set(names) or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            lost += len(wanted - set(names))
            duplicated += len(names) - len(set(names))
        for client, _ in reviewers:
            client.close()
        latencies = sorted(
            self.arrivals[(i, rid)] - acked
            for (layer, rid), acked in self.acks.items()
            for i in range(layer, self.n_clients, self.n_layers)
            if not rid.startswith(f"b-{i}-") and (i, rid) in self.arrivals
        )
        edits, syncs = sorted(self.edit_times), sorted(self.sync_times)
        ms = lambda v, p: round(percentile(v, p) * 1000, 2)  # noqa: E731
        return {
            "scenario": "client",
            "clients": self.n_clients,
            "layers": self.n_layers,
            "listeners_per_layer": self.n_clients // self.n_layers,
            "target_rate": self.rate,
            "seconds": round(elapsed, 2),
            "accepted": len(self.acks),
            "accepted_per_second": round(len(self.acks) / elapsed, 1),
            "deliveries": len(latencies),
            "latency_ms": {
                "p50": ms(latencies, 50),
                "p90": ms(latencies, 90),
                "p99": ms(latencies, 99),
                "max": ms(latencies, 100),
            },
            "lost": lost,
            "duplicated": duplicated,
            "duplicate_events": self.event_dups,
            "edit_ms": {"p50": ms(edits, 50), "p99": ms(edits, 99)},
            "sync_now_ms": {"p50": ms(syncs, 50), "p99": ms(syncs, 99)},
            "loadgen_cpu_seconds": round(cpu, 1),
            "errors": len(self.failures),
            "failures": self.failures[:10],
        }

    def reviewer(self, i: int, descriptor: Any) -> None:
        import quire

        rng = random.Random(i)
        interval = self.n_clients / self.rate
        next_at = time.monotonic() + rng.random() * interval
        k = 0
        while not self.stop.wait(max(0.0, next_at - time.monotonic())):
            next_at += interval
            k += 1
            rid = f"b-{i}-{k}"
            note = quire.Annotation.new("Text", k % 2, (10 + k % 400, 10, 34 + k % 400, 34))
            note.name = rid
            note.contents = f"note {k}"
            try:
                t = time.monotonic()
                descriptor.document.add_annotation(note)
                t1 = time.monotonic()
                descriptor.sync_now()
                t2 = time.monotonic()
            except quire.QuireError as e:
                with self.lock:
                    self.failures.append(f"reviewer {i}: {e}")
                continue
            with self.lock:
                self.edit_times.append(t1 - t)
                self.sync_times.append(t2 - t1)
                self.acks[(i % self.n_layers, rid)] = t2


def start_store(kind: str, work: Path) -> Tuple[str, Optional[ss.PostgresCluster]]:
    if kind == "sqlite":
        return f"sqlite://{work / 'bench.db'}", None
    cluster = ss.PostgresCluster()
    return cluster.database_url("quire_bench"), cluster


def run_scenario(name: str, layers: int, args: argparse.Namespace, work: Path, keys: ss.Keys) -> Dict[str, Any]:
    store, cluster = start_store(args.store, work / name)
    (work / name).mkdir(parents=True, exist_ok=True)
    settings = ss.HostSettings(
        port=ss.free_port(), store=store, public_keys=keys.public_key_files, admin_token_file=keys.admin_token_file
    )
    server = ss.ServerProcess("quire-server", settings, work / name).start()
    try:
        assert server.proc is not None
        cpu0 = cpu_seconds(server.proc.pid)
        if name == "client":
            sys.path.insert(0, str(REPO / "bindings" / "python"))
            result = ClientBench(
                server.port, keys, args.clients, layers, args.client_rate, args.seconds, args.seed, work / name
            ).run()
        else:
            bench = Bench(
                server.port,
                keys,
                args.clients,
                layers,
                args.rate,
                args.seconds,
                args.seed,
                websocket=name.endswith("-ws"),
                procs=args.procs,
            )
            result = uvloop.run(bench.run())
        result["server_cpu_seconds"] = round(cpu_seconds(server.proc.pid) - cpu0, 1)
        result["scenario"] = name
        result["store"] = args.store
        return result
    finally:
        server.stop()
        if cluster is not None:
            cluster.stop()


def markdown(results: List[Dict[str, Any]], args: argparse.Namespace) -> str:
    lines = [
        "# Sync server under load (`make bench-sync`)",
        "",
        f"{time.strftime('%Y-%m-%d')}, {platform.machine()}, {os.cpu_count()} cores shared by `quire-server` "
        f"and the load generator (one Python process, asyncio on uvloop + aiohttp), loopback, {args.store} store "
        f"(WAL, synchronous=FULL for SQLite). Each client pushes one mutation at a time at a steady "
        f"rate (new note 60%, update of its own note 30%, deletion 10%) and long-polls its layer's "
        f"changes (`wait=30`). Latency: from a push's acknowledgement to the change's arrival at "
        f"each other listener of the layer. Produced by `bench/sync_bench.py`; raw numbers in "
        f"`bench/sync-results.json`.",
        "",
        "| scenario | clients | listeners per layer | target mut/s | accepted mut/s | deliveries | p50 ms | p90 ms | p99 ms | max ms | lost | duplicated | final state | server CPU s | loadgen CPU s | loadgen lag p99 ms | listener lag p99 ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        if r["scenario"] == "client":
            continue
        lat = r["latency_ms"]
        lines.append(
            f"| {r['scenario']} | {r['clients']} | {r['listeners_per_layer']} | {r['target_rate']:g} | "
            f"{r['accepted_per_second']} | {r['deliveries']} | {lat['p50']} | {lat['p90']} | {lat['p99']} | "
            f"{lat['max']} | {r['lost']} | {r['duplicated']} | {'exact' if r['final_state_ok'] else 'WRONG'} | "
            f"{r['server_cpu_seconds']} | {r['loadgen_cpu_seconds'] + r.get('listener_cpu_seconds', 0):.1f} | "
            f"{r['loadgen_loop_lag_ms']['p99']} | {r.get('listener_loop_lag_ms', r['loadgen_loop_lag_ms'])['p99']} |"
        )
    lines += [
        "",
        "Scenarios: `groups` puts the clients in layers of five reviewers (the usual shape of a "
        "review); `one-layer` puts all of them on one layer, so every change goes to every other listener. "
        "`-ws`: the listeners follow their layer over quire-server's WebSocket instead of long polls "
        "(pushes stay HTTP POSTs).",
        "",
    ]
    clients = [r for r in results if r["scenario"] == "client"]
    if clients:
        lines += [
            "## Through libquire's sync client (`quire.Client`)",
            "",
            "The same layers of five, each reviewer a `quire.Client` in the one load-generator process (its own data "
            "directory, SQLite store and editable document; listening; automatic sync off): it adds a note (stored "
            "durably as a pending change before the call returns), then `sync_now()` (pushed and acknowledged). "
            "Arrival: the DOCUMENT_CHANGED event of each other reviewer. The client's own cost per mutation is the edit "
            "call and `sync_now`, next to the raw HTTP push of the scenarios above.",
            "",
            "| clients | target mut/s | accepted mut/s | deliveries | p50 ms | p90 ms | p99 ms | max ms | lost | duplicated | edit p50 / p99 ms | sync_now p50 / p99 ms | server CPU s | loadgen CPU s |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for r in clients:
            lat = r["latency_ms"]
            lines.append(
                f"| {r['clients']} | {r['target_rate']:g} | {r['accepted_per_second']} | {r['deliveries']} | {lat['p50']} | "
                f"{lat['p90']} | {lat['p99']} | {lat['max']} | {r['lost']} | {r['duplicated']} | "
                f"{r['edit_ms']['p50']} / {r['edit_ms']['p99']} | {r['sync_now_ms']['p50']} / {r['sync_now_ms']['p99']} | "
                f"{r['server_cpu_seconds']} | {r['loadgen_cpu_seconds']} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--rate", type=float, default=500.0, help="target mutations per second, all clients together")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument(
        "--scenario", choices=["groups", "one-layer", "groups-ws", "one-layer-ws", "client", "all"], default="all"
    )
    p.add_argument(
        "--client-rate",
        type=float,
        default=50.0,
        help="target mutations per second of the client scenario (each costs the client a durable edit and a sync)",
    )
    p.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument(
        "--layers",
        type=int,
        default=0,
        help="layers of the groups scenarios (default: one per five clients); the ladder of issue 41 uses 100",
    )
    p.add_argument(
        "--procs", type=int, default=0, help="listener processes (0: the listeners share the pushers' process)"
    )
    p.add_argument("--seed", type=int, default=15)
    p.add_argument("--out", type=Path, default=REPO / "bench", help="where SYNC-RESULTS.md and sync-results.json go")
    args = p.parse_args()
    if not ss.QUIRE_SERVER.exists():
        print(f"bench-sync: {ss.QUIRE_SERVER} is missing: run make first", file=sys.stderr)
        return 2
    groups = args.layers or max(1, args.clients // 5)
    scenarios = {"groups": groups, "one-layer": 1, "groups-ws": groups, "one-layer-ws": 1, "client": groups}
    chosen = list(scenarios) if args.scenario == "all" else [args.scenario]
    results = []
    with tempfile.TemporaryDirectory(prefix="quire-bench-sync-") as tmp:
        work = Path(tmp)
        keys = ss.make_keys(work / "keys")
        for name in chosen:
            rate = args.client_rate if name == "client" else args.rate
            print(
                f"bench-sync: {name}: {args.clients} clients, {rate:g} mutations/s for {args.seconds:g} s ...",
                flush=True,
            )
            r = run_scenario(name, scenarios[name], args, work, keys)
            print(json.dumps(r, indent=1), flush=True)
            results.append(r)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sync-results.json").write_text(json.dumps(results, indent=1) + "\n")
    (args.out / "SYNC-RESULTS.md").write_text(markdown(results, args))
    print(f"bench-sync: wrote {args.out / 'SYNC-RESULTS.md'}")
    # No client edits another's notes, so nothing may be rejected either.
    bad = [
        r["scenario"]
        for r in results
        if r["lost"] or r["duplicated"] or not r.get("final_state_ok", True) or r["errors"] or r.get("rejected")
    ]
    if bad:
        print(
            f"bench-sync: FAILED (lost, duplicated, rejected, errors or a wrong final state) in {', '.join(bad)}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
