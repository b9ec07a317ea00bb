"""Single-model mode under a grounding planner: the paired planner's grounded steps, each act with
the tool's args written by the model (refs from the page it saw), and the same finish rules."""

from __future__ import annotations

import jsonschema
import pytest

from agentpair.models import Task
from agentpair.planner.request import render_user_message
from agentpair.planner.single_model import plan_schema, single_model_request
from agentpair.tools.base import Observation
from agentpair.tools.browser import Browser

LOGIN = """- heading "Sign in" [level=1] [ref=e1]
- textbox "Username" [ref=e2]
- textbox "Password" [ref=e3]
- button "Sign in" [ref=e4]
- link "Forgot password?" [ref=e5] [cursor=pointer]:
  - /url: /forgot"""
GOAL = "Sign in as ada.lovelace with {{secret:password}}."


def schema_for(goal: str = GOAL, snapshot: str = LOGIN, unchanged: list[str] | None = None,
               **task: object) -> dict[str, object]:
    observation = Observation(url="http://x.test/login", title="Sign in", snapshot=snapshot,
                              refs=[f"e{i}" for i in range(1, 6)])
    request = single_model_request(Task(goal=goal, secrets={"password": "pw"}, **task), observation, [], [],
                                   Browser().tools(), unchanged)
    return plan_schema(request, grounded=True)


def valid(schema: dict[str, object], *steps: dict[str, object]) -> bool:
    try:
        jsonschema.validate({"thought": "t", "steps": list(steps)}, schema)
    except jsonschema.ValidationError:
        return False
    return True


def act(tool: str, instruction: str, **args: object) -> dict[str, object]:
    return {"kind": "act", "tool": tool, "instruction": instruction, "args": args}


def test_an_act_is_a_grounded_step_with_args_the_model_writes() -> None:
    schema = schema_for()
    assert valid(schema, act("type", "type ada.lovelace into the Username field", ref="e2", text="ada.lovelace"))
    assert valid(schema, act("type", "type ada.lovelace into the Username field", ref="e3", text="ada"))  # its own args
    assert not valid(schema, act("type", "type ada.lovelace into the Username field", ref="e4", text="a"))  # a button
    assert not valid(schema, act("type", "type ada into the Username field", ref="e2", text="ada"))  # not the goal's
    assert not valid(schema, act("type", "type ada.lovelace into the Username field", text="ada.lovelace"))  # no ref
    assert not valid(schema, {"kind": "act", "tool": "click", "instruction": "click the Sign in button"})  # no args
    assert not valid(schema, act("click", "click the Sign in button", ref="e4"),
                     act("click", "click the Sign in button", ref="e4"))  # one step per call


def test_a_step_that_left_this_page_as_it_was_is_not_offered_again() -> None:
    forgot = act("click", "click the Forgot password? link", ref="e5")
    assert valid(schema_for(), forgot)
    assert not valid(schema_for(unchanged=["click the Forgot password? link"]), forgot)


@pytest.mark.parametrize("kind", ["extract", "code"])
def test_no_extract_or_code_step(kind: str) -> None:
    schema = schema_for()
    shapes = schema["properties"]["steps"]["items"]["anyOf"]  # type: ignore[index]
    assert all(s["properties"]["kind"]["const"] != kind for s in shapes)


def test_no_finish_while_the_goal_asks_for_more_and_the_page_it_asks_about_is_answered_from() -> None:
    finish = {"kind": "finish", "instruction": "done", "answer": "sent"}
    ticket = """- textbox "Reply" [ref=e1]
- button "Send reply" [ref=e2]"""
    reply = "Send the customer this reply: We have issued your refund."
    assert not valid(schema_for(reply, ticket), finish)  # the reply is not typed yet
    assert valid(schema_for(reply, '- heading "Reply sent" [ref=e1]'), finish)
    product = """- heading "Tern 40 Pro" [level=1] [ref=e1]
- text: Price $1,499, 32 GB RAM
- link "Laptops" [ref=e2] [cursor=pointer]:
  - /url: /laptops"""
    answer = {"type": "object", "required": ["price_usd"], "properties": {"price_usd": {"type": "number"}}}
    read = schema_for("What does the Tern 40 Pro cost?", product, output_schema=answer)
    assert valid(read, {"kind": "finish", "instruction": "read it off the page", "answer": {"price_usd": 1499}})
    assert len(read["properties"]["steps"]["items"]["anyOf"]) == 1  # type: ignore[index]


def test_the_model_sees_the_page_with_its_refs_and_the_grounding_reads_the_short_view() -> None:
    observation = Observation(url="http://x.test/login", title="Sign in", snapshot=LOGIN, refs=["e1"])
    request = single_model_request(Task(goal=GOAL), observation, [], [], Browser().tools())
    assert '[ref=e2]' in render_user_message(request) and "[ref=" not in request.page
    assert request.refs == ["e1", "e2", "e3", "e4", "e5"]
