#!/usr/bin/env python3
"""A userspace TCP proxy that injects network faults (this kernel has no netem).

    python3 Tests/server/fault_proxy.py --listen 9000 --upstream 8080 [--delay 0.2] [--loss 0.02]

Between a client and a server on loopback it forwards every byte, and on the way:

- **delay**: each chunk of data waits a random time up to ``delay`` seconds before it is
  forwarded (per direction, so requests and answers of different connections overtake one
  another);
- **loss**: with probability ``loss`` per chunk, the connection is dropped there (both
  sides closed with a reset): a request lost on its way, or its answer lost after the
  server handled it;
- **cut** (``cut(mode)``, ``heal()``): the client is cut off. ``"reset"``: live connections
  are reset and new ones are accepted and reset at once (a refused route).
  ``"blackhole"``: new connections are not accepted (the kernel's backlog fills and further
  connection attempts go unanswered: the client's kernel retries them with its back-off,
  as across a real partition), and live connections stop carrying data until the heal,
  when what was held goes on (TCP's own retransmission across a partition).

Used by Tests/server/test_convergence_proxy.py; usable by hand for a demo.
"""

from __future__ import annotations

import argparse
import random
import select
import socket
import struct
import threading
import time
from typing import List, Optional, Set


class FaultProxy:
    def __init__(self, upstream_port: int, listen_port: int = 0, delay: float = 0.0, loss: float = 0.0,
                 seed: Optional[int] = None, upstream_host: str = "127.0.0.1") -> None:
        self.upstream = (upstream_host, upstream_port)
        self.delay = delay
        self.loss = loss
        self.rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self.lock = threading.Condition()
        self.cut_mode: Optional[str] = None
        self.closed = False
        self.connections: Set[socket.socket] = set()
        self.stats = {"connections": 0, "dropped": 0, "reset_by_cut": 0, "bytes": 0}
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", listen_port))
        # A small backlog: while black-holed, further connection attempts go unanswered.
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._accept_loop, daemon=True)
        self.thread.start()

    # -- faults --------------------------------------------------------------------------

    def cut(self, mode: str = "reset") -> None:
        assert mode in ("reset", "blackhole")
        with self.lock:
            self.cut_mode = mode
            if mode == "reset":
                for s in list(self.connections):
                    self._reset(s)
                    self.stats["reset_by_cut"] += 1

    def heal(self) -> None:
        with self.lock:
            self.cut_mode = None
            self.lock.notify_all()

    def set_faults(self, delay: Optional[float] = None, loss: Optional[float] = None) -> None:
        if delay is not None:
            self.delay = delay
        if loss is not None:
            self.loss = loss

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self.cut_mode = None
            self.lock.notify_all()
            for s in list(self.connections):
                self._reset(s)
        try:
            self.listener.close()
        except OSError:
            pass

    # -- forwarding ------------------------------------------------------------------------

    def _random(self) -> float:
        with self._rng_lock:
            return self.rng.random()

    @staticmethod
    def _reset(s: socket.socket) -> None:
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        try:
            s.close()
        except OSError:
            pass

    def _accept_loop(self) -> None:
        while not self.closed:
            with self.lock:
                while self.cut_mode == "blackhole" and not self.closed:
                    self.lock.wait(0.1)
            try:
                ready, _, _ = select.select([self.listener], [], [], 0.1)
                if not ready:
                    continue
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                if self.cut_mode == "reset":
                    self._reset(client)
                    self.stats["reset_by_cut"] += 1
                    continue
            try:
                server = socket.create_connection(self.upstream, timeout=5)
                server.settimeout(None)
            except OSError:
                self._reset(client)
                continue
            with self.lock:
                self.connections.update([client, server])
                self.stats["connections"] += 1
            pair: List[socket.socket] = [client, server]
            threading.Thread(target=self._pump, args=(client, server, pair), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, pair), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, pair: List[socket.socket]) -> None:
        try:
            while True:
                # Black-holed: nothing moves until the heal (the bytes wait in the kernel).
                with self.lock:
                    while self.cut_mode == "blackhole" and not self.closed:
                        self.lock.wait(0.1)
                    if self.closed:
                        break
                ready, _, _ = select.select([source], [], [], 0.2)
                if not ready:
                    continue
                data = source.recv(65536)
                if not data:
                    try:
                        sink.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    break
                if self.loss > 0 and self._random() < self.loss:
                    with self.lock:
                        self.stats["dropped"] += 1
                    break
                if self.delay > 0:
                    time.sleep(self._random() * self.delay)
                with self.lock:
                    while self.cut_mode == "blackhole" and not self.closed:
                        self.lock.wait(0.1)
                sink.sendall(data)
                with self.lock:
                    self.stats["bytes"] += len(data)
        except (OSError, ValueError):  # a socket closed under us (a cut, the other side): done
            pass
        finally:
            with self.lock:
                for s in pair:
                    if s in self.connections:
                        self.connections.discard(s)
                        self._reset(s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--listen", type=int, required=True)
    ap.add_argument("--upstream", type=int, required=True)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--loss", type=float, default=0.0)
    args = ap.parse_args()
    proxy = FaultProxy(args.upstream, args.listen, args.delay, args.loss)
    print(f"fault proxy: 127.0.0.1:{proxy.port} -> 127.0.0.1:{args.upstream}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        proxy.close()


if __name__ == "__main__":
    main()
