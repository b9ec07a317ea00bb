"""OpenAIPlanner against a scripted local endpoint: retries, Retry-After, timeouts, format switch, re-ask."""

from __future__ import annotations

import json
import time
from pathlib import Path

import jsonschema
import pytest

from agentpair import Agent, OpenAIPlanner, PlannerError
from agentpair.llm.endpoint import _FORMAT_BY_ENDPOINT
from agentpair.planner.request import PlanRequest, ToolInfo
from tests.doubles import ScriptedExecutor, SleepyEnvironment
from agentpair.bench.fake_endpoint import FakeEndpoint, Reply

GOOD = json.dumps({"thought": "t", "steps": [{"kind": "finish", "instruction": "done", "answer": "ok"}]})
REQUEST = PlanRequest(goal="say ok", tools=[ToolInfo(name="click", description="click")])


def planner(fake: FakeEndpoint, **options) -> OpenAIPlanner:
    options.setdefault("backoff_s", 0.01)
    return OpenAIPlanner(base_url=fake.base_url, model="fake", api_key="sk-test", **options)


async def test_429_with_retry_after_is_honoured() -> None:
    with FakeEndpoint([Reply(429, headers={"Retry-After": "1"}, body={"error": {"message": "slow down"}}),
                       Reply(content=GOOD)]) as fake:
        started = time.perf_counter()
        reply = await planner(fake).plan(REQUEST)
        assert time.perf_counter() - started >= 1.0
    assert reply.plan.steps[0].answer == "ok"
    assert [a["outcome"] for a in reply.attempts] == ["retry", "ok"] and reply.attempts[0]["status"] == 429


async def test_500_is_retried_then_gives_a_clear_error() -> None:
    with FakeEndpoint([Reply(500, body={"error": {"message": "boom"}}), Reply(content=GOOD)]) as fake:
        reply = await planner(fake).plan(REQUEST)
    assert [a["outcome"] for a in reply.attempts] == ["retry", "ok"]
    with FakeEndpoint([Reply(503, body={"error": {"message": "overloaded"}})]) as fake:
        with pytest.raises(PlannerError) as err:
            await planner(fake, max_attempts=3).plan(REQUEST)
        assert len(fake.requests) == 3
    assert fake.base_url in str(err.value) and "503" in str(err.value) and len(err.value.attempts) == 3


async def test_a_hang_past_the_timeout_is_retried_then_fails_clearly() -> None:
    with FakeEndpoint([Reply(content=GOOD, delay_s=3)]) as fake:
        started = time.perf_counter()
        with pytest.raises(PlannerError) as err:
            await planner(fake, timeout_s=0.3, max_attempts=2).plan(REQUEST)
        assert time.perf_counter() - started < 2.5
    assert "Timeout" in str(err.value) and fake.base_url in str(err.value)


async def test_a_rejected_response_format_switches_format_without_spending_a_retry() -> None:
    with FakeEndpoint([Reply(content=GOOD, reject_json_schema=True)]) as fake:
        _FORMAT_BY_ENDPOINT.pop(fake.base_url, None)
        reply = await planner(fake, max_attempts=1).plan(REQUEST)
        assert [a["outcome"] for a in reply.attempts] == ["format_rejected", "ok"]
        assert fake.requests[1]["body"]["response_format"]["type"] == "json_object"
        assert "schema" in fake.requests[1]["body"]["response_format"]
        await planner(fake).plan(REQUEST)  # remembered: no second rejection
        assert fake.requests[2]["body"]["response_format"]["type"] == "json_object"


async def test_json_schema_mode_sends_openai_response_format() -> None:
    with FakeEndpoint([Reply(content=GOOD)]) as fake:
        await planner(fake, structured_output="json_schema").plan(REQUEST)
    assert fake.requests[0]["body"]["response_format"]["type"] == "json_schema"


async def test_the_sent_schema_asks_for_a_text_answer_unless_the_task_has_an_answer_schema() -> None:
    facts = {"type": "object", "required": ["price"], "properties": {"price": {"type": "number"}}}
    priced = json.dumps({"thought": "t", "steps": [{"kind": "finish", "instruction": "done", "answer": {"price": 3}}]})
    with FakeEndpoint([Reply(content=GOOD), Reply(content=priced)]) as fake:
        await planner(fake).plan(REQUEST)
        await planner(fake).plan(REQUEST.model_copy(update={"output_schema": facts}))
    text, structured = (r["body"]["response_format"]["json_schema"]["schema"] for r in fake.requests)

    def finish(answer: object) -> dict:
        return {"thought": "t", "steps": [{"kind": "finish", "instruction": "done", "answer": answer}]}
    jsonschema.validate(finish("Signed in as ada"), text)
    with pytest.raises(jsonschema.ValidationError):  # a 135M planner otherwise invents objects here
        jsonschema.validate(finish({"lit": "Signed in"}), text)
    jsonschema.validate(finish({"price": 3.5}), structured)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(finish("3.5"), structured)


