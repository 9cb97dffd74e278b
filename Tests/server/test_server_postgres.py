"""Two quire-server processes on one PostgreSQL database (issue 15): a change pushed to one
reaches a long poll waiting on the other within a second (LISTEN/NOTIFY), a retry sent to
the other process is answered from the store, and concurrent pushes through both never
apply anything twice. The PostgreSQL server is Debian's, started by the tests (initdb and
pg_ctl in a temporary directory, as an unprivileged user)."""

from __future__ import annotations

import threading
import time
from typing import Any, Dict, List

import pytest

from sync_support import (
    SAMPLE_ANNOTATIONS, Client, Keys, PostgresCluster, ServerProcess, assert_error, claims, free_port,
    layer_state, mint, note, postgres_bindir, put, request, unique, upload,
)

pytestmark = pytest.mark.skipif(postgres_bindir() is None,
                                reason="PostgreSQL is not installed (scripts/install-deps.sh installs it)")


@pytest.fixture
def pair(start_server, postgres_cluster: PostgresCluster, tmp_path) -> List[ServerProcess]:
    store = postgres_cluster.database_url(str(tmp_path))
    return [start_server("quire-server", store=store) for _ in range(2)]


def test_a_change_pushed_to_one_process_wakes_a_listener_on_the_other(pair: List[ServerProcess], keys: Keys) -> None:
    a, b = pair
    doc, layer = unique("pg"), unique("layer")
    assert upload(a.port, keys, doc).status == 201
    token = mint(keys.rsa, claims(doc, layer))
    writer = Client(a.port, doc, layer, token, "writer")
    listener = Client(b.port, doc, layer, token, "listener")
    assert listener.fetch().json["seq"] == 0
    delays: List[float] = []
    for i in range(1, 6):
        got: Dict[str, Any] = {}

        def listen() -> None:
            got["response"] = listener.changes(i - 1, wait=20)
            got["at"] = time.monotonic()

        t = threading.Thread(target=listen)
        t.start()
        time.sleep(0.3)  # the long poll is waiting on b
        r = writer.push([put(i, note(f"n{i}", f"push {i}"))])
        acked = time.monotonic()
        assert r.status == 200 and r.json["results"][0]["seq"] == i, r
        t.join(25)
        assert not t.is_alive()
        resp = got["response"]
        assert resp.status == 200, resp
        assert [ch["id"] for ch in resp.json["changes"]] == [f"n{i}"]
        delays.append(got["at"] - acked)
    # Within a second, in practice a few milliseconds; one slow round of five is forgiven
    # (a loaded machine), a lost notification (a wait run to its end) never.
    assert sum(d < 1.0 for d in delays) >= 4 and max(delays) < 5, delays


def test_a_change_committed_while_listen_was_down_still_wakes_the_listener(
        start_server, postgres_cluster: PostgresCluster, tmp_path, keys: Keys) -> None:
    """The LISTEN connection is cut (pg_terminate_backend, as a restart of PostgreSQL or a
    network cut would): the notification of a push committed before the process listens
    again is lost, and the process must still wake its long poll once it listens again,
    not when the poll's wait runs out."""
    url = postgres_cluster.database_url(str(tmp_path))
    a, b = start_server("quire-server", store=url), start_server("quire-server", store=url)
    doc, layer = unique("pg"), unique("layer")
    assert upload(a.port, keys, doc).status == 201
    token = mint(keys.rsa, claims(doc, layer))
    writer = Client(a.port, doc, layer, token, "writer")
    listener = Client(b.port, doc, layer, token, "listener")
    assert writer.push([put(1, note("n1", "first"))]).status == 200
    assert listener.changes(0).json["seq"] == 1
    listening = "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND datname = current_database()"
    deadline = time.monotonic() + 20
    while int(postgres_cluster.sql(url, listening)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)  # both processes listen
    for attempt in range(3):
        got: Dict[str, Any] = {}

        def listen(since: int) -> None:
            got["response"] = listener.changes(since, wait=30)
            got["at"] = time.monotonic()

        since = 1 + attempt
        t = threading.Thread(target=listen, args=(since,))
        t.start()
        time.sleep(0.3)  # the long poll is waiting on b
        cut = postgres_cluster.sql(url, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                        "WHERE query ILIKE 'LISTEN%' AND datname = current_database()")
        assert int(cut) == 2
        # Pushed at once: both processes listen again only after a second.
        r = writer.push([put(2 + attempt, note(f"n{2 + attempt}", "while nobody listened"))])
        acked = time.monotonic()
        assert r.status == 200 and r.json["results"][0]["seq"] == since + 1, r
        t.join(40)
        assert not t.is_alive()
        assert got["response"].status == 200 and [ch["seq"] for ch in got["response"].json["changes"]] == [since + 1]
        # Woken when b listens again (a second, and its catch-up read), not after the 30 s wait.
        assert got["at"] - acked < 10, got["at"] - acked
        assert "LISTEN failed" in b.log(), b.log()[-2000:]


