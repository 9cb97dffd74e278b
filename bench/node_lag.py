#!/usr/bin/env python3
"""The Node host (examples/node) under 100 long polls: does its event loop stay responsive?

Starts examples/node/server.js on loopback (the addon built against build/ as the
conformance suite builds it), uploads examples/sample.pdf, opens CLIENTS long polls
(`wait=30`) at once, and while they wait asks /healthz every 20 ms; then one push wakes
every poll, and the server stops. The server measures its own event loop's delay
(perf_hooks.monitorEventLoopDelay, QUIRE_NODE_LAG_FILE) over the whole run; this prints
that and the /healthz latencies as a row of bench/SYNC-RESULTS.md ("Node host").

    python3 bench/node_lag.py [--clients 100] [--seconds 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "server"))

from sync_support import (  # noqa: E402
    Client,
    ServerProcess,
    claims,
    make_keys,
    mint,
    note,
    put,
    request,
    unique,
    upload,
)
from conftest import _settings  # noqa: E402


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="quire-node-lag-"))
    keys = make_keys(work)
    lag_file = work / "lag.json"
    settings = _settings(keys, work)
    settings.extra_env = {"QUIRE_NODE_LAG_FILE": str(lag_file)}
    server = ServerProcess("node-handler", settings, work).start()
    try:
        doc = unique("doc")
        assert upload(server.port, keys, doc).status == 201
        layer = unique("layer")
        client = Client(server.port, doc, layer, mint(keys.rsa, claims(doc, layer)))
        seq = client.fetch().json["seq"]
        answers = []
        lock = threading.Lock()

        def poll() -> None:
            r = client.changes(seq, wait=30, timeout=60)
            with lock:
                answers.append((r.status, time.monotonic()))

        threads = [threading.Thread(target=poll) for _ in range(args.clients)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # every poll is waiting
        health = []
        until = time.monotonic() + args.seconds
        while time.monotonic() < until:
            t0 = time.monotonic()
            assert request(server.port, "GET", "/healthz").status == 200
            health.append((time.monotonic() - t0) * 1000)
            time.sleep(0.02)
        waiting = args.clients - len(answers)
        pushed = time.monotonic()
        assert client.push([put(1, note(unique("n"), "wake"))]).status == 200
        for t in threads:
            t.join(60)
        woken = [at - pushed for status, at in answers if status == 200]
        status = server.stop()
    finally:
        server.kill()
    lag = json.loads(lag_file.read_text())
    row = {
        "clients": args.clients,
        "waiting": waiting,
        "woken": len(woken),
        "wake_max_ms": round(max(woken) * 1000, 1) if woken else None,
        "healthz_p50_ms": round(percentile(health, 50), 2),
        "healthz_p99_ms": round(percentile(health, 99), 2),
        "loop_lag_p50_ms": round(lag["p50"], 2),
        "loop_lag_p99_ms": round(lag["p99"], 2),
        "loop_lag_max_ms": round(lag["max"], 2),
        "exit_status": status,
    }
    print(json.dumps(row))
    print(
        "| %(clients)d | %(waiting)d | %(woken)d | %(wake_max_ms)s | %(healthz_p50_ms)s | %(healthz_p99_ms)s | "
        "%(loop_lag_p50_ms)s | %(loop_lag_p99_ms)s | %(loop_lag_max_ms)s |" % row
    )
    return 0 if waiting == args.clients and len(woken) == args.clients and status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
