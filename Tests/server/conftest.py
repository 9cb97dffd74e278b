"""Fixtures of the sync server tests (docs/sync-protocol.md).

Run from the repository root, after `make` (which builds build/bin/quire-server):

    python3 -m pytest -q Tests/server          # or: make test-server

Every test that takes the ``host`` fixture runs once per host (sync_support.HOSTS:
quire-server on SQLite and on PostgreSQL, and the Python, Go and Node hosts of the C request
handler, examples/python, examples/go, examples/node, and the Python one on the library's
PostgreSQL flavour for the modules of sync_support.HOST_MODULES); a host whose tools are
missing is skipped with the reason; narrow it with QUIRE_SERVER_HOSTS=quire-server. Servers are real processes on loopback ports that the
tests pick, with SQLite stores in a temporary directory; keys and tokens are made by the
tests (cryptography, PyJWT).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Iterator, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from quire_testing.plugin import pytest_report_header, pytest_runtest_call, pytest_runtest_setup  # noqa: E402,F401
from sync_support import (  # noqa: E402
    HOST_FEATURES, HOSTS, HostSettings, Keys, PostgresCluster, ServerProcess, free_port, make_keys,
    missing_host, selected_hosts, unique, upload, uses_postgres,
)


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    return make_keys(tmp_path_factory.mktemp("keys"))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that takes the host runs on each selected host that runs its module
    (sync_support.HOST_MODULES), with one server per host and module."""
    if "host" in metafunc.fixturenames:
        module = metafunc.module.__name__.rpartition(".")[2]
        metafunc.parametrize("host", selected_hosts(module), indirect=True, scope="module")


@pytest.fixture(scope="module")
def host(request: pytest.FixtureRequest) -> str:
    """The name of the host under test (a key of sync_support.HOSTS)."""
    name = str(request.param)
    if name not in HOSTS:
        pytest.fail(f"unknown host {name!r} in QUIRE_SERVER_HOSTS (known: {', '.join(HOSTS)})")
    why = missing_host(name)
    if why is not None:
        pytest.skip(f"{name}: {why}")
    return name


@pytest.fixture
def expect_failure_unless(host: str, request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """`expect_failure_unless(feature, what)`: the test is expected to fail (xfail, saying
    why) on a host that sync_support.HOST_FEATURES lists without `feature`."""

    def check(feature: str, what: str) -> None:
        if not HOST_FEATURES.get(host, {}).get(feature, True):
            request.node.add_marker(pytest.mark.xfail(reason=f"{host} {what}"))

    return check


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One PostgreSQL server for the session (started only if a test needs it)."""
    cluster = PostgresCluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def postgres_for(request: pytest.FixtureRequest) -> Callable[[str], Any]:
    """`postgres_for(host)`: the session's PostgreSQL cluster if `host` uses one, else None."""
    return lambda host: request.getfixturevalue("postgres_cluster") if uses_postgres(host) else None


def _settings(keys: Keys, workdir: Path, pg: Any = None, **overrides: Any) -> HostSettings:
    # A PostgreSQL host's store is a database named after the server's directory, so that a
    # restart in the same directory (the crash test) finds the same store, as with SQLite.
    store = pg.database_url(str(workdir)) if pg is not None else f"sqlite://{workdir / 'quire.db'}"
    s = HostSettings(port=free_port(), store=store,
                     public_keys=keys.public_key_files, admin_token_file=keys.admin_token_file)
    for k, v in overrides.items():
        setattr(s, k, v)
    return s


@pytest.fixture
def start_server(keys: Keys, tmp_path: Path, postgres_for) -> Iterator[Callable[..., ServerProcess]]:
    """Starts a server of the given host with settings overridden by keyword; every server
    started is stopped (or killed) at the end of the test."""
    started: List[ServerProcess] = []

    def start(host_name: str, extra_args: tuple = (), workdir: Any = None, **overrides: Any) -> ServerProcess:
        wd = Path(workdir) if workdir is not None else tmp_path / unique("server")
        wd.mkdir(parents=True, exist_ok=True)
        p = ServerProcess(host_name, _settings(keys, wd, postgres_for(host_name), **overrides), wd, extra_args)
        started.append(p)
        return p.start()

    yield start
    for p in started:
        p.kill()


@pytest.fixture(scope="module")
def server(host: str, keys: Keys, tmp_path_factory: pytest.TempPathFactory,
           request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """One server per host and test module, with its own store (a SQLite file, or a
    PostgreSQL database); it must stop cleanly (SIGTERM, exit status 0) at the end."""
    wd = tmp_path_factory.mktemp(f"{host}-server")
    pg = request.getfixturevalue("postgres_cluster") if uses_postgres(host) else None
    p = ServerProcess(host, _settings(keys, wd, pg), wd).start()
    try:
        yield p
    finally:
        if p.proc is not None and p.proc.poll() is None:
            status = p.stop()
            assert status == 0, f"{host} exited with {status} on SIGTERM:\n{p.log()[-3000:]}"
        else:
            p.kill()


@pytest.fixture(scope="module")
def document(server: ServerProcess, keys: Keys) -> str:
    """examples/sample.pdf, uploaded once per module server under a fresh id."""
    doc = unique("doc")
    r = upload(server.port, keys, doc)
    assert r.status == 201, r
    return doc
