"""A stand-in search endpoint on 127.0.0.1 for the live-system tests, misbehaving on request.

It answers ``POST`` of ``{"query": ..., "k": ...}`` with ``{"results": [...], "version": ...}``
from ``answer(query, k)``, and only when the ``Authorization`` header carries ``key``. A query
text naming a fault gets it: ``slow`` (no reply within any test deadline), ``fail-once`` (503,
then an answer), ``always-500``, ``malformed`` (not JSON), ``redirect`` (302 to another host),
``oversized`` (a reply past the cap), ``echo-key`` (a 500 whose body repeats the key); ``faults``
maps a query text to the fault it gets.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class SearchStandIn:
    """Use as a context manager; ``url`` is its search URL, ``requests`` counts requests per query."""

    def __init__(self, answer, *, key: str, version: str = "search-2.3.1", faults: dict | None = None) -> None:
        self.answer, self.key, self.version = answer, key, version
        self.faults = faults or {}  # query text -> the fault it gets (besides the faults a text names)
        self.requests: dict[str, int] = {}
        self.lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                stand_in.reply(self, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *args: None  # a client that hung up on a reply it refused
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/api/search"

    def __enter__(self) -> SearchStandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _send(self, handler, status: int, body: bytes, headers: dict | None = None) -> None:
        handler.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def reply(self, handler, body: dict) -> None:
        query = self.faults.get(body["query"], body["query"])
        with self.lock:
            self.requests[query] = self.requests.get(query, 0) + 1
            count = self.requests[query]
        if handler.headers.get("Authorization") != self.key:
            return self._send(handler, 401, b'{"error": "bad key"}')
        if "slow" in query:
            time.sleep(3)
        elif "always-500" in query or ("fail-once" in query and count == 1):
            return self._send(handler, 503, b'{"error": "overloaded"}')
        elif "malformed" in query:
            return self._send(handler, 200, b"<html>oops</html>", {"Content-Type": "text/html"})
        elif "redirect" in query:
            return self._send(handler, 302, b"", {"Location": "http://search.elsewhere.example/search"})
        elif "oversized" in query:
            return self._send(handler, 200, b'{"results": [' + b'{"id": "0", "score": 1.0},' * 50_000 + b"]}")
        elif "echo-key" in query:
            return self._send(handler, 500, json.dumps({"error": f"bad header {self.key}"}).encode())
        results = [{"id": doc, "score": score} for doc, score in self.answer(body["query"], body["k"])]
        self._send(handler, 200, json.dumps({"results": results, "version": self.version}).encode())
