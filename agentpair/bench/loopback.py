"""A benchmark's pages served on a free loopback port for as long as a `with` block lasts."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from typing import Any


@contextmanager
def serve_loopback(handler: Any) -> Iterator[str]:
    """Serve `handler` (a request handler class, or a factory of one) on a free loopback port;
    yields the base URL. Its threads poll for shutdown every 50 ms, so the block ends quickly."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()

