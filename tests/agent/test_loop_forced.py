"""The loop takes the steps the grounded schema leaves no choice about without asking the planner:
a form the goal fills whole, a refused submit's missing values, the refused click itself, and the finish
once the goal's closing click changed the page. One planner call for the whole task."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agentpair import Agent
from agentpair.tools.base import Observation, Tool, ToolResult
from agentpair.planner.grounding.layer import Grounding
from tests.doubles import Args, ScriptedExecutor, ScriptedPlanner

FORM = '- textbox "E-mail" [ref=e1]{value}\n- button "Submit hire" [ref=e2]\n- link "Prices" [ref=e3]{more}'
PHONE = '\n- textbox "Phone" [ref=e5]'  # a field the goal says nothing of: the form is not the goal's to fill whole
RECEIPT = '- heading "Your canoe is booked" [level=1] [ref=e4]\n- link "Prices" [ref=e3]'


class HireForm:
    """A form with one field and a submit button; submitting it shows a receipt."""

    def __init__(self, more: str = "") -> None:
        self.more = more
        self.skipper = ""
        self.submitted = False
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def observe(self) -> Observation:
        snapshot = RECEIPT if self.submitted else FORM.format(value=f": {self.skipper}" if self.skipper else "", more=self.more)
        return Observation(url="http://127.0.0.1/hire", title="Hire", snapshot=snapshot, refs=["e1", "e2", "e3", "e4", "e5"])

    def tools(self) -> list[Tool]:
        def make(name: str) -> Tool:
            async def call(args: BaseModel) -> ToolResult:
                given = args.model_dump()
                self.calls.append((name, given))
                if name == "type":
                    self.skipper = given["text"]
                elif given["ref"] == "e2":
                    self.submitted = True
                return ToolResult(tool=name, ok=True, changed_page=True)

            return Tool(name=name, description=f"{name} an element", args_model=Args, run=call)

        return [make("click"), make("type")]


async def test_a_refused_submit_is_filled_retried_and_closed_with_one_planner_call() -> None:
    planner = ScriptedPlanner([{"steps": [{"kind": "act", "tool": "click", "instruction": "click the Submit hire button"}]}])
    planner.grounding = Grounding("heuristic")  # the refusal and the forced steps are the grounded schema's
    executor = ScriptedExecutor([{"ref": "e2"}, {"ref": "e1", "text": "ofelia@tern.example"}, {"ref": "e2"}])
    form = HireForm(more=PHONE)
    result = await Agent(planner, executor, form).run("Hire a canoe for ofelia@tern.example, then submit the hire.",
                                                      trace=False)
    assert result.finished and form.submitted
    assert [name for name, _ in form.calls] == ["type", "click"]  # the early submit never ran
    assert len(planner.requests) == 1  # the fill, the retried click and the finish: no planner call
    assert [s.step.instruction for s in result.steps] == [
        "click the Submit hire button", "type ofelia@tern.example into the E-mail field", "click the Submit hire button",
        "the goal is done"]


async def test_a_form_the_goal_fills_whole_is_filled_and_sent_without_the_planner() -> None:
    planner = ScriptedPlanner([])
    planner.grounding = Grounding("heuristic")
    executor = ScriptedExecutor([{"ref": "e1", "text": "ofelia@tern.example"}, {"ref": "e2"}])
    form = HireForm()
    result = await Agent(planner, executor, form).run("Hire a canoe for ofelia@tern.example, then submit the hire.",
                                                      trace=False)
    assert result.finished and form.submitted and form.skipper == "ofelia@tern.example"
    assert [name for name, _ in form.calls] == ["type", "click"]
    assert planner.requests == []  # the fill (form_left), the closing clause's button (sent), the finish (closed)
    assert [s.step.instruction for s in result.steps] == [
        "type ofelia@tern.example into the E-mail field", "click the Submit hire button", "the goal is done"]
