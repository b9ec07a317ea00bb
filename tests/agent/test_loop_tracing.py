"""The loop with timed doubles: span nesting, per-category time, batching, and a killed run's trace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agentpair import Agent
from agentpair.tracing.attribution import categorize
from agentpair.planner.grounding.layer import Grounding
from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment

PLANS = [
    {"steps": [{"kind": "act", "tool": "click", "instruction": "click Go"},
               {"kind": "act", "tool": "type", "instruction": "type bob into Name"}]},
    {"steps": [{"kind": "finish", "answer": "done"}]},
]


SLEEP_S = 0.1
# a category's spans also hold the loop's own bookkeeping and, on a loaded shared machine, the
# scheduler's delays (13 ms over five tool spans seen in CI): well under one missed or doubled sleep
TOLERANCE_S = 0.04


def read_trace(path: Path) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["type"] == "header"
    return lines[0], [line for line in lines[1:] if line["type"] == "span"]


def make_agent(tmp_path: Path, changes_page: bool = True) -> tuple[Agent, ScriptedPlanner, ScriptedExecutor, SleepyEnvironment]:
    # every double sleeps SLEEP_S: a span missed or counted twice moves a category by that much
    planner = ScriptedPlanner(PLANS, delay_s=SLEEP_S)
    executor = ScriptedExecutor([{"ref": "e1"}, {"ref": "e2", "text": "bob"}, {"ref": "e2", "text": "bob"}],
                                delay_s=SLEEP_S)
    env = SleepyEnvironment(observe_s=SLEEP_S, tool_s=SLEEP_S, changes_page=changes_page)
    return Agent(planner, executor, env, trace_dir=tmp_path), planner, executor, env


async def test_spans_nest_and_categories_match_the_doubles(tmp_path: Path) -> None:
    agent, planner, executor, env = make_agent(tmp_path)
    result = await agent.run("click go and type bob", trace=tmp_path / "run.jsonl")
    assert result.finished and result.answer == "done"
    assert [c for c in env.calls] == [("click", {"ref": "e1", "text": ""}), ("type", {"ref": "e2", "text": "bob"})]

    header, spans = read_trace(tmp_path / "run.jsonl")
    assert header["planner"]["kind"] == "scripted" and header["task"]["goal"] == "click go and type bob"
    by_id = {s["span_id"]: s for s in spans}
    root = next(s for s in spans if s["name"] == "invoke_agent agentpair")
    iterations = [s for s in spans if s["name"].startswith("iteration ")]
    assert len(iterations) == 2 and all(s["parent_id"] == root["span_id"] for s in iterations)
    for span in spans:
        category = span["attributes"].get("agentpair.category")
        if category in ("planner", "executor") or span["name"].startswith("execute_tool"):
            assert by_id[span["parent_id"]]["name"].startswith("iteration "), span["name"]
    chat = [s for s in spans if s["name"] == "chat scripted"]
    assert chat[0]["kind"] == "CLIENT" and chat[0]["attributes"]["gen_ai.usage.input_tokens"] == 10

    wall = (root["start_ns"] / 1e9, root["end_ns"] / 1e9)
    intervals = [(s["attributes"]["agentpair.category"], s["start_ns"] / 1e9, s["end_ns"] / 1e9)
                 for s in spans if "agentpair.category" in s["attributes"]]
    from_trace = categorize(intervals, *wall)
    expected = {"planner": planner.spent_s, "executor": executor.spent_s, "tools": env.spent_s}
    for name, spent in expected.items():
        # the spans cover the doubles' own time, never less, and add only bookkeeping and scheduling
        assert spent - 0.001 < from_trace[name] < spent + TOLERANCE_S, (name, from_trace[name], spent)
        assert spent - 0.001 < result.time_s[name] < spent + TOLERANCE_S, (name, result.time_s[name], spent)
    # framework is the wall time no other category covers: the rest of the timeline, no more
    others = sum(from_trace[name] for name in expected)
    assert abs(from_trace["framework"] - ((wall[1] - wall[0]) - others)) < 1e-6
    assert 0 < from_trace["framework"] < (wall[1] - wall[0]) - sum(expected.values())
    assert abs(sum(result.time_s.values()) - result.wall_s) < 1e-6


async def test_steps_reading_one_observation_are_filled_in_one_batch(tmp_path: Path) -> None:
    agent, _, executor, env = make_agent(tmp_path, changes_page=False)
    result = await agent.run("click go and type bob", trace=False)
    assert result.finished and result.trace_path is None
    assert [len(b) for b in executor.batches] == [2]
    agent, _, executor, env = make_agent(tmp_path, changes_page=True)
    await agent.run("click go and type bob", trace=False)
    # the click changed the page: the type step is re-filled against the new observation
    assert [len(b) for b in executor.batches] == [2, 1]


async def test_max_steps_and_failed_steps_stop_or_replan(tmp_path: Path) -> None:
    planner = ScriptedPlanner([{"steps": [{"kind": "act", "tool": "fly", "instruction": "fly away"}]}])
    agent = Agent(planner, ScriptedExecutor([]), SleepyEnvironment(), trace_dir=tmp_path)
    result = await agent.run("go", max_steps=3, trace=False)
    assert not result.finished and "max_steps" in result.stop_reason
    assert len(result.steps) == 3 and all("unknown tool 'fly'" in s.error for s in result.steps)
    assert "FAILED: unknown tool" in planner.requests[1].history[0]


async def test_finish_answer_is_validated_against_output_schema(tmp_path: Path) -> None:
    planner = ScriptedPlanner([{"steps": [{"kind": "finish", "answer": "twelve"}]},
                               {"steps": [{"kind": "finish", "answer": 12}]}])
    agent = Agent(planner, ScriptedExecutor([]), SleepyEnvironment(), trace_dir=tmp_path)
    result = await agent.run("count", output_schema={"type": "integer"}, trace=False)
    assert result.finished and result.answer == 12
    assert "output schema" in result.steps[0].error


KILLED_RUN = """
import asyncio, sys
sys.path.insert(0, {root!r})
from agentpair import Agent
from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment
plans = [{{"steps": [{{"kind": "act", "tool": "click", "instruction": "click Go"}}]}}]
agent = Agent(ScriptedPlanner(plans, delay_s=0.01), ScriptedExecutor([{{"ref": "e1"}}] * 1000),
              SleepyEnvironment(tool_s=0.05))
