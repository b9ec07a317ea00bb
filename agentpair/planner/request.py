"""What the planner is asked and answers, as data: PlanRequest (the task, the page in short, the run so
far), PlanReply, the plan's JSON schema and its shapes, and the prompt's text. No endpoint here:
agentpair.planner.client asks one.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from agentpair.llm.endpoint import Attempt
from agentpair.models import Plan, StepKind, StepRecord, Task
from agentpair.planner.language import Goal, parse_goal
from agentpair.planner.page_view import PageNames, compact_page, page_names
from agentpair.planner.tool_view import tool_line
from agentpair.tracing.redaction import Redactor

if TYPE_CHECKING:
    from agentpair.planner.grounding.layer import Grounding


class ToolInfo(BaseModel):
    name: str
    description: str
    args: str = Field("", description="its arguments in words (tool_view.told_args), told where tools are described")
    args_schema: dict[str, Any] | None = Field(None, description="single-model mode: the tool's arguments")


class DoneStep(BaseModel):
    """One step of the run as the grounding rules read it: what the plan said and how it ended (the
    planner reads the same step as a line of text: history_line)."""

    iteration: int
    kind: StepKind
    tool: str | None = None
    instruction: str
    target: str | None = Field(None, description="where a code step typed its text")
    args: dict[str, Any] | None = Field(None, description="the tool's arguments the executor gave")
    ok: bool = True
    error: str | None = None
    refused: bool = Field(False, description="a button press refused before its form held what the goal gives")
    disabled: bool = Field(False, description="it failed on a disabled element")


class PlanRequest(BaseModel):
    """Everything the planner sees: the task (secrets as placeholders), the page, memory, history."""

    goal: str
    start_url: str | None = None
    output_schema: dict[str, Any] | None = None
    secret_names: list[str] = Field(default_factory=list)
    url: str = ""
    title: str = ""
    page: str = Field("", description="a short view of the page (page_view.compact_page), or the latest "
                                      "tool results where the run has no page")
    no_page: bool = Field(False, description="the environment shows its tools' results, not a page "
                                             "(agentpair.tools.functions.FunctionTools)")
    names: PageNames = Field(default_factory=PageNames, description="the page's element names, for a "
                                                                    "grounded plan schema (grounding.schema)")
    memory: list[Any] = Field(default_factory=list)
    history: list[str] = Field(default_factory=list, description="the run's latest steps as the planner reads them")
    steps: list[DoneStep] = Field(default_factory=list, description="the same steps as records, for the grounding rules")
    unchanged: list[str] = Field(default_factory=list, description="act steps that, run on this very page, "
                                                                   "left it as it was (grounding.schema offers them no more)")
    tools: list[ToolInfo] = Field(default_factory=list)
    single_model: bool = Field(False, description="the planner writes the one next tool call, arguments "
                                                  "included (agentpair.planner.single_model); no executor runs")
    snapshot: str = Field("", description="single-model mode: the page with its element refs, shown instead of `page`")
    refs: list[str] = Field(default_factory=list, description="single-model mode: the refs on `snapshot`")

    @property
    def parsed_goal(self) -> Goal:
        """The goal as typed values (parsed once per goal text): what every grounding rule reads."""
        return parse_goal(self.goal)


class PlanReply(BaseModel):
    plan: Plan
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    raw: str = ""
    messages: list[dict[str, str]] = Field(default_factory=list, description="the chat messages the planner "
                                           "sent for this plan (a re-ask's too), where it sends any")
    attempts: list[dict[str, Any]] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict, description="where the call's time went, summed "
                                      "over its requests, where the server says (agentpair.llm.llamacpp_server): "
                                      "prompt_n/_ms, predicted_n/_ms, grammar_build_ms, sampler_init_ms, "
                                      "call_ms (in the server), http_ms (the rest of the client's wait)")


class PlannerError(RuntimeError):
    """No valid plan could be had; names the endpoint and the last cause."""

    def __init__(self, message: str, attempts: list[Attempt] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts or []


@runtime_checkable
class Planner(Protocol):
    """What the loop asks for plans: `grounding` is the constraint layer the planner answers under
    (Grounding(None) for none): the loop takes the steps it forces and refuses what it refuses."""

    name: str
    grounding: Grounding

    def identity(self) -> dict[str, Any]: ...

    async def plan(self, request: PlanRequest) -> PlanReply: ...


TEXT = {"type": "string", "minLength": 1, "maxLength": 400}  # bounded free text: templates, answers


INSTRUCTION = {"type": "string", "maxLength": 120}
# an extract step's schema, as far as a grammar can hold it to a JSON Schema: an object type, its
# required names, and a schema object per property (in the order the planner's data writes them)
FIELD_TYPES = ["string", "number", "integer", "boolean"]
EXTRACT_SCHEMA = {"type": "object", "properties": {
    "type": {"const": "object"}, "required": {"type": "array", "items": {"type": "string"}},
    "properties": {"type": "object", "additionalProperties": {  # each fact a JSON Schema type, no made-up one
        "type": "object", "required": ["type"], "properties": {"type": {"enum": FIELD_TYPES}}}}}}
MAX_PLAN_STEPS = 6  # the most steps one plan may hold


def step_shape(kind: str, props: dict[str, Any], required: list[str],
               instruction: dict[str, Any] = INSTRUCTION) -> dict[str, Any]:
    """One step kind's JSON schema: its constant kind, its instruction, its own fields."""
    return {"type": "object", "additionalProperties": False, "required": ["kind", "instruction", *required],
            "properties": {"kind": {"const": kind}, "instruction": instruction, **props}}


