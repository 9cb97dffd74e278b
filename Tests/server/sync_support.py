"""What the sync server tests share: the hosts and their processes, a PostgreSQL cluster,
the protocol from a client's side. Keys, tokens, HTTP requests and the wait for a server's
health check come from the support package of every suite (Tests/support/quire_testing),
and are re-exported here.

The tests talk to real server processes on loopback with real SQLite files in a temporary
directory. A *host* is a program that serves docs/sync-protocol.md; each one is started by a
command line built from the same settings (see ``HOSTS``), so that the conformance suite
runs unchanged against every host.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import pwd
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

# What every suite shares (Tests/support/quire_testing), re-exported for the tests here.
from quire_testing.library import child_env  # noqa: E402
from quire_testing.paths import QUIRE_SERVER, REPO, SAMPLE  # noqa: E402,F401
from quire_testing.server import (  # noqa: E402,F401
    Response, free_port, request, request_chunked, wait_for_health,
)
from quire_testing.tokens import (  # noqa: E402,F401
    Keys, b64url, bearer, claims, hs256_token, make_keys, mint, public_pem, unsigned_token,
)

SAMPLE_ANNOTATIONS = 12  # examples/sample.pdf: 2 pages, 12 annotations


# ---- hosts ---------------------------------------------------------------------------------


@dataclass
class HostSettings:
    """What every host is started with. A host's command line says it in its own flags."""

    port: int
    store: str  # a store URL: sqlite:///abs/path.db
    public_keys: List[Path]
    admin_token_file: Optional[Path]
    jwks: Optional[Path] = None
    max_body_bytes: Optional[int] = None
    max_upload_bytes: Optional[int] = None
    max_listeners: Optional[int] = None
    max_attachment_bytes: Optional[int] = None
    attachment_grace_seconds: Optional[int] = None
    extra_env: Dict[str, str] = field(default_factory=dict)


def quire_server_command(s: HostSettings) -> List[str]:
    """quire-server's command line. Hosts that follow the same flags (the Python example of
    the C request handler is meant to) reuse it with another program in front."""
    argv = ["--host", "127.0.0.1", "--port", str(s.port), "--store", s.store]
    for key in s.public_keys:
        argv += ["--public-key", str(key)]
    if s.jwks is not None:
        argv += ["--jwks", str(s.jwks)]
    if s.admin_token_file is not None:
        argv += ["--admin-token-file", str(s.admin_token_file)]
    if s.max_body_bytes is not None:
        argv += ["--max-body-bytes", str(s.max_body_bytes)]
    if s.max_upload_bytes is not None:
        argv += ["--max-upload-bytes", str(s.max_upload_bytes)]
    if s.max_listeners is not None:
        argv += ["--max-listeners", str(s.max_listeners)]
    if s.max_attachment_bytes is not None:
        argv += ["--max-attachment-bytes", str(s.max_attachment_bytes)]
    if s.attachment_grace_seconds is not None:
        argv += ["--attachment-grace-seconds", str(s.attachment_grace_seconds)]
    return argv


# The library the embedding hosts are built against (its pkg-config file and libquire.so).
LIBRARY_PREFIX = Path(os.environ.get("QUIRE_PREFIX", REPO / "build"))
HOSTS_BUILD = REPO / "build" / "examples"


def _build(argv: List[str], cwd: Path, what: str, **env: str) -> None:
    e = dict(os.environ, PKG_CONFIG_PATH=str(LIBRARY_PREFIX / "lib" / "pkgconfig"), **env)
    r = subprocess.run(argv, cwd=str(cwd), env=e, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"building {what} failed ({describe(argv)}):\n{r.stdout}\n{r.stderr}")


_built: Dict[str, List[str]] = {}


def go_host(postgres: bool = False) -> List[str]:
    """examples/go, built once per test session against LIBRARY_PREFIX (cgo, pkg-config);
    `postgres`: with -tags quire_postgres, against the library's PostgreSQL flavour."""
    key = "go+postgres" if postgres else "go"
    if key not in _built:
        out = HOSTS_BUILD / "go" / ("syncserver-postgres" if postgres else "syncserver")
        out.parent.mkdir(parents=True, exist_ok=True)
        # Go's caches in the build tree (a CI run may have no $HOME), and no module proxy:
        # the host uses the standard library only.
        _build(["go", "build"] + (["-tags", "quire_postgres"] if postgres else []) + ["-o", str(out), "."],
               REPO / "examples" / "go", "the Go host",
               CGO_LDFLAGS=f"-Wl,-rpath,{LIBRARY_PREFIX / 'lib'}", GOCACHE=str(out.parent / "cache"),
               GOPATH=str(out.parent / "gopath"), GOPROXY="off")
        _built[key] = [str(out)]
    return _built[key]


