"""A small HTTP server of the tests' own on 127.0.0.1, standing in for the hosts PDFs come from:
each path answers as one kind of server does (a PDF, an HTML page, a redirect, a 503 or a 429
once, a file too large with or without its length, a slow trickle). Nothing reaches the internet."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.pdf_files import make_pdf

GOOD_TEXT = "Attention is all you need, again."
GOOD_PDF = make_pdf(GOOD_TEXT)
# Over the tests' PDF_MAX_BYTES (LIMIT), still a PDF: only its size is wrong.
LIMIT = 50_000
BIG_PDF = make_pdf("A large paper.", padding=LIMIT + 10_000)
HTML = b"<!DOCTYPE html><html><body>Please log in to read this paper.</body></html>"


class _Handler(BaseHTTPRequestHandler):
    server: PdfServer

    def do_GET(self) -> None:
        self.server.hits[self.path] += 1
        self.server.asked.append((self.path, time.monotonic()))
        route = self.server.routes.get(self.path)
        if route is None:
            self._answer(404, b"not found", "text/plain")
            return
        route(self)

    def _answer(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/pdf",
        *,
        length: bool = True,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet in test output
        pass


class PdfServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.hits: Counter[str] = Counter()
        # (path, time.monotonic()) of each request, in the order they came.
        self.asked: list[tuple[str, float]] = []
        self.stopping = threading.Event()
        self.routes: dict[str, Callable[[_Handler], None]] = {
            "/good.pdf": lambda h: h._answer(200, GOOD_PDF),
            "/other.pdf": lambda h: h._answer(200, make_pdf("Another paper entirely.")),
            "/page.html": lambda h: h._answer(200, HTML, "text/html; charset=utf-8"),
            "/html-as-pdf.pdf": lambda h: h._answer(200, HTML),
            "/big.pdf": lambda h: h._answer(200, BIG_PDF),
            # HTTP/1.0 without Content-Length: the body ends when the connection closes.
            "/big-unannounced.pdf": lambda h: h._answer(200, BIG_PDF, length=False),
            "/missing.pdf": lambda h: h._answer(404, b"no such file", "text/plain"),
            "/moved.pdf": lambda h: h._answer(302, b"", headers={"Location": "/good.pdf"}),
            "/away.pdf": lambda h: h._answer(
                302, b"", headers={"Location": "https://files.example.net/paper.pdf"}
            ),
            "/busy-once.pdf": self._busy_once,
            "/busy-then-slow.pdf": self._busy_then_slow,
            "/rate-limited-once.pdf": self._rate_limited_once,
            "/slow.pdf": self._slow,
            "/silent.pdf": self._silent,
        }

    @property
    def base(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base + path

    def _busy_once(self, handler: _Handler) -> None:
        if self.hits["/busy-once.pdf"] == 1:
            handler._answer(503, b"busy", "text/plain", headers={"Retry-After": "0"})
        else:
            handler._answer(200, GOOD_PDF)

    def _busy_then_slow(self, handler: _Handler) -> None:
        # Asks for a second's wait, then trickles for ever: each try alone is long.
        if self.hits["/busy-then-slow.pdf"] == 1:
            handler._answer(503, b"busy", "text/plain", headers={"Retry-After": "1"})
        else:
            self._slow(handler)

    def _rate_limited_once(self, handler: _Handler) -> None:
        if self.hits["/rate-limited-once.pdf"] == 1:
            handler._answer(429, b"slow down", "text/plain", headers={"Retry-After": "1"})
        else:
            handler._answer(200, GOOD_PDF)

    def _slow(self, handler: _Handler) -> None:
        # A trickle: a byte every 0.2 s, so no single read waits long, for ever.
        handler.send_response(200)
        handler.send_header("Content-Type", "application/pdf")
        handler.end_headers()
        handler.wfile.write(b"%PDF-1.4\n")
        while not self.stopping.wait(0.2):
            try:
                handler.wfile.write(b"%")
                handler.wfile.flush()
            except OSError:  # the client gave up
                return

    def _silent(self, handler: _Handler) -> None:
        # Accepts the request, never answers.
        self.stopping.wait(30)

    def __enter__(self) -> PdfServer:
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()
