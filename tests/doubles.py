"""Test doubles for the loop: a scripted planner, an executor and an environment that sleep known times;
and two small typed function tools (convert, add_todo) as a user would write them."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from agentpair.models import FillRequest, FillResult, FillStats, Plan
from agentpair.planner.grounding.layer import Grounding
from agentpair.planner.request import PlanReply, PlanRequest
from agentpair.tools.base import Observation, Tool, ToolResult
from agentpair.tools.functions import tool


class ScriptedPlanner:
    """Returns the given plans in order, sleeping `delay_s` per call; records every request."""

    name = "scripted-planner"
    grounding = Grounding(None)  # tests that need the loop's forced steps and refusals set their own

    def __init__(self, plans: list[Plan | dict[str, Any]], delay_s: float = 0.0, api_key: str = "") -> None:
        self.plans = [p if isinstance(p, Plan) else Plan.model_validate(p) for p in plans]
        self.delay_s = delay_s
        self.requests: list[PlanRequest] = []
        self.api_key = api_key
        self.spent_s = 0.0

    def identity(self) -> dict[str, Any]:
        return {"kind": "scripted", "model": "scripted"}

    async def plan(self, request: PlanRequest) -> PlanReply:
        self.requests.append(request)
        started = time.perf_counter()
        await asyncio.sleep(self.delay_s)
        self.spent_s += time.perf_counter() - started
        plan = self.plans[min(len(self.requests), len(self.plans)) - 1]
        return PlanReply(plan=plan, model="scripted", input_tokens=10, output_tokens=5)


class ScriptedExecutor:
    """Answers each fill with the next scripted value, sleeping `delay_s` per batch."""

    name = "scripted-executor"

    def __init__(self, values: list[Any], delay_s: float = 0.0) -> None:
        self.values = list(values)
        self.delay_s = delay_s
        self.batches: list[list[FillRequest]] = []
        self.spent_s = 0.0

    def identity(self) -> dict[str, Any]:
        return {"kind": "scripted"}

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        self.batches.append(requests)
        started = time.perf_counter()
        await asyncio.sleep(self.delay_s)
        self.spent_s += time.perf_counter() - started
        return [FillResult(value=self.values.pop(0), stats=FillStats(forward_passes=2, tokens=4))
                for _ in requests]


class Args(BaseModel):
    ref: str
    text: str = ""


class SleepyEnvironment:
    """An environment whose observe and tool calls sleep known durations."""

    def __init__(self, observe_s: float = 0.0, tool_s: float = 0.0, changes_page: bool = True,
                 button: str = "Go", fields: tuple[str, ...] = ("Name",)) -> None:
        self.observe_s = observe_s
        self.tool_s = tool_s
        self.changes_page = changes_page
        self.button = button
        self.fields = fields
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.observations = 0
        self.spent_s = 0.0

    async def observe(self) -> Observation:
        self.observations += 1
        started = time.perf_counter()
        await asyncio.sleep(self.observe_s)
        self.spent_s += time.perf_counter() - started
        refs = [f"e{k}" for k in range(1, len(self.fields) + 2)]
        boxes = "".join(f'\n- textbox "{field}" [ref={ref}]' for field, ref in zip(self.fields, refs[1:]))
        return Observation(url="http://127.0.0.1/page", title=f"Page {self.observations}",
                           snapshot=f'- button "{self.button}" [ref=e1]{boxes}', refs=refs)

    def tools(self) -> list[Tool]:
        async def run(name: str, args: Args) -> ToolResult:
            started = time.perf_counter()
            self.calls.append((name, args.model_dump()))
            await asyncio.sleep(self.tool_s)
            self.spent_s += time.perf_counter() - started
            return ToolResult(tool=name, ok=True, elapsed_ms=(time.perf_counter() - started) * 1e3,
                              changed_page=self.changes_page)

        def make(name: str) -> Tool:
            async def call(args: BaseModel) -> ToolResult:
                return await run(name, args)  # type: ignore[arg-type]

            return Tool(name=name, description=f"{name} an element", args_model=Args, run=call)

        return [make("click"), make("type")]


MILES_IN = {"km": 1 / 1.609344, "mi": 1.0}


@tool
def convert(value: float, from_unit: Literal["km", "mi"], to_unit: Literal["km", "mi"]) -> dict:
    """Convert a distance from one unit to another.

    Args:
        value: the distance
        from_unit: the unit the distance is in
        to_unit: the unit wanted
    """
    return {"value": round(value * MILES_IN[from_unit] / MILES_IN[to_unit], 2)}


@tool
def add_todo(title: str, priority: Literal["low", "normal", "high"] = "normal",
             estimate_hours: Annotated[int, Field(ge=1, le=40)] = 1) -> dict:
    """Add a to-do to the list.

    Args:
        title: what is to be done
        estimate_hours: the hours it takes
    """
    return {"id": 1, "title": title, "priority": priority, "estimate_hours": estimate_hours}
