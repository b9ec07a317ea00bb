"""What a trace viewer (Phoenix) receives of a run, read from an in-memory OTel exporter: one trace,
the planner's messages in and out (GenAI conventions and OpenInference's), the executor's requests
and values, the root's status, and no secret or key anywhere."""

from __future__ import annotations

import json

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from agentpair import Agent, FunctionTools, OpenAIPlanner, tool
from agentpair.bench.fake_endpoint import FakeEndpoint, Reply
from tests.doubles import ScriptedExecutor, convert

SECRET, KEY = "Tr0ub4dor-and-3", "sk-test-viewer-0042"
CONVERTED = 'result of convert(value=12.5, from_unit="km", to_unit="mi"): {"value": 7.77}'


@tool
def fetch_token() -> dict:
    """Fetch the account's token."""
    return {"token": SECRET}


def plan(*steps: dict) -> Reply:
    return Reply(content=json.dumps({"thought": "t", "steps": list(steps)}))


async def traced_run(tmp_path, replies: list[Reply], args: list[dict], **options) -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with FakeEndpoint(replies) as fake:
        planner = OpenAIPlanner(base_url=fake.base_url, model="fake", api_key=KEY)
        agent = Agent(planner, ScriptedExecutor(args), FunctionTools([convert, fetch_token]), tracer_provider=provider,
                      trace_dir=tmp_path)
        await agent.run("Convert 12.5 km to miles, then fetch the token.", secrets={"token": SECRET}, **options)
    return list(exporter.get_finished_spans())


async def test_a_run_reads_whole_in_a_viewer(tmp_path) -> None:
    replies = [plan({"kind": "act", "tool": "convert", "instruction": "convert 12.5 from km to mi"}),
               plan({"kind": "act", "tool": "fetch_token", "instruction": "fetch the token"}),
               plan({"kind": "finish", "instruction": "done", "answer": "7.77"})]
    spans = await traced_run(tmp_path, replies, [{"value": 12.5, "from_unit": "km", "to_unit": "mi"}, {}])
    assert len({s.context.trace_id for s in spans}) == 1  # one trace: start-up under the run's root
    root = next(s for s in spans if s.name == "invoke_agent agentpair")
    assert [s.name for s in spans if s.parent is None] == [root.name]
    assert next(s for s in spans if s.name == "startup").parent.span_id == root.context.span_id
    assert root.status.status_code == StatusCode.OK
    assert (root.attributes["input.value"], root.attributes["output.value"]) == (
        "Convert 12.5 km to miles, then fetch the token.", "7.77")

    chats = [s.attributes for s in spans if s.name == "chat fake"]
    sent = json.loads(chats[1]["gen_ai.input.messages"])
    assert [m["role"] for m in sent] == ["system", "user"] and sent[1]["parts"][0]["type"] == "text"
    user = sent[1]["parts"][0]["content"]
    assert user.endswith("Results:\n" + CONVERTED) and 'from_unit (one of "km", "mi")' in user
    answered = json.loads(chats[1]["gen_ai.output.messages"])
    assert answered[0]["role"] == "assistant" and json.loads(answered[0]["parts"][0]["content"])["steps"][0]["tool"] \
        == "fetch_token"
    assert json.loads(chats[1]["input.value"])["messages"][1]["content"] == user
    assert chats[1]["input.mime_type"] == "application/json" and chats[1]["output.value"] == answered[0]["parts"][0]["content"]
    assert chats[1]["llm.input_messages.1.message.role"] == "user" and chats[1]["llm.input_messages.1.message.content"] == user
    assert chats[1]["llm.output_messages.0.message.role"] == "assistant"
    assert "{{secret:token}}" in chats[2]["gen_ai.input.messages"]  # the token a tool returned, as its placeholder

    fill = next(s.attributes for s in spans if s.name.startswith("fill "))
    asked = json.loads(fill["input.value"])
    assert asked["context"].endswith("Results:\nno tool has run yet")
    assert asked["requests"][0]["instruction"] == "convert 12.5 from km to mi" and "context" not in asked["requests"][0]
    assert json.loads(fill["output.value"]) == [{"value": {"value": 12.5, "from_unit": "km", "to_unit": "mi"},
                                                 "error": None}]
    said = json.dumps([dict(s.attributes) for s in spans] + [[dict(e.attributes) for e in s.events] for s in spans])
    assert SECRET not in said and KEY not in said and "{{secret:token}}" in said


async def test_a_run_that_did_not_finish_has_an_error_root(tmp_path) -> None:
    replies = [plan({"kind": "act", "tool": "convert", "instruction": "convert 12.5 from km to mi"})]
    spans = await traced_run(tmp_path, replies, [{"value": 12.5, "from_unit": "km", "to_unit": "mi"}] * 2, max_steps=2)
    root = next(s for s in spans if s.name == "invoke_agent agentpair")
    assert root.status.status_code == StatusCode.ERROR and "max_steps (2) reached" in root.status.description
    assert "output.value" not in root.attributes


async def test_a_run_its_caller_stopped_is_no_failure(tmp_path) -> None:
    async def stop() -> bool:
        return True

    replies = [plan({"kind": "act", "tool": "convert", "instruction": "convert 12.5 from km to mi"})]
    spans = await traced_run(tmp_path, replies, [{"value": 12.5, "from_unit": "km", "to_unit": "mi"}], should_stop=stop)
    root = next(s for s in spans if s.name == "invoke_agent agentpair")
    assert root.attributes["agentpair.stop_reason"] == "stopped: should_stop"
    assert root.status.status_code == StatusCode.OK
