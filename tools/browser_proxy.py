"""The guard's network boundary: a loopback HTTP/CONNECT proxy that an owned browser context must send
every request through (Chromium enforces it, for workers, streams, WebSockets and preconnects too), and
that refuses any target the run's policy does not allow before it opens a connection there."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import suppress
from urllib.parse import urlsplit

HOP_HEADERS = (b"connection", b"proxy-connection", b"keep-alive", b"proxy-authorization")
REFUSED = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
HEAD_LIMIT = 1 << 20


class GuardProxy:
    """One request a client connection (then closed); `allows(urls)` says whether the target, given as the
    URLs it may stand for (a CONNECT tunnel carries https:// or a WebSocket), may be reached."""

    def __init__(self, allows: Callable[[list[str]], bool]) -> None:
        self.allows = allows
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task, asyncio.StreamWriter] = {}
        self.url = ""

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=HEAD_LIMIT)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def close(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for writer in self._connections.values():
            writer.close()
        if self._connections:  # each ends as its client's stream does
            await asyncio.wait(list(self._connections), timeout=1.0)
        await self._server.wait_closed()
        self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections[asyncio.current_task()] = writer
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            method, target, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
            if method == "CONNECT":
                await self._tunnel(target, reader, writer)
            else:
                await self._forward(head, target, reader, writer)
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # a client or server that went away, or a request that is no HTTP
        except asyncio.CancelledError:
            pass  # the loop is ending: the connection ends (Python 3.11 would log a cancelled handler's traceback)
        finally:
            del self._connections[asyncio.current_task()]
            writer.close()

    async def _tunnel(self, target: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        parts = urlsplit("//" + target)
        if parts.hostname is None or parts.port is None or not self.allows([f"https://{target}", f"http://{target}"]):
            writer.write(REFUSED)
            return
        upstream = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await _pipe_both(reader, writer, *upstream)

    async def _forward(self, head: bytes, target: str, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter) -> None:
        """An absolute-form request (http:// only: everything else comes as CONNECT): sent on in origin
        form with `Connection: close`; the response, told to close too, goes back as it comes."""
        parts = urlsplit(target)
        if parts.scheme != "http" or parts.hostname is None or not self.allows([target]):
            writer.write(REFUSED)
            return
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        request_line, rest = head.split(b"\r\n", 1)
        method, _, version = request_line.split(b" ", 2)
        upstream_reader, upstream_writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
        upstream_writer.write(b" ".join((method, path.encode("latin-1"), version)) + b"\r\n" + _closing(rest))
        sending = asyncio.create_task(_pipe(reader, upstream_writer))
        try:
            response = await upstream_reader.readuntil(b"\r\n\r\n")
            status, rest = response.split(b"\r\n", 1)
            writer.write(status + b"\r\n" + _closing(rest))
            await _pipe(upstream_reader, writer)
        finally:
            sending.cancel()
            upstream_writer.close()


def _closing(head_rest: bytes) -> bytes:
    """A head's header lines (ending in the blank line) without hop-by-hop headers, plus Connection: close."""
    lines = [line for line in head_rest.split(b"\r\n")
             if line and line.split(b":", 1)[0].strip().lower() not in HOP_HEADERS]
    return b"\r\n".join([*lines, b"Connection: close", b"", b""])


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with suppress(OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()


async def _pipe_both(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     upstream_reader: asyncio.StreamReader, upstream_writer: asyncio.StreamWriter) -> None:
    """Bytes both ways until either side closes."""
    tasks = [asyncio.create_task(_pipe(reader, upstream_writer)), asyncio.create_task(_pipe(upstream_reader, writer))]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        upstream_writer.close()
