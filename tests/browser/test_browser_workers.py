"""The guard against requests made outside the page's own document, in real Chromium: workers (dedicated,
shared, service), event streams, WebSockets from any context, prefetch and preconnect never reach a server
on another loopback address (it counts every connection), and same-origin sockets and streams still work."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import socketserver
import threading
from collections.abc import Iterator

import pytest

from playwright.async_api import Page

from agentpair.tools.browser import Browser

pytestmark = pytest.mark.asyncio(loop_scope="module")
ACCEPT_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455's fixed key suffix
KINDS = {".html": "text/html", ".js": "text/javascript"}

# each off-origin attempt ends by calling done(what happened); OTHER is the other server's http://host:port
REPORT = "const done = (r) => postMessage(String(r));"
SOCKET = 'const ws = new WebSocket("{ws}/ws"); ws.onopen = () => done("open"); ws.onclose = () => done("closed");'
STREAM = 'const es = new EventSource("{url}/events"); es.onmessage = (e) => {{ es.close(); done(e.data); }}; ' \
         'es.onerror = () => {{ es.close(); done("error"); }};'
FETCH = 'fetch("{url}/fetched").then(() => done("fetched"), () => done("refused"));'
SHARED = "onconnect = (e) => {{ const port = e.ports[0]; const done = (r) => port.postMessage(String(r)); {body} }};"
SERVICE = ("self.addEventListener('activate', (e) => e.waitUntil(clients.claim().then(() => "
           "fetch('{url}/from-sw').then(() => 'fetched', () => 'refused')).then((r) => "
           "clients.matchAll().then((all) => all.forEach((c) => c.postMessage(r))))));")
PAGE = """<!doctype html><title>waiting</title><h1>Route</h1>{head}<script>
const done = (r) => {{ document.title = "done: " + r; }};
{body}</script>"""
ON_MESSAGE = "(e) => done(e.data)"
# a hint Chromium follows when it likes (this headless Chromium opens no preconnect even unguarded)
WAIT = "setTimeout(() => done('waited'), 1500);"


def scripts(url: str, ws: str) -> dict[str, str]:
    """Path -> body of every page and worker script; `url`/`ws` is where their requests go."""
    socket, stream, fetch = (s.format(url=url, ws=ws) for s in (SOCKET, STREAM, FETCH))
    dedicated = {f"/worker-{name}.js": REPORT + body for name, body in
                 (("fetch", fetch), ("socket", socket), ("stream", stream))}
    shared = {f"/shared-{name}.js": SHARED.format(body=body) for name, body in
              (("fetch", fetch), ("socket", socket), ("stream", stream))}
    pages = {"/page-stream.html": PAGE.format(head="", body=stream),
             "/page-socket.html": PAGE.format(head="", body=socket),
             "/service.html": PAGE.format(head="", body=(  # Playwright's block resolves to nothing
                 f"navigator.serviceWorker.onmessage = {ON_MESSAGE}; navigator.serviceWorker.register('/sw.js')"
                 ".then((r) => r || done('not registered'), (e) => done('not registered: ' + e));")),
             "/prefetch.html": PAGE.format(head=f'<link rel="prefetch" href="{url}/prefetched">', body=WAIT),
             "/preconnect.html": PAGE.format(head=f'<link rel="preconnect" href="{url}" crossorigin>', body=WAIT)}
    for name in ("fetch", "socket", "stream"):
        pages[f"/worker-{name}.html"] = PAGE.format(
            head="", body=f"new Worker('/worker-{name}.js').onmessage = {ON_MESSAGE};")
    for name in ("fetch", "socket", "stream"):
        pages[f"/shared-{name}.html"] = PAGE.format(head="", body=(
            f"const w = new SharedWorker('/shared-{name}.js'); w.port.onmessage = {ON_MESSAGE}; w.port.start();"))
    return {**dedicated, **shared, **pages, "/sw.js": SERVICE.format(url=url)}


class LoopbackSite:
    """Pages, an event stream (/events: one "hello" event) and a WebSocket echo on one loopback address
    and port; counts every connection it accepts, a preconnect's included."""

    def __init__(self, host: str) -> None:
        self.files: dict[str, str] = {}
        self.connections = 0
        self.heads: list[list[str]] = []  # each request's head, its lines
        site = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                site.connections += 1
                head = []
                while (line := self.rfile.readline()) not in (b"\r\n", b""):
                    head.append(line.decode().strip())
                if not head:
                    return
                site.heads.append(head)
                headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
                path = head[0].split(" ")[1]
                if headers.get("upgrade", "").lower() == "websocket":
                    return self._socket(headers["sec-websocket-key"])
                if path == "/events":
                    return self._send("text/event-stream", b"data: hello\n\n", stream=True)
                body = site.files.get(path)
                if body is None:
                    return self.wfile.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                self._send(KINDS[path[path.rindex("."):]], body.encode())

            def _send(self, kind: str, body: bytes, stream: bool = False) -> None:
                length = b"" if stream else b"Content-Length: " + str(len(body)).encode() + b"\r\n"
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: " + kind.encode() + b"\r\n" + length
                                 + b"Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n" + body)
                if stream:
                    self.wfile.flush()
                    site.stop.wait(5)

            def _socket(self, key: str) -> None:
                accept = base64.b64encode(hashlib.sha1(key.encode() + ACCEPT_GUID).digest())
                self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                 b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
                self.wfile.write(b"\x81\x05hello")  # one text frame; the page needs no more
                self.wfile.flush()
                site.stop.wait(5)

        self.stop = threading.Event()
        self.server = socketserver.ThreadingTCPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}"

    def __enter__(self) -> LoopbackSite:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[LoopbackSite, LoopbackSite]]:
    with LoopbackSite("127.0.0.1") as site, LoopbackSite("127.0.0.2") as other:
        site.files = scripts(other.url, other.url.replace("http", "ws"))
        yield site, other


