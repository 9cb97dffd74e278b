#!/usr/bin/env python3
"""What refusing a bearer token costs quire-server, by the token's size (issue 41): a short
garbage token, 8 KB of garbage (under `max_token_bytes`, so it reaches the JWT parser), 8 KB
of garbage in three dotted parts, and 64 KB (past the limit, refused by its size).

Each kind is sent `--requests` times over one keep-alive connection to a GET of a layer's
changes; every answer must be 401 `unauthenticated`. Measured: the server's CPU time per
refusal (user + system, from /proc, so the load generator's own cost is not in it) and the
client's wall time per request (p50). The goal: an 8 KB garbage token costs no more to
refuse than a short one.

    python3 bench/token_cost.py                              # build/bin/quire-server
    python3 bench/token_cost.py --server /tmp/old-quire-server --requests 2000
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import string
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "server"))
import sync_support as ss  # noqa: E402  (servers and keys, shared with the tests)
from sync_bench import cpu_seconds, percentile  # noqa: E402


def tokens(seed: int) -> Dict[str, str]:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "-_"

    def garbage(n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    return {
        "short garbage (16 B)": garbage(16),
        "8 KB garbage": garbage(8000),
        "8 KB garbage, three dotted parts": garbage(2000) + "." + garbage(4000) + "." + garbage(1998),
        "64 KB (past max_token_bytes)": garbage(65536),
    }


def measure(port: int, path: str, token: str, requests: int) -> List[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": "Bearer " + token}
    times = []
    for _ in range(requests):
        t0 = time.perf_counter()
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        body = r.read()
        times.append(time.perf_counter() - t0)
        if r.status != 401:
            raise SystemExit(f"token_cost: expected 401, got {r.status}: {body[:200]!r}")
    conn.close()
    return times


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", type=Path, default=ss.QUIRE_SERVER, help="the quire-server to measure")
    p.add_argument("--requests", type=int, default=3000, help="requests per kind of token")
    p.add_argument("--seed", type=int, default=41)
    args = p.parse_args()
    if not args.server.exists():
        print(f"token_cost: {args.server} is missing: run make first", file=sys.stderr)
        return 2
    ss.QUIRE_SERVER = args.server
    ss.HOSTS["quire-server"] = (lambda: [str(args.server)], lambda: None)
    rows = []
    with tempfile.TemporaryDirectory(prefix="quire-token-cost-") as tmp:
        work = Path(tmp)
        keys = ss.make_keys(work / "keys")
        settings = ss.HostSettings(
            port=ss.free_port(),
            store=f"sqlite://{work / 'q.db'}",
            public_keys=keys.public_key_files,
            admin_token_file=keys.admin_token_file,
        )
        server = ss.ServerProcess("quire-server", settings, work).start()
        try:
            assert server.proc is not None
            path = "/documents/d/layers/l/changes?since=0"
            for name, token in tokens(args.seed).items():
                measure(server.port, path, token, 100)  # warm up
                cpu0 = cpu_seconds(server.proc.pid)
                times = sorted(measure(server.port, path, token, args.requests))
                cpu = cpu_seconds(server.proc.pid) - cpu0
                rows.append(
                    {
                        "token": name,
                        "bytes": len(token),
                        "requests": args.requests,
                        "server_cpu_us_per_refusal": round(cpu / args.requests * 1e6, 1),
                        "wall_p50_us": round(percentile(times, 50) * 1e6, 1),
                        "wall_p99_us": round(percentile(times, 99) * 1e6, 1),
                    }
                )
                print(json.dumps(rows[-1]), flush=True)
        finally:
            server.stop()
    print()
    print(f"`{args.server}`, {args.requests} refusals of each kind on one keep-alive connection:")
    print()
    print("| token | bytes | server CPU µs per refusal | wall p50 µs | wall p99 µs |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['token']} | {r['bytes']} | {r['server_cpu_us_per_refusal']} | {r['wall_p50_us']} | {r['wall_p99_us']} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