def node_host(postgres: bool = False) -> List[str]:
    """examples/node/server.js with its N-API addon, built once per test session;
    `postgres`: the addon linked against the library's PostgreSQL flavour."""
    key = "node+postgres" if postgres else "node"
    if key not in _built:
        out = HOSTS_BUILD / key
        out.mkdir(parents=True, exist_ok=True)
        _build(["make", "-B", "-s", f"OUT={out}", "QUIRE_PC=" + ("quire-postgres" if postgres else "quire")],
               REPO / "examples" / "node", "the Node host's addon")
        _built[key] = ["env", f"QUIRE_NODE_ADDON={out / 'quire_sync.node'}", shutil.which("node") or "node",
                       str(REPO / "examples" / "node" / "server.js")]
    return _built[key]


def _missing_library() -> Optional[str]:
    if not (LIBRARY_PREFIX / "lib" / "pkgconfig" / "quire.pc").exists():
        return f"the library is not built ({LIBRARY_PREFIX}/lib/pkgconfig/quire.pc is missing: make)"
    return None


# The library's PostgreSQL flavour (make lib-postgres): the same C interface as libquire,
# with the sync service's PostgreSQL store.
POSTGRES_LIBRARY = LIBRARY_PREFIX / "lib" / "libquire-postgres.so"


def python_host(library: Optional[Path] = None) -> List[str]:
    """examples/python/sync_server.py, on `library` (QUIRE_LIBRARY) if given, else on the
    library the tests use."""
    program = [sys.executable, str(REPO / "examples" / "python" / "sync_server.py")]
    return (["env", f"QUIRE_LIBRARY={library}"] if library is not None else []) + program


def _missing_postgres() -> Optional[str]:
    if postgres_bindir() is None:
        return "PostgreSQL is not installed (scripts/install-deps.sh installs it)"
    return None


def _missing_postgres_library() -> Optional[str]:
    if not POSTGRES_LIBRARY.exists():
        return f"the library's PostgreSQL flavour is not built ({POSTGRES_LIBRARY} is missing: make lib-postgres)"
    return _missing_postgres()


def _missing_go() -> Optional[str]:
    if shutil.which("go") is None:
        return "Go is not installed (scripts/install-deps.sh installs Debian's golang-go)"
    return _missing_library()


def _missing_node() -> Optional[str]:
    if shutil.which("node") is None:
        return "Node is not installed (scripts/install-deps.sh installs Debian's nodejs)"
    if not any(Path(d, "node_api.h").exists() for d in ("/usr/include/node", "/usr/local/include/node")):
        return "Node's headers (node_api.h) are missing (Debian: libnode-dev)"
    return _missing_library()


# name -> (program and leading arguments, why it is not there (None: it is)). Select with
# QUIRE_SERVER_HOSTS=name,name (default: every host; one that is not there is skipped with
# its reason). A name ending in "+postgres" is that host on a PostgreSQL store (a database of
# the test's own cluster) instead of a SQLite file. The hosts of the C request handler
# (Python, Go, Node; issues 15 and 35) take quire-server's flags.
HOSTS: Dict[str, Tuple[Callable[[], List[str]], Callable[[], Optional[str]]]] = {
    "quire-server": (lambda: [str(QUIRE_SERVER)],
                     lambda: None if QUIRE_SERVER.exists() else f"{QUIRE_SERVER} is not built (make)"),
    "quire-server+postgres": (lambda: [str(QUIRE_SERVER)], _missing_postgres),
    # The C request handler as a WSGI application on waitress (issue 15).
    "python-handler": (python_host, lambda: None),
    # The same on the library's PostgreSQL flavour (libquire-postgres, issue 35), with a
    # PostgreSQL store: several processes on one database (test_server_postgres.py).
    "python-handler+postgres": (lambda: python_host(POSTGRES_LIBRARY), _missing_postgres_library),
    # The asynchronous C handler under Go's net/http (cgo) and Node's node:http (N-API).
    "go-handler": (go_host, _missing_go),
    "node-handler": (node_host, _missing_node),
    # The Go and Node hosts linked against the PostgreSQL flavour (test_server_postgres.py).
    "go-handler+postgres": (lambda: go_host(postgres=True), lambda: _missing_go() or _missing_postgres_library()),
    "node-handler+postgres": (lambda: node_host(postgres=True),
                              lambda: _missing_node() or _missing_postgres_library()),
}


