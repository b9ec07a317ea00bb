"""Tools from typed functions (@tool): the argument model from the signature, the call and its
result, failures as results; and FunctionTools, the environment that shows its tools' results."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, Field

from agentpair import FunctionTools, ToolResult, tool
from agentpair.tools.functions import SHOWN_RESULTS


class Contact(BaseModel):
    name: str
    email: Optional[str] = None


@tool
def file_ticket(customer_id: Annotated[int, Field(ge=1)], subject: Annotated[str, Field(min_length=1)],
                priority: Literal["low", "normal", "high"] = "normal", contact: Optional[Contact] = None) -> dict:
    """File a support ticket.

    Args:
        customer_id: the customer's number
        subject: one line saying what is wrong
    """
    return {"customer_id": customer_id, "subject": subject, "priority": priority, "contact": contact}


@tool(name="add")
async def add_numbers(a: float, b: float) -> float:
    return a + b


def test_the_argument_model_comes_from_the_signature_and_the_docstring() -> None:
    schema = file_ticket.args_schema()
    assert file_ticket.name == "file_ticket" and file_ticket.description == "File a support ticket."
    assert schema["required"] == ["customer_id", "subject"]
    ident = schema["properties"]["customer_id"]
    assert ident["minimum"] == 1 and ident["description"] == "the customer's number" and ident["x-verbatim"]
    assert ident["x-labelled"]
    assert schema["properties"]["priority"]["enum"] == ["low", "normal", "high"]
    assert "x-verbatim" not in schema["properties"]["priority"]  # a choice, not a value the step names
    assert add_numbers.name == "add" and add_numbers.description == "add"


def test_a_planner_is_told_each_argument_whole() -> None:
    from agentpair.planner.tool_view import told_args

    assert told_args(file_ticket.args_schema()) == (
        "customer_id (integer, at least 1): the customer's number; subject (string, not empty): one line saying "
        'what is wrong; priority (one of "low", "normal", "high", default "normal"); contact (object Contact, optional)')


def test_a_call_validates_its_arguments_and_returns_the_functions_value() -> None:
    result = asyncio.run(file_ticket({"customer_id": 7, "subject": "Router", "contact": {"name": "Ada"}}))
    assert result.ok and result.output["priority"] == "normal" and result.output["contact"] == Contact(name="Ada")
    assert asyncio.run(add_numbers({"a": 1.5, "b": 2})).output == 3.5
    refused = asyncio.run(file_ticket({"customer_id": 0, "subject": "Router"}))
    assert not refused.ok and "greater than or equal to 1" in refused.error


def test_an_exception_becomes_a_failed_result_that_names_it() -> None:
    @tool
    def broken(path: str) -> str:
        """Read a file."""
        raise FileNotFoundError(path)

    result = asyncio.run(broken({"path": "/nowhere"}))
    assert not result.ok and "broken failed: FileNotFoundError: /nowhere" == result.error


def test_a_function_taking_one_model_gets_it_whole() -> None:
    @tool
    def save(contact: Contact) -> ToolResult:
        """Save a contact."""
        return ToolResult(tool="save", ok=True, output=contact.email)

    assert save.args_model is Contact
    assert asyncio.run(save({"name": "Ada", "email": "ada@example.org"})).output == "ada@example.org"


def test_the_environment_shows_the_latest_results_with_their_arguments() -> None:
    env = FunctionTools([add_numbers, file_ticket, divide])
    assert [t.name for t in env.tools()] == ["add", "file_ticket", "divide"]
    first = asyncio.run(env.observe())
    assert first.kind == "results" and first.snapshot == "no tool has run yet"
    asyncio.run(env.tools()[0]({"a": 2, "b": 3}))
    asyncio.run(env.tools()[1]({"customer_id": 0, "subject": "x"}))  # refused before it ran: the agent's history says so
    asyncio.run(env.tools()[0]({"a": 2, "b": "x"}))
    asyncio.run(env.tools()[1]({"customer_id": 4, "subject": "Router"}))
    asyncio.run(env.tools()[2]({"a": 1, "b": 0}))
    shown = asyncio.run(env.observe()).snapshot.splitlines()
    assert shown == ["result of add(a=2.0, b=3.0): 5.0",
                     'result of file_ticket(customer_id=4, subject="Router", priority="normal", contact=null): '
                     '{"customer_id": 4, "subject": "Router", "priority": "normal", "contact": null}',
                     "result of divide(a=1.0, b=0.0): FAILED divide failed: ZeroDivisionError: float division by zero"]
    for n in range(SHOWN_RESULTS):
        asyncio.run(env.tools()[0]({"a": n, "b": 0}))
    assert asyncio.run(env.observe()).snapshot.splitlines()[0] == "result of add(a=0.0, b=0.0): 0.0"  # the latest only


@tool
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def test_the_executor_is_offered_the_values_a_step_names_for_each_argument() -> None:
    from agentpair.agent.step_work import allowed_values
    from agentpair.tools.base import Observation

    offers = allowed_values(Observation(), file_ticket.args_schema(),
                            "file a ticket for customer 1042 with the subject Router keeps rebooting")
    assert offers["/customer_id"] == [1042]
    assert "Router keeps rebooting" in offers["/subject"] and "the subject Router keeps rebooting" not in offers["/subject"]
    assert "/priority" not in offers  # a choice the executor makes among the Literal's values


async def test_tools_given_to_the_agent_sit_beside_the_environments_and_run_in_the_loop(tmp_path) -> None:
    from agentpair import Agent
    from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment

    plans = [{"thought": "t", "steps": [{"kind": "act", "tool": "add", "instruction": "add 2 and 3"}]},
             {"thought": "t", "steps": [{"kind": "finish", "instruction": "done", "answer": "5"}]}]
    planner = ScriptedPlanner(plans)
    agent = Agent(planner=planner, executor=ScriptedExecutor([{"a": 2, "b": 3}]), browser=SleepyEnvironment(),
                  tools=[add_numbers], trace_dir=tmp_path)
    result = await agent.run("Add 2 and 3.", max_steps=4)
    assert result.finished and result.steps[0].tool_args == {"a": 2, "b": 3} and result.steps[0].output == 5.0
    offered = [t.name for t in planner.requests[0].tools]
    assert "add" in offered and len(offered) > 1  # the environment's own tools too
