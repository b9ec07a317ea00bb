"""What one plan step asks for: the executor's fill requests, and the tool call the step comes to
(from the executor's fills, or from the arguments the planner wrote itself in single-model mode)."""

from __future__ import annotations

from typing import Any

from agentpair.models import FillRequest, FillResult, Step
from tools.base import Observation, Toolbox
from tools.snapshot import refs_fitting

TARGET_SCHEMA = {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}


def fill_requests(step: Step, context: str, observation: Observation, toolbox: Toolbox) -> list[FillRequest]:
    """The executor's work for one step: none when the planner wrote the args or the tool is
    unknown, two for a targeted code step (the text, then the element to type it into)."""
    if step.kind == "act":
        tool = toolbox.get(step.tool or "")
        if tool is None or step.args is not None:
            return []
        schema = tool.args_schema()
        return [FillRequest(kind="tool_args", instruction=step.instruction, context=context,
                            schema=schema, allowed=allowed_refs(observation, schema))]
    if step.kind == "extract":
        return [FillRequest(kind="extract", instruction=step.instruction, context=context,
                            schema=step.schema_)]
    requests = [FillRequest(kind="code", instruction=step.instruction, context=context,
                            template=step.template)]
    if step.target:
        typing = toolbox.get("type")  # the code is typed in: its element is one `type` can act on
        allowed = allowed_refs(observation, typing.args_schema() if typing else TARGET_SCHEMA)
        requests.append(FillRequest(kind="tool_args", instruction=f"the element: {step.target}",
                                    context=context, schema=TARGET_SCHEMA, allowed=allowed))
    return requests


def allowed_refs(observation: Observation, tool_schema: dict[str, Any]) -> dict[str, list[str]]:
    """The refs a tool's `ref` may name on this page: those of the roles it declares (`x-roles`),
    else all, and "" first where the ref is optional (`read` the whole page, `wait_for` a text);
    none when it takes no ref or the page has none."""
    ref = tool_schema.get("properties", {}).get("ref")
    if ref is None or not observation.refs:
        return {}
    optional = [] if "ref" in tool_schema.get("required", []) else [""]
    return {"/ref": optional + refs_fitting(observation.snapshot, observation.refs, ref.get("x-roles"))}


def tool_call(step: Step, fills: list[FillResult]) -> tuple[str, dict[str, Any]]:
    """The tool name and arguments of an act step or a targeted code step, once filled."""
    if step.kind == "code":
        return "type", {"ref": fills[1].value["ref"], "text": fills[0].value}
    return step.tool or "", step.args if step.args is not None else fills[0].value
