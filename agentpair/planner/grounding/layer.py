"""The constraint layer behind a planner: `Grounding` answers what the page and the goal allow a plan
(its schema, the steps taken without asking the planner, the steps refused before they run). The
loop asks it and never which planner it has. Its modes:

- "structural": the plan names only elements the page has and types only values the goal, the page,
  an extraction or a secret gives (a secret only into the field named after it), never a step that
  left this page as it was; nothing is taken or refused for the planner;
- "heuristic": that, and the rules read from the goal's typed values and the page's structure that
  schema.py and forced.py list (the embedded planner's default);
- None: the plain plan schema, nothing narrowed, taken or refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from agentpair.models import Step
from agentpair.planner.grounding.forced import forced_steps
from agentpair.planner.grounding.form_left import refused_click, typed_field
from agentpair.planner.grounding.schema import grounded_plan_schema
from agentpair.planner.request import PlanRequest, plan_schema

GroundingMode = Literal["structural", "heuristic"]
MODES: tuple[GroundingMode | None, ...] = ("structural", "heuristic", None)


class Grounding:
    """What a page and a goal allow a plan, in one of MODES."""

    def __init__(self, mode: GroundingMode | None = "heuristic") -> None:
        if mode not in MODES:
            raise ValueError(f"grounding must be one of structural, heuristic or None, not {mode!r}")
        self.mode = mode

    def __repr__(self) -> str:
        return f"Grounding({self.mode!r})"

    def schema(self, request: PlanRequest) -> dict[str, Any]:
        """The JSON schema a plan for this request answers under."""
        if self.mode is None:
            return plan_schema([t.name for t in request.tools], request.output_schema)
        return grounded_plan_schema(request, heuristic=self.mode == "heuristic")

    def forced(self, request: PlanRequest) -> list[Step]:
        """The steps the schema leaves no choice about, taken without asking the planner ([] if none)."""
        return forced_steps(request) if self.mode == "heuristic" else []

    def refusal(self, step: Step, request: Callable[[], PlanRequest]) -> tuple[str, bool] | None:
        """Why a click, go to or go back must not run now, and whether it is a button pressed before
        its form holds what the goal gives (else typing would be left unsent), or None; `request`
        builds the run's request as it stands."""
        if self.mode != "heuristic" or step.tool not in ("click", "goto", "go_back"):
            return None
        return refused_click(request(), step.instruction)

    def to_run(self, steps: list[Step]) -> list[Step]:
        """A plan's steps less those that type a second text into a field a step before types into:
        under a grounded schema a field takes the first text a plan gives it."""
        if self.mode is None:
            return steps
        fields = [typed_field(s.instruction) if s.tool == "type" else None for s in steps]
        return [s for i, s in enumerate(steps) if fields[i] is None or fields[i] not in fields[:i]]
