"""Neither the API key nor a Task.secrets value reaches a trace file or a planner request."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from agentpair import Agent, OpenAIPlanner, PlannerError
from agentpair.agent.events import AgentEvent
from agentpair.planner.request import PlanRequest, ToolInfo
from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment
from agentpair.bench.fake_endpoint import FakeEndpoint, Reply
from agentpair.tools.base import Observation

API_KEY = "sk-live-VERYSECRET123"
PASSWORD = "hunter2-Value"
PLANS = [
    json.dumps({"thought": "log in", "steps": [
        {"kind": "act", "tool": "type", "instruction": "type {{secret:password}} into Password"},
        {"kind": "act", "tool": "click", "instruction": "click Log in"}]}),
    json.dumps({"thought": "done", "steps": [{"kind": "finish", "instruction": "done", "answer": "in"}]}),
]


class LeakyEnvironment(SleepyEnvironment):
    """A page that shows the password in clear text (the browser tool masks it; the loop must too)."""

    async def observe(self) -> Observation:
        base = await super().observe()
        return base.model_copy(update={"snapshot": base.snapshot + f'\n- text "your password is {PASSWORD}"',
                                       "text": f"Welcome. Password: {PASSWORD}"})


async def test_secrets_and_keys_stay_out_of_traces_and_planner_requests(tmp_path: Path) -> None:
    # an executor that (wrongly) produces the literal value: the trace must still redact it
    executor = ScriptedExecutor([{"ref": "e2", "text": PASSWORD}, {"ref": "e1"}] * 3)
    env = LeakyEnvironment()
    with FakeEndpoint([Reply(content=PLANS[0]), Reply(content=PLANS[1])]) as fake:
        planner = OpenAIPlanner(base_url=fake.base_url, model="fake", api_key=API_KEY)
        events: list[AgentEvent] = []
        agent = Agent(planner, executor, env, trace_dir=tmp_path, on_event=events.append)
        result = await agent.run("log in as alice with {{secret:password}}", secrets={"password": PASSWORD},
                                 trace=tmp_path / "secret.jsonl")
        bodies = json.dumps([r["body"] for r in fake.requests])
        assert all(r["headers"]["authorization"] == f"Bearer {API_KEY}" for r in fake.requests)
    assert result.finished
    assert ("type", {"ref": "e2", "text": PASSWORD}) in env.calls
    text = (tmp_path / "secret.jsonl").read_text()
    assert PASSWORD not in text and API_KEY not in text
    assert "{{secret:password}}" in text
    assert PASSWORD not in bodies and API_KEY not in bodies
    assert "{{secret:password}}" in bodies
    assert PASSWORD not in repr(result.model_dump()["steps"][0]["step"])
    assert PASSWORD not in result.model_dump_json()  # the executor's literal value, in the returned steps too
    shown = repr(events)  # the live progress lines
    assert PASSWORD not in shown and "type {'ref': 'e2', 'text': '{{secret:password}}'}" in shown


def test_a_secret_is_masked_in_every_common_encoding_and_a_short_key_only_as_a_whole_token() -> None:
    import base64
    import html
    import json
    from urllib.parse import quote, quote_plus

    from agentpair.tracing.redaction import REDACTED, Redactor
    from agentpair.tools.base import mask_secrets

    secret = 'Tr0ub4dor&3 horse/!"'
    forms = [secret, quote(secret, safe=""), quote_plus(secret, safe=""), html.escape(secret),
             json.dumps(secret)[1:-1], base64.b64encode(secret.encode()).decode(),
             base64.b64encode(secret.encode()).decode().rstrip("=")]
    for form in forms:
        masked = mask_secrets(f"GET /login?password={form}&next=/", {"password": secret})
        assert form not in masked and "{{secret:password}}" in masked, form
    redactor = Redactor({"password": secret}, ["x"])
    assert redactor.text(f"url=/p?pw={quote_plus(secret, safe='')}") == "url=/p?pw={{secret:password}}"
    # a one-letter API key (common with local servers) is no reason to rewrite words or JSON keys
    assert redactor.value({"max_steps": 3, "text": "box x next"}) == {"max_steps": 3, "text": f"box {REDACTED} next"}


def test_a_secret_written_into_the_goal_never_reaches_the_executor() -> None:
    from agentpair.models import Task
    from agentpair.agent.render import executor_context
    from agentpair.tools.base import Observation

    task = Task(goal="Sign in with the code Zq7-Walrus-19 and open Billing", secrets={"code": "Zq7-Walrus-19"})
    context = executor_context(task, Observation(url="http://127.0.0.1/", snapshot='- textbox "Code" [ref=e1]'),
                               ["Zq7-Walrus-19"])
    assert "Zq7-Walrus-19" not in context and context.count("{{secret:code}}") >= 2


async def test_a_key_or_secret_an_endpoint_echoes_in_its_error_stays_out_of_every_output(tmp_path: Path) -> None:
    """The planner's error, the stop reason, the returned result, the events shown live and the trace."""
    echo = f"Incorrect API key provided: {quote(API_KEY, safe='/')} for {json.dumps(PASSWORD)[1:-1]}"
    events: list[AgentEvent] = []
    with FakeEndpoint([Reply(401, body={"error": {"message": echo}})]) as fake:
        planner = OpenAIPlanner(base_url=fake.base_url, model="fake", api_key=API_KEY, backoff_s=0.01)
        try:
            await planner.plan(PlanRequest(goal="log in", tools=[ToolInfo(name="click", description="click")]))
        except PlannerError as exc:
            error = exc
        agent = Agent(planner, ScriptedExecutor([]), SleepyEnvironment(), on_event=events.append)
        result = await agent.run("log in with {{secret:password}}", secrets={"password": PASSWORD},
                                 trace=tmp_path / "echo.jsonl")
    planner_said = [str(error), repr(vars(error.attempts[0]))]  # the planner alone knows the key, not the secret
    assert not [text for text in planner_said if API_KEY in text or quote(API_KEY, safe="/") in text]
    assert result.stop_reason.startswith("planner error") and "[REDACTED]" in result.stop_reason
    shown = [result.model_dump_json(), repr(events), (tmp_path / "echo.jsonl").read_text()]
    assert not [text for text in shown if API_KEY in text or quote(API_KEY, safe="/") in text or PASSWORD in text]


async def test_the_returned_result_is_redacted_like_the_trace_whatever_the_planner_says() -> None:
    """A planner that is no endpoint (so redacts nothing itself) and fails quoting the key and the secret."""
    class Failing(ScriptedPlanner):
        async def plan(self, request):
            raise PlannerError(f"rejected key {API_KEY} and value {PASSWORD.replace('-', '%2D')}", [])

    result = await Agent(Failing([], api_key=API_KEY), ScriptedExecutor([]), SleepyEnvironment()).run(
        "log in", secrets={"password": PASSWORD}, trace=False)
    assert result.stop_reason == "planner error: rejected key [REDACTED] and value {{secret:password}}"



async def test_an_exception_out_of_a_run_has_the_secret_and_key_redacted_from_its_message() -> None:
    class Crashing(SleepyEnvironment):
        async def observe(self) -> Observation:
            raise RuntimeError(f"page http://127.0.0.1/?pw={quote(PASSWORD)} failed with key {API_KEY}")

    agent = Agent(ScriptedPlanner([], api_key=API_KEY), ScriptedExecutor([]), Crashing())
    with pytest.raises(RuntimeError) as raised:
        await agent.run("log in", secrets={"password": PASSWORD}, trace=False)
    assert str(raised.value) == "page http://127.0.0.1/?pw={{secret:password}} failed with key [REDACTED]"