def test_a_retry_through_the_other_process_is_answered_from_the_store(pair: List[ServerProcess], keys: Keys) -> None:
    a, b = pair
    doc, layer = unique("pg"), unique("layer")
    assert upload(a.port, keys, doc).status == 201
    assert upload(b.port, keys, doc).status == 409  # one store
    token = mint(keys.rsa, claims(doc, layer))
    first = Client(a.port, doc, layer, token, "phone").push([put(1, note("x", "once"))])
    again = Client(b.port, doc, layer, token, "phone").push([put(1, note("x", "twice?"))])
    assert again.json == first.json
    seq, records = layer_state(b.port, keys, doc, layer)
    assert seq == 1 and len(records) == SAMPLE_ANNOTATIONS + 1


def test_concurrent_pushes_through_both_processes(pair: List[ServerProcess], keys: Keys) -> None:
    doc, layer = unique("pg"), unique("layer")
    assert upload(pair[0].port, keys, doc).status == 201
    token = mint(keys.rsa, claims(doc, layer))
    errors: List[Any] = []

    def writer(server: ServerProcess, name: str) -> None:
        c = Client(server.port, doc, layer, token, name)
        for i in range(1, 31):
            r = c.push([put(i, note(f"{name}-{i}"))])
            if r.status != 200 or r.json["results"][0]["status"] != "accepted":
                errors.append(r)
            # every other push is retried at once, through the other process
            if i % 2 == 0:
                other = pair[1] if server is pair[0] else pair[0]
                r2 = Client(other.port, doc, layer, token, name).push([put(i, note(f"{name}-{i}"))])
                # The same answer (the push's top-level seq is the layer's, which others move).
                if r2.status != 200 or r2.json["results"] != r.json["results"]:
                    errors.append((r, r2))

    threads = [threading.Thread(target=writer, args=(s, f"w{k}-{j}")) for k, s in enumerate(pair) for j in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors[:3]
    c = Client(pair[1].port, doc, layer, token, "reader")
    feed = c.changes(0).json
    assert [ch["seq"] for ch in feed["changes"]] == list(range(1, 121))
    assert len({ch["id"] for ch in feed["changes"]}) == 120


def test_an_unreachable_postgres_fails_requests_instead_of_hanging(start_server, keys: Keys) -> None:
    """postgres-nio retries an unreachable server forever; a request gets a 5xx JSON error
    after the store's connection timeout, and SIGTERM still stops the server cleanly."""
    dead = f"postgres://quire@127.0.0.1:{free_port()}/nothing"  # nothing listens there
    s = start_server("quire-server", store=dead)
    r = request(s.port, "GET", "/admin/documents", headers=keys.admin, timeout=60)
    assert_error(r, 500, "internal")
    assert "PostgreSQL" in r.json["error"]["message"]
    assert s.stop() == 0
