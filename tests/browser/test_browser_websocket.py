"""WebSockets under the guard: one to the page's own origin works, one to another origin is not
opened (a warning on the observation) and the page goes on."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import socketserver
import struct
import threading
from collections.abc import Iterator

import pytest

from agentpair.tools.browser import Browser

pytestmark = pytest.mark.asyncio(loop_scope="module")
ACCEPT_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455's fixed key suffix
PAGE = """<!doctype html><html><head><title>Socket</title></head><body><h1>Socket</h1><p id="out">waiting</p>
<script>const ws = new WebSocket("ws://{host}/echo");
ws.onopen = () => ws.send("ping");
ws.onmessage = (e) => {{ document.getElementById("out").textContent = e.data; }};
ws.onclose = () => {{ if (document.getElementById("out").textContent === "waiting")
  document.getElementById("out").textContent = "socket closed"; }};</script></body></html>"""


class EchoSite:
    """An HTTP page and a WebSocket echo (text frames, "echo: " prepended) on one loopback port;
    `page_host` is the host:port the page's socket connects to (its own by default)."""

    def __init__(self) -> None:
        self.page_host = ""
        self.sockets = 0
        site = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                head = []
                while (line := self.rfile.readline()) not in (b"\r\n", b""):  # b"": closed unasked
                    head.append(line.decode().strip())
                if not head:
                    return
                headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
                if headers.get("upgrade", "").lower() != "websocket":
                    body = PAGE.format(host=site.page_host or headers["host"]).encode()
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "
                                     + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
                    return
                site.sockets += 1
                accept = base64.b64encode(hashlib.sha1(headers["sec-websocket-key"].encode() + ACCEPT_GUID).digest())
                self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                 b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
                while (frame := self._frame()) is not None:
                    opcode, payload = frame
                    if opcode == 8:  # close
                        self.wfile.write(b"\x88\x00")
                        return
                    reply = b"echo: " + payload
                    self.wfile.write(bytes([0x81, len(reply)]) + reply)  # short text frames only

            def _frame(self) -> tuple[int, bytes] | None:
                head = self.rfile.read(2)
                if len(head) < 2:
                    return None
                size = head[1] & 0x7F
                if size == 126:
                    size = struct.unpack(">H", self.rfile.read(2))[0]
                mask = self.rfile.read(4)  # a browser always masks what it sends
                data = self.rfile.read(size)
                return head[0] & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(data))

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> EchoSite:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def echo() -> Iterator[EchoSite]:
    with EchoSite() as site:
        yield site


async def shown(browser: Browser, text: str) -> tuple[str, list[str]]:
    """The page's snapshot once it shows `text` (or after about 5 s), and the notices of every
    observation until then."""
    notices: list[str] = []
    for _ in range(50):
        observation = await browser.observe()
        notices += observation.notices
        if text in observation.snapshot:
            break
        await asyncio.sleep(0.1)
    return observation.snapshot, notices


async def test_a_websocket_to_the_pages_own_origin_works(browser: Browser, echo: EchoSite) -> None:
    assert (await browser.start_task(start_url=echo.url + "/")).ok
    snapshot, notices = await shown(browser, "echo: ping")
    assert "echo: ping" in snapshot and notices == []
    assert echo.sockets == 1 and browser.violations() == []


async def test_a_websocket_to_another_origin_is_not_opened_and_the_page_goes_on(browser: Browser, echo: EchoSite) -> None:
    with EchoSite() as elsewhere:
        echo.page_host = elsewhere.url.removeprefix("http://")
        assert (await browser.start_task(start_url=echo.url + "/")).ok
        snapshot, notices = await shown(browser, "socket closed")
        assert "socket closed" in snapshot
        assert any("WebSocket of the page was not opened" in n for n in notices), notices
        assert elsewhere.sockets == 0 and browser.violations() == []  # the page's doing, not the run's