# What a host is known not to do yet, by name (absent: everything). Tests of such a feature
# are expected to fail on that host (xfail, with the reason), and say so in the summary.
# framing_errors: HTTP that the host's own HTTP server refuses (a header past its limit, a NUL
# in the request line or a header, a garbage request line, a body shorter than its
# Content-Length) is answered with the protocol's JSON error and a request id. Only
# quire-server does: the other hosts' web servers (waitress, Go's net/http, Node's llhttp)
# answer those in their own shape before the library sees a request.
# nul_in_request_line: a raw NUL in the request line reaches the library (waitress passes it
# on; the binding sends it as %00), which answers its 400; Go's and Node's parsers refuse it.
# cancels_on_disconnect: a long poll whose client went away stops waiting at once (the Go and
# Node hosts cancel the asynchronous call); the others hold it until its wait ends.
# Every host takes --max-listeners and --max-attachment-bytes (quire-server; the embedding
# hosts through quire_sync_config version 2) and --attachment-grace-seconds (the embedding
# hosts through quire_sync_config version 3).
HOST_FEATURES: Dict[str, Dict[str, bool]] = {
    "quire-server": {"cancels_on_disconnect": False},
    "quire-server+postgres": {"cancels_on_disconnect": False},
    "python-handler": {"framing_errors": False, "cancels_on_disconnect": False},
    "python-handler+postgres": {"framing_errors": False, "cancels_on_disconnect": False},
    "go-handler": {"framing_errors": False, "nul_in_request_line": False},
    "node-handler": {"framing_errors": False, "nul_in_request_line": False},
    "go-handler+postgres": {"framing_errors": False, "nul_in_request_line": False},
    "node-handler+postgres": {"framing_errors": False, "nul_in_request_line": False},
}


# The test modules a host runs, for a host that runs only some (absent: every module whose
# tests take a host). python-handler+postgres is python-handler on the library's PostgreSQL
# flavour and store: it runs the protocol's conformance (test_server_api: 53 tests, 21 s
# here), which goes through all it adds (the flavour's store registration, the C layer, the
# PostgreSQL store under an embedded service); test_server_postgres.py runs two of its
# processes on one database. The other modules test what it shares with python-handler
# (tokens and rights, store-blind: test_server_jwt, test_server_rights, 10 s more; waitress's
# HTTP: test_server_edges, whose expected failures alone take 20 s; the sync client:
# test_client) or with quire-server+postgres, which runs them all on the same store (kill -9:
# test_server_crash). A host named in QUIRE_SERVER_HOSTS runs every module
# (QUIRE_SERVER_HOSTS=python-handler+postgres make test-server). The Go and Node hosts on the flavour run no module of the
# conformance suite (their HTTP is go-handler's and node-handler's, their store
# python-handler+postgres's): test_server_postgres.py has one of each wake the other.
HOST_MODULES: Dict[str, Tuple[str, ...]] = {
    "python-handler+postgres": ("test_server_api",),
    "go-handler+postgres": (),
    "node-handler+postgres": (),
}


def selected_hosts(module: Optional[str] = None) -> List[str]:
    """The hosts to run: QUIRE_SERVER_HOSTS's, on every module; else every host, and for
    the tests of `module` (a module's name, test_server_api) those that run it
    (HOST_MODULES)."""
    wanted = os.environ.get("QUIRE_SERVER_HOSTS")
    if wanted:
        return [h.strip() for h in wanted.split(",") if h.strip()]
    return [h for h in HOSTS if module is None or h not in HOST_MODULES or module in HOST_MODULES[h]]


def missing_host(host: str) -> Optional[str]:
    """Why `host` cannot run here (a tool or the build missing), or None."""
    return HOSTS[host][1]()


