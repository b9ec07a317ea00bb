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

from opentelemetry.trace import StatusCode

from agentpair import Agent
from tests.doubles import Args, ScriptedExecutor, ScriptedPlanner, SleepyEnvironment
from agentpair.tools.base import Tool, ToolResult

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


async def test_spans_say_their_kind_model_and_status_as_viewers_read_them(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    async def refuse(args: Args) -> ToolResult:
        return ToolResult(tool="refuse", ok=False, error="not today")

    act = [{"steps": [{"kind": "act", "tool": tool, "instruction": f"{tool} the Go button"}]} for tool in ("click", "refuse")]
    agent = Agent(ScriptedPlanner([*act, *PLANS]), ScriptedExecutor([{"ref": "e1"}, {"ref": "e1"}]), SleepyEnvironment(),
                  tools=[Tool(name="refuse", description="refuse an element", args_model=Args, run=refuse)],
                  tracer_provider=provider)
    assert (await agent.run("go", trace=tmp_path / "t.jsonl")).finished
    spans = {s.name: s for s in exporter.get_finished_spans()}
    kinds = {name: spans[name].attributes.get("openinference.span.kind") for name in
             ("invoke_agent agentpair", "chat scripted", "fill scripted-executor", "execute_tool click")}
    assert kinds == {"invoke_agent agentpair": "AGENT", "chat scripted": "LLM", "fill scripted-executor": "LLM",
                     "execute_tool click": "TOOL"}
    fill = spans["fill scripted-executor"].attributes
    assert (fill["gen_ai.operation.name"], fill["gen_ai.request.model"], fill["gen_ai.usage.output_tokens"]) == (
        "generate_content", "scripted-executor", 4)
    assert spans["execute_tool click"].status.status_code == StatusCode.OK
    refused = spans["execute_tool refuse"].status
    assert refused.status_code == StatusCode.ERROR and refused.description == "not today"


RUN = """
import asyncio, sys
sys.path.insert(0, {root!r})
from opentelemetry.trace import StatusCode

from agentpair import Agent
from tests.doubles import Args, ScriptedExecutor, ScriptedPlanner, SleepyEnvironment
from agentpair.tools.base import Tool, ToolResult
agent = Agent(ScriptedPlanner({plans!r}), ScriptedExecutor([]), SleepyEnvironment())
asyncio.run(agent.run("finish", trace={path!r}))
"""


def test_otlp_export_when_the_endpoint_is_set_under_the_service_name_given(tmp_path: Path) -> None:
    posts: list[tuple[str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            posts.append((self.path, self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {"PATH": "/usr/bin:/bin", "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_address[1]}",
               "OTEL_SERVICE_NAME": "kestrel-project"}
        script = RUN.format(root=str(ROOT), plans=PLANS, path=str(tmp_path / "t.jsonl"))
        subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=ROOT, timeout=60)
    finally:
        server.shutdown()
    assert posts and all(path == "/v1/traces" and len(body) > 100 for path, body in posts)
    assert all(body.count(b"kestrel-project") >= 2 for _, body in posts)  # service.name and Phoenix's project
