"""Headers WhiteNoise adds to particular static files (WHITENOISE_ADD_HEADERS_FUNCTION)."""

from __future__ import annotations

from csp.constants import WASM_UNSAFE_EVAL
from csp.utils import build_policy

# PDF.js's worker (static/vendor/pdfjs/, the reader) decodes JPEG 2000 and JBIG2 images and
# converts colours with WebAssembly. A worker obeys the CSP sent with its own script, not the
# page's, so the worker's response is the one that must allow compiling WebAssembly; every
# other static file keeps the site's policy (CSPMiddleware leaves a header already set alone).
PDFJS_WORKER_PREFIX = "vendor/pdfjs/build/pdf.worker."


def add_headers(headers, path: str, url: str) -> None:
    if PDFJS_WORKER_PREFIX in url and url.endswith(".mjs"):
        headers["Content-Security-Policy"] = build_policy(update={"script-src": [WASM_UNSAFE_EVAL]})
