"""Fixtures for the browser tests: a local test site, an 'outside' origin that records every hit,
and one Browser per test module."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import pytest_asyncio

from agentpair.tools.browser import Browser

SECRETS = {"password": "hunter2-Sesame", "api_key": "sk-test-0123456789"}

INDEX = """<!doctype html><html><head><title>Test Home</title></head><body>
<nav><a href="/">Home</a> <a href="/page2.html">Second page</a> <a href="{outside}/steal">Partner site</a></nav>
<h1>Test site</h1>
<p id="shown">The API key sk-test-0123456789 is shown here by mistake.</p>
<form id="f" onsubmit="event.preventDefault(); document.getElementById('out').textContent =
  'Submitted ' + document.getElementById('name').value;">
  <label>Full name <input id="name" name="name"></label>
  <label>Password <input id="pw" type="password" name="pw"></label>
  <label>Plan <select id="plan"><option value="free">Free</option><option value="pro">Pro plan</option></select></label>
  <label><input type="checkbox" id="news"> Newsletter</label>
  <label><input type="radio" name="size" value="s"> Small</label>
  <label><input type="radio" name="size" value="l"> Large</label>
  <label>Notes <textarea id="notes"></textarea></label>
  <button type="submit">Save profile</button>
</form>
<p id="out"></p>
<button onclick="setTimeout(() => location.href = '{outside}/script', 50)">Script jump</button>
<button onclick="window.open('{outside}/popup')">Open partner</button>
<button onclick="window.open('/page2.html')">Open local tab</button>
<button onclick="document.getElementById('later').hidden = false">Reveal later</button>
<p id="later" hidden>Revealed text</p>
<a href="/redirect-out">Redirect out</a> <a href="/redirect-in">Redirect in</a>
<a href="/download">Get report</a> <a href="/hang">Slow page</a>
<div style="height:3000px"></div><footer>Footer text</footer>
</body></html>"""
PAGE2 = """<!doctype html><html><head><title>Second</title></head><body>
<h1>Second page</h1><a href="/">Back home</a></body></html>"""

ROUTED = """<!doctype html><title>Routed</title><a href="/page2.html">Routed link</a><p id="view">home</p>
<script>navigation.addEventListener('navigate', e => { if (e.canIntercept) e.intercept({handler: async () => {
  document.getElementById('view').textContent = 'routed ' + new URL(e.destination.url).pathname; }}); });</script>"""


class Recorder:
    """A tiny HTTP site: fixed pages plus redirect, download and never-ending endpoints."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.hits: list[str] = []
        self.stop = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                site.hits.append(self.path)
                path = self.path.split("?")[0]
                if path in site.pages:
                    return self._send(200, site.pages[path].encode(), "text/html")
                if path == "/redirect-out":
                    return self._redirect(site.pages["outside"] + "/landing")
                if path == "/redirect-in":
                    return self._redirect("/page2.html")
                if path == "/download":
                    return self._send(200, b"a,b\n1,2\n", "text/csv", attachment="report.csv")
                if path == "/hang":
                    return self._hang()
                self._send(404, b"<h1>Not found</h1>", "text/html")

            def _send(self, code: int, body: bytes, kind: str, attachment: str = "") -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                if attachment:
                    self.send_header("Content-Disposition", f'attachment; filename="{attachment}"')
                self.end_headers()
                self.wfile.write(body)

            def _redirect(self, location: str) -> None:
                self.send_response(302)
                self.send_header("Location", location)
                self.end_headers()

            def _hang(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<html><head><title>Slow</title></head><body><h1>Loading forever")
                self.wfile.flush()
                site.stop.wait(30)

        return Handler

    def __enter__(self) -> Recorder:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def outside() -> Iterator[Recorder]:
    with Recorder({"/landing": "<h1>Outside</h1>", "/steal": "<h1>Outside</h1>"}) as site:
        yield site


@pytest.fixture(scope="module")
def site(outside: Recorder) -> Iterator[Recorder]:
    pages = {"/": INDEX.replace("{outside}", outside.url), "/page2.html": PAGE2, "outside": outside.url,
             "/framed.html": f'<h1>Framed</h1><iframe src="{outside.url}/landing"></iframe><a href="/">Home</a>',
             "/routed.html": ROUTED}
    with Recorder(pages) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> Browser:
    async with Browser(navigation_timeout_ms=3000, action_timeout_ms=2000) as b:
        yield b


@pytest_asyncio.fixture(loop_scope="module")
async def home(browser: Browser, site: Recorder, outside: Recorder) -> Browser:
    """A fresh run on the test site's home page (and a clean outside hit list)."""
    outside.hits.clear()
    result = await browser.start_task(start_url=site.url + "/", secrets=SECRETS)
    assert result is not None and result.ok, result
    return browser