def uses_postgres(host: str) -> bool:
    return host.endswith("+postgres")


# ---- PostgreSQL ---------------------------------------------------------------------------------


def postgres_bindir() -> Optional[Path]:
    """Where Debian's PostgreSQL server programs are (initdb, pg_ctl), if installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class PostgresCluster:
    """A PostgreSQL server of the tests' own: initdb in a temporary directory, pg_ctl on a
    free loopback port, as an unprivileged user (the `postgres` account Debian's package
    makes, or `nobody`) when the tests run as root, since PostgreSQL refuses root."""

    def __init__(self) -> None:
        bindir = postgres_bindir()
        if bindir is None:
            raise RuntimeError("PostgreSQL's server programs are not installed (apt-get install postgresql)")
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="quire-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.user: Optional[str] = None
        if os.geteuid() == 0:
            name = "postgres"
            try:
                entry = pwd.getpwnam(name)
            except KeyError:
                name, entry = "nobody", pwd.getpwnam("nobody")
            self.user = name
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self._run(["initdb", "-D", str(self.data), "-A", "trust", "-U", "quire", "-E", "UTF8", "--no-sync"])
        self._run(["pg_ctl", "-D", str(self.data), "-l", str(self.dir / "server.log"), "-w", "-t", "60", "-o",
                   f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off "
                   f"-c max_connections=200", "start"])
        self.databases: set = set()

    def _run(self, argv: List[str]) -> None:
        argv = [str(self.bindir / argv[0])] + argv[1:]
        r = subprocess.run(argv, user=self.user, cwd=str(self.dir), capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"{describe(argv)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")

    def database_url(self, name: str) -> str:
        """postgres://... of database `name`, created on first use."""
        name = "q" + hashlib.sha256(name.encode()).hexdigest()[:20]
        if name not in self.databases:
            self._run(["createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "quire", name])
            self.databases.add(name)
        return f"postgres://quire@127.0.0.1:{self.port}/{name}"

    def sql(self, url: str, statement: str) -> str:
        """Runs `statement` with psql on the database of `url` (from database_url); its
        output, unaligned and without headers."""
        argv = [str(self.bindir / "psql"), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", statement]
        r = subprocess.run(argv, user=self.user, cwd=str(self.dir), capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"{describe(argv)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        return r.stdout

    def log(self) -> str:
        try:
            return (self.dir / "server.log").read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        try:
            self._run(["pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


class ServerProcess:
    """One host process. `start` waits until /healthz answers; `stop` sends SIGTERM and
    returns the exit status; `kill` is SIGKILL. The log (standard error) is kept in a file."""

    def __init__(self, host: str, settings: HostSettings, workdir: Path, extra_args: Sequence[str] = ()):
        self.host = host
        self.settings = settings
        self.workdir = workdir
        self.extra_args = list(extra_args)
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.log_path = workdir / f"{host}-{settings.port}-{uuid.uuid4().hex[:6]}.log"
        self._log: Any = None

    @property
    def port(self) -> int:
        return self.settings.port

    def command(self) -> List[str]:
        program, _ = HOSTS[self.host]
        return program() + quire_server_command(self.settings) + self.extra_args

    def start(self, timeout: float = 30.0) -> "ServerProcess":
        # A host in Python (python-handler) imports the package and library under test.
        env = child_env(self.settings.extra_env)
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            self.command(), stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
            cwd=str(self.workdir), env=env)
        try:
            wait_for_health(self.proc, self.port, timeout, self.log, name=self.host)
        except RuntimeError:
            self.kill()
            raise
        return self

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError(f"{self.host} did not stop within {timeout} s of signal {sig}")
        self._close_log()
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None


# ---- HTTP ------------------------------------------------------------------------------------


def assert_error(r: Response, status: int, code: Optional[str] = None) -> None:
    """The protocol's error shape: the status, {"error": {"code", "message"}}, a request id."""
    assert r.status == status, r
    assert r.header("X-Request-Id"), r.headers
    assert (r.header("Content-Type") or "").startswith("application/json"), r.headers
    body = r.json
    assert set(body) == {"error"}, body
    assert isinstance(body["error"].get("code"), str) and isinstance(body["error"].get("message"), str), body
    if code is not None:
        assert body["error"]["code"] == code, body


def refused_push(r: Response, status: int = 422, code: str = "invalid_record") -> Dict[int, Dict[str, Any]]:
    """A push refused whole (docs/sync-protocol.md, "Refused pushes"): the error shape, and
    the mutations it names, by client_seq (each with its id and message)."""
    assert_error(r, status, code)
    named = r.json["error"]["mutations"]
    assert named and all(isinstance(m["id"], str) and m["message"] for m in named), r.json
    assert "nothing was applied" in r.json["error"]["message"], r.json
    return {m["client_seq"]: m for m in named}


# ---- keys and tokens ---------------------------------------------------------------------------


# Tests/support/quire_testing/tokens.py (imported above): Keys, make_keys, claims, mint,
# unsigned_token, hs256_token, bearer.


# ---- the protocol, from a client's side -------------------------------------------------------


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def note(record_id: str, text: str = "a note", page: int = 0, **extra: Any) -> Dict[str, Any]:
    """A minimal valid record: a note on `page`."""
    r: Dict[str, Any] = {"v": 1, "type": "pspdfkit/note", "id": record_id, "pageIndex": page,
                         "bbox": [100, 100, 20, 20], "text": text}
    r.update(extra)
    return r


def put(client_seq: int, record: Dict[str, Any], base_revision: Optional[int] = None) -> Dict[str, Any]:
    return {"client_seq": client_seq, "op": "put", "id": record["id"], "base_revision": base_revision,
            "record": record}


def delete(client_seq: int, record_id: str, base_revision: Optional[int]) -> Dict[str, Any]:
    return {"client_seq": client_seq, "op": "delete", "id": record_id, "base_revision": base_revision}


class Client:
    """A client of one layer, holding its token."""

    def __init__(self, port: int, document: str, layer: str, token: str, client_id: Optional[str] = None):
        self.port = port
        self.document = document
        self.layer = layer
        self.token = token
        self.client_id = client_id or unique("client")

    @property
    def base(self) -> str:
        return f"/documents/{self.document}/layers/{self.layer}"

    def get(self, path: str, timeout: float = 30.0) -> Response:
        return request(self.port, "GET", path, headers=bearer(self.token), timeout=timeout)

    def fetch(self) -> Response:
        return self.get(self.base)

    def changes(self, since: int, wait: Optional[int] = None, timeout: float = 90.0) -> Response:
        q = f"?since={since}" + (f"&wait={wait}" if wait is not None else "")
        return self.get(self.base + "/changes" + q, timeout=timeout)

    def push(self, mutations: List[Dict[str, Any]], client_id: Optional[str] = None,
             raw: Optional[bytes] = None, timeout: float = 30.0, version: Optional[int] = 2) -> Response:
        """A push of `version` 2 (what libquire 0.5's client sends: a put may name its
        `fields`, a record refused on its own refuses the push); None sends no `v`, a
        version 1 push as older clients send."""
        top: Dict[str, Any] = {"client_id": client_id or self.client_id, "mutations": mutations}
        if version is not None:
            top["v"] = version
        body = raw if raw is not None else json.dumps(top).encode()
        return request(self.port, "POST", self.base + "/mutations", body=body,
                       headers={**bearer(self.token), "Content-Type": "application/json"}, timeout=timeout)


def upload(port: int, keys: Keys, document: Optional[str] = None, data: Optional[bytes] = None) -> Response:
    path = "/admin/documents" + (f"?id={document}" if document is not None else "")
    return request(port, "POST", path, body=SAMPLE.read_bytes() if data is None else data,
                   headers={**keys.admin, "Content-Type": "application/pdf"})


def layer_state(port: int, keys: Keys, document: str, layer: str) -> Tuple[int, List[Dict[str, Any]]]:
    """A layer's seq and its records, read with a fresh token (for "nothing changed")."""
    token = mint(keys.rsa, claims(document, layer, ["read"]))
    r = request(port, "GET", f"/documents/{document}/layers/{layer}", headers=bearer(token))
    assert r.status == 200, r
    body = r.json
    return body["seq"], sorted(body["records"], key=lambda x: x["record"]["id"])


def describe(cmd: Sequence[str]) -> str:
    return " ".join(shlex.quote(c) for c in cmd)
