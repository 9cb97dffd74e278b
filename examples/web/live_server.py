#!/usr/bin/env python3
"""The live multi-user review page's own small server (examples/web/README.md, "Live review").

    PYTHONPATH=bindings/python python3 examples/web/live_server.py --quire http://127.0.0.1:8411

then open, for each user, the address it prints with the document, the layer and that
user's token (minted by the host application's backend; here examples/python/mint_jwt.py):

    http://127.0.0.1:8001/review.html?document=sample&layer=review#token=<JWT>

The page talks to quire-server directly over its WebSocket (the change feed, pushes and
presence: docs/sync-protocol.md, "WebSocket"). Browsers let a page open a WebSocket to
another origin but not read another origin's HTTP answers (quire-server sends no CORS
headers), so this server does two things only: it serves the page's files
(examples/web/live/), and it relays the page's reads of the layer (``GET
/documents/{doc}/layers/{layer}`` and its ``/presence``, with the page's own
``Authorization`` header) to quire-server, so that they are same-origin. It holds no key,
no token and no state: every right is the token's, checked by quire-server.

Only Python's standard library.
"""

from __future__ import annotations

import argparse
import json
import logging
import mimetypes
import re
import sys
import urllib.error
import urllib.request
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Optional
from urllib.parse import urlparse

LIVE = Path(__file__).resolve().parent / "live"
LOG = logging.getLogger("quire-live")
NAME = r"[A-Za-z0-9._-]{1,128}"
# The reads the page makes, relayed to quire-server; nothing else is.
RELAYED = re.compile(r"^/documents/%s/layers/%s(/presence)?$" % (NAME, NAME))
FILES = {"/": "review.html", "/review.html": "review.html", "/review.js": "review.js", "/review.css": "review.css"}
MAX_ANSWER = 64 << 20  # a layer's records, relayed


class Handler(BaseHTTPRequestHandler):
    server_version = "quire-live/1"
    quire = "http://127.0.0.1:8411"  # set by main

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
        LOG.debug("%s " + format, self.address_string(), *args)

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: HTTPStatus, code: str, message: str) -> None:
        body = json.dumps({"error": {"code": code, "message": message}}).encode()
        self._send(status, body, "application/json")

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = urlparse(self.path).path
        if path in FILES:
            file = LIVE / FILES[path]
            kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            self._send(HTTPStatus.OK, file.read_bytes(), kind + ("; charset=utf-8" if kind.startswith("text/") else ""))
        elif path == "/config.json":
            # Where the page opens its WebSocket: quire-server's address, as ws:// or wss://.
            socket = re.sub(r"^http", "ws", self.quire.rstrip("/"))
            self._send(HTTPStatus.OK, json.dumps({"socket": socket}).encode(), "application/json")
        elif RELAYED.match(path):
            self._relay(path)
        else:
            self._error(HTTPStatus.NOT_FOUND, "not_found", "no such page: %s" % path)

    def _relay(self, path: str) -> None:
        headers = {}
        authorization = self.headers.get("Authorization")
        if authorization:
            headers["Authorization"] = authorization
        request = urllib.request.Request(self.quire.rstrip("/") + path, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, kind, body = answer.status, answer.headers.get("Content-Type"), answer.read(MAX_ANSWER)
        except urllib.error.HTTPError as error:  # quire-server's own 4xx/5xx, passed on as it is
            status, kind, body = error.code, error.headers.get("Content-Type"), error.read(MAX_ANSWER)
        except (urllib.error.URLError, OSError) as error:
            self._error(HTTPStatus.BAD_GATEWAY, "unreachable", "quire-server at %s: %s" % (self.quire, error))
            return
        self._send(status, body, kind or "application/json")

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self._error(HTTPStatus.METHOD_NOT_ALLOWED, "method_not_allowed", "the page pushes over the WebSocket")


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the live review page and relay its reads to quire-server.")
    parser.add_argument(
        "--quire", default="http://127.0.0.1:8411", help="quire-server's address (http://127.0.0.1:8411)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8001, help="the port (8001; 0 picks a free one)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, format="%(name)s: %(message)s")
    Handler.quire = args.quire
    httpd = ThreadingHTTPServer((args.host, args.port), Handler)
    httpd.daemon_threads = True
    host, port = httpd.server_address[:2]
    print("serving the live review page at http://%s:%d/review.html" % (host, port), flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
