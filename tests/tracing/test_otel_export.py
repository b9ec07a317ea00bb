"""Spans reach an application's own tracer provider, and an OTLP collector when the env says so."""

from __future__ import annotations

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentpair import Agent
from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment

ROOT = Path(__file__).resolve().parents[2]
PLANS = [{"steps": [{"kind": "finish", "answer": "done"}]}]


async def test_spans_go_to_the_applications_provider_and_to_the_file(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent = Agent(ScriptedPlanner(PLANS), ScriptedExecutor([]), SleepyEnvironment(), tracer_provider=provider)
    result = await agent.run("finish", trace=tmp_path / "t.jsonl")
    names = [s.name for s in exporter.get_finished_spans()]
    assert result.finished and "invoke_agent agentpair" in names and "chat scripted" in names
    chat = next(s for s in exporter.get_finished_spans() if s.name == "chat scripted")
    assert chat.attributes["agentpair.category"] == "planner"
    assert (tmp_path / "t.jsonl").read_text().count('"type": "span"') == len(names)


RUN = """
import asyncio, sys
sys.path.insert(0, {root!r})
from agentpair import Agent
from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment
agent = Agent(ScriptedPlanner({plans!r}), ScriptedExecutor([]), SleepyEnvironment())
asyncio.run(agent.run("finish", trace={path!r}))
"""


def test_otlp_export_when_the_endpoint_is_set(tmp_path: Path) -> None:
    posts: list[tuple[str, int]] = []

    class Collector(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            posts.append((self.path, len(self.rfile.read(int(self.headers["Content-Length"])))))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {"PATH": "/usr/bin:/bin", "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_address[1]}"}
        script = RUN.format(root=str(ROOT), plans=PLANS, path=str(tmp_path / "t.jsonl"))
        subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=ROOT, timeout=60)
    finally:
        server.shutdown()
    assert posts and all(path == "/v1/traces" and size > 100 for path, size in posts)
