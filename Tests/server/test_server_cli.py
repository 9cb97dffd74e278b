"""quire-server's own command line: --help, flags and their environment fallbacks, the log,
graceful shutdown, refused configurations. (The protocol itself: test_server_api.py.)"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from sync_support import (
    QUIRE_SERVER, SAMPLE, Client, Keys, assert_error, claims, free_port, mint, note, put, request,
    unique, upload,
)

OPTIONS = ["--host", "--port", "--store", "--public-key", "--jwks", "--admin-token-file", "--max-body-bytes",
           "--max-upload-bytes", "--max-listeners", "--max-attachment-bytes", "--attachment-grace-seconds",
           "--log-level"]
ENVIRONMENT = ["QUIRE_HOST", "QUIRE_PORT", "QUIRE_STORE", "QUIRE_PUBLIC_KEYS", "QUIRE_JWKS",
               "QUIRE_ADMIN_TOKEN", "QUIRE_ADMIN_TOKEN_FILE", "QUIRE_MAX_BODY_BYTES", "QUIRE_MAX_UPLOAD_BYTES",
               "QUIRE_MAX_LISTENERS", "QUIRE_MAX_ATTACHMENT_BYTES", "QUIRE_ATTACHMENT_GRACE_SECONDS", "QUIRE_LOG_LEVEL"]


def clean_env(**extra: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIRE_")}
    env.update(extra)
    return env


class Proc:
    """quire-server started with exactly these arguments and environment."""

    def __init__(self, args: List[str], env: Dict[str, str], cwd: Path, port: int):
        self.port = port
        self.log_path = cwd / f"server-{port}.log"
        self._log = open(self.log_path, "wb")
        self.p = subprocess.Popen([str(QUIRE_SERVER), *args], env=env, cwd=str(cwd),
                                  stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log)

    def wait_ready(self, timeout: float = 30) -> "Proc":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.p.poll() is None, f"exited {self.p.returncode}:\n{self.log()}"
            try:
                if request(self.port, "GET", "/healthz", timeout=2).status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"not ready:\n{self.log()}")

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def close(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        self._log.close()


@pytest.fixture
def procs():
    started: List[Proc] = []
    yield started
    for p in started:
        p.close()


def run(args: List[str], env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(QUIRE_SERVER), *args], env=env or clean_env(), cwd=cwd, capture_output=True,
                          text=True, timeout=60)


def test_help_documents_every_option() -> None:
    r = run(["--help"])
    assert r.returncode == 0, r.stderr
    text = r.stdout
    for option in OPTIONS:
        assert option in text, option
    for name in ENVIRONMENT:
        assert name in text, name
    for default in ["127.0.0.1", "8411", "sqlite://./quire.db", "8 MiB", "256 MiB", "info"]:
        assert default in text, default
    assert "docs/sync-protocol.md" in text and "SIGTERM" in text


def test_environment_fallbacks(keys: Keys, tmp_path: Path, procs: List[Proc]) -> None:
    port = free_port()
    env = clean_env(
        QUIRE_HOST="127.0.0.1", QUIRE_PORT=str(port), QUIRE_STORE=f"sqlite://{tmp_path / 'env.db'}",
        QUIRE_PUBLIC_KEYS=":".join(str(k) for k in keys.public_key_files), QUIRE_JWKS=str(keys.jwks_file),
        QUIRE_ADMIN_TOKEN=keys.admin_token, QUIRE_MAX_BODY_BYTES="2048", QUIRE_MAX_UPLOAD_BYTES="100000",
        QUIRE_LOG_LEVEL="warning")
    p = Proc([], env, tmp_path, port)
    procs.append(p)
    p.wait_ready()
    doc = unique("env")
    assert upload(port, keys, doc).status == 201                  # QUIRE_ADMIN_TOKEN
    assert (tmp_path / "env.db").exists()                          # QUIRE_STORE
    for key, alg in [(keys.rsa, "RS256"), (keys.ec, "ES256")]:     # QUIRE_PUBLIC_KEYS, both files
        assert Client(port, doc, "l", mint(key, claims(doc, "l"), alg)).fetch().status == 200
    jwks_token = mint(keys.jwks_ec, claims(doc, "l"), "ES256", headers={"kid": "jwks-key-1"})
    assert Client(port, doc, "l", jwks_token).fetch().status == 200  # QUIRE_JWKS
    c = Client(port, doc, "l", mint(keys.rsa, claims(doc, "l")))
    big = json.dumps({"client_id": "c", "mutations": [put(1, note("n", "x" * 3000))]}).encode()
    assert_error(c.push([], raw=big), 413, "too_large")            # QUIRE_MAX_BODY_BYTES
    assert_error(upload(port, keys, unique("big"), data=SAMPLE.read_bytes() + b"%" * 100_000),
                 413, "too_large")                                 # QUIRE_MAX_UPLOAD_BYTES
    assert "msg=request" not in p.log()                            # QUIRE_LOG_LEVEL=warning


def test_flags_win_over_the_environment(keys: Keys, tmp_path: Path, procs: List[Proc]) -> None:
    port = free_port()
    token_file = tmp_path / "token"
    token_file.write_text("from-the-file\n")
    env = clean_env(QUIRE_PORT="1", QUIRE_STORE="nosuchscheme://x", QUIRE_ADMIN_TOKEN="from-the-env",
                    QUIRE_PUBLIC_KEYS="/nonexistent.pem", QUIRE_LOG_LEVEL="nonsense", QUIRE_MAX_BODY_BYTES="10")
    p = Proc(["--port", str(port), "--store", f"sqlite://{tmp_path / 'flags.db'}",
              "--public-key", str(keys.public_key_files[0]), "--admin-token-file", str(token_file),
              "--log-level", "info", "--max-body-bytes", "100000"], env, tmp_path, port)
    procs.append(p)
    p.wait_ready()
    r = request(port, "GET", "/admin/documents", headers={"Authorization": "Token from-the-file"})
    assert r.status == 200, r
    assert request(port, "GET", "/admin/documents", headers={"Authorization": "Token from-the-env"}).status == 401


def test_default_store_is_quire_db_in_the_working_directory(keys: Keys, tmp_path: Path, procs: List[Proc]) -> None:
    port = free_port()
    p = Proc(["--port", str(port), "--admin-token-file", str(keys.admin_token_file)], clean_env(), tmp_path, port)
    procs.append(p)
    p.wait_ready()
    assert upload(port, keys, unique("d")).status == 201
    assert (tmp_path / "quire.db").exists()
    # The default address is 127.0.0.1.
    assert "address=127.0.0.1:" in p.log()


def test_relative_sqlite_url(keys: Keys, tmp_path: Path, procs: List[Proc]) -> None:
    port = free_port()
    (tmp_path / "data").mkdir()
    p = Proc(["--port", str(port), "--store", "sqlite://data/rel.db"], clean_env(), tmp_path, port)
    procs.append(p)
    p.wait_ready()
    assert (tmp_path / "data" / "rel.db").exists()


def test_one_log_line_per_request(keys: Keys, tmp_path: Path, procs: List[Proc]) -> None:
    port = free_port()
    p = Proc(["--port", str(port), "--store", "sqlite::memory:"], clean_env(), tmp_path, port)
    procs.append(p)
    p.wait_ready()
    request(port, "GET", "/healthz", headers={"X-Request-Id": "log-test-1"})
    request(port, "GET", "/no/such/route", headers={"X-Request-Id": "log-test-2"})
    r = request(port, "POST", "/documents/d/layers/l/mutations", body=b"{}")
    made = r.header("X-Request-Id")
    time.sleep(0.2)
    lines = [ln for ln in p.log().splitlines() if "msg=request" in ln]
    def find(rid: str) -> str:
        [line] = [ln for ln in lines if f"request_id={rid} " in ln]
        return line
    line = find("log-test-1")
    assert re.search(r"^ts=\S+ level=info msg=request request_id=log-test-1 method=GET path=/healthz "
                     r"status=200 duration_ms=\d+\.\d\d$", line), line
    assert "path=/no/such/route status=404" in find("log-test-2")
    assert "method=POST path=/documents/d/layers/l/mutations status=401" in find(made)
    # Besides the readiness probes' GET /healthz, nothing else.
    assert all("log-test" in ln or made in ln or "path=/healthz status=200" in ln for ln in lines)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_graceful_shutdown_answers_long_polls_and_exits_0(keys: Keys, tmp_path: Path, procs: List[Proc],
                                                          sig: int) -> None:
    port = free_port()
    p = Proc(["--port", str(port), "--store", f"sqlite://{tmp_path / 'stop.db'}",
              "--public-key", str(keys.public_key_files[0]), "--admin-token-file", str(keys.admin_token_file)],
             clean_env(), tmp_path, port)
    procs.append(p)
    p.wait_ready()
    doc = unique("stop")
    assert upload(port, keys, doc).status == 201
    c = Client(port, doc, "l", mint(keys.rsa, claims(doc, "l")))
    assert c.fetch().status == 200
    answers: List[Any] = []

    def listen() -> None:
        t0 = time.monotonic()
        answers.append((c.changes(0, wait=60), time.monotonic() - t0))

    listeners = [threading.Thread(target=listen) for _ in range(3)]
    for t in listeners:
        t.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    p.p.send_signal(sig)
    assert p.p.wait(30) == 0, p.log()
    stopped_in = time.monotonic() - t0
    for t in listeners:
        t.join(10)
    assert len(answers) == 3
    for r, elapsed in answers:
        assert r.status == 200, r          # answered with what there is, not cut off
        assert r.json["seq"] == 0 and r.json["changes"] == []
        assert elapsed < 30, elapsed       # not held for the whole wait
    assert stopped_in < 30
    log = p.log()
    assert "shutting down" in log and "msg=stopped" in log


@pytest.mark.parametrize("args,message", [
    (["--public-key", "/nonexistent/key.pem"], "/nonexistent/key.pem"),
    (["--admin-token-file", "/nonexistent/token"], "/nonexistent/token"),
    (["--jwks", "/nonexistent/jwks.json"], "/nonexistent/jwks.json"),
    (["--log-level", "loud"], "loud"),
    (["--port", "70000"], "70000"),
    (["--port", "eighty"], "eighty"),
    (["--max-body-bytes", "0"], "max-body-bytes"),
    (["--max-listeners", "-1"], "max-listeners"),
    (["--max-attachment-bytes", str((64 << 20) + 1)], "max-attachment-bytes"),
    (["--attachment-grace-seconds", "-1"], "attachment-grace-seconds"),
    (["--store", "nosuchscheme://x"], "nosuchscheme"),
    (["--no-such-flag"], "no-such-flag"),
])
def test_bad_configuration_is_refused_at_start(tmp_path: Path, args: List[str], message: str) -> None:
    r = run(["--port", str(free_port()), "--store", "sqlite::memory:", *args], cwd=tmp_path)
    assert r.returncode != 0
    assert message in r.stderr + r.stdout, (r.stdout, r.stderr)


def test_a_key_file_that_is_no_key_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n")
    r = run(["--port", str(free_port()), "--store", "sqlite::memory:", "--public-key", str(bad)], cwd=tmp_path)
    assert r.returncode != 0
    assert r.stderr.strip()


def test_the_help_example_gives_the_public_key() -> None:
    # Issue 40: the example passed backend.pem, the private key mint_jwt.py --new-key
    # writes, as --public-key; the public one is backend.pub.pem.
    text = run(["--help"]).stdout
    assert "--public-key backend.pub.pem" in text
    assert "--public-key backend.pem" not in text


def test_a_private_key_is_refused_as_a_public_key(keys: Keys, tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization

    private = tmp_path / "backend.pem"
    private.write_bytes(keys.ec.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                              serialization.NoEncryption()))
    r = run(["--port", str(free_port()), "--store", "sqlite::memory:", "--public-key", str(private)], cwd=tmp_path)
    assert r.returncode != 0
    assert "is a private key" in r.stderr and "backend.pub.pem" in r.stderr, r.stderr
