"""Neither the API key nor a Task.secrets value reaches a trace file or a planner request."""

from __future__ import annotations

import json
from pathlib import Path

from agentpair import Agent, OpenAIPlanner
from tests.doubles import ScriptedExecutor, SleepyEnvironment
from tests.fake_endpoint import FakeEndpoint, Reply
from tools.base import Observation

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
        agent = Agent(planner, executor, env, trace_dir=tmp_path)
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
