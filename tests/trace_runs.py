"""Traces for the trace and replay tests: a loop run with timed doubles, and a synthetic trace
whose durations (and overlaps) are known exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentpair import Agent, RunResult
from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment

GOAL = "log in and read the page title"
SECRETS = {"pw": "hunter2-Sesame"}
PLANS = [
    {"thought": "log in", "steps": [{"kind": "act", "tool": "click", "instruction": "click Go"},
                                    {"kind": "act", "tool": "type", "instruction": "type the password into Name"}]},
    {"steps": [{"kind": "extract", "instruction": "the page title",
                "schema": {"type": "object", "properties": {"title": {"type": "string"}}}}]},
    {"steps": [{"kind": "finish", "instruction": "report the title"}]},
]
FILLS = [{"ref": "e1"}, {"ref": "e2", "text": "{{secret:pw}}"}, {"ref": "e2", "text": "{{secret:pw}}"},
         {"title": "Page 3"}]


def doubles(planner_s: float = 0.0, executor_s: float = 0.0, tool_s: float = 0.0, observe_s: float = 0.0,
            button: str = "Go") -> tuple[ScriptedPlanner, ScriptedExecutor, SleepyEnvironment]:
    return (ScriptedPlanner(PLANS, delay_s=planner_s), ScriptedExecutor(list(FILLS), delay_s=executor_s),
            SleepyEnvironment(observe_s=observe_s, tool_s=tool_s, button=button))


async def record_run(path: Path, **delays: float) -> RunResult:
    """Run the loop with the doubles (sleeping `delays`) and trace it to `path`."""
    planner, executor, env = doubles(**delays)
    agent = Agent(planner, executor, env, trace_dir=path.parent)
    return await agent.run(GOAL, secrets=SECRETS, trace=path)


MS = 1_000_000
T0 = 1_700_000_000_000_000_000


def span(name: str, span_id: str, start_ms: int, end_ms: int, parent: str | None = None,
         category: str | None = None, **attributes: Any) -> dict[str, Any]:
    attrs = {"agentpair.category": category, **attributes} if category else attributes
    return {"type": "span", "name": name, "trace_id": "0" * 32, "span_id": span_id, "parent_id": parent,
            "kind": "CLIENT" if name.startswith("chat") else "INTERNAL", "start_ns": T0 + start_ms * MS,
            "end_ns": T0 + end_ms * MS, "status": "UNSET", "status_message": None, "attributes": attrs,
            "events": []}


def synthetic_spans() -> list[dict[str, Any]]:
    """Start-up 0.5 s, then a 3 s run: planner 1.5 s, executor 0.2 s, tools 0.5 s, framework 0.8 s.

    Overlaps: `type` starts 0.1 s into `click`; a second planner call runs across the fill, both
    tools and an observe, so only its last 0.1 s is planner time.
    """
    plan = json.dumps({"thought": "", "steps": [{"kind": "act", "tool": "click", "instruction": "click Go"}]})
    return [
        span("startup", "a0", 0, 500, category="startup"),
        span("observe", "b1", 500, 600, "r0", "tools"),
        span("chat m", "c1", 600, 1100, "i1", "planner", **{"gen_ai.usage.input_tokens": 100,
                                                           "gen_ai.usage.output_tokens": 20, "agentpair.plan": plan}),
        span("chat m", "c2", 1200, 1800, "i1", "planner", **{"gen_ai.usage.input_tokens": 50,
                                                            "gen_ai.usage.output_tokens": 10}),
        span("fill x", "f1", 1100, 1300, "i1", "executor", **{"agentpair.executor": "x",
                                                             "agentpair.forward_passes": 8, "agentpair.tokens": 32}),
        span("execute_tool click", "t1", 1300, 1500, "i1", "tools", **{"gen_ai.tool.name": "click"}),
        span("execute_tool type", "t2", 1400, 1600, "i1", "tools", **{"gen_ai.tool.name": "type"}),
        span("observe", "b2", 1600, 1700, "i1", "tools"),
        span("iteration 1", "i1", 600, 2000, "r0", **{"agentpair.iteration": 1}),
        span("chat m", "c3", 2000, 2900, "i2", "planner", **{"gen_ai.usage.input_tokens": 120,
                                                            "gen_ai.usage.output_tokens": 30}),
        span("iteration 2", "i2", 2000, 3400, "r0", **{"agentpair.iteration": 2}),
        span("invoke_agent agentpair", "r0", 500, 3500, **{"agentpair.finished": True,
                                                          "agentpair.stop_reason": "finished"}),
    ]


def header(version: int = 1) -> dict[str, Any]:
    return {"type": "header", "format": "agentpair-trace", "version": version, "agentpair_version": "0.1.0",
            "agent": "agentpair", "planner": {"kind": "scripted", "model": "m"}, "executor": {"kind": "x"},
            "environment": "SleepyEnvironment", "task": {"goal": "synthetic", "secrets": {}}, "startup_s": 0.5}


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def edit_span(path: Path, name: str, index: int, edit: Any) -> None:
    """Rewrite the `index`-th span called `name` (in file order) with `edit(span) -> span`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    hits = [i for i, line in enumerate(lines) if json.loads(line).get("name") == name]
    record = json.loads(lines[hits[index]])
    lines[hits[index]] = json.dumps(edit(record))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
