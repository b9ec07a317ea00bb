"""examples/ticket_desk.py end to end with the shipped diffusion executor: the plans are the ones a
planner that knows function tools writes (the embedded planner was trained on browser pages only);
the executor fills each typed function's arguments (a bounded integer, a min-length string, a Literal,
an optional nested model) from the step's words, and the tools call a real local HTTP API."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from agentpair import Agent
from agentpair.executor.local import LocalDiffusionExecutor
from tests.doubles import ScriptedPlanner

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ticket_desk.py"


def load_example():
    spec = importlib.util.spec_from_file_location("ticket_desk", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ticket_desk"] = module  # pydantic resolves the example's annotations through it
    spec.loader.exec_module(module)
    return module


def act(tool: str, instruction: str) -> dict:
    return {"thought": "t", "steps": [{"kind": "act", "tool": tool, "instruction": instruction}]}


async def test_the_ticket_desk_example_files_the_ticket_with_the_arguments_the_steps_name(tmp_path) -> None:
    desk = load_example()
    server = desk.serve()
    plans = [act("find_customer", "find the customer with the e-mail address ines@oar.example"),
             act("file_ticket", "file a high priority ticket for customer 1042 with the subject Router keeps rebooting"),
             {"thought": "t", "steps": [{"kind": "finish", "instruction": "done", "answer": "filed"}]}]
    planner = ScriptedPlanner(plans)
    try:
        async with Agent(planner=planner, executor=LocalDiffusionExecutor(),
                         browser=desk.desk_tools(f"http://127.0.0.1:{server.server_port}"), trace_dir=tmp_path) as agent:
            result = await agent.run(desk.GOAL, max_steps=6)
    finally:
        server.shutdown()
    assert result.finished and [s.ok for s in result.steps] == [True, True, True]
    assert result.steps[0].tool_args == {"email": "ines@oar.example"}
    # the customer's number the second step names is what the first call returned, which the planner read
    assert planner.requests[1].page.startswith('result of find_customer(email="ines@oar.example"): [{"id": 1042,')
    assert desk.Desk.tickets == [{"customer_id": 1042, "subject": "Router keeps rebooting", "priority": "high",
                                  "contact": None}]
