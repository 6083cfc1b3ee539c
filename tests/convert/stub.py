"""A loopback HTTP server that captures the request bodies the real SDK clients post.

The fixture generator points each SDK client at this server (127.0.0.1, a port the kernel picks)
instead of the provider, so the `source` of a fixture is the body the client really sends: the
SDK's own serialisation of its typed objects, not a hand-written imitation. The server answers
every POST with the canned response queued for it, which the client then parses into its own
response models (the turns a user appends to the history). It never reaches the network.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            # A captured body with a duplicate key would make the fixture's meaning depend on
            # the reader; the SDKs never write one, so this is a generator bug.
            raise ValueError(f"duplicate key {key!r} in a captured request body")
        obj[key] = value
    return obj


def loads_strict(raw: bytes | str) -> Any:
    """json.loads that refuses duplicate keys (the wire rule J5.5 for our own documents)."""
    return json.loads(raw, object_pairs_hook=_no_duplicates)


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"

    def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length)
        stub = self.server.stub
        with stub.lock:
            stub.captured.append((self.path, body))
            queued = bool(stub.replies)
            reply = stub.replies.pop(0) if queued else {"error": "no reply queued"}
        data = json.dumps(reply).encode()
        # 400 (not 5xx) so that no client retries: a missing reply is a generator bug.
        self.send_response(200 if queued else 400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


class _Server(ThreadingHTTPServer):
    stub: "Stub"


class Stub:
    """Start with `with Stub() as stub:`; `stub.url` is the base URL to hand to a client."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.captured: list[tuple[str, bytes]] = []
        self.replies: list[Any] = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.stub = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "Stub":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def reply(self, body: Any) -> None:
        """Queue the response body for the next request."""
        with self.lock:
            self.replies.append(body)

    def take(self) -> tuple[str, Any]:
        """The one request captured since the last take: (path, parsed body)."""
        with self.lock:
            if len(self.captured) != 1:
                raise RuntimeError(f"expected one captured request, have {len(self.captured)}")
            path, body = self.captured.pop()
        return path, loads_strict(body)