@pytest.mark.parametrize(("bad", "says"), [
    ("not json at all", "not JSON"),
    (json.dumps({"thought": "t", "steps": []}), "steps"),
    (json.dumps({"steps": [{"kind": "act", "instruction": "no tool"}]}), "names its tool"),
    (json.dumps({"steps": [{"kind": "extract", "instruction": "the price", "schema": {
        "type": "object", "properties": {"price": {"type": "number"}}, "required": ["price", "name"]}}]}),
     "requires name but its properties do not define"),  # the executor could not fill it
    (json.dumps({"steps": [{"kind": "extract", "instruction": "the table", "schema": {
        "type": "object", "properties": {"value": "value"}}}]}), "not a JSON Schema"),  # not a schema at all
])
async def test_invalid_output_is_reasked_once_with_the_error(bad: str, says: str) -> None:
    with FakeEndpoint([Reply(content=bad), Reply(content=GOOD)]) as fake:
        reply = await planner(fake).plan(REQUEST)
        assert reply.plan.steps[0].kind == "finish"
        reask = fake.requests[1]["body"]["messages"]
        assert reask[-2]["content"] == bad and "invalid" in reask[-1]["content"] and says in reask[-1]["content"]
    with FakeEndpoint([Reply(content=bad)]) as fake:
        with pytest.raises(PlannerError, match="invalid plan twice"):
            await planner(fake).plan(REQUEST)


async def test_every_attempt_is_visible_in_the_trace(tmp_path: Path) -> None:
    replies = [Reply(500, body={"error": {"message": "boom"}}), Reply(content="{oops"), Reply(content=GOOD)]
    with FakeEndpoint(replies) as fake:
        agent = Agent(planner(fake), ScriptedExecutor([]), SleepyEnvironment(), trace_dir=tmp_path)
        result = await agent.run("say ok", trace=tmp_path / "t.jsonl")
    assert result.finished
    spans = [r for line in (tmp_path / "t.jsonl").read_text().splitlines()[1:] if (r := json.loads(line))["type"] == "span"]
    chat = next(s for s in spans if s["name"] == "chat fake")
    attempts = [e["attributes"] for e in chat["events"] if e["name"] == "gen_ai.attempt"]
    assert [a["outcome"] for a in attempts] == ["retry", "ok", "ok"]
    assert attempts[0]["status"] == 500


async def test_unreachable_endpoint_stops_the_run_with_a_clear_reason(tmp_path: Path) -> None:
    dead = OpenAIPlanner(base_url="http://127.0.0.1:9/v1", model="m", max_attempts=2, backoff_s=0.01)
    agent = Agent(dead, ScriptedExecutor([]), SleepyEnvironment(), trace_dir=tmp_path)
    result = await agent.run("anything", trace=tmp_path / "dead.jsonl")
    assert not result.finished and "planner error" in result.stop_reason
    assert "127.0.0.1:9" in result.stop_reason and "APIConnectionError" in result.stop_reason
    lines = (tmp_path / "dead.jsonl").read_text().splitlines()
    assert all(json.loads(line) for line in lines) and len(lines) >= 3


@pytest.mark.parametrize("bad", [
    Reply(raw=b'{"choices": [{"message": ', content_type="application/json"),  # cut off
    Reply(raw=b"<html><body>502 Bad Gateway</body></html>", content_type="text/html"),  # a proxy's page
    Reply(body={"id": "c1", "object": "chat.completion", "choices": []}),  # no choice
])
async def test_an_answer_that_is_no_chat_completion_is_retried_then_a_clear_error(bad: Reply) -> None:
    with FakeEndpoint([bad, Reply(content=GOOD)]) as fake:
        reply = await planner(fake).plan(REQUEST)
        assert reply.plan.steps[0].kind == "finish" and reply.attempts[0]["outcome"] == "retry"
    with FakeEndpoint([bad]) as fake:
        with pytest.raises(PlannerError, match="not a chat completion"):
            await planner(fake).plan(REQUEST)


