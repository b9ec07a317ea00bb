"""A page, a goal and the request the loop builds from them, shared by the grounded schema's tests."""

from __future__ import annotations

import jsonschema

from agentpair.datagen.plans import browser_tools
from agentpair.planner import PlanRequest
from agentpair.planner_view import compact_page, page_names

SNAPSHOT = """- generic [ref=e1]:
  - link "Home" [ref=e2] [cursor=pointer]:
    - /url: /
  - searchbox "Search (all shops)" [ref=e3]
  - textbox "Username" [ref=e4]
  - textbox "Comment" [ref=e5]
  - combobox "Delivery" [ref=e6]:
    - option "Standard (3-5 days)" [selected]
    - option "Express: 1 day"
  - checkbox "Accept terms" [ref=e7]
  - radio "L" [ref=e8]
  - button "Add Braided cable, 2 m to cart" [ref=e9]: Add to cart
  - button "Save for later" [ref=e10]
  - button "Home" [ref=e11]
  - link "#4821 Refund for order 5512" [ref=e12]
  - link "Cart (0)" [ref=e13]
  - button "Say \\"hi\\"" [ref=e14]"""
PICKED = SNAPSHOT.replace('"Standard (3-5 days)" [selected]', '"Standard (3-5 days)"').replace(
    '"Express: 1 day"', '"Express: 1 day" [selected]')  # the delivery the goal picks, picked
GOAL = ('Sign in as fima.nirita with {{secret:password}}, add the cable, search "maple planter", pick Express: 1 day '
        "and leave this comment: We have issued your refund. Mail <ada@x.org>.")


SEARCHED = ['[1] act type: type maple planter into the Search (all shops) box and press Enter -> ok']


def request(goal: str = GOAL, snapshot: str = SNAPSHOT, **more: object) -> PlanRequest:
    return PlanRequest(goal=goal, page=compact_page(snapshot), names=page_names(snapshot),
                       tools=browser_tools(), secret_names=["password"], **more)


def plan(*steps: dict[str, object]) -> dict[str, object]:
    return {"thought": "t", "steps": list(steps)}


DONE = plan({"kind": "finish", "instruction": "the goal is done", "answer": "done"})


def act(tool: str, instruction: str) -> dict[str, object]:
    return {"kind": "act", "instruction": instruction, "tool": tool}


def valid(schema: dict[str, object], candidate: dict[str, object]) -> bool:
    try:
        jsonschema.validate(candidate, schema)
    except jsonschema.ValidationError:
        return False
    return True