print("started", flush=True)
asyncio.run(agent.run("loop forever", max_steps=1000, trace={path!r}))
"""


def spawn(script: str, path: Path, says: bytes) -> subprocess.Popen[bytes]:
    """`script` (with {root} and {path} filled in) in a child Python, once it has said `says`."""
    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.Popen([sys.executable, "-c", script.format(root=root, path=str(path))],
                            stdout=subprocess.PIPE, cwd=root)
    assert proc.stdout is not None and proc.stdout.readline().strip() == says
    return proc


def test_sigkill_mid_run_leaves_a_readable_trace(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    proc = spawn(KILLED_RUN, path, b"started")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (not path.exists() or path.read_text().count("\"name\": \"execute_tool click\"") < 5):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    header, spans = read_trace(path)  # every line parses
    assert header["format"] == "agentpair-trace"
    tools = [s for s in spans if s["name"] == "execute_tool click"]
    assert len(tools) >= 5 and all(s["end_ns"] >= s["start_ns"] for s in spans)
    assert not any(s["name"].startswith("invoke_agent") for s in spans)  # the run never finished


KILLED_IN_STARTUP = """
import asyncio, sys
sys.path.insert(0, {root!r})
from agentpair import Agent
from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment

class SlowToStart(ScriptedPlanner):
    async def start(self):
        print("starting", flush=True)
        await asyncio.sleep(60)