async def test_with_no_model_named_the_planner_asks_the_server_which_it_serves(monkeypatch) -> None:
    monkeypatch.delenv("AGENTPAIR_PLANNER_MODEL", raising=False)
    with FakeEndpoint([Reply(content=GOOD)], models=("qwen-local",)) as fake:
        one = OpenAIPlanner(base_url=fake.base_url, api_key="sk-test")
        await one.plan(REQUEST)
        assert fake.requests[-1]["body"]["model"] == "qwen-local" and one.name == "openai:qwen-local"
    with FakeEndpoint([Reply(content=GOOD)], models=("a", "b")) as fake:
        several = OpenAIPlanner(base_url=fake.base_url, api_key="sk-test")
        await several.plan(REQUEST)
        assert fake.requests[-1]["body"]["model"] == "gpt-4o-mini"  # which of several is the user's to say


def test_a_base_url_that_is_no_http_url_is_refused_at_once() -> None:
    for url in ("not a url", "localhost:8080/v1", "ftp://127.0.0.1/v1", "http:///v1"):
        with pytest.raises(ValueError, match="http\\(s\\) URL with a host"):
            OpenAIPlanner(base_url=url, model="fake")


async def test_the_trace_names_the_model_the_server_listed_not_the_default(monkeypatch, tmp_path: Path) -> None:
    """Header (as read, with what start-up settled) and the first planner span name the served model."""
    from agentpair.tracing.reader import load_trace

    monkeypatch.delenv("AGENTPAIR_PLANNER_MODEL", raising=False)
    with FakeEndpoint([Reply(content=GOOD)], models=("qwen-local",)) as fake:
        planner = OpenAIPlanner(base_url=fake.base_url, api_key="sk-test")
        assert planner.identity()["model"] is None  # not yet asked: claims no model
        await Agent(planner, ScriptedExecutor([]), SleepyEnvironment()).run("say ok", trace=tmp_path / "t.jsonl")
    tree = load_trace(tmp_path / "t.jsonl")
    chat = tree.planner_calls()[0]
    assert tree.header.planner["model"] == "qwen-local" and chat.name == "chat qwen-local"
    assert chat.attr("gen_ai.request.model") == "qwen-local" and fake.requests[-1]["body"]["model"] == "qwen-local"
    assert "gpt-4o-mini" not in (tmp_path / "t.jsonl").read_text()


async def test_under_a_grounded_schema_an_extracts_undefined_required_names_are_dropped_not_reasked() -> None:
    undefined = json.dumps({"thought": "t", "steps": [{"kind": "extract", "instruction": "the price", "schema": {
        "type": "object", "properties": {"price": {"type": "number"}}, "required": ["price", "name"]}}]})
    with FakeEndpoint([Reply(content=undefined)]) as fake:
        reply = await planner(fake, grounding="heuristic").plan(REQUEST)
        assert reply.plan.steps[0].schema_["required"] == ["price"] and len(fake.requests) == 1


async def test_parameters_a_reasoning_model_rejects_are_dropped_without_spending_a_retry() -> None:
    limit = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
    heat = "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."
    with FakeEndpoint([Reply(400, body={"error": {"message": limit, "param": "max_tokens"}}),
                       Reply(400, body={"error": {"message": heat, "param": "temperature"}}),
                       Reply(content=GOOD), Reply(content=GOOD)]) as fake:
        reply = await planner(fake, max_attempts=1).plan(REQUEST)
        assert [a["outcome"] for a in reply.attempts] == ["parameter_rejected", "parameter_rejected", "ok"]
        body = fake.requests[2]["body"]
        assert "max_tokens" not in body and body["max_completion_tokens"] > 0 and "temperature" not in body
        await planner(fake).plan(REQUEST)  # remembered for this model
        assert "temperature" not in fake.requests[3]["body"] and "max_completion_tokens" in fake.requests[3]["body"]
    with FakeEndpoint([Reply(400, body={"error": {"message": "the messages are malformed"}})]) as fake:
        with pytest.raises(PlannerError):  # any other 400 is no parameter to drop: an error at once
            await planner(fake).plan(REQUEST)
        assert len(fake.requests) == 1


async def test_an_endpoint_planner_reads_the_tools_descriptions_and_the_embedded_one_their_names() -> None:
    from agentpair.planner.embedded import EmbeddedPlanner

    with FakeEndpoint([Reply(content=GOOD)]) as fake:
        reply = await planner(fake).plan(REQUEST)
    sent = fake.requests[0]["body"]["messages"]
    assert "Tools:\n- click: click\n" in sent[-1]["content"]
    assert reply.messages == sent  # what the reply says was sent, for the trace
    assert EmbeddedPlanner()._options["describe_tools"] is False  # it was trained on names only
