"""Single-model mode: the planner model itself writes each tool call, arguments included, one call
per iteration, and no executor runs. It is the usual agent of today, the one `agentpair bench loop`
measures the pairing against (`Agent(single_model=True)`, `agentpair run --single-model`).

This module owns what differs from the paired planner: the request (the page with its element
refs, which the model must name itself, and each tool with its arguments), the system prompt, and
the plan schema (one step: an act whose `args` follow the tool's argument schema, refs limited to
those on the page the model saw that the tool can act on, or a finish). There is no extract or
code step: the model reads values off the page itself and puts them in its finish answer, and
types any text it composes. Under a grounding planner (the embedded one) the step is one of the
grounded steps the paired planner would be offered (grounding.schema.grounded_steps, reads=False),
so both modes keep the same rails and differ only in who writes the arguments.
"""

from __future__ import annotations

from typing import Any

from agentpair.models import StepRecord, Task
from agentpair.planner.grounding.schema import grounded_steps
from agentpair.planner.request import PlanRequest, ToolInfo, finish_shape, plan_object, plan_request, step_shape
from agentpair.planner.page_view import PageNames
from agentpair.tracing.redaction import Redactor
from agentpair.tools.base import Observation, Tool
from agentpair.tools.snapshot import refs_fitting, refs_in

SYSTEM_PROMPT = """Plan a web agent's next step on the page shown, as JSON. Step kinds:
act: "tool" from Tools; "instruction" names the element and value, e.g. "type Paris into the City field"; \
"args" are the tool's arguments, elements named by their ref on the page (e.g. {"ref": "e7"}).
finish: "answer" is the final answer, read off the page.
Plan one step; you see the next page after. Repair FAILED steps. Secrets stay {{secret:NAME}}."""

# Kept from a tool's argument schema: what constrains a value (titles, descriptions and defaults
# only lengthen the grammar; nested references cannot be resolved outside their document).
KEPT_KEYWORDS = ("type", "enum", "const", "minimum", "maximum")
TEXT_MAX_CHARS = 400
PAGE_CHARS = 1500  # of the snapshot, refs included (as much as the paired planner was first given)


def single_model_request(task: Task, observation: Observation, memory: list[Any], history: list[StepRecord],
                         tools: list[Tool], unchanged: list[str] | None = None) -> PlanRequest:
    """The paired planner's request (plan_request), but with the page's refs kept and each tool's arguments."""
    infos = [ToolInfo(name=t.name, description=f"{t.description} Args: {signature(t.args_schema())}",
                      args_schema=t.args_schema()) for t in tools]
    request = plan_request(task, observation, memory, history, infos, unchanged)
    snapshot = Redactor(task.secrets).text(observation.snapshot[:PAGE_CHARS])
    return request.model_copy(update={"single_model": True, "snapshot": snapshot, "refs": refs_in(snapshot)})


def signature(schema: dict[str, Any]) -> str:
    """A tool's arguments in one line: `ref, text, submit?` (? marks an optional one)."""
    required = set(schema.get("required", []))
    names = [name if name in required else f"{name}?" for name in schema.get("properties", {})]
    return ", ".join(names) or "none"


def args_schema(schema: dict[str, Any], refs: list[str], page: str) -> dict[str, Any]:
    """A tool's argument schema for the planner: closed, a `ref` one of the `refs` on `page` the
    tool can act on (or empty where it is optional), free text bounded."""
    required = list(schema.get("required", []))
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        kept = {k: v for k, v in prop.items() if k in KEPT_KEYWORDS}
        if name == "ref" and refs:
            fitting = refs_fitting(page, refs, prop.get("x-roles"))
            kept = {"enum": [*fitting, *([] if name in required else [""])]}
        elif kept.get("type") == "string" and "enum" not in kept:
            kept["maxLength"] = TEXT_MAX_CHARS
        properties[name] = kept
    return {"type": "object", "additionalProperties": False, "required": required, "properties": properties}


def plan_schema(request: PlanRequest, grounded: bool = False) -> dict[str, Any]:
    """Exactly one step: an act per tool (its name a constant, its args its schema) or a finish;
    `grounded`: one of the grounded steps, each act with its tool's args."""
    if grounded and request.tools and request.names != PageNames():
        return plan_object([_with_args(shape, request) for shape in grounded_steps(request, reads=False)[0]],
                           max_steps=1)
    acts = [_with_args(step_shape("act", {"tool": {"const": t.name}}, ["tool"]), request) for t in request.tools]
    return plan_object([*acts, finish_shape(request.output_schema)], max_steps=1)


def _with_args(shape: dict[str, Any], request: PlanRequest) -> dict[str, Any]:
    """An act shape with its tool's `args` (a finish as it is)."""
    tool = shape["properties"].get("tool", {}).get("const")
    info = next((t for t in request.tools if t.name == tool), None)
    if info is None:
        return shape
    args = args_schema(info.args_schema or {}, request.refs, request.snapshot)
    return {**shape, "required": [*shape["required"], "args"],
            "properties": {**shape["properties"], "args": args}}
