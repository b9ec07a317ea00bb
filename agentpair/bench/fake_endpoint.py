"""A scripted OpenAI-compatible endpoint on loopback, for fault tests and `agentpair bench reliability`:
answers from a queue (the last reply repeats), each reply a status, a body or a fault."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass
class Reply:
    status: int = 200
    content: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    body: dict[str, Any] | None = None  # overrides the chat-completion body built from `content`
    reject_json_schema: bool = False  # answer 500 to OpenAI's json_schema format, as llama.cpp does
    raw: bytes | None = None  # a body sent as it is (malformed JSON, an HTML page), with `content_type`
    content_type: str = "application/json"
    reset: bool = False  # drop the connection with a TCP reset instead of answering


def completion(content: str) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}


class LoopbackServer:
    """An HTTP handler served on a free loopback port in a thread, as a context manager (`url`)."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Self:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class FakeEndpoint(LoopbackServer):
    """`with FakeEndpoint([Reply(...), ...]) as fake: fake.base_url`; `fake.requests` holds what came."""

    def __init__(self, replies: list[Reply], models: tuple[str, ...] = ("fake",)) -> None:
        self.replies = list(replies)
        self.models = list(models)
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # /v1/models: the models it serves
                data = json.dumps({"object": "list", "data": [{"id": m, "object": "model", "created": 0,
                                                               "owned_by": "fake"} for m in fake.models]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                reply = fake.replies.pop(0) if len(fake.replies) > 1 else fake.replies[0]
                if reply.reject_json_schema and body.get("response_format", {}).get("type") == "json_schema":
                    fake.replies.insert(0, reply)
                    reply = Reply(500, body={"error": {"message": "response_format: Input should be 'text' or "
                                                                  "'json_object'", "type": "internal_server_error"}})
                time.sleep(reply.delay_s)
                if reply.reset:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                data = reply.raw if reply.raw is not None else json.dumps(
                    reply.body if reply.body is not None else completion(reply.content)).encode()
                try:
                    self.send_response(reply.status)
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        super().__init__(Handler)
        self.base_url = self.url + "/v1"
