"""Servers on loopback for the tests: a free port, one HTTP request at a time, and waiting
until a freshly started server answers its health check. Tests/server's hosts
(sync_support.ServerProcess) and the web test's review server start through these."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Optional


def free_port() -> int:
    """A port that was free a moment ago (the kernel's choice for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Response:
    status: int
    headers: Dict[str, str]  # names in lower case
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> Optional[str]:
        return self.headers.get(name.lower())

    def __repr__(self) -> str:
        return f"<{self.status} {self.body[:300]!r}>"


def request(
    port: int,
    method: str,
    path: str,
    body: Optional[bytes] = None,
    headers: Optional[Dict[str, str]] = None,
    timeout: float = 30.0,
) -> Response:
    """One request on a new connection. `path` is sent as given (already percent-encoded)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        return Response(r.status, {k.lower(): v for k, v in r.getheaders()}, data)
    finally:
        conn.close()


def request_chunked(
    port: int,
    method: str,
    path: str,
    chunks: Iterable[bytes],
    headers: Optional[Dict[str, str]] = None,
    timeout: float = 30.0,
) -> Response:
    """A request whose body is sent with Transfer-Encoding: chunked (no Content-Length).
    Sending stops early if the server answers and closes; the answer is read either way."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.putrequest(method, path)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders()
        try:
            for chunk in chunks:
                conn.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            conn.send(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        r = conn.getresponse()
        data = r.read()
        return Response(r.status, {k.lower(): v for k, v in r.getheaders()}, data)
    finally:
        conn.close()


def wait_for_health(
    process: "subprocess.Popen[Any]",
    port: int,
    timeout: float,
    log: Callable[[], str],
    name: str = "the server",
    path: str = "/healthz",
) -> None:
    """Waits until `process` answers GET `path` on `port` with 200; raises RuntimeError
    (with its log) if it exits first or does not answer within `timeout` seconds (the
    caller stops it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode} at start:\n{log()}")
        try:
            if request(port, "GET", path, timeout=2).status == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{name} did not answer {path} within {timeout} s:\n{log()}")
