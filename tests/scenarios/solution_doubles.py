"""A planner and an executor that follow a scenario's scripted solution through the real loop.

The planner hands out one solution step per call (refs described as (role, name)); the executor
grounds each description into a ref of the snapshot in its context, as a real executor would.
"""

from __future__ import annotations

import json
from typing import Any

from agentpair.models import FillRequest, FillResult, Plan
from agentpair.planner.grounding.layer import Grounding
from agentpair.planner.request import PlanReply, PlanRequest
from agentpair.tools.snapshot import find_ref


class SolutionPlanner:
    name = "solution-planner"
    grounding = Grounding(None)

    def __init__(self, steps: list[tuple[str, dict[str, Any]]], answer: Any = None) -> None:
        self.steps = steps
        self.answer = answer
        self.calls = 0

    def identity(self) -> dict[str, Any]:
        return {"kind": "scripted", "model": "solution"}

    async def plan(self, request: PlanRequest) -> PlanReply:
        self.calls += 1
        if self.calls > len(self.steps):
            step = {"kind": "finish", "answer": self.answer if self.answer is not None else "done"}
        else:
            tool, args = self.steps[self.calls - 1]
            step = {"kind": "act", "tool": tool, "instruction": json.dumps(args)}
        return PlanReply(plan=Plan.model_validate({"steps": [step]}), model="solution")


class SolutionExecutor:
    name = "solution-executor"

    def identity(self) -> dict[str, Any]:
        return {"kind": "scripted"}

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return [self._fill(r) for r in requests]

    def _fill(self, request: FillRequest) -> FillResult:
        snapshot = request.context.split("Snapshot:\n", 1)[-1]
        args = json.loads(request.instruction)
        try:
            value = {k: find_ref(snapshot, *v) if isinstance(v, list) else v for k, v in args.items()}
        except (LookupError, ValueError) as exc:
            return FillResult(error=f"no such element: {exc}")
        if "ref" in value and request.allowed.get("/ref") and value["ref"] not in request.allowed["/ref"]:
            return FillResult(error=f"ref {value['ref']} is not in the observation")
        return FillResult(value=value)
