"""The guard's proxy on the wire, as Chromium speaks to it: absolute-form requests sent on in origin form,
CONNECT tunnels, refusals before any connection."""

from __future__ import annotations

import asyncio

import pytest

from agentpair.tools.browser_proxy import GuardProxy
from tests.browser.test_browser_workers import LoopbackSite

pytestmark = pytest.mark.asyncio


async def exchange(proxy: GuardProxy, request: bytes) -> bytes:
    """Send one request to the proxy; everything it answers until it closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", int(proxy.url.rsplit(":", 1)[1]))
    writer.write(request)
    try:
        return await asyncio.wait_for(reader.read(-1), 5)
    finally:
        writer.close()


async def test_an_allowed_request_goes_on_in_origin_form_without_the_proxys_headers() -> None:
    asked: list[list[str]] = []
    with LoopbackSite("127.0.0.1") as site:
        site.files = {"/page.html": "<h1>hi</h1>"}
        proxy = GuardProxy(lambda urls: asked.append(urls) or True)
        await proxy.start()
        try:
            answer = await exchange(proxy, f"GET {site.url}/page.html HTTP/1.1\r\nHost: x\r\n"
                                           "Proxy-Connection: keep-alive\r\n\r\n".encode())
        finally:
            await proxy.close()
    assert site.heads == [["GET /page.html HTTP/1.1", "Host: x", "Connection: close"]]
    assert asked == [[f"{site.url}/page.html"]]
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"\r\n\r\n<h1>hi</h1>")


@pytest.mark.parametrize("request_head", ["CONNECT {host} HTTP/1.1\r\nHost: {host}\r\n\r\n",
                                          "GET http://{host}/page.html HTTP/1.1\r\nHost: {host}\r\n\r\n"])
async def test_a_refused_target_is_never_connected_to(request_head: str) -> None:
    asked: list[list[str]] = []
    with LoopbackSite("127.0.0.2") as other:
        host = other.url.removeprefix("http://")
        proxy = GuardProxy(lambda urls: asked.append(urls) and False)
        await proxy.start()
        try:
            answer = await exchange(proxy, request_head.format(host=host).encode())
        finally:
            await proxy.close()
    assert answer.startswith(b"HTTP/1.1 403") and other.connections == 0
    tunnel = request_head.startswith("CONNECT")
    assert asked == [[f"https://{host}", f"http://{host}"] if tunnel else [f"http://{host}/page.html"]]


async def test_an_allowed_tunnel_carries_bytes_both_ways() -> None:
    with LoopbackSite("127.0.0.1") as site:
        site.files = {"/page.html": "<h1>tunnelled</h1>"}
        proxy = GuardProxy(lambda urls: True)
        await proxy.start()
        host = site.url.removeprefix("http://")
        try:
            answer = await exchange(proxy, f"CONNECT {host} HTTP/1.1\r\nHost: {host}\r\n\r\n"
                                           f"GET /page.html HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        finally:
            await proxy.close()
    assert answer.startswith(b"HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 200 OK")
    assert answer.endswith(b"<h1>tunnelled</h1>")