async def outcome(browser: Browser, url: str) -> str:
    """Start a run on `url` and wait for the outcome its page reports."""
    assert (await browser.start_task(start_url=url)).ok
    return await reported(browser.page)


async def reported(page: Page) -> str:
    """The outcome a page reports in its title (waited for at most 10 s)."""
    for _ in range(100):
        title = await page.title()
        if title.startswith("done: "):
            return title.removeprefix("done: ")
        await asyncio.sleep(0.1)
    raise AssertionError(f"{page.url} reported nothing")


ROUTES = ["page-stream", "worker-fetch", "worker-socket", "worker-stream", "shared-fetch", "shared-socket",
          "shared-stream", "service", "prefetch", "preconnect"]


@pytest.mark.parametrize("route", ROUTES)
async def test_a_request_to_another_loopback_origin_never_reaches_it(browser: Browser, sites, route: str) -> None:
    site, other = sites
    other.connections, other.heads = 0, []
    result = await outcome(browser, f"{site.url}/{route}.html")
    await asyncio.sleep(0.3)  # a request sent late would have connected by now
    assert other.connections == 0, (result, other.heads)
    assert result not in ("fetched", "open", "hello"), result
    assert browser.violations() == []  # the page's doing, not the run's
    if route not in ("service", "preconnect"):  # no request made: nothing to tell
        assert any(other.url.removeprefix("http://") in e.url for e in browser.events), browser.events


@pytest.mark.parametrize("route", ["page-stream", "page-socket", "worker-stream", "worker-socket", "shared-socket"])
async def test_same_origin_sockets_and_streams_still_work(browser: Browser, sites, route: str) -> None:
    site, other = sites
    site.files = scripts(site.url, site.url.replace("http", "ws"))
    try:
        assert await outcome(browser, f"{site.url}/{route}.html") == ("hello" if "stream" in route else "open")
    finally:
        site.files = scripts(other.url, other.url.replace("http", "ws"))
    assert browser.events == []


async def test_a_service_worker_sends_its_requests_through_the_proxy_too(browser: Browser, sites) -> None:
    """A run's contexts refuse service workers; a context of the same proxy that let one register
    (as a page past Playwright's block would) still reaches nothing the run does not allow."""
    site, other = sites
    other.connections, other.heads = 0, []
    assert await outcome(browser, f"{site.url}/service.html") == "not registered"
    chromium = browser.page.context.browser
    context = await chromium.new_context(service_workers="allow", proxy={"server": browser._proxy.url})
    try:
        page = await context.new_page()
        await page.goto(f"{site.url}/service.html")
        assert await reported(page) == "refused"
    finally:
        await context.close()
    assert other.connections == 0, other.heads
    assert [e.url for e in browser.events] == [f"{other.url}/from-sw"]
