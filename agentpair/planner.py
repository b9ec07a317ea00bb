"""The planner: what it is asked (PlanRequest), what it answers (PlanReply), and OpenAIPlanner.

OpenAIPlanner asks any OpenAI-compatible endpoint for a plan under the Plan JSON schema,
validates it with pydantic, and re-asks once with the validation error.
"""

from __future__ import annotations

import json
import os
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field, ValidationError

from agentpair.endpoint import Attempt, Endpoint, EndpointError, StructuredOutput
from agentpair.models import Plan, StepRecord, Task
from agentpair.planner_view import PageNames, compact_page, page_names
from agentpair.redaction import Redactor


class ToolInfo(BaseModel):
    name: str
    description: str
    args_schema: dict[str, Any] | None = Field(None, description="single-model mode: the tool's arguments")


class PlanRequest(BaseModel):
    """Everything the planner sees: the task (secrets as placeholders), the page, memory, history."""

    goal: str
    start_url: str | None = None
    output_schema: dict[str, Any] | None = None
    secret_names: list[str] = Field(default_factory=list)
    url: str = ""
    title: str = ""
    page: str = Field("", description="a short view of the page (planner_view.compact_page)")
    names: PageNames = Field(default_factory=PageNames, description="the page's element names, for a "
                                                                    "grounded plan schema (plan_grounding)")
    memory: list[Any] = Field(default_factory=list)
    history: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list, description="act steps that, run on this very page, "
                                                                   "left it as it was (plan_grounding offers them no more)")
    tools: list[ToolInfo] = Field(default_factory=list)
    single_model: bool = Field(False, description="the planner writes the one next tool call, arguments "
                                                  "included (agentpair.single_model); no executor runs")
    snapshot: str = Field("", description="single-model mode: the page with its element refs, shown instead of `page`")
    refs: list[str] = Field(default_factory=list, description="single-model mode: the refs on `snapshot`")


class PlanReply(BaseModel):
    plan: Plan
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    raw: str = ""
    attempts: list[dict[str, Any]] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict, description="where the call's time went, summed "
                                      "over its requests, where the server says (agentpair.planner_server): "
                                      "prompt_n/_ms, predicted_n/_ms, grammar_build_ms, sampler_init_ms, "
                                      "call_ms (in the server), http_ms (the rest of the client's wait)")


