#!/usr/bin/env python3
"""Quire's sync service inside a Python web server: a WSGI application, served here by
waitress, passes each request to the library (``quire.SyncService``), which answers it. No
rule of the protocol is here: this file only moves bytes between the web server and the
library, which is what a Go, Node or Django backend does the same way through the C function
``quire_sync_service_handle``. The WSGI application (``make_app``) runs as it is under any
WSGI server (gunicorn, uWSGI, mod_wsgi) or inside a Django or Flask project.

    PYTHONPATH=bindings/python python3 examples/python/sync_server.py \\
        --port 8412 --store sqlite:///tmp/quire.db --public-key jwt-public.pem \\
        --admin-token-file admin-token

Then use it as ``quire-server`` (docs/sync-protocol.md). SIGTERM or Ctrl-C stops it: long
polls answer first, then the server exits. On the library's PostgreSQL flavour (``make
lib-postgres``), several of its processes share one database, as quire-server's do:

    QUIRE_LIBRARY=build/lib/libquire-postgres.so PYTHONPATH=bindings/python \
        python3 examples/python/sync_server.py --port 8412 --store postgres://quire@db/quire ...

What the web server does and the library does not: HTTP itself (chunked request bodies, keep
alive, header limits: waitress refuses a request head over 256 KiB with its own 431), and
reading at most one byte more than the largest body the library accepts, so that a huge body
is never held in memory; the library then answers 413 in the protocol's shape. A long poll
holds one of the server's threads while it waits (``--threads``, 64 by default: at most that
many requests at once, long polls included).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, List, Optional, Tuple

from waitress.server import create_server

try:
    import quire
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
    import quire

# Whatever the server's own body limit (waitress's max_request_body_size) lets through, the
# application reads at most this much: one byte past the library's largest limit is enough
# for the library to say 413.
DEFAULT_LIMIT = 256 << 20

REASONS = {200: "OK", 201: "Created", 204: "No Content", 304: "Not Modified", 400: "Bad Request",
           401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
           409: "Conflict", 413: "Payload Too Large", 415: "Unsupported Media Type",
           500: "Internal Server Error", 503: "Service Unavailable"}


def request_headers(environ: dict) -> List[Tuple[str, str]]:
    """The request's headers from a WSGI environ (HTTP_X_REQUEST_ID is X-Request-Id)."""
    headers = []
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            headers.append((key[5:].replace("_", "-").title(), value))
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
            headers.append((key.replace("_", "-").title(), value))
    return headers


def make_app(service: quire.SyncService, read_limit: int) -> Callable[..., Iterable[bytes]]:
    """The WSGI application: every request to ``service``, one log line each on stderr."""

    def app(environ: dict, start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = time.monotonic()
        method = environ["REQUEST_METHOD"]
        # The raw request target (still percent-encoded: the library decodes each path
        # segment itself, so that %2F in an id is refused rather than taken for a slash).
        target = environ.get("REQUEST_URI") or (environ.get("PATH_INFO", "/") + (
            "?" + environ["QUERY_STRING"] if environ.get("QUERY_STRING") else ""))
        body = environ["wsgi.input"].read(read_limit + 1)
        status, headers, payload = service.handle(method, target, request_headers(environ), body)
        out = [(n, v) for n, v in headers if n.lower() not in ("content-length", "connection", "transfer-encoding")]
        out.append(("Content-Length", str(len(payload))))
        start_response(f"{status} {REASONS.get(status, 'Status')}", out)
        request_id = next((v for n, v in headers if n.lower() == "x-request-id"), "-")
        sys.stderr.write("%s %s %s %d %d %.1fms id=%s\n" % (
            environ.get("REMOTE_ADDR", "-"), method, target[:200], status, len(payload),
            (time.monotonic() - started) * 1000, request_id))
        return [] if method == "HEAD" else [payload]

    return app


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Quire's sync service as a WSGI application, served by waitress")
    parser.add_argument("--host", default=os.environ.get("QUIRE_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("QUIRE_PORT", "8412")))
    parser.add_argument("--store", default=os.environ.get("QUIRE_STORE", "sqlite:///" + os.path.abspath("quire.db")))
    parser.add_argument("--public-key", action="append", default=[], help="a PEM public key file (repeatable)")
    parser.add_argument("--jwks", help="a JWKS file")
    parser.add_argument("--admin-token-file", help="a file holding the admin API token")
    parser.add_argument("--max-body-bytes", type=int, default=0, help="largest body but uploads (0: 8 MiB)")
    parser.add_argument("--max-upload-bytes", type=int, default=0, help="largest PDF upload (0: 256 MiB)")
    parser.add_argument("--max-attachment-bytes", type=int, default=0,
                        help="largest attachment upload, an image or file of an annotation (0: 8 MiB)")
    parser.add_argument("--max-listeners", type=int, default=0, help="long polls waiting at once (0: 10,000)")
    parser.add_argument("--attachment-grace-seconds", type=int, default=None,
                        help="how old an attachment no record names must be to be collected (default 3600; 0: at once)")
    parser.add_argument("--threads", type=int, default=64, help="requests served at once, long polls included")
    args = parser.parse_args(argv)
    keys = [Path(p).read_text() for p in args.public_key]
    jwks = Path(args.jwks).read_text() if args.jwks else None
    token = Path(args.admin_token_file).read_text().strip() if args.admin_token_file else os.environ.get("QUIRE_ADMIN_TOKEN")
    service = quire.SyncService(args.store, public_keys=keys, jwks=jwks, admin_token=token,
                                max_body_bytes=args.max_body_bytes, max_upload_bytes=args.max_upload_bytes,
                                max_attachment_bytes=args.max_attachment_bytes, max_listeners=args.max_listeners,
                                attachment_grace_seconds=args.attachment_grace_seconds)
    read_limit = max(args.max_upload_bytes or DEFAULT_LIMIT, args.max_body_bytes or (8 << 20),
                     args.max_attachment_bytes or (8 << 20))
    # waitress's own body limit is above the application's, so that the library, not the
    # web server, answers a body that is too large (in the protocol's shape, with a request id).
    server = create_server(make_app(service, read_limit), host=args.host, port=args.port, threads=args.threads,
                           max_request_body_size=read_limit + (1 << 20), ident="quire-sync-python",
                           channel_timeout=120)
    stopping = threading.Event()

    def stop(signum: int, frame: object) -> None:
        stopping.set()
        service.shutdown()  # long polls answer now
        server.close()      # the loop below ends

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("listening on http://%s:%s" % (args.host, server.effective_port), flush=True)
    try:
        server.run()
    except OSError:
        if not stopping.is_set():
            raise
    finally:
        # The requests in progress finish before the service closes.
        server.task_dispatcher.shutdown(cancel_pending=False, timeout=30)
        service.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
