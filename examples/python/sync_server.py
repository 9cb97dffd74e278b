#!/usr/bin/env python3
"""Quire's sync service inside a Python server: the standard library's HTTP server passes
each request to the library (``quire.SyncService``), which answers it. No rule of the
protocol is here: this file only moves bytes between the socket and the library, which is
what a Go, Node or Django backend does the same way through the C function
``quire_sync_service_handle``.

    PYTHONPATH=bindings/python python3 examples/python/sync_server.py \\
        --port 8412 --store sqlite:///tmp/quire.db --public-key jwt-public.pem \\
        --admin-token-file admin-token

Then use it as ``quire-server`` (docs/sync-protocol.md). SIGTERM or Ctrl-C stops it: long
polls answer first, then the server exits.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import List, Optional

try:
    import quire
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
    import quire

MAX_UPLOAD = 256 << 20


def make_handler(service: quire.SyncService):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "quire-sync-python"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length < 0 or length > MAX_UPLOAD:
                # Too large to read: the library's limits are smaller anyway; answer without
                # reading, and close the connection.
                body = b'{"error": {"code": "too_large", "message": "the body is too large"}}'
                self.send_response(413)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True
                return
            body = self.rfile.read(length) if length else b""
            status, headers, payload = service.handle(self.command, self.path, list(self.headers.items()), body)
            self.send_response(status)
            for name, value in headers:
                if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_HEAD = _serve

        def log_message(self, format: str, *args: object) -> None:  # one line per request
            sys.stderr.write("%s %s\n" % (self.address_string(), format % args))

    return Handler


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Quire's sync service in Python's standard library HTTP server")
    parser.add_argument("--host", default=os.environ.get("QUIRE_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("QUIRE_PORT", "8412")))
    parser.add_argument("--store", default=os.environ.get("QUIRE_STORE", "sqlite:///" + os.path.abspath("quire.db")))
    parser.add_argument("--public-key", action="append", default=[], help="a PEM public key file (repeatable)")
    parser.add_argument("--jwks", help="a JWKS file")
    parser.add_argument("--admin-token-file", help="a file holding the admin API token")
    parser.add_argument("--max-body-bytes", type=int, default=0, help="largest body but uploads (0: 8 MiB)")
    parser.add_argument("--max-upload-bytes", type=int, default=0, help="largest PDF upload (0: 256 MiB)")
    args = parser.parse_args(argv)
    keys = [Path(p).read_text() for p in args.public_key]
    jwks = Path(args.jwks).read_text() if args.jwks else None
    token = Path(args.admin_token_file).read_text().strip() if args.admin_token_file else os.environ.get("QUIRE_ADMIN_TOKEN")
    service = quire.SyncService(args.store, public_keys=keys, jwks=jwks, admin_token=token,
                                max_body_bytes=args.max_body_bytes, max_upload_bytes=args.max_upload_bytes)
    global MAX_UPLOAD
    MAX_UPLOAD = max(args.max_upload_bytes or (256 << 20), args.max_body_bytes or (8 << 20))
    server = ThreadingHTTPServer((args.host, args.port), make_handler(service))
    server.daemon_threads = True

    def stop(signum: int, frame: object) -> None:
        service.shutdown()  # long polls answer now
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("listening on http://%s:%d" % server.server_address[:2], flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        service.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
