"""Replay: a recorded run replays offline with the same tool calls and outcome; an edited trace,
a changed environment or a different executor are reported at the call where they differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentpair import Agent
from agentpair.planner.request import PlannerError, PlanReply, PlanRequest
from agentpair.replay.drive import replay
from agentpair.tracing.reader import load_trace
from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment
from tests.trace_runs import FILLS, SECRETS, doubles, edit_span, record_run


@pytest.fixture
async def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    result = await record_run(path, planner_s=0.02, executor_s=0.01, tool_s=0.01)
    assert result.finished and result.answer == {"title": "Page 3"}
    return path


def recorded_tool_calls(path: Path) -> list[tuple[str, dict]]:
    return [(s.attr("gen_ai.tool.name"), s.data("gen_ai.tool.call.arguments")) for s in load_trace(path).tool_calls()]


async def test_fully_recorded_replay_matches_offline(recorded: Path, tmp_path: Path) -> None:
    result = await replay(recorded, write_trace=tmp_path / "replayed.jsonl")
    assert result.matched and result.success and result.divergence is None
    assert result.model_calls == 0 and result.iterations == 3
    assert result.finished and result.answer == {"title": "Page 3"} and result.stop_reason == "finished"
    assert result.replay_wall_s < result.recorded_wall_s  # nothing sleeps in a recorded replay
    # the replay's own trace shows the same tool calls, with the secret still a placeholder
    assert recorded_tool_calls(tmp_path / "replayed.jsonl") == recorded_tool_calls(recorded) == [
        ("click", {"ref": "e1"}), ("type", {"ref": "e2", "text": "{{secret:pw}}"})]


async def test_replay_writes_no_trace_by_default(recorded: Path) -> None:
    before = set(recorded.parent.iterdir())
    result = await replay(recorded)
    assert result.trace_path is None and set(recorded.parent.iterdir()) == before


async def test_edited_plan_request_diverges_at_that_planner_call(recorded: Path) -> None:
    def edit(span: dict) -> dict:
        request = json.loads(span["attributes"]["agentpair.plan_request"])
        request["title"] = "Another page"
        span["attributes"]["agentpair.plan_request"] = json.dumps(request)
        return span

    edit_span(recorded, "chat scripted", 1, edit)
    result = await replay(recorded)
    assert not result.matched and not result.success
    d = result.divergence
    assert (d.iteration, d.step, d.kind, d.span) == (2, 1, "planner_request", "chat scripted")
    assert d.expected == {"title": "Another page"} and d.actual == {"title": "Page 3"}


async def test_edited_plan_diverges_at_the_next_call_it_changes(recorded: Path) -> None:
    def edit(span: dict) -> dict:
        plan = json.loads(span["attributes"]["agentpair.plan"])
        plan["steps"][0]["instruction"] = "click Stop"
        span["attributes"]["agentpair.plan"] = json.dumps(plan)
        return span

    edit_span(recorded, "chat scripted", 0, edit)
    result = await replay(recorded)
    d = result.divergence
    assert (d.iteration, d.step, d.kind) == (1, 2, "fill_request")
    # "click Stop" names no element on the page, so the executor is offered every ref again
    assert d.expected == {"instruction": "click Go", "allowed": {"/ref": ["e1"]}}
    assert d.actual == {"instruction": "click Stop", "allowed": {"/ref": ["e1", "e2"]}}
    assert "[0].instruction" in d.message


async def test_changed_environment_diverges_at_the_observation(recorded: Path) -> None:
    _, _, env = doubles(button="Start")  # the same page, with its button renamed
    result = await replay(recorded, tools="live", environment=env, secrets=SECRETS)
    d = result.divergence
    assert (d.iteration, d.step, d.kind, d.span) == (0, 1, "observation", "observe")
    assert d.expected == {"snapshot": '- button "Go" [ref=e1]\n- textbox "Name" [ref=e2]'}
    assert d.actual == {"snapshot": '- button "Start" [ref=e1]\n- textbox "Name" [ref=e2]'}
    assert env.calls == []


async def test_same_environment_live_matches_and_acts(recorded: Path) -> None:
    _, _, env = doubles()
    result = await replay(recorded, tools="live", environment=env, secrets=SECRETS)
    assert result.matched and result.success and result.model_calls == 0
    assert env.calls == [("click", {"ref": "e1", "text": ""}), ("type", {"ref": "e2", "text": "{{secret:pw}}"})]


async def test_live_replay_needs_the_secrets(recorded: Path) -> None:
    _, _, env = doubles()
    with pytest.raises(ValueError, match="secrets pw"):
        await replay(recorded, tools="live", environment=env)


async def test_what_if_executor_runs_on_the_recorded_plans(recorded: Path) -> None:
    same = ScriptedExecutor(list(FILLS), delay_s=0.002)
    result = await replay(recorded, executor=same)
    assert result.matched and result.success and result.model_calls == 3 and result.executor == "scripted-executor"
    assert [f.equal for f in result.fills] == [True, True, True]
    assert result.recorded_executor_s == pytest.approx(sum(s.duration_s for s in load_trace(recorded).fills()))
    # the replay's own executor time, fill by fill (no timing race with the recording: CI is noisy)
    assert result.replay_executor_s == pytest.approx(sum(f.replay_ms for f in result.fills) / 1000)
    assert result.replay_executor_s > 0

    other = ScriptedExecutor([{"ref": "e2"}, {"ref": "e2", "text": "x"}])
    result = await replay(recorded, executor=other)
    assert result.fills[0].recorded == [{"ref": "e1"}, {"ref": "e2", "text": "{{secret:pw}}"}]
    assert not result.fills[0].equal and result.model_calls == 1
    d = result.divergence
    assert (d.iteration, d.step, d.kind) == (1, 3, "tool_call")
    assert d.expected == {"arguments": {"ref": "e1"}} and d.actual == {"arguments": {"ref": "e2"}}


async def test_replay_of_a_killed_run_stops_where_the_recording_ends(recorded: Path) -> None:
    lines = recorded.read_text().splitlines()
    keep = [line for line in lines if not json.loads(line).get("name", "").startswith(("invoke_agent", "iteration 3"))]
    last_chat = max(i for i, line in enumerate(keep) if '"chat scripted"' in line)
    recorded.write_text("\n".join(keep[:last_chat]) + "\n")  # killed during the third planner call
    result = await replay(recorded)
    assert result.matched and not result.success and result.iterations == 3
    assert "recording ends before planner request 3.1" in result.warnings[0]


async def test_finishing_early_is_an_outcome_divergence(recorded: Path) -> None:
    def edit(span: dict) -> dict:
        span["attributes"]["agentpair.plan"] = json.dumps({"thought": "", "steps": [{"kind": "finish", "answer": 1}]})
        return span

    edit_span(recorded, "chat scripted", 1, edit)
    result = await replay(recorded)
    d = result.divergence
    assert (d.iteration, d.kind) == (2, "outcome")
    assert d.expected["answer"] == {"title": "Page 3"} and d.actual["answer"] == 1
    assert d.actual["remaining_calls"] == 2  # the extract's fill, and the last planner call


class FailingPlanner(ScriptedPlanner):
    """Plans once, then fails as an unreachable endpoint would."""

    async def plan(self, request: PlanRequest) -> PlanReply:
        if self.requests:
            raise PlannerError("http://127.0.0.1:9 is unreachable")
        return await super().plan(request)


async def test_recorded_failures_replay_as_they_happened(tmp_path: Path) -> None:
    path = tmp_path / "failed.jsonl"
    plans = [{"steps": [{"kind": "act", "tool": "fly", "instruction": "fly away"},
                        {"kind": "act", "tool": "click", "instruction": "click Go"}]}]
    agent = Agent(FailingPlanner(plans), ScriptedExecutor([{"ref": "e1"}]), SleepyEnvironment(), trace_dir=tmp_path)
    run = await agent.run("fly", trace=path)
    assert run.stop_reason == "planner error: http://127.0.0.1:9 is unreachable" and not run.finished
    result = await replay(path)
    assert result.matched and result.success and result.stop_reason == run.stop_reason

    agent = Agent(ScriptedPlanner([{"steps": plans[0]["steps"][:1]}]), ScriptedExecutor([]), SleepyEnvironment(),
                  trace_dir=tmp_path)
    run = await agent.run("fly", max_steps=2, trace=path)  # unknown tool, twice: no fill, no tool call
    assert "max_steps" in run.stop_reason
    result = await replay(path)
    assert result.matched and result.success and result.iterations == 2