def plan_object(steps: list[dict[str, Any]], max_steps: int = MAX_PLAN_STEPS) -> dict[str, Any]:
    """A plan's JSON schema: a thought and 1..max_steps steps, each one of the `steps` shapes."""
    return {
        "type": "object", "additionalProperties": False, "required": ["thought", "steps"],
        "properties": {
            "thought": {"type": "string", "maxLength": 120},
            "steps": {"type": "array", "minItems": 1, "maxItems": max_steps, "items": {"anyOf": steps}},
        },
    }


def finish_shape(output_schema: dict[str, Any] | None) -> dict[str, Any]:
    return step_shape("finish", {"answer": output_schema or TEXT}, ["answer"])


def plan_schema(tool_names: list[str], output_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON schema a planner answers under: one shape per step kind, tools as an enum.

    Self-contained (no $ref) and bounded in length, so that grammar-constrained servers such as
    llama.cpp can compile it; a plan valid under it also validates as a `Plan`.
    """
    tool = {"enum": tool_names} if tool_names else {"type": "string", "minLength": 1}
    return plan_object([
        step_shape("act", {"tool": tool}, ["tool"]),
        step_shape("extract", {"schema": EXTRACT_SCHEMA}, ["schema"]),
        step_shape("code", {"template": TEXT, "target": {"type": "string", "maxLength": 120}}, ["template"]),
        finish_shape(output_schema),
    ])


def done_step(record: StepRecord) -> DoneStep:
    step = record.step
    return DoneStep(iteration=record.iteration, kind=step.kind, tool=step.tool, instruction=step.instruction,
                    target=step.target, args=record.tool_args, ok=record.ok, error=record.error, refused=record.refused,
                    disabled=record.disabled)


def history_line(done: DoneStep) -> str:
    """One executed step as the planner reads it in the history."""
    what = f"{done.kind} {done.tool}" if done.tool else done.kind
    outcome = "ok" if done.ok else f"FAILED: {done.error}"
    args = f" {json.dumps(done.args, ensure_ascii=False)}" if done.args else ""
    return f"[{done.iteration}] {what}: {done.instruction}{args} -> {outcome}"


def plan_request(task: Task, observation: Any, memory: list[Any], history: list[StepRecord],
                 tools: list[ToolInfo], unchanged: list[str] | None = None) -> PlanRequest:
    """Build the planner's view: short page text (or the tools' results, as they are), task facts,
    and no secret values; `unchanged`: the steps that, run on this page as it is, changed nothing."""
    snapshot = getattr(observation, "snapshot", "") or ""
    no_page = getattr(observation, "kind", "page") == "results"
    steps = [done_step(r) for r in history[-12:]]
    request = PlanRequest(
        goal=task.goal,
        start_url=task.start_url,
        output_schema=task.output_schema,
        secret_names=sorted(task.secrets),
        url=getattr(observation, "url", ""),
        title=getattr(observation, "title", ""),
        page=snapshot if no_page else compact_page(snapshot),
        no_page=no_page,
        names=PageNames() if no_page else page_names(snapshot, getattr(observation, "non_submit_buttons", [])),
        memory=memory,
        history=[history_line(done) for done in steps],
        steps=steps,
        unchanged=unchanged or [],
        tools=tools,
    )
    if not task.secrets:
        return request
    return PlanRequest.model_validate(Redactor(task.secrets).value(request.model_dump()))


SYSTEM_PROMPT = """Plan a web agent's next steps on the page shown, as JSON. Step kinds:
act: "tool" from Tools; "instruction" names the element and value, e.g. "type Paris into the City field".
extract: "schema" is a JSON schema of the facts to read.
code: "template" has holes like {{name:16}}; "target" is the field to type it into.
finish: "answer" is the final answer.
Plan only for this page; you see the next one after. Repair FAILED steps. Secrets stay {{secret:NAME}}."""

TOOLS_SYSTEM_PROMPT = """Plan an agent's next steps with the tools listed, as JSON. Step kinds:
act: "tool" from Tools; "instruction" says each argument's value, e.g. "convert 12.5 from km to mi".
finish: "answer" is the final answer.
Results shows what the latest calls returned: write the values you need from it into later steps and \
the answer; you see the next results after. Repair FAILED steps. Secrets stay {{secret:NAME}}."""


def system_prompt(request: PlanRequest) -> str:
    """The paired planner's system prompt: for a page, or for tools where the run has none."""
    return TOOLS_SYSTEM_PROMPT if request.no_page else SYSTEM_PROMPT


def render_user_message(request: PlanRequest, describe_tools: bool = False) -> str:
    """Short, since every token costs a small local planner time: tool names only, unless
    `describe_tools` (a capable endpoint's planner) or a single model, which writes arguments."""
    parts = [f"Goal: {request.goal}"]
    if request.output_schema:
        parts.append(f"Answer schema: {json.dumps(request.output_schema)}")
    if request.secret_names:
        parts.append("Secrets: " + ", ".join("{{secret:" + n + "}}" for n in request.secret_names))
    if request.single_model:
        parts.append("Tools: " + "; ".join(f"{t.name}: {t.description}" for t in request.tools))
    elif describe_tools:
        parts.append("Tools:\n" + "\n".join(tool_line(t.name, t.description, t.args) for t in request.tools))
    else:
        parts.append("Tools: " + ", ".join(t.name for t in request.tools))
    if request.memory:
        parts.append(f"Extracted: {json.dumps(request.memory, ensure_ascii=False)}")
    if request.history:
        parts.append("Done:\n" + "\n".join(request.history))
    if request.no_page:
        parts.append(f"Results:\n{request.page}")
    else:
        parts.append(f"Page: {request.title} ({request.url})\n{request.snapshot if request.single_model else request.page}")
    return "\n".join(parts)