class PlannerError(RuntimeError):
    """No valid plan could be had; names the endpoint and the last cause."""

    def __init__(self, message: str, attempts: list[Attempt] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts or []


@runtime_checkable
class Planner(Protocol):
    name: str

    def identity(self) -> dict[str, Any]: ...

    async def plan(self, request: PlanRequest) -> PlanReply: ...


TEXT = {"type": "string", "minLength": 1, "maxLength": 400}  # bounded free text: templates, answers


INSTRUCTION = {"type": "string", "maxLength": 120}
# an extract step's schema, as far as a grammar can hold it to a JSON Schema: an object type, its
# required names, and a schema object per property (in the order the planner's data writes them)
EXTRACT_SCHEMA = {"type": "object", "properties": {
    "type": {"const": "object"}, "required": {"type": "array", "items": {"type": "string"}},
    "properties": {"type": "object", "additionalProperties": {"type": "object"}}}}
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


def history_line(record: StepRecord) -> str:
    """One executed step as the planner reads it in the history."""
    step = record.step
    what = f"{step.kind} {step.tool}" if step.tool else step.kind
    outcome = "ok" if record.ok else f"FAILED: {record.error}"
    args = f" {json.dumps(record.tool_args, ensure_ascii=False)}" if record.tool_args else ""
    return f"[{record.iteration}] {what}: {step.instruction}{args} -> {outcome}"


def plan_request(task: Task, observation: Any, memory: list[Any], history: list[StepRecord],
                 tools: list[ToolInfo], unchanged: list[str] | None = None) -> PlanRequest:
    """Build the planner's view: short page text, task facts, and no secret values; `unchanged`:
    the steps that, run on this page as it is, changed nothing."""
    snapshot = getattr(observation, "snapshot", "") or ""
    request = PlanRequest(
        goal=task.goal,
        start_url=task.start_url,
        output_schema=task.output_schema,
        secret_names=sorted(task.secrets),
        url=getattr(observation, "url", ""),
        title=getattr(observation, "title", ""),
        page=compact_page(snapshot),
        names=page_names(snapshot),
        memory=memory,
        history=[history_line(r) for r in history[-12:]],
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


def render_user_message(request: PlanRequest) -> str:
    """Short, since every token costs a small local planner time: tool names only (a single
    model, which writes arguments, also gets their descriptions)."""
    parts = [f"Goal: {request.goal}"]
    if request.output_schema:
        parts.append(f"Answer schema: {json.dumps(request.output_schema)}")
    if request.secret_names:
        parts.append("Secrets: " + ", ".join("{{secret:" + n + "}}" for n in request.secret_names))
    if request.single_model:
        parts.append("Tools: " + "; ".join(f"{t.name}: {t.description}" for t in request.tools))
    else:
        parts.append("Tools: " + ", ".join(t.name for t in request.tools))
    if request.memory:
        parts.append(f"Extracted: {json.dumps(request.memory, ensure_ascii=False)}")
    if request.history:
        parts.append("Done:\n" + "\n".join(request.history))
    parts.append(f"Page: {request.title} ({request.url})\n{request.snapshot if request.single_model else request.page}")
    return "\n".join(parts)


def plan_messages(request: PlanRequest) -> list[dict[str, str]]:
    """The chat messages of a planner call; planner training data is built with this too."""
    return [{"role": "system", "content": prompt_and_schema(request)[0]},
            {"role": "user", "content": render_user_message(request)}]


def prompt_and_schema(request: PlanRequest) -> tuple[str, dict[str, Any]]:
    """The system prompt and plan schema a request is answered under: paired or single-model."""
    if request.single_model:
        from agentpair import single_model  # it builds on this module

        return single_model.SYSTEM_PROMPT, single_model.plan_schema(request)
    return SYSTEM_PROMPT, plan_schema([t.name for t in request.tools], request.output_schema)


class OpenAIPlanner:
    """A planner on any OpenAI-compatible endpoint (OpenAI, OpenRouter, vLLM, llama.cpp, ...).

    Defaults: `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `AGENTPAIR_PLANNER_MODEL`.
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        structured_output: StructuredOutput = "auto",
        timeout_s: float = 60.0,
        max_attempts: int = 4,
        backoff_s: float = 0.5,
        max_tokens: int = 1024,
        grounded: bool = False,
    ) -> None:
        """grounded: answer under the schema narrowed to the page and task (plan_grounding), for a
        server that compiles regex patterns into its grammar (llama.cpp's does)."""
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        model = model or os.environ.get("AGENTPAIR_PLANNER_MODEL") or "gpt-4o-mini"
        self.endpoint = Endpoint(
            base_url, model, api_key or os.environ.get("OPENAI_API_KEY"),
            structured_output=structured_output, timeout_s=timeout_s, max_attempts=max_attempts,
            backoff_s=backoff_s, max_tokens=max_tokens,
        )
        self.name = f"openai:{self.endpoint.model}"
        self.grounded = grounded

    @property
    def api_key(self) -> str:
        return self.endpoint.api_key

    def identity(self) -> dict[str, Any]:
        return {"kind": "openai", **self.endpoint.identity(), "grounded": self.grounded}

    async def plan(self, request: PlanRequest) -> PlanReply:
        if self.grounded and request.single_model:
            from agentpair import single_model  # it builds on this module

            schema = single_model.plan_schema(request, grounded=True)
        elif self.grounded:
            from agentpair.plan_grounding import grounded_plan_schema  # it builds on this module

            schema = grounded_plan_schema(request)
        else:
            schema = prompt_and_schema(request)[1]
        messages = plan_messages(request)
        attempts: list[Attempt] = []
        usage = [0, 0]
        timings: dict[str, float] = {}
        error = ""
        for _ in range(2):
            try:
                completion = await self.endpoint.complete_json(messages, schema, "plan")
            except EndpointError as exc:
                raise PlannerError(str(exc), attempts + exc.attempts) from exc
            attempts += completion.attempts
            usage[0] += completion.input_tokens
            usage[1] += completion.output_tokens
            if completion.timings:
                waited = completion.attempts[-1].ms - completion.timings.get("call_ms", 0.0)
                for key, value in {**completion.timings, "http_ms": max(0.0, waited)}.items():
                    timings[key] = timings.get(key, 0.0) + value
            try:
                plan = Plan.model_validate(json.loads(completion.text, strict=False))
            except (json.JSONDecodeError, ValidationError) as exc:
                error = _short_error(exc) if isinstance(exc, ValidationError) else f"not JSON: {exc}"
                messages += [
                    {"role": "assistant", "content": completion.text},
                    {"role": "user", "content": f"That plan is invalid: {error}. Answer again with "
                                                 "a JSON plan that matches the schema."},
                ]
                continue
            return PlanReply(
                plan=plan, model=completion.model, input_tokens=usage[0], output_tokens=usage[1],
                raw=completion.text, attempts=[vars(a) for a in attempts], timings=timings,
            )
        raise PlannerError(f"{self.endpoint.base_url} (model {self.endpoint.model}) gave an invalid plan "
                           f"twice: {error}", attempts)

    async def aclose(self) -> None:
        await self.endpoint.aclose()


def _short_error(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'plan'}: {e['msg']}" for e in exc.errors()[:5])
