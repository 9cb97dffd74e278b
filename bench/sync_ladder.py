#!/usr/bin/env python3
"""The listener ladder of issue 41 (`make bench-sync` runs it after the scenarios): 100,
1,000, 3,000 and 10,000 listeners over 100 layers, and all on one layer, at 500
mutations/s, each listener pushing its share; quire-server on SQLite (or PostgreSQL with
`--store postgres`). The listeners run in `--procs` worker processes so that the load
generator's own limit shows as its event-loop lag, a column of the table, and is not read
as the server's.

    python3 bench/sync_ladder.py                         # WebSocket listeners, the whole ladder
    python3 bench/sync_ladder.py --transport poll --steps 1000,3000
    QUIRE_SERVER=/path/to/other/quire-server python3 bench/sync_ladder.py   # another build

Raw numbers go to bench/sync-results-ladder.json (or --out); the table to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sync_bench as sb  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", default="100,1000,3000,10000", help="listener counts over 100 layers")
    p.add_argument("--one-layer", default="1000", help="listener counts all on one layer")
    p.add_argument("--transport", choices=["ws", "poll"], default="ws")
    p.add_argument("--rate", type=float, default=500.0)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--seed", type=int, default=15)
    p.add_argument("--out", type=Path, default=sb.REPO / "bench" / "sync-results-ladder.json")
    args = p.parse_args()
    suffix = "-ws" if args.transport == "ws" else ""
    runs = [("groups" + suffix, int(n), 100) for n in args.steps.split(",") if n]
    runs += [("one-layer" + suffix, int(n), 1) for n in args.one_layer.split(",") if n]
    results = []
    with tempfile.TemporaryDirectory(prefix="quire-bench-ladder-") as tmp:
        work = Path(tmp)
        keys = sb.ss.make_keys(work / "keys")
        for k, (name, clients, layers) in enumerate(runs):
            ns = argparse.Namespace(
                clients=clients,
                rate=args.rate,
                seconds=args.seconds,
                seed=args.seed,
                store=args.store,
                procs=args.procs,
                client_rate=0,
            )
            load = os.getloadavg()[0]
            print(
                f"ladder: {name}: {clients} listeners, {layers} layers, {args.rate:g}/s (load {load:.1f}) ...",
                flush=True,
            )
            step = work / f"step{k}"
            step.mkdir()
            r = sb.run_scenario(name, min(layers, clients), ns, step, keys)
            r["load_before"] = round(load, 2)
            r["load_after"] = round(os.getloadavg()[0], 2)
            r["server"] = str(sb.ss.QUIRE_SERVER)
            print(
                json.dumps(
                    {
                        key: r[key]
                        for key in (
                            "scenario",
                            "clients",
                            "layers",
                            "accepted_per_second",
                            "latency_ms",
                            "lost",
                            "duplicated",
                            "final_state_ok",
                            "server_cpu_seconds",
                            "loadgen_loop_lag_ms",
                            "errors",
                        )
                        if key in r
                    }
                    | {"listener_lag": r.get("listener_loop_lag_ms")}
                ),
                flush=True,
            )
            results.append(r)
            time.sleep(2)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(sb.markdown(results, argparse.Namespace(store=args.store)).split("\n\n", 2)[1])
    bad = [r["scenario"] for r in results if r["lost"] or r["duplicated"] or not r["final_state_ok"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
