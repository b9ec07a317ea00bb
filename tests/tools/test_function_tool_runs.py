"""A run over FunctionTools (no page): what the planner's request and the executor's context hold
after a tool call, the tools' own system prompt, and each tool told whole to a describing planner."""

from __future__ import annotations

from pydantic import BaseModel

from agentpair import Agent, FunctionTools, ToolResult
from agentpair.planner.client import plan_messages
from agentpair.planner.request import SYSTEM_PROMPT, TOOLS_SYSTEM_PROMPT, PlanRequest, ToolInfo, render_user_message
from agentpair.planner.tool_view import told_args
from tests.doubles import ScriptedExecutor, ScriptedPlanner, add_todo, convert

CONVERTED = 'result of convert(value=12.5, from_unit="km", to_unit="mi"): {"value": 7.77}'
PLANS = [{"steps": [{"kind": "act", "tool": "convert", "instruction": "convert 12.5 from km to mi"}]},
         {"steps": [{"kind": "act", "tool": "add_todo", "instruction": "add the to-do Run 7.77 miles"}]},
         {"steps": [{"kind": "finish", "answer": "7.77"}]}]


async def test_a_tools_result_is_what_the_planner_and_the_executor_read_next() -> None:
    planner = ScriptedPlanner(PLANS)
    executor = ScriptedExecutor([{"value": 12.5, "from_unit": "km", "to_unit": "mi"}, {"title": "Run 7.77 miles"}])
    agent = Agent(planner, executor, FunctionTools([convert, add_todo]))
    result = await agent.run("How far is 12.5 km in miles? Add a to-do to run it.", trace=False)
    assert result.finished and result.answer == "7.77"
    first, second, third = planner.requests
    assert first.no_page and first.page == "no tool has run yet"
    assert second.page == CONVERTED and render_user_message(second).endswith("Results:\n" + CONVERTED)
    assert third.page.splitlines() == [CONVERTED, 'result of add_todo(title="Run 7.77 miles", priority="normal", '
                                       'estimate_hours=1): {"id": 1, "title": "Run 7.77 miles", "priority": '
                                       '"normal", "estimate_hours": 1}']
    context = executor.batches[1][0].context  # the add_todo step's fill, after the conversion
    assert context.endswith("Results:\n" + CONVERTED) and "URL:" not in context and "Snapshot:" not in context
    system, user = plan_messages(second, describe_tools=True)
    assert system["content"] == TOOLS_SYSTEM_PROMPT and "page" not in system["content"]
    assert "Page:" not in user["content"]


async def test_a_failed_call_reads_as_failed_in_the_results() -> None:
    planner = ScriptedPlanner([{"steps": [{"kind": "act", "tool": "convert", "instruction": "convert 1 km"}]},
                               {"steps": [{"kind": "finish", "answer": "no"}]}])
    broken = convert.model_copy(update={"run": _raises})
    agent = Agent(planner, ScriptedExecutor([{"value": 1, "from_unit": "km", "to_unit": "mi"}]), FunctionTools([broken]))
    await agent.run("convert 1 km", trace=False)
    assert planner.requests[1].page == ('result of convert(value=1.0, from_unit="km", to_unit="mi"): '
                                        "FAILED the converter is down")


async def _raises(args: BaseModel) -> ToolResult:
    return ToolResult(tool="convert", ok=False, error="the converter is down")


def test_a_page_run_keeps_the_web_prompt() -> None:
    assert plan_messages(PlanRequest(goal="g"))[0]["content"] == SYSTEM_PROMPT


def test_each_tool_is_told_whole_to_a_planner_that_describes_tools() -> None:
    assert told_args(add_todo.args_schema()) == (
        'title (string): what is to be done; priority (one of "low", "normal", "high", default "normal"); '
        "estimate_hours (integer, at least 1, at most 40, default 1): the hours it takes")
    tools = [ToolInfo(name=t.name, description=t.description, args=told_args(t.args_schema())) for t in (convert, add_todo)]
    request = PlanRequest(goal="g", tools=tools, no_page=True)
    described = render_user_message(request, describe_tools=True)
    assert ('- convert: Convert a distance from one unit to another. Args: value (number): the distance; '
            'from_unit (one of "km", "mi"): the unit the distance is in; to_unit (one of "km", "mi"): the unit wanted'
            ) in described.splitlines()
    assert "Tools: convert, add_todo" in render_user_message(request)  # names only, as the embedded planner was trained

