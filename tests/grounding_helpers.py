"""A page, a goal and the request the loop builds from them, shared by the grounded schema's tests."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import jsonschema

from agentpair.planner.page_view import compact_page, page_names
from agentpair.planner.request import DoneStep, PlanRequest
from agentpair.training.datagen.plans import browser_tools

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
  - button "Add Woven cable, 2 m to cart" [ref=e9]: Add to cart
  - button "Save for later" [ref=e10]
  - button "Home" [ref=e11]
  - link "#7305 Refund for order 2291" [ref=e12]
  - link "Cart (0)" [ref=e13]
  - button "Say \\"hi\\"" [ref=e14]"""
PICKED = SNAPSHOT.replace('"Standard (3-5 days)" [selected]', '"Standard (3-5 days)"').replace(
    '"Express: 1 day"', '"Express: 1 day" [selected]')  # the delivery the goal picks, picked
GOAL = ('Sign in as fima.nirita with {{secret:password}}, add the cable, search "maple planter", pick Express: 1 day '
        "and leave this comment: Your parcel is on its way. Mail <ada@x.org>.")


SEARCHED = ['[1] act type: type maple planter into the Search (all shops) box and press Enter -> ok']


def request(goal: str = GOAL, snapshot: str = SNAPSHOT, history: Sequence[str] = (), non_submit: Sequence[str] = (),
            **more: Any) -> PlanRequest:
    """The loop's request for this page and goal; `history` describes the run so far in the notation
    the planner reads (history_line), and the request carries it as the records the rules read;
    `non_submit`: the refs of a form's buttons that do not send it, as the browser reports them."""
    return PlanRequest(goal=goal, page=compact_page(snapshot), names=page_names(snapshot, non_submit), tools=browser_tools(),
                       secret_names=["password"], history=list(history), steps=[ran(line) for line in history], **more)


RAN = re.compile(r'^\[(\d+)\] (act|extract|code|finish)(?: (\w+))?: (.+?)(?: (\{".*\}))? -> (?:ok|FAILED: (.*))$')


def ran(line: str) -> DoneStep:
    """One step of a run written as the planner reads it ('[2] act type: type Ada into the Name field
    {"ref": "e1"} -> ok'), as the record the loop keeps of it (the inverse of history_line)."""
    m = RAN.match(line)
    assert m, f"not a history line: {line}"
    return DoneStep(iteration=int(m[1]), kind=m[2], tool=m[3], instruction=m[4], args=json.loads(m[5]) if m[5] else None,
                    ok=m[6] is None, error=m[6])


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