agent = Agent(SlowToStart([]), ScriptedExecutor([]), SleepyEnvironment())
asyncio.run(agent.run("read the news", trace={path!r}))
"""


def test_sigkill_during_start_up_leaves_a_trace_that_says_what_the_run_was(tmp_path: Path) -> None:
    from agentpair.tracing.reader import load_trace

    path = tmp_path / "starting.jsonl"
    proc = spawn(KILLED_IN_STARTUP, path, b"starting")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    tree = load_trace(path)
    assert tree.header.task["goal"] == "read the news" and tree.header.planner["kind"] == "scripted"
    assert tree.header.tools == [] and tree.spans == []  # start-up never ended: no startup record, no span


async def test_a_finished_run_folds_its_startup_record_into_the_header(tmp_path: Path) -> None:
    from agentpair.tracing.reader import load_trace

    agent, _, _, _ = make_agent(tmp_path)
    result = await agent.run("click go and type bob")
    tree = load_trace(result.trace_path)
    assert [t["name"] for t in tree.header.tools] == ["click", "type"]
    assert tree.header.environment == "SleepyEnvironment" and tree.header.executor["kind"] == "scripted"
    assert not tree.warnings


async def test_steps_that_cannot_change_the_page_are_reported_unchanged_on_it(tmp_path: Path) -> None:
    agent, planner, _, _ = make_agent(tmp_path, changes_page=False)
    await agent.run("click go and type bob", trace=False)
    assert planner.requests[0].unchanged == []
    assert planner.requests[1].unchanged == ["click Go", "type bob into Name"]  # the same page state


async def test_a_submit_before_the_form_holds_the_goals_text_is_refused_then_the_one_step_left_is_taken(
        tmp_path: Path) -> None:
    plans = [{"steps": [{"kind": "act", "tool": "click", "instruction": "click the Go button"}]},
             {"steps": [{"kind": "act", "tool": "click", "instruction": "click the Go button"}]},
             {"steps": [{"kind": "finish", "answer": "done"}]}]
    planner = ScriptedPlanner(plans)
    planner.grounding = Grounding("heuristic")  # the refusal is the grounded schema's: a planner that asks for grounding
    executor = ScriptedExecutor([{"ref": "e1"}, {"ref": "e2", "text": "ada@byron.example"}, {"ref": "e1"}])
    env = SleepyEnvironment(fields=("Email", "Phone"))  # a field the goal says nothing of: no fill without the planner
    result = await Agent(planner, executor, env, trace_dir=tmp_path).run("Sign up with ada@byron.example",
                                                                         trace=False)
    assert result.finished
    assert [name for name, _ in env.calls] == ["type", "click"]  # the early click never ran
    # after the refusal the schema allowed one step only: the loop typed without asking the planner
    assert len(planner.requests) == 3 and result.steps[1].step.instruction == (
        "type ada@byron.example into the Email field")
    assert planner.requests[1].history[0].endswith(
        "FAILED: the form does not yet hold what the goal gives: type ada@byron.example into the Email field")


async def test_a_step_a_plan_repeats_that_sets_a_field_runs_once(tmp_path: Path) -> None:
    plans = [{"steps": [{"kind": "act", "tool": "type", "instruction": "type Ada into the Name field"},
                        {"kind": "act", "tool": "type", "instruction": "type Ada into the Name field"}]},
             {"steps": [{"kind": "finish", "answer": "done"}]}]
    env = SleepyEnvironment(changes_page=False)
    executor = ScriptedExecutor([{"ref": "e2", "text": "Ada"}] * 2)
    result = await Agent(ScriptedPlanner(plans), executor, env).run("Put Ada in as the name", trace=False)
    assert result.finished and [name for name, _ in env.calls] == ["type"]


async def test_a_planner_that_asked_for_no_grounding_gets_no_refusal(tmp_path: Path) -> None:
    plans = [{"steps": [{"kind": "act", "tool": "click", "instruction": "click the Go button"}]},
             {"steps": [{"kind": "finish", "answer": "done"}]}]
    env = SleepyEnvironment()
    result = await Agent(ScriptedPlanner(plans), ScriptedExecutor([{"ref": "e1"}]), env).run(
        "Put this in the name: Ada Byron King", trace=False)
    assert result.finished and [name for name, _ in env.calls] == ["click"]


def test_a_step_that_left_a_url_as_it_was_twice_is_not_offered_there_again() -> None:
    from agentpair.agent.state import RunState
    from agentpair.models import Task
    from agentpair.tools.base import Observation

    run = RunState(Task(goal="buy it"))
    page = lambda n: Observation(url="http://shop/index.html#help", snapshot=f'- link "Cart ({n})" [ref=e1]')
    run.left_as_it_was(page(0), "click the Save for later button")
    assert run.unchanged_on(page(1)) == []  # another state of the page: it may do something there
    run.left_as_it_was(page(1), "click the Save for later button")
    assert run.unchanged_on(Observation(url="http://shop/index.html", snapshot="")) == ["click the Save for later button"]


def test_a_step_that_led_back_to_a_page_planned_on_is_not_offered_again_where_it_was_taken() -> None:
    from agentpair.agent.state import RunState
    from agentpair.models import Task
    from agentpair.planner.page_view import page_state
    from agentpair.tools.base import Observation

    run = RunState(Task(goal="open Prev in the menu"))
    shut = Observation(url="http://app/", snapshot='- button "Menu" [ref=e1]')
    shown = Observation(url="http://app/", snapshot='- button "Menu" [ref=e1]\n- menuitem "Playback" [ref=e2]')
    run.planned_on.add(page_state(shut))
    run.moved(shut, shown, "click the Menu button")  # it opened the menu: a step forward
    assert run.unchanged_on(shut) == [] and run.unchanged_on(shown) == []
    run.planned_on.add(page_state(shown))
    run.moved(shown, shut, "click the Menu button")  # it shut the menu again: round in a circle
    assert run.unchanged_on(shown) == ["click the Menu button"] and run.unchanged_on(shut) == []


async def test_under_a_grounded_schema_a_field_takes_the_first_text_a_plan_types_into_it(tmp_path: Path) -> None:
    plans = [{"steps": [{"kind": "act", "tool": "type", "instruction": "type Ada into the Name field"},
                        {"kind": "act", "tool": "type", "instruction": "type the name into the Name field"},
                        {"kind": "act", "tool": "click", "instruction": "click the Go button"}]},
             {"steps": [{"kind": "finish", "answer": "done"}]}]
    planner = ScriptedPlanner(plans)
    planner.grounding = Grounding("heuristic")
    env = SleepyEnvironment(changes_page=False)
    executor = ScriptedExecutor([{"ref": "e2", "text": "Ada"}, {"ref": "e1"}])
    result = await Agent(planner, executor, env).run("Put Ada in as the name and go", trace=False)
    assert result.finished and [(name, args["text"]) for name, args in env.calls] == [("type", "Ada"), ("click", "")]
