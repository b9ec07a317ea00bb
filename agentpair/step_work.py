"""What one plan step asks for: the executor's fill requests, and the tool call the step comes to
(from the executor's fills, or from the arguments the planner wrote itself in single-model mode)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentpair.models import FillRequest, FillResult, Step
from tools.base import Observation, Toolbox
from tools.snapshot import link_urls, refs_fitting

TARGET_SCHEMA = {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}


VERBATIM_WORDS = 12  # the longest run of an instruction's words a verbatim argument may be
QUOTES = "\"'\u201c\u201d\u2018\u2019"


def fill_requests(step: Step, context: str, observation: Observation, toolbox: Toolbox,
                  secret_names: Iterable[str] = ()) -> list[FillRequest]:
    """The executor's work for one step: none when the planner wrote the args or the tool is
    unknown, two for a targeted code step (the text, then the element to type it into)."""
    if step.kind == "act":
        tool = toolbox.get(step.tool or "")
        if tool is None or step.args is not None:
            return []
        schema = tool.args_schema()
        return [FillRequest(kind="tool_args", instruction=step.instruction, context=context, schema=schema,
                            allowed=allowed_values(observation, schema, step.instruction, secret_names))]
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


def allowed_values(observation: Observation, tool_schema: dict[str, Any], instruction: str,
                   secret_names: Iterable[str] = ()) -> dict[str, list[Any]]:
    """What a tool call's arguments may be: the fitting refs, and for each argument the tool marks
    `x-verbatim` (text to type, an option to pick) a run of the instruction's words or a secret's
    placeholder, since a step names its value, and where it marks `x-links` (a URL to open) also
    a link target on the page; so no executor can type or open a value nobody gave."""
    allowed = allowed_refs(observation, tool_schema)
    spans = verbatim_spans(instruction, secret_names)
    for name, prop in tool_schema.get("properties", {}).items():
        values = spans + [u for u in link_urls(observation.snapshot) if u not in spans] \
            if prop.get("x-links") else spans
        if prop.get("x-verbatim") and values:
            allowed["/" + name] = values
    return allowed


def verbatim_spans(instruction: str, secret_names: Iterable[str] = ()) -> list[str]:
    """Every run of up to VERBATIM_WORDS whole words of the instruction, also without the quotes
    around it and the punctuation after it, then each secret's placeholder; no repeats."""
    words = instruction.split()
    spans: dict[str, None] = {}
    for i in range(len(words)):
        for j in range(i + 1, min(len(words), i + VERBATIM_WORDS) + 1):
            span = " ".join(words[i:j])
            bare = span.rstrip(".,;:!?")
            for variant in (span, span.strip(QUOTES), bare, bare.strip(QUOTES)):
                if variant:
                    spans[variant] = None
    for name in secret_names:
        spans["{{secret:" + name + "}}"] = None
    return list(spans)


def tool_call(step: Step, fills: list[FillResult]) -> tuple[str, dict[str, Any]]:
    """The tool name and arguments of an act step or a targeted code step, once filled."""
    if step.kind == "code":
        return "type", {"ref": fills[1].value["ref"], "text": fills[0].value}
    return step.tool or "", step.args if step.args is not None else fills[0].value
